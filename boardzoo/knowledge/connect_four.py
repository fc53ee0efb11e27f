"""Connect Four knowledge: position key, a threat evaluation, exact values and an exact solver.

Scores follow Pascal Pons' convention (side to move's view): 0 a draw; a win with the
side to move's ``s``-th stone scores ``rows * columns / 2 + 1 - s`` (22 - s on 6x7, so a
faster win scores more), a loss the negative of the winner's score. On 6x7 the range is
-18..18.

The solver (:func:`solve`, standard 6x7 board only) follows Pons' tutorial
(blog.gamesolver.org, parts 1-12, without the opening book): negamax over the bitboards of
:mod:`boardzoo.envs.connect_four`, null-window searches that bisect the score range, a
transposition table of upper and lower bounds (2**23 entries, 40 MiB, owned by a
:class:`Solver`: made on its first solve, freed by ``release()``; a salt per solve keeps
solves independent of each other), moves that hand the opponent an immediate win pruned,
and the other moves tried in order of the number of winning cells they create, centre
columns first on ties.

"Within reach" policy: :func:`solve` always attempts the position and gives up (returns
None) when ``time_limit`` seconds or ``max_nodes`` nodes are spent, or within milliseconds
of its ``stop`` event being set (the search runs without the GIL; a watching thread flags it:
:func:`boardzoo.timecontrol.watch_stop`). With no ``time_limit``
the node budget defaults to :data:`DEFAULT_MAX_NODES`, so a call without a time limit is
deterministic and bounded (well under a second). Middle and end games (more than about
14 stones) solve in milliseconds; the opening needs far more than the default budget.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from boardzoo.envs.bitboard import popcount
from boardzoo.envs.connect_four import (
    COLUMNS,
    CURRENT,
    MASK,
    ROWS,
    board_mask,
    playable_cells,
    position_key,
    winning_cells,
)
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, PLY
from boardzoo.knowledge import Solution
from boardzoo.knowledge.base import Knowledge
from boardzoo.timecontrol import monotonic, watch_stop

__all__ = [
    "KNOWLEDGE",
    "DEFAULT_MAX_NODES",
    "key_kernel",
    "evaluate_kernel",
    "exact_value",
    "solve",
    "solve_cost",
    "solve_position",
    "Solver",
    "SOLVER",
]

#: node budget of :func:`solve` when it has no time limit (about 0.3 s of search)
DEFAULT_MAX_NODES = 2_000_000

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


# ------------------------------------------------------------------------ key, value
@njit(cache=True)
def key_kernel(state):
    """Unique position key (Pons' ``current + mask``); transpositions share it."""
    return position_key(state[CURRENT], state[MASK])


@njit(cache=True)
def exact_value(state):
    """Pons' score of a finished game from the side to move's view: 0 for a draw, else
    minus the winner's score (the side to move at the end is the one that lost)."""
    if state[OUTCOME] == DRAW or state[OUTCOME] == ONGOING:
        return 0
    stones = popcount(state[MASK])
    cells = np.int64(state[ROWS]) * np.int64(state[COLUMNS])
    return -((cells + 2 - stones) // 2)


# ------------------------------------------------------------------------- evaluation
@njit(cache=True)
def _rows_pattern(rows, columns, parity):
    """Bitboard of the cells whose row (0 = bottom) has the given parity (0 or 1)."""
    column = _ZERO
    for r in range(parity, rows, 2):
        column |= _ONE << np.uint64(r)
    cells = _ZERO
    for c in range(columns):
        cells |= column << np.uint64(c * (rows + 1))
    return cells


@njit(cache=True)
def _window_counts(own, other, board, step):
    """Counts of the four-cell windows along bit distance ``step`` that hold none of
    ``other``'s stones and at least 1, 2 and 3 of ``own``'s (a tuple of three ints)."""
    free = board & ~other
    two, three = step + step, step + step + step
    starts = free & (free >> step) & (free >> two) & (free >> three)
    a, b, c, d = own, own >> step, own >> two, own >> three
    one_up = a | b | c | d
    two_up = (a & b) | (a & c) | (a & d) | (b & c) | (b & d) | (c & d)
    three_up = (a & b & (c | d)) | (c & d & (a | b))
    return (
        popcount(starts & one_up),
        popcount(starts & two_up),
        popcount(starts & three_up),
    )


@njit(cache=True)
def _line_score(own, other, rows, columns):
    """Weighted open windows of ``own``: 1 per window with one stone, 4 with two, 9 with
    three (windows blocked by ``other`` count nothing)."""
    board = board_mask(rows, columns)
    height = np.uint64(rows)
    total = 0.0
    for step in (_ONE, height, height + _ONE, height + np.uint64(2)):
        ones, twos, threes = _window_counts(own, other, board, step)
        total += ones + 3.0 * twos + 5.0 * threes
    return total


@njit(cache=True)
def _threat_score(own, mask, rows, columns, good_rows):
    """Empty cells where ``own`` would complete four: 3 each on rows of ``own``'s parity
    (odd rows for the first player, even rows for the second: the zugzwang rule), 1.5
    elsewhere, and 2 more for one that is playable now."""
    cells = winning_cells(own, mask, rows, columns)
    playable = playable_cells(mask, rows, columns)
    return (
        3.0 * popcount(cells & good_rows)
        + 1.5 * popcount(cells & ~good_rows)
        + 2.0 * popcount(cells & playable)
    )


@njit(cache=True)
def evaluate_kernel(state):
    """Threat-based value of a non-terminal position from the side to move's view, in
    (-1, 1): open windows (weighted by stones in them), threats (empty cells that complete
    four, with the odd/even row rule) and a small bonus for moving."""
    rows, columns = np.int64(state[ROWS]), np.int64(state[COLUMNS])
    current, mask = state[CURRENT], state[MASK]
    other = current ^ mask
    first_to_move = popcount(mask) % 2 == 0
    odd_rows = _rows_pattern(rows, columns, 0)  # rows 1, 3, 5 counted from 1 at the bottom
    even_rows = _rows_pattern(rows, columns, 1)
    own_rows, other_rows = (odd_rows, even_rows) if first_to_move else (even_rows, odd_rows)
    raw = 0.05 * (_line_score(current, other, rows, columns)
                  - _line_score(other, current, rows, columns))
    raw += _threat_score(current, mask, rows, columns, own_rows)
    raw -= _threat_score(other, mask, rows, columns, other_rows)
    return 0.99 * np.tanh(0.1 * (raw + 0.5))


# ----------------------------------------------------------------------------- solver
# Pons' constants for the standard board; the compiled solver is specialised to them.
_H, _W = 6, 7
_CELLS = _H * _W
_MIN_SCORE = -(_CELLS // 2) + 3
_MAX_SCORE = (_CELLS + 1) // 2 - 3
_LOWER_OFFSET = _MAX_SCORE - 2 * _MIN_SCORE + 2  # stored lower bounds lie above this
_TABLE_SIZE = 8388593  # a prime below 2**23: index and 32-bit check identify a 49-bit key
_COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
_NODES, _ABORTED, _MAX_NODES, _SALT = 0, 1, 2, 3
_CHECK_EVERY = 4095  # look at the clock when nodes & _CHECK_EVERY == 0


@njit(cache=True)
def _column_bits(column):
    return ((_ONE << np.uint64(_H)) - _ONE) << np.uint64(column * (_H + 1))


@njit(cache=True)
def _non_losing_moves(current, mask):
    """Playable cells (bitboard) that do not let the opponent win at once: a forced block
    when there is one threat to parry, nothing when there are two, never the cell under
    an opponent's winning cell."""
    possible = playable_cells(mask, _H, _W)
    threats = winning_cells(current ^ mask, mask, _H, _W)
    forced = possible & threats
    if forced != _ZERO:
        if forced & (forced - _ONE) != _ZERO:
            return _ZERO
        possible = forced
    return possible & ~(threats >> _ONE)


@njit(cache=True)
def _table_get(keys, values, key):
    """The stored byte for ``key`` (0 = nothing stored)."""
    index = np.int64(key % np.uint64(_TABLE_SIZE))
    if keys[index] == np.uint32(key & np.uint64(0xFFFFFFFF)):
        return np.int64(values[index])
    return 0


@njit(cache=True)
def _table_put(keys, values, key, value):
    index = np.int64(key % np.uint64(_TABLE_SIZE))
    keys[index] = np.uint32(key & np.uint64(0xFFFFFFFF))
    values[index] = value


@njit
def _tick(stats, deadline):
    """Count a node; every few thousand nodes, flag an abort when time or nodes run out."""
    stats[_NODES] += 1
    if stats[_NODES] & _CHECK_EVERY == 0:
        if stats[_NODES] > stats[_MAX_NODES] or monotonic() > deadline:
            stats[_ABORTED] = 1


@njit(cache=True)
def _sorted_moves(current, mask, possible, out):
    """Fill ``out[:count]`` with the moves (one-bit boards) of ``possible`` best first: most
    winning cells created, centre columns first on ties (``out[_W:]`` holds their scores,
    uint64 like ``out`` so one scratch row serves both); returns ``count``."""
    count = 0
    for i in range(_W):
        move = possible & _column_bits(_COLUMN_ORDER[i])
        if move == _ZERO:
            continue
        score = np.uint64(popcount(winning_cells(current | move, mask, _H, _W)))
        j = count
        while j > 0 and out[_W + j - 1] < score:
            out[j], out[_W + j] = out[j - 1], out[_W + j - 1]
            j -= 1
        out[j], out[_W + j] = move, score
        count += 1
    return count


@njit
def _negamax(current, mask, played, alpha, beta, keys, values, stats, deadline, scratch):
    """Pons' score of a position where the side to move cannot win at once, if it lies in
    (alpha, beta); otherwise a bound on the right side of the window (fail-soft)."""
    _tick(stats, deadline)
    possible = _non_losing_moves(current, mask)
    if possible == _ZERO:
        return -((_CELLS - played) // 2)
    if played >= _CELLS - 2:
        return 0
    low = -((_CELLS - 2 - played) // 2)
    if alpha < low:
        alpha = low
        if alpha >= beta:
            return alpha
    high = (_CELLS - 1 - played) // 2
    key = position_key(current, mask) ^ np.uint64(stats[_SALT])
    stored = _table_get(keys, values, key)
    if stored > _MAX_SCORE - _MIN_SCORE + 1:  # a stored lower bound
        low = stored - _LOWER_OFFSET
        if alpha < low:
            alpha = low
            if alpha >= beta:
                return alpha
    elif stored != 0:  # a stored upper bound
        high = stored + _MIN_SCORE - 1
    if beta > high:
        beta = high
        if alpha >= beta:
            return beta
    moves = scratch[played]
    for i in range(_sorted_moves(current, mask, possible, moves)):
        score = -_negamax(current ^ mask, mask | moves[i], played + 1, -beta, -alpha,
                          keys, values, stats, deadline, scratch)
        if stats[_ABORTED]:
            return 0
        if score >= beta:
            _table_put(keys, values, key, score + _LOWER_OFFSET)
            return score
        if score > alpha:
            alpha = score
    _table_put(keys, values, key, alpha - _MIN_SCORE + 1)
    return alpha


@njit
def _score(current, mask, keys, values, stats, deadline, scratch):
    """Pons' exact score of a position without an immediate win, by null-window searches
    that bisect [min, max] (biased towards 0, where most scores lie, as in Pons' solver)."""
    played = popcount(mask)
    low = -((_CELLS - played) // 2)
    high = (_CELLS + 1 - played) // 2
    while low < high and not stats[_ABORTED]:
        middle = low + (high - low) // 2
        if middle <= 0 and low // 2 < middle:
            middle = low // 2
        elif middle >= 0 and high // 2 > middle:
            middle = high // 2
        result = _negamax(current, mask, played, middle, middle + 1,
                          keys, values, stats, deadline, scratch)
        if result <= middle:
            high = result
        else:
            low = result
    return low


@njit(cache=True)
def _columns(bits):
    """The columns that hold a bit of ``bits``, in centre-first order (an int64 array)."""
    found = np.empty(_W, np.int64)
    count = 0
    for i in range(_W):
        if bits & _column_bits(_COLUMN_ORDER[i]) != _ZERO:
            found[count] = _COLUMN_ORDER[i]
            count += 1
    return found[:count]


@njit
def _optimal_moves(current, mask, score, keys, values, stats, deadline, scratch, first_only):
    """The cells of the moves that achieve ``score`` (the position's exact score, no
    immediate win): each non-losing move in centre-first order whose reply position scores
    ``-score`` (tested with a null window), only the first with ``first_only``. When every
    move loses at once, every legal move (they all lose as fast)."""
    possible = _non_losing_moves(current, mask)
    if possible == _ZERO:
        return playable_cells(mask, _H, _W)
    played = popcount(mask)
    found = _ZERO
    for i in range(_W):
        move = possible & _column_bits(_COLUMN_ORDER[i])
        if move == _ZERO:
            continue
        reply = _negamax(current ^ mask, mask | move, played + 1, -score, -score + 1,
                         keys, values, stats, deadline, scratch)
        if stats[_ABORTED]:
            break
        if reply <= -score:
            found |= move
            if first_only:
                break
    return found


@njit(cache=True, nogil=True)
def _solve(current, mask, keys, values, stats, seconds, first_only):
    """(columns, score) of the 6x7 position: the columns of its strictly optimal moves
    (fastest win, slowest loss) in centre-first order, the first of them at least with
    ``first_only``, and its exact score. Gives up after ``seconds`` (counted from here, so
    compiling is not charged); check ``stats[_ABORTED]`` before trusting the answer. The
    columns come out of here, not from a kernel called on the result, because a solve that
    gives up at once (how the solver is loaded ahead) reaches only this kernel."""
    deadline = monotonic() + seconds
    played = popcount(mask)
    scratch = np.zeros((_CELLS + 1, 2 * _W), np.uint64)
    wins = winning_cells(current, mask, _H, _W) & playable_cells(mask, _H, _W)
    if wins != _ZERO:
        return _columns(wins), (_CELLS + 1 - played) // 2
    score = _score(current, mask, keys, values, stats, deadline, scratch)
    if stats[_ABORTED]:
        return _columns(_ZERO), 0
    moves = _optimal_moves(current, mask, score, keys, values, stats, deadline, scratch,
                           first_only)
    return _columns(moves), score


class Solver:
    """The exact 6x7 solver with its transposition table (32-bit key checks and bound bytes,
    about 40 MiB), which it owns: made on the first solve, dropped by :meth:`release` or with
    the solver. Every solve xors its own salt into the keys, so entries of earlier solves are
    invisible to it (as if the table were cleared, at no cost) and a solve's result never
    depends on what was solved before. ``KNOWLEDGE.solve`` is the module's one instance.

    ``reuse_table=True`` keeps the entries from one solve to the next instead: every entry is
    a true bound on a position's score, so scores stay exact, and solving many related
    positions (the moves of one game, a labeller's positions) gets much faster; only which of
    several equally good columns is returned, and the node counts, then depend on history."""

    def __init__(self, reuse_table: bool = False) -> None:
        self._keys: np.ndarray | None = None
        self._values: np.ndarray | None = None
        self._solves = 0
        self._reuse_table = reuse_table

    def release(self) -> None:
        """Free the table (the next solve makes a new one)."""
        self._keys = self._values = None

    def solve_position(self, current: np.uint64, mask: np.uint64,
                       time_limit: float | None = None, max_nodes: int | None = None,
                       stop: Any = None) -> Solution | None:
        """Solve the 6x7 position given by Pons' bitboards (the side to move has no four and
        the game is not over). Returns ``Solution(column, score, nodes)``, or None when
        ``time_limit`` seconds or ``max_nodes`` nodes run out or ``stop`` (a
        ``threading.Event``) is set (see the module docstring)."""
        found = self._search(current, mask, time_limit, max_nodes, first_only=True, stop=stop)
        if found is None:
            return None
        columns, score, nodes = found
        return Solution(columns[0], score, nodes)

    def optimal_moves(self, state: np.ndarray, time_limit: float | None = None,
                      max_nodes: int | None = None) -> tuple[list[int], int] | None:
        """Every strictly optimal column of a Connect Four state (ascending) and its Pons
        score, from the side to move's view, in one search: the position's score, then a
        null-window test of each move, where solving every child exactly costs 2-3 times as
        much (what a labeller needs). None as for :meth:`solve`; the budget is the whole
        search's."""
        if state[OUTCOME] != ONGOING or (int(state[ROWS]), int(state[COLUMNS])) != (_H, _W):
            return None
        found = self._search(state[CURRENT], state[MASK], time_limit, max_nodes,
                             first_only=False)
        if found is None:
            return None
        columns, score, _ = found
        return sorted(columns), score

    def _search(self, current: np.uint64, mask: np.uint64, time_limit: float | None,
                max_nodes: int | None, first_only: bool,
                stop: Any = None) -> tuple[list[int], int, int] | None:
        """(optimal columns in centre-first order, score, nodes) of one solve under its
        budget (see :meth:`solve_position`), or None when the budget runs out."""
        if time_limit is None and max_nodes is None:
            max_nodes = DEFAULT_MAX_NODES
        if self._keys is None or self._values is None:
            self._keys = np.zeros(_TABLE_SIZE, np.uint32)
            self._values = np.zeros(_TABLE_SIZE, np.int8)
        if not (self._reuse_table and self._solves):
            self._solves += 1
        salt = (self._solves * 0x9E3779B97F4A7C15) % (1 << 62)
        budget = np.iinfo(np.int64).max if max_nodes is None else max_nodes
        stats = np.array([0, 0, budget, salt], dtype=np.int64)
        seconds = np.inf if time_limit is None else float(time_limit)
        with watch_stop(stop, stats, _ABORTED):
            columns, score = _solve(np.uint64(current), np.uint64(mask), self._keys,
                                    self._values, stats, seconds, first_only)
        if stats[_ABORTED]:
            return None
        return columns.tolist(), int(score), int(stats[_NODES])

    def solve(self, state: np.ndarray, time_limit: float | None = None,
              max_nodes: int | None = None, stop: Any = None) -> Solution | None:
        """Exact solution of a Connect Four state: the strictly optimal column (action) and
        Pons' score from the side to move's view. None for a finished game, a board other
        than 6x7, when the budget runs out (``time_limit`` seconds; without one,
        ``max_nodes``, default :data:`DEFAULT_MAX_NODES`) or once ``stop`` is set."""
        if state[OUTCOME] != ONGOING or (int(state[ROWS]), int(state[COLUMNS])) != (_H, _W):
            return None
        return self.solve_position(state[CURRENT], state[MASK], time_limit, max_nodes, stop)


SOLVER = Solver()
"""The solver behind ``KNOWLEDGE.solve`` (and :func:`solve`, :func:`solve_position`)."""
solve = SOLVER.solve
solve_position = SOLVER.solve_position


REACH_STONES = 14
"""From this many stones on, solving is usually quick (random 14-stone positions: median
7.5 ms, max 0.06 s; 8-10 stones: median 0.1-0.2 s, max 4.5 s), so agents without a time
limit try it; a timed search uses :func:`solve_cost` instead."""
COST_AT_REACH = 9e4
"""Typical nodes of a solve at REACH_STONES stones (random positions: median 87,000)."""
COST_GROWTH = 1.75
"""How many times more nodes a solve takes per stone fewer (random positions, medians: 8
stones 2.4 million, 10: 430,000, 12: 160,000, 14: 87,000)."""
SOLVE_SPEED = 1.1e7
"""Nodes per second on one core of the reference machine (14 stones: 7.5 ms for ~87,000)."""


def solve_cost(state: np.ndarray) -> float:
    """Estimated nodes of an exact solve of ``state`` (inf on boards other than 6x7, 0 for
    a finished game), from its number of stones."""
    if (int(state[ROWS]), int(state[COLUMNS])) != (_H, _W):
        return float("inf")
    if state[OUTCOME] != ONGOING:
        return 0.0
    return COST_AT_REACH * COST_GROWTH ** (REACH_STONES - int(state[PLY]))


def within_reach(state: np.ndarray) -> bool:
    """Whether an exact solve is worth trying: a 6x7 game in progress with at least
    REACH_STONES stones."""
    return (state[OUTCOME] == ONGOING and (int(state[ROWS]), int(state[COLUMNS])) == (_H, _W)
            and int(state[PLY]) >= REACH_STONES)


def proven_moves_left(state: np.ndarray, score: int) -> float:
    """The moves the side to move still makes under perfect play from a position of Pons'
    ``score`` (its view): a winner plays until its winning stone (its ``22 - score``-th), a
    loser until the winner's (the ``22 + score``-th), a draw until the board is full."""
    stones = int(state[PLY])
    if score > 0:
        return float(22 - score - stones // 2)
    if score < 0:
        return float(22 + score - (stones + 1) // 2)
    return float((_CELLS - stones + 1) // 2)


#: the fewest own moves a clock pays a search for once the solver is expected to take
#: over: this one and half of the next. From a 4-ply opening the solvers prove most games
#: by their second or third move (a solve takes a second or a few), after which a win needs
#: no thought; the default 2 left a third of a 10+0.1 clock unused (docs/time-controls.md)
MIN_THINKING_MOVES = 1.5


#: what search knows about this game (declared on the Game as its ``knowledge``)
KNOWLEDGE = Knowledge(
    key_kernel=key_kernel,
    evaluate_kernel=evaluate_kernel,
    exact_value=exact_value,
    solve=solve,
    within_reach=within_reach,
    solve_cost=solve_cost,
    solve_speed=SOLVE_SPEED,
    cost_growth=COST_GROWTH,
    proven_moves_left=proven_moves_left,
    min_thinking_moves=MIN_THINKING_MOVES,
)
