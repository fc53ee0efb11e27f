"""Alpha-beta search: a generic compiled negamax for every boardzoo game, plus exact solvers.

:class:`AlphaBetaAgent` first asks the game's knowledge (``game.knowledge``, see
:mod:`boardzoo.knowledge`) for an exact solve; when there is none, or the position is out of
the solver's reach, it runs a negamax alpha-beta search compiled with numba:

* iterative deepening: depth 1, 2, ... until ``depth`` or ``time_limit``; the best move of
  the last completed depth is played. The clock (:func:`boardzoo.timecontrol.monotonic`) is read
  every 1,024 nodes and an unfinished depth is abandoned; depth 1 always completes.
* principal-variation search (null windows after the first move) on integer scores;
* a transposition table in preallocated numpy arrays (``2**tt_bits`` entries, always
  replace, stamped with a search number so every search starts from an empty table), keyed
  by the knowledge's ``key_kernel``; a game without one gets a hash of its whole
  state array (correct, but slower, and transpositions that differ in move history, e.g.
  a stored move list, are not merged);
* move ordering: the table's move, the knowledge's tactical moves by their value, two killer
  moves per ply, the history heuristic, then a seeded random order, which is also how
  ``seed`` breaks ties among equal moves;
* where the knowledge has tactics (``tactical_kernel``, ``in_check_kernel``; chess): a
  quiescence search at the horizon through the tactical moves (standing pat on the
  evaluation; every move when in check), a ply more for a side in check, and, where the
  knowledge allows, null-move pruning (``null_move_kernel``: a pass searched
  :data:`_NULL_REDUCTION` plies shallower, never in check) and late-move reductions
  (``late_move_reductions``: quiet moves after the first :data:`_FULL_MOVES` a ply
  shallower, two after three times as many, searched again in full when they beat alpha).
  Games without them compile none of it.

Values are from the side to move's view. At the horizon the search scores a position with
``evaluator`` if given, else the knowledge's ``evaluate_kernel``, else 0 (each in
(-1, 1)). A finished game scores its ``exact_value`` (knowledge; else +1/0/-1),
distance-adjusted so that the search prefers the fastest win and the slowest loss. A search
whose leaves were all finished games is exact: it stops deepening and reports the value in
the game's exact unit (Connect Four: Pons' score; Othello: final disc difference; other
games: +1/0/-1). Otherwise the value is on the heuristic scale: in (-1, 1), or exactly +1/-1
for a proven win/loss. Small games (tic-tac-toe, small Nim) are solved exactly this way.

The search is compiled once per game and cached on disk (its tag names the game,
:mod:`boardzoo.envs.tags`); with a user's ``evaluator`` it is compiled once per process. Either
happens on the first search, before the ``time_limit`` clock starts (a game clock, which the
arena runs, does charge it).

Clocks: ``act(env, clock=...)`` / ``search(env, clock=...)`` take a
:class:`~boardzoo.timecontrol.ClockView`; the move gets a target and a maximum time
(:func:`~boardzoo.timecontrol.move_budget`): a new iteration starts only when it is expected
to end by the target (iterations take about as long as the last one times its growth),
or by the maximum while the decision is unstable (the best move changed at the last
iteration); an iteration running past the maximum is abandoned. A single legal move is
played at once. ``on_progress(analysis)`` is called after every completed iteration and
``stop`` (a ``threading.Event``, set from another thread: the compiled search releases the
GIL) makes the search return the best move of the last completed iteration.

>>> from boardzoo.envs import tictactoe_v0
>>> env = tictactoe_v0.env()
>>> env.reset(options={"position": "XX.OO...."})
>>> result = AlphaBetaAgent(depth=9, seed=0).search(env)
>>> result.action, result.value, result.exact
(2, 1, True)
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import njit
from numba.extending import overload

from boardzoo.agents.move import (
    SearchingAgent,
    SearchResult,
    analysis_of,
    check_time_limit,
    outcome_name,
)
from boardzoo.analysis import EXACT, HEURISTIC, ProgressFn
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, TO_PLAY, Game
from boardzoo.envs.tags import apply, game_function, game_tag, legal_mask, tag_game, tag_variant
from boardzoo.errors import InvalidOptionError, excerpt
from boardzoo.rng import scramble
from boardzoo.timecontrol import SearchDeadlines, monotonic, watch_stop
from boardzoo.wrappers.model import EnvModel

__all__ = ["AlphaBetaAgent", "SearchResult", "DEFAULT_TIME_LIMIT", "MAX_DEPTH"]

#: seconds per move when neither ``depth`` nor ``time_limit`` is given
DEFAULT_TIME_LIMIT = 1.0
#: deepest iteration (plies); the work arrays are sized for it
MAX_DEPTH = 128
#: plies the quiescence search and check extensions may go beyond the deepest iteration
QUIESCENCE_PLIES = 32

# Integer scores: a heuristic value x in (-1, 1) is x * EVAL_SCALE; a finished game with
# exact value v reached p plies from the root scores sign(v) * (WIN + |v| * UNIT + UNIT - 1 - p)
# (a draw scores 0), so wins beat every heuristic value, bigger wins beat smaller ones and
# nearer wins beat farther ones.
EVAL_SCALE = 1_000_000
WIN = 1 << 40
UNIT = 4096
INFINITY = 1 << 60

# transposition-table entry fields (``info`` columns) and bound types
_DEPTH, _FLAG, _MOVE, _STAMP = 0, 1, 2, 3
_EXACT, _LOWER, _UPPER = 0, 1, 2
_SOLVED_DEPTH = 1 << 20  # depth stored for bounds that rest on finished games only
# ``stats`` slots
_NODES, _HORIZON, _ABORTED, _ABORTABLE, _STAMP_NOW, _ROOT_MOVE, _STOP = 0, 1, 2, 3, 4, 5, 6
_STATS = 7
_CHECK_EVERY = 1023  # read the clock when nodes & _CHECK_EVERY == 0
_TT_MOVE, _KILLER = 1 << 58, 1 << 56
# booleans passed to the recursive search as typed values: literal True/False arguments would
# make specialisations that numba's cache cannot link in another process (numba issue 6713)
_YES, _NO = np.bool_(True), np.bool_(False)
_TACTICAL = 3 << 56  # tactical moves come after the table's move, before the killers
#: null-move pruning: the reduction, and the least depth it is tried at
_NULL_REDUCTION, _NULL_MIN_DEPTH = 2, 3
#: late-move reductions: moves searched in full first, the least depth reduced at
_FULL_MOVES, _LMR_MIN_DEPTH = 3, 3


class _Table(NamedTuple):
    """Transposition table: ``keys`` uint64 [n], ``scores`` int64 [n] (mate scores relative to
    the entry's node), ``info`` int32 [n, 4] (depth, bound type, best move, search stamp)."""

    keys: np.ndarray
    scores: np.ndarray
    info: np.ndarray


class _Work(NamedTuple):
    """Per-search scratch, one row per ply: states, legal masks, ordered moves and their
    priorities, killers, the triangular PV table; plus history and tie-break ranks per
    action and the ``stats`` counters."""

    states: np.ndarray
    masks: np.ndarray
    moves: np.ndarray
    priorities: np.ndarray
    killers: np.ndarray
    pv: np.ndarray
    pv_length: np.ndarray
    history: np.ndarray
    tie_rank: np.ndarray
    root_moves: np.ndarray
    stats: np.ndarray


# ------------------------------------------------------------------- default kernels
@njit(cache=True)
def _no_evaluation(state):
    """Heuristic value 0 for games without an evaluation."""
    return 0.0


@njit(cache=True)
def _outcome_value(state):
    """+1 / 0 / -1 for the side to move of a finished game (no exact_value known)."""
    outcome = np.int64(state[OUTCOME])
    if outcome == DRAW:
        return 0
    return 1 if outcome == np.int64(state[TO_PLAY]) + 1 else -1


@njit(cache=True)
def _quiet(state, action):
    """Every move quiet, for games without tactics."""
    return 0


@njit(cache=True)
def _no_move_list(state, out, tactical_only):
    """Never called: games without a ``moves_kernel`` read their moves off the legal mask."""
    return 0


@njit(cache=True)
def _never_in_check(state):
    return False


@njit(cache=True)
def _no_null_move(state):
    return False


@njit(cache=True)
def _state_key(state):
    """Fallback position key: a hash of every entry of the state array."""
    key = np.uint64(0x9E3779B97F4A7C15)
    for i in range(state.shape[0]):
        key = scramble(key ^ np.uint64(state[i]))
    return key


# -------------------------------------------------------------------- score helpers
@njit(cache=True)
def _terminal_score(value, ply):
    """Integer score of a finished game worth ``value`` (exact unit), ``ply`` from the root."""
    if value == 0:
        return 0
    magnitude = WIN + abs(value) * UNIT + UNIT - 1 - ply
    return magnitude if value > 0 else -magnitude


@njit(cache=True)
def _heuristic_score(value):
    """Integer score of a heuristic value, clipped into (-1, 1)."""
    score = np.int64(value * EVAL_SCALE)
    return max(-EVAL_SCALE + 1, min(EVAL_SCALE - 1, score))


@njit(cache=True)
def _to_table(score, ply):
    """Mate scores counted from this node rather than from the root (for the table)."""
    if score >= WIN:
        return score + ply
    if score <= -WIN:
        return score - ply
    return score


@njit(cache=True)
def _from_table(score, ply):
    if score >= WIN:
        return score - ply
    if score <= -WIN:
        return score + ply
    return score


# ---------------------------------------------------------------------- the search
@njit
def _tick(stats, deadline):
    """Count a node; abort an abortable iteration once the deadline has passed or a stop was
    asked for (``stats[_STOP]``, set by another thread)."""
    stats[_NODES] += 1
    if (
        stats[_NODES] & _CHECK_EVERY == 0
        and stats[_ABORTABLE]
        and (stats[_STOP] or monotonic() > deadline)
    ):
        stats[_ABORTED] = 1


@njit(cache=True)
def _lookup(table, stats, key, ply, depth, alpha, beta):
    """(slot, stored move or -1, settled, score) for ``key``: ``settled`` when this search's
    entry holds a bound that decides the node at this depth and window (never at the root);
    a decision resting on heuristic values counts as a horizon evaluation."""
    slot = np.int64(scramble(key) & np.uint64(table.keys.shape[0] - 1))
    if table.keys[slot] != key or table.info[slot, _STAMP] != stats[_STAMP_NOW]:
        return slot, -1, False, 0
    move = table.info[slot, _MOVE]
    if ply == 0 or table.info[slot, _DEPTH] < depth:
        return slot, move, False, 0
    score = _from_table(table.scores[slot], ply)
    flag = table.info[slot, _FLAG]
    settled = (
        flag == _EXACT or (flag == _LOWER and score >= beta) or (flag == _UPPER and score <= alpha)
    )
    if settled and table.info[slot, _DEPTH] < _SOLVED_DEPTH:
        stats[_HORIZON] += 1
    return slot, move, settled, score


@njit(cache=True)
def _store(table, stats, slot, key, ply, depth, solved, score, alpha, beta, move):
    """Record a node's fail-soft ``score`` searched within (alpha, beta); ``solved`` bounds
    (no horizon evaluation below) are stored as valid at every depth."""
    table.keys[slot] = key
    table.scores[slot] = _to_table(score, ply)
    table.info[slot, _DEPTH] = _SOLVED_DEPTH if solved else depth
    table.info[slot, _FLAG] = _UPPER if score <= alpha else (_LOWER if score >= beta else _EXACT)
    table.info[slot, _MOVE] = move
    table.info[slot, _STAMP] = stats[_STAMP_NOW]


@njit
def _legal_moves(tag, work, ply, tactical_only):
    """Write the legal moves of ``work.states[ply]`` into ``work.moves[ply]`` (with
    ``tactical_only``, where the knowledge has a move list, only those that may be tactical)
    and return how many: the knowledge's ``moves_kernel``, else read off the legal mask."""
    state, moves = work.states[ply], work.moves[ply]
    if has_move_list(tag):
        return move_list(tag, state, moves, tactical_only)
    mask = work.masks[ply]
    legal_mask(tag, state, mask)
    count = 0
    for action in range(mask.shape[0]):
        if mask[action]:
            moves[count] = action
            count += 1
    return count


@njit
def _order_moves(tag, work, ply, count, table_move, tactical_only):
    """Sort the ``count`` moves of ``work.moves[ply]`` in place, best first: the table's
    move, the tactical moves by their value (the knowledge's ``tactical_kernel``), the
    killers, then by history and the seeded tie-break rank; keep only the tactical moves
    when ``tactical_only`` (quiescence), only ``root_moves`` at the root. Returns how many
    were kept."""
    state = work.states[ply]
    moves, priorities = work.moves[ply], work.priorities[ply]
    num_actions = work.history.shape[0]
    n = 0
    for i in range(count):
        action = moves[i]
        if ply == 0 and not work.root_moves[action]:
            continue  # a swindle searches only some of the root's moves
        tactics = tactical_value(tag, state, action)
        if tactical_only and tactics <= 0:
            continue
        if action == table_move:
            priority = _TT_MOVE
        elif tactics > 0:
            priority = _TACTICAL + tactics
        elif action == work.killers[ply, 0]:
            priority = 2 * _KILLER
        elif action == work.killers[ply, 1]:
            priority = _KILLER
        else:
            priority = work.history[action] * num_actions + work.tie_rank[action]
        j = n  # n <= i: the entries shifted up have been read already
        while j > 0 and priorities[j - 1] < priority:
            moves[j], priorities[j] = moves[j - 1], priorities[j - 1]
            j -= 1
        moves[j], priorities[j] = action, priority
        n += 1
    return n


@njit(cache=True)
def _reward_cutoff(work, ply, depth, move):
    """A move that caused a beta cutoff becomes a killer and gains history."""
    if work.killers[ply, 0] != move:
        work.killers[ply, 1] = work.killers[ply, 0]
        work.killers[ply, 0] = move
    work.history[move] += depth * depth


@njit(cache=True)
def _extend_pv(work, ply, move):
    """The PV of ``ply`` becomes ``move`` followed by the PV of ``ply + 1``."""
    child_length = work.pv_length[ply + 1]
    work.pv[ply, 0] = move
    work.pv[ply, 1 : child_length + 1] = work.pv[ply + 1, :child_length]
    work.pv_length[ply] = child_length + 1


@njit
def _negamax(
    tag,
    table,
    work,
    ply,
    depth,
    alpha,
    beta,
    deadline,
    null_allowed,
):
    """Fail-soft negamax score (side to move's view) of ``work.states[ply]`` searched
    ``depth`` plies deep within (alpha, beta); 0 once the iteration is aborted. With the
    knowledge's tactics: a node in check is extended by a ply, the horizon is a quiescence
    search, and (where the knowledge allows) null moves and late-move reductions prune."""
    stats = work.stats
    _tick(stats, deadline)
    work.pv_length[ply] = 0
    if stats[_ABORTED]:
        return 0
    state = work.states[ply]
    if state[OUTCOME] != ONGOING:
        return _terminal_score(exact_value(tag, state), ply)
    checked = in_check(tag, state)
    if checked:
        depth += 1
    if depth <= 0 or ply + 2 >= work.states.shape[0]:
        if has_tactics(tag):
            return _quiesce(tag, work, ply, alpha, beta, deadline, _NO)
        # scored here, not by a call of the recursive _quiesce: that call per leaf (its frame
        # holds the whole workspace) made the search 8-15% slower on games without tactics
        stats[_HORIZON] += 1
        return _heuristic_score(heuristic_value(tag, state))
    key = position_key(tag, state)
    slot, table_move, settled, score = _lookup(table, stats, key, ply, depth, alpha, beta)
    if settled:
        return score
    horizon_before = stats[_HORIZON]
    child = work.states[ply + 1]
    if (null_allowed and uses_null_moves(tag) and not checked and ply > 0
            and depth >= _NULL_MIN_DEPTH and -WIN < beta < WIN):
        child[:] = state
        if null_move(tag, child):
            score = -_negamax(tag, table, work, ply + 1, depth - 1 - _NULL_REDUCTION, -beta,
                              -beta + 1, deadline, _NO)
            if stats[_ABORTED]:
                return 0
            if score >= beta:
                return beta  # never a mate score: a pass proves no mate
    count = _order_moves(tag, work, ply, _legal_moves(tag, work, ply, _NO), table_move, _NO)
    alpha_start, best, best_move = alpha, -INFINITY, -1
    for i in range(count):
        move = work.moves[ply, i]
        child[:] = state
        apply(tag, child, move)
        reduction = 0
        if (reduces_late_moves(tag) and i >= _FULL_MOVES and depth >= _LMR_MIN_DEPTH
                and not checked and work.priorities[ply, i] < _KILLER
                and not in_check(tag, child)):
            reduction = 1 if i < 3 * _FULL_MOVES else 2
        null_window = i > 0  # principal-variation search: prove later moves no better
        while True:
            high = alpha + 1 if null_window else beta
            score = -_negamax(
                tag,
                table,
                work,
                ply + 1,
                depth - 1 - reduction,
                -high,
                -alpha,
                deadline,
                _YES,
            )
            if stats[_ABORTED] or not (alpha < score and (null_window and score < beta
                                                           or reduction > 0)):
                break
            # better after all: search it to full depth, then with the full window
            if reduction > 0:
                reduction = 0
            else:
                null_window = False
        if stats[_ABORTED]:
            return 0
        if score > best:
            best, best_move = score, move
            if ply == 0:
                stats[_ROOT_MOVE] = move
            if score > alpha:
                alpha = score
                _extend_pv(work, ply, move)
                if alpha >= beta:
                    if tactical_value(tag, state, move) <= 0:
                        _reward_cutoff(work, ply, depth, move)
                    break
    _store(
        table,
        stats,
        slot,
        key,
        ply,
        depth,
        stats[_HORIZON] == horizon_before,
        best,
        alpha_start,
        beta,
        best_move,
    )
    return best


@njit
def _quiesce(tag, work, ply, alpha, beta, deadline, new_node):
    """The horizon's score of ``work.states[ply]`` for a game with tactics (side to move's
    view, fail-soft within (alpha, beta)): its evaluation, searched on through the tactical
    moves until the position is quiet (standing pat on the evaluation; in check, every
    move is searched instead). ``new_node``: not yet counted nor checked for the end."""
    stats = work.stats
    state = work.states[ply]
    if new_node:
        _tick(stats, deadline)
        work.pv_length[ply] = 0
        if stats[_ABORTED]:
            return 0
        if state[OUTCOME] != ONGOING:
            return _terminal_score(exact_value(tag, state), ply)
    stats[_HORIZON] += 1
    checked = in_check(tag, state)
    best = -INFINITY
    if not checked:
        best = _heuristic_score(heuristic_value(tag, state))
        if best >= beta or ply + 2 >= work.states.shape[0]:
            return best
        alpha = max(alpha, best)
    elif ply + 2 >= work.states.shape[0]:
        return _heuristic_score(heuristic_value(tag, state))
    tactical_only = not checked
    count = _order_moves(tag, work, ply, _legal_moves(tag, work, ply, tactical_only), -1,
                         tactical_only)
    child = work.states[ply + 1]
    for i in range(count):
        move = work.moves[ply, i]
        child[:] = state
        apply(tag, child, move)
        score = -_quiesce(tag, work, ply + 1, -beta, -alpha, deadline, _YES)
        if stats[_ABORTED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                _extend_pv(work, ply, move)
                if alpha >= beta:
                    break
    return best


@game_function("the alpha-beta search", nogil=True)
def _iterate(tag, table, work, depth, deadline):
    """One iteration from the root (``work.states[0]``) to ``depth``; its score, with
    ``stats`` holding nodes, horizon evaluations, the abort flag and the root move."""
    work.stats[_HORIZON] = 0
    work.stats[_ABORTED] = 0
    root, infinity = np.int64(0), np.int64(INFINITY)  # typed, not literal: one specialisation
    return _negamax(
        tag,
        table,
        work,
        root,
        depth,
        -infinity,
        infinity,
        deadline,
        _NO,
    )


# ------------------------------------------------------------------------ the agent
class AlphaBetaAgent(SearchingAgent):
    """Iterative-deepening alpha-beta with a transposition table, plus exact solvers.

    ``depth``: deepest iteration in plies (1..MAX_DEPTH; None: as deep as time allows);
    ``time_limit``: seconds per move (compilation is not counted). With neither, the agent
    searches :data:`DEFAULT_TIME_LIMIT` seconds per move. ``evaluator``: a compiled
    (``@njit``) function ``state -> float`` in (-1, 1) from the side to move's view,
    replacing the game's own evaluation. ``seed`` breaks ties among equal moves.
    ``tt_bits``: the transposition table has ``2**tt_bits`` entries (32 bytes each).

    When ``solver`` is true (the default) and the game's knowledge has ``solve``, it is
    tried first whenever its estimated cost (the knowledge's ``solve_cost``) fits the move's
    time: up to :attr:`solver_share` of the time limit (or of the clock's maximum for the
    move: all but ``search_keeps``), giving up early when the position proves much harder
    than estimated (:func:`~boardzoo.knowledge.base.solve_if_affordable`); alpha-beta gets
    the time left.
    Without a time limit the solver runs on its own deterministic budget where the
    knowledge says the position is within reach. A solution is the answer (``exact=True``),
    except on a clock when it is a draw or a loss and ``swindle`` is true (the default): then
    the move's time goes to alpha-beta among the moves that keep that outcome
    (:mod:`boardzoo.agents.swindle`); the reported value stays the solver's.
    """

    #: the exact solver may take all of a move's time but this share: alpha-beta's own search
    #: proves what the solver proves given the time, so what the rest buys is the first
    #: iterations of the move played when the solver does not finish (FFO #40-#47 need up to
    #: about 70 s of solving; at ``time_limit=120`` the old 0.5 share left #45 unsolved)
    search_keeps = 0.05

    def __init__(
        self,
        depth: int | None = None,
        time_limit: float | None = None,
        evaluator: Any = None,
        seed: int | None = None,
        tt_bits: int = 20,
        solver: bool = True,
        swindle: bool = True,
    ):
        _check_options(depth, time_limit, evaluator, tt_bits)
        self.depth = None if depth is None else int(depth)
        self.time_limit = None if time_limit is None else float(time_limit)
        self._default_budget = self.depth is None and self.time_limit is None  # yields to a clock
        if self._default_budget:
            self.time_limit = DEFAULT_TIME_LIMIT
        self.evaluator = evaluator
        self.tt_bits = int(tt_bits)
        self.exact_solver = bool(solver)
        self.swindle = bool(swindle)
        self._table: _Table | None = None
        self._stamp = 0
        self._compiled: set[type] = set()  # the tags whose search is compiled here
        self.reseed(seed)

    def reseed(self, seed: int | None) -> None:
        """Restart the tie-breaking random stream (the arena does this before every game)."""
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ the engine's part
    def _clock_cap(self) -> float | None:
        """A clock replaces the default time per move; an explicit one caps it."""
        return None if self._default_budget else self.time_limit

    def _check_model(self, model: EnvModel) -> None:
        _game_of(model)

    def _prepare(self, model: EnvModel, root: np.ndarray) -> None:
        """Compile the search for the game (a depth-0 iteration), leaving the tie-break
        stream as it was."""
        tag = self._tag(model)
        if type(tag) in self._compiled:
            return
        self._compiled.add(type(tag))
        stream = self.rng.bit_generator.state
        work = self._workspace(tag, root, model.num_actions)
        self.rng.bit_generator.state = stream
        _iterate(tag, self._transposition_table(), work, 0, np.inf)

    def _search(
        self,
        model: EnvModel,
        state: np.ndarray,
        deadlines: SearchDeadlines,
        on_progress: ProgressFn | None = None,
        stop: threading.Event | None = None,
        root_moves: list[int] | None = None,
    ) -> SearchResult:
        """Iterative deepening until the depth, the ``deadlines``, ``stop`` or an exact
        result is reached; over ``root_moves`` only at the root when given."""
        tag = self._tag(model)
        work = self._workspace(tag, state, model.num_actions)
        if root_moves is not None:
            work.root_moves[:] = False
            work.root_moves[root_moves] = True
        table = self._transposition_table()
        started = monotonic()
        max_depth = MAX_DEPTH if self.depth is None else self.depth
        best: tuple = ()
        nodes, durations = 0, []
        with watch_stop(stop, work.stats, _STOP):
            for depth in range(1, max_depth + 1):
                work.stats[_ABORTABLE] = depth > 1
                began = monotonic()
                score = _iterate(tag, table, work, depth, deadlines.maximum)
                durations.append(monotonic() - began)
                nodes += int(work.stats[_NODES])
                work.stats[_NODES] = 0
                if work.stats[_ABORTED]:
                    break
                exact = bool(work.stats[_HORIZON] == 0)
                pv = work.pv[0, : work.pv_length[0]].tolist()
                changed = bool(best) and best[0] != int(work.stats[_ROOT_MOVE])
                best = (int(work.stats[_ROOT_MOVE]), int(score), exact, depth, pv)
                if on_progress is not None:
                    on_progress(analysis_of(model, self._result(best, nodes, started), False))
                if exact or (stop is not None and stop.is_set()):
                    break
                if not _next_iteration_fits(deadlines, durations, changed):
                    break
        return self._result(best, nodes, started)

    def _tag(self, model: EnvModel) -> tuple:
        """The search's tag: the game, with the user's evaluator where one was given."""
        return game_tag(_game_of(model), evaluation=self.evaluator or "game")

    @staticmethod
    def _result(best: tuple, nodes: int, started: float) -> SearchResult:
        """An iteration's result: its value in the exact unit when exact, else on the
        heuristic scale (exactly +1/-1 for a proven win/loss)."""
        action, score, exact, depth, pv = best
        value = _reported_value(score, exact)
        proven = outcome_name(value) if exact or abs(value) == 1 else None
        return SearchResult(action, value, EXACT if exact else HEURISTIC, exact, proven, depth,
                            nodes, monotonic() - started, pv, "alphabeta")

    def _workspace(self, tag: Any, state: np.ndarray, num_actions: int) -> _Work:
        """Fresh scratch for one search, with the root in row 0 and a new tie-break order
        (rows for the quiescence search beyond the depth where the game has tactics)."""
        plies = (MAX_DEPTH if self.depth is None else self.depth) + 2
        if has_tactics(tag):
            plies += QUIESCENCE_PLIES
        states = np.zeros((plies, state.shape[0]), dtype=state.dtype)
        states[0] = state
        self._stamp += 1
        stats = np.zeros(_STATS, np.int64)
        stats[_STAMP_NOW] = self._stamp
        return _Work(
            states=states,
            masks=np.zeros((plies, num_actions), np.bool_),
            moves=np.zeros((plies, num_actions), np.int64),
            priorities=np.zeros((plies, num_actions), np.int64),
            killers=np.full((plies, 2), -1, np.int64),
            pv=np.zeros((plies, plies), np.int64),
            pv_length=np.zeros(plies, np.int64),
            history=np.zeros(num_actions, np.int64),
            tie_rank=self.rng.permutation(num_actions).astype(np.int64),
            root_moves=np.ones(num_actions, np.bool_),
            stats=stats,
        )

    def _transposition_table(self) -> _Table:
        """The agent's table, allocated on first use (entries of older searches are ignored
        through the search stamp, so it never needs clearing)."""
        if self._table is None:
            size = 1 << self.tt_bits
            self._table = _Table(
                np.zeros(size, np.uint64), np.zeros(size, np.int64), np.zeros((size, 4), np.int32)
            )
        return self._table

    def __getstate__(self) -> dict[str, Any]:
        """Pickles without the transposition table (it is rebuilt on first use)."""
        return {**self.__dict__, "_table": None, "_compiled": set()}

    def __repr__(self) -> str:
        return f"AlphaBetaAgent(depth={self.depth!r}, time_limit={self.time_limit!r})"


#: the least and most an iteration is assumed to take, relative to the one before
_GROWTH_RANGE = (2.0, 8.0)


def _next_iteration_fits(deadlines: SearchDeadlines, durations: list[float],
                         unstable: bool) -> bool:
    """Whether to start another iteration: under a fixed time, while time is left (an
    unfinished one is abandoned); under a clock, when it is expected to end by the target
    (by the maximum while the best move just changed), its time predicted as the last
    iteration's times its growth over the one before."""
    now = monotonic()
    if not deadlines.from_clock:
        return now < deadlines.target
    growth = _GROWTH_RANGE[0]
    if len(durations) >= 2 and durations[-2] > 1e-4:
        growth = min(max(durations[-1] / durations[-2], _GROWTH_RANGE[0]), _GROWTH_RANGE[1])
    end = deadlines.maximum if unstable else deadlines.target
    return now + durations[-1] * growth <= end


def _check_options(depth: Any, time_limit: Any, evaluator: Any, tt_bits: Any) -> None:
    """InvalidOptionError for an option outside its allowed values."""
    if depth is not None and not (_is_int(depth) and 1 <= depth <= MAX_DEPTH):
        raise InvalidOptionError(
            f"AlphaBetaAgent depth={excerpt(depth)}: use an integer 1..{MAX_DEPTH}, or None"
        )
    check_time_limit(time_limit, "AlphaBetaAgent")
    if (
        evaluator is not None
        and not numba.config.DISABLE_JIT
        and not isinstance(evaluator, numba.core.dispatcher.Dispatcher)
    ):
        raise InvalidOptionError(
            f"AlphaBetaAgent evaluator={excerpt(evaluator)}: use a numba @njit function "
            "state -> float in (-1, 1) from the side to move's view"
        )
    if not (_is_int(tt_bits) and 10 <= tt_bits <= 30):
        raise InvalidOptionError(
            f"AlphaBetaAgent tt_bits={excerpt(tt_bits)}: use an integer 10..30")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _game_of(model: EnvModel) -> Game:
    """The boardzoo game behind ``model``; InvalidOptionError for another env (the search
    runs compiled over a game's kernels)."""
    if model.game is None:
        raise InvalidOptionError("AlphaBetaAgent searches boardzoo envs only (compiled kernels)")
    return model.game


# ---------------------------------------------------------- the game's knowledge
def _knowledge_kernel(tag: Any, name: str, default: Any) -> Any:
    """The compiled entry ``name`` of the tag's game's knowledge, or ``default``; a plain
    (numba-compatible) Python function is compiled with its caller."""
    knowledge = tag_game(tag).knowledge
    entry = getattr(knowledge, name, None) if knowledge is not None else None
    if entry is None:
        return default
    return entry if isinstance(entry, numba.core.dispatcher.Dispatcher) else njit(entry)


def heuristic_value(tag, state):
    """The horizon's value of ``state`` (side to move's view, in (-1, 1)): the tag's user
    evaluator, else the knowledge's evaluation, else 0."""
    evaluator = tag_variant(tag, "evaluation")
    if evaluator != "game":
        return evaluator(state)
    return _knowledge_kernel(tag, "evaluate_kernel", _no_evaluation)(state)


def _state_entry(name: str, default: Any, doc: str) -> Any:
    """``entry(tag, state)``: the tag's game's knowledge entry ``name`` (``default`` where
    the game has none) applied to ``state``; compiled, it is a direct call of that kernel."""
    def entry(tag, state):
        return _knowledge_kernel(tag, name, default)(state)

    @overload(entry)
    def _compiled(tag, state):
        kernel = _knowledge_kernel(tag, name, default)
        return lambda tag, state: kernel(state)

    entry.__doc__ = doc
    return entry


position_key = _state_entry(
    "key_kernel", _state_key, "The knowledge's transposition key, else a hash of the whole state.")
exact_value = _state_entry(
    "exact_value", _outcome_value,
    "A finished game's value in the game's exact unit (side to move's view).")
in_check = _state_entry(
    "in_check_kernel", _never_in_check,
    "Whether the side to move is in check (never, for a game without the kernel).")
null_move = _state_entry(
    "null_move_kernel", _no_null_move,
    "Pass in place where the knowledge allows it (False: not allowed here).")


@overload(heuristic_value)
def _heuristic_value(tag, state):
    evaluator = tag_variant(tag, "evaluation")
    kernel = (_knowledge_kernel(tag, "evaluate_kernel", _no_evaluation) if evaluator == "game"
              else evaluator)
    return lambda tag, state: kernel(state)


def tactical_value(tag, state, action):
    """The knowledge's value of a tactical move (> 0), 0 for a quiet one."""
    return _knowledge_kernel(tag, "tactical_kernel", _quiet)(state, action)


def _has_entry(tag: Any, name: str) -> bool:
    knowledge = tag_game(tag).knowledge
    return knowledge is not None and bool(getattr(knowledge, name, None))


def has_tactics(tag):
    """Whether the game's knowledge names tactical moves (quiescence, check extensions)."""
    return _has_entry(tag, "tactical_kernel")


def uses_null_moves(tag):
    return _has_entry(tag, "null_move_kernel")


def reduces_late_moves(tag):
    return _has_entry(tag, "late_move_reductions") and _has_entry(tag, "tactical_kernel")


def move_list(tag, state, out, tactical_only):
    """The knowledge's move list: the legal actions written into ``out``, their count."""
    return _knowledge_kernel(tag, "moves_kernel", _no_move_list)(state, out, tactical_only)


@overload(move_list)
def _move_list(tag, state, out, tactical_only):
    kernel = _knowledge_kernel(tag, "moves_kernel", _no_move_list)
    return lambda tag, state, out, tactical_only: kernel(state, out, tactical_only)


def has_move_list(tag):
    """Whether the game's knowledge writes its legal moves as a list (``moves_kernel``)."""
    return _has_entry(tag, "moves_kernel")


@overload(tactical_value)
def _tactical_value(tag, state, action):
    kernel = _knowledge_kernel(tag, "tactical_kernel", _quiet)
    return lambda tag, state, action: kernel(state, action)


def _flag_overload(function: Any) -> None:
    """Compile ``function(tag)`` to the constant it has for the tag's game, so that the
    search's branches for knowledge a game lacks are compiled out."""
    @overload(function)
    def _constant(tag):
        value = function(tag)
        return lambda tag: value


for _flag in (has_tactics, uses_null_moves, reduces_late_moves, has_move_list):
    _flag_overload(_flag)


def _reported_value(score: int, exact: bool) -> float | int:
    """A root score as SearchResult.value: the exact unit when exact, else (-1, 1) / +-1."""
    sign = 1 if score > 0 else -1
    if exact:
        return sign * ((abs(score) - WIN) // UNIT) if abs(score) >= WIN else 0
    if abs(score) >= WIN:
        return float(sign)
    return score / EVAL_SCALE
