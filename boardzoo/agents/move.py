"""Choosing a move: the one pipeline every searching agent's move goes through, around the
agent's own search engine.

A move is: the position -> the game's rules of play before a search (its knowledge's
``move_rules``; Go: pass when passing wins after the opponent's pass) -> its deadlines (from
a clock, or a fixed ``time_limit``) -> a forced move played at once (one legal move, under a
clock) -> the game's exact solver, when its estimated cost fits its share of the move's
time -> on a clock, a *swindle* when the solver proves a draw or a loss
(:mod:`boardzoo.agents.swindle`) -> the engine's search (MCTS, alpha-beta) -> the rules of
play after it (Go: never fill an own eye while another move was searched) -> one
:class:`SearchResult`, kept as ``last_search`` and, as an
:class:`~boardzoo.analysis.Analysis`, ``last_analysis`` (the move played listed first).

:class:`SearchingAgent` runs it; an engine supplies only :meth:`SearchingAgent._search`
(and, where it has them, compilation, tree reuse and whether it can swindle). A move chosen
outside it (batched self-play, an agent without a search) goes through the same two steps of
the rules of play with :func:`by_rules_of_play`.

Values are from the side to move's view, in the result's ``unit``.
"""

from __future__ import annotations

import threading
from typing import Any, NamedTuple

import numpy as np

from boardzoo.agents.swindle import plan_swindle
from boardzoo.analysis import EXACT, Analysis, MoveStat, ProgressFn, line_texts, move_texts
from boardzoo.errors import GameOverError, InvalidOptionError, excerpt
from boardzoo.knowledge.base import (
    MoveRules,
    Solution,
    load_solver,
    solve_if_affordable,
    solver_horizon,
)
from boardzoo.options import KeywordChecked
from boardzoo.timecontrol import ClockView, SearchDeadlines, monotonic
from boardzoo.wrappers.model import EnvModel, GameModel

__all__ = ["MAX_TIME_LIMIT", "SearchResult", "SearchingAgent", "by_rules_of_play",
           "check_time_limit", "outcome_name", "rules_after_search", "rules_before_search"]

#: the longest fixed ``time_limit`` a move may take (a day): longer is a typo, not a plan
MAX_TIME_LIMIT = 86_400.0


def check_time_limit(time_limit: Any, who: str) -> None:
    """InvalidOptionError unless ``time_limit`` is None or a number of seconds in
    (0, :data:`MAX_TIME_LIMIT`]; ``who`` names the agent in the message."""
    if time_limit is None:
        return
    number = isinstance(time_limit, (int, float, np.integer, np.floating)) and not isinstance(
        time_limit, bool)
    if not (number and 0 < time_limit <= MAX_TIME_LIMIT):
        raise InvalidOptionError(
            f"{who} time_limit={excerpt(time_limit)}: give a number of seconds above 0 and at most "
            f"{MAX_TIME_LIMIT:,.0f}, or None")


class SearchResult(NamedTuple):
    """What one move's search found.

    ``value`` is from the side to move's view in ``unit``: the game's exact unit
    (:data:`~boardzoo.analysis.EXACT`: Connect Four Pons' score, Othello the final disc
    difference, other games +1/0/-1) for an exact solver's answer, MCTS's mean result in
    [-1, 1], or alpha-beta's heuristic scale (-1, 1) with exactly +1/-1 for a proven
    win/loss. ``exact``: the value is proven, not estimated; ``proven``: "win"/"loss"/"draw"
    for the side to move when it is. ``depth``: alpha-beta's last completed iteration (0 for
    a solver's answer), MCTS's principal variation length; ``nodes``: MCTS simulations or
    alpha-beta/solver nodes; ``seconds``: the move's search time (a solver attempt included,
    compilation never); ``engine``: "mcts", "alphabeta", "solver", "forced" or "rule" (the
    game's rules of play chose the move before any search).

    MCTS results also carry per-action root statistics, each of shape ``[num_actions]``:
    ``visits``, ``q`` (mean value for the side to move, NaN where unvisited), ``prior`` and
    ``policy`` (the visit distribution with the agent's temperature, T = 0 read as 1, or
    Gumbel's improved policy); other engines leave them None. ``lines``: the principal
    variation that starts with each searched root move.
    """

    action: int
    value: float
    unit: str
    exact: bool
    proven: str | None
    depth: int
    nodes: int
    seconds: float
    pv: list[int]
    engine: str
    visits: np.ndarray | None = None
    q: np.ndarray | None = None
    prior: np.ndarray | None = None
    policy: np.ndarray | None = None
    lines: dict[int, list[int]] | None = None

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


class SearchingAgent(KeywordChecked):
    """An agent whose move comes from one search: ``search`` runs the move pipeline (module
    docstring), ``act`` plays its move and ``analyse`` returns it as an Analysis.

    Subclasses set ``time_limit`` (None: no fixed time), ``exact_solver`` and ``swindle``
    (bools) and ``search_keeps``, and implement :meth:`_search`.

    The exact solver's share of a move's time is one rule: all of it but ``search_keeps``,
    the share the engine's own search keeps for what more time buys it when the solver
    does not finish. Alpha-beta keeps little (its own search reaches the solver's result
    given the time); MCTS, whose moves improve with time without ever being proven, more.
    """

    time_limit: float | None = None
    exact_solver: bool = True
    #: the share of a move's time (a fixed ``time_limit``, or on a clock the time to the
    #: move's maximum) that the engine's search keeps when the exact solver is tried first
    search_keeps: float = 0.5
    swindle: bool = True
    last_search: SearchResult | None = None
    last_analysis: Analysis | None = None

    # ---------------------------------------------------------------- public API
    def search(self, env: Any, clock: ClockView | None = None,
               on_progress: ProgressFn | None = None,
               stop: threading.Event | None = None) -> SearchResult:
        """Search ``env``'s position and return what was found.

        ``clock``: the agent's clock; the move's time then comes from it (capped by
        ``time_limit`` when that was given), and compilation is charged to it.
        ``on_progress(analysis)``: called as the search goes (between MCTS rounds, after
        each alpha-beta iteration); ``stop``: set from another thread, the search returns
        its best move so far. The result is also kept as ``last_search`` and, as an
        :class:`~boardzoo.analysis.Analysis`, ``last_analysis``.
        """
        entered = monotonic()
        model = EnvModel(env)
        root = model.root()
        if model.is_terminal(root):
            name = model.game.name if isinstance(model, GameModel) else "this"
            raise GameOverError(f"{type(self).__name__} cannot move: the {name} game is "
                                "already over")
        self._check_model(model)
        game = model.game if isinstance(model, GameModel) else None
        ruled = rules_before_search(game, root)
        if ruled is not None:
            self._forget()
            return self._finish(model, _ruled_result(ruled, monotonic() - entered))
        result = self._decide(model, root, entered, clock, on_progress, stop)
        return self._finish(model, _obeying(game, root, result))

    def _decide(self, model: EnvModel, root: Any, entered: float, clock: ClockView | None,
                on_progress: ProgressFn | None,
                stop: threading.Event | None) -> SearchResult:
        """The move as the solver or the engine decides it (:meth:`search`'s middle steps)."""
        knowledge = self._knowledge(model)
        deadlines = None
        if clock is not None:
            horizon = solver_horizon(knowledge, root) if knowledge is not None else None
            deadlines = SearchDeadlines.for_move(entered, clock, model.game, root,
                                                 self._clock_cap(), horizon)
            if int(np.count_nonzero(model.legal_mask(root))) == 1:
                return _forced_result(model, root)
        solving = monotonic()
        budget = self._solver_budget(deadlines)
        solution = solve_if_affordable(knowledge, root, budget, stop) if knowledge else None
        solver_seconds = monotonic() - solving
        if solution is None and budget is not None:
            solver_seconds = min(solver_seconds, budget)  # loading its kernels is not charged
        swindle = None
        if solution is not None:
            self._forget()
            if clock is not None and self.swindle and self._can_swindle(model):
                swindle = plan_swindle(model.game, root, solution.value, solution.action,
                                       entered, clock, self._clock_cap(), stop)
            if swindle is None:
                return _solved_result(solution, solver_seconds)
            deadlines = swindle.deadlines
        self._prepare(model, root)  # compiles on first use: never charged to a time_limit
        if deadlines is None:
            deadlines = (SearchDeadlines.fixed(monotonic() - solver_seconds, self.time_limit)
                         if self.time_limit else SearchDeadlines.none())
        result = self._search(model, root, deadlines, on_progress, stop,
                              None if swindle is None else swindle.moves)
        result = result._replace(seconds=result.seconds + solver_seconds)
        if solution is not None:  # a swindle: the outcome is the solver's
            result = result._replace(value=solution.value, unit=EXACT, exact=True,
                                     proven=outcome_name(solution.value),
                                     nodes=result.nodes + int(solution.nodes))
        return result

    def act(self, env: Any, clock: ClockView | None = None,
            on_progress: ProgressFn | None = None, stop: threading.Event | None = None) -> int:
        """The move to play for the side to move in ``env`` (``clock``, ``on_progress``,
        ``stop``: see :meth:`search`)."""
        return int(self.search(env, clock=clock, on_progress=on_progress, stop=stop).action)

    def analyse(self, env: Any, clock: ClockView | None = None,
                on_progress: ProgressFn | None = None,
                stop: threading.Event | None = None) -> Analysis:
        """Search as :meth:`search` does and return the result as an Analysis."""
        self.search(env, clock=clock, on_progress=on_progress, stop=stop)
        assert self.last_analysis is not None
        return self.last_analysis

    def prepare(self, env: Any) -> None:
        """Compile what searching ``env``'s game needs and load its solver, so that no clock
        pays for them (the arena calls this before a timed game)."""
        model = EnvModel(env)
        root = model.root()
        if model.is_terminal(root):
            return
        self._check_model(model)
        self._prepare(model, root)
        knowledge = self._knowledge(model)
        if knowledge is not None:
            load_solver(knowledge, root)

    # ------------------------------------------------------------ engine's part
    def _search(self, model: EnvModel, root: Any, deadlines: SearchDeadlines,
                on_progress: ProgressFn | None, stop: threading.Event | None,
                root_moves: list[int] | None) -> SearchResult:
        """The engine's search of ``root`` until ``deadlines`` (among ``root_moves`` only,
        when given: a swindle's)."""
        raise NotImplementedError

    def _prepare(self, model: EnvModel, root: Any) -> None:
        """Compile the engine for ``model``'s game (nothing by default)."""

    def _forget(self) -> None:
        """Drop what the engine kept from earlier moves (the solver answered this one)."""

    def _can_swindle(self, model: EnvModel) -> bool:
        return True

    def _clock_cap(self) -> float | None:
        """The most seconds a move may take under a clock (None: the clock decides)."""
        return self.time_limit

    def _check_model(self, model: EnvModel) -> None:
        """Refuse (InvalidOptionError) a model the engine cannot search."""

    # ---------------------------------------------------------------- the steps
    def _knowledge(self, model: EnvModel) -> Any:
        """The game's knowledge when the exact solver is on and the game has a solver."""
        if not (self.exact_solver and isinstance(model, GameModel)):
            return None
        knowledge = model.game.knowledge
        return knowledge if knowledge is not None and knowledge.solve is not None else None

    @property
    def solver_share(self) -> float:
        """The share of a move's time the exact solver may take (it is tried only when its
        estimated cost fits, and gives up early on a position much harder than estimated):
        all but what the engine's search keeps (``search_keeps``)."""
        return 1.0 - self.search_keeps

    def _solver_budget(self, deadlines: SearchDeadlines | None) -> float | None:
        """Seconds the exact solver may take: :attr:`solver_share` of the move's time (the
        time to the clock's maximum, or ``time_limit``); None: the solver's own budget."""
        if deadlines is not None:
            return max(0.0, deadlines.maximum - monotonic()) * self.solver_share
        return None if self.time_limit is None else self.time_limit * self.solver_share

    def _finish(self, model: EnvModel, result: SearchResult) -> SearchResult:
        self.last_search = result
        self.last_analysis = analysis_of(model, result, final=True)
        return result


def _move_rules(game: Any) -> MoveRules | None:
    """``game``'s rules of play around a search (its knowledge's ``move_rules``), or None
    (no rules, or no boardzoo game)."""
    return getattr(getattr(game, "knowledge", None), "move_rules", None)


def rules_before_search(game: Any, state: np.ndarray) -> int | None:
    """The move ``game``'s rules of play make in ``state`` without a search (Go: the pass
    that wins after the opponent's pass), or None: choose one."""
    rules = _move_rules(game)
    ruled = None if rules is None else rules.before_search(game, state)
    return None if ruled is None else int(ruled)


def rules_after_search(game: Any, state: np.ndarray, action: int,
                       visits: np.ndarray | None) -> int:
    """The move ``game``'s rules of play make of ``action``, chosen in ``state`` by a search
    with these root ``visits`` per action (None: chosen without one): ``action`` itself, or
    (Go) the most visited other searched move when it fills an own eye (a pass when none)."""
    rules = _move_rules(game)
    return action if rules is None else int(rules.after_search(game, state, action, visits))


def by_rules_of_play(game: Any, state: np.ndarray, action: int,
                     visits: np.ndarray | None) -> int:
    """The move played in ``state`` when ``action`` was chosen outside :class:`SearchingAgent`'s
    pipeline (batched self-play, a non-searching agent), by the same rules of play:
    :func:`rules_before_search`'s move if there is one, else :func:`rules_after_search`'s.
    A move the pipeline chose comes back unchanged."""
    ruled = rules_before_search(game, state)
    return ruled if ruled is not None else rules_after_search(game, state, action, visits)


def _ruled_result(action: int, seconds: float) -> SearchResult:
    """A move the game's rules of play chose before any search (no value: none was run)."""
    return SearchResult(action, float("nan"), EXACT, False, None, 0, 0, seconds, [action],
                        "rule")


def _obeying(game: Any, root: Any, result: SearchResult) -> SearchResult:
    """``result`` with the move the game's rules of play choose after the search (its
    principal variation the searched line of that move, where there is one)."""
    action = rules_after_search(game, root, result.action, result.visits)
    if action == result.action:
        return result
    line = (result.lines or {}).get(action, [action])
    return result._replace(action=action, pv=list(line))


def _forced_result(model: EnvModel, root: Any) -> SearchResult:
    """The only legal move, played at once."""
    action = int(np.flatnonzero(model.legal_mask(root))[0])
    return SearchResult(action, float("nan"), EXACT, False, None, 0, 0, 0.0, [action], "forced")


def _solved_result(solution: Solution, seconds: float) -> SearchResult:
    """An exact solver's answer: its value in the game's exact unit."""
    return SearchResult(int(solution.action), solution.value, EXACT, True,
                        outcome_name(solution.value), 0, int(solution.nodes), seconds,
                        [int(solution.action)], "solver")


def outcome_name(value: float) -> str:
    """"win", "loss" or "draw" for an exact value from the side to move's view."""
    return "win" if value > 0 else ("loss" if value < 0 else "draw")


def analysis_of(model: Any, result: SearchResult, final: bool) -> Analysis:
    """``result`` as an :class:`Analysis` (moves in the game's notation): MCTS's root moves
    most visited first, each with its principal variation; otherwise the chosen move."""
    text, line = move_texts(model), line_texts(model)
    lines = result.lines or {result.action: result.pv}
    if result.visits is not None:
        moves = _root_moves(result, lines, text, line)
    else:
        value = None if np.isnan(result.value) else float(result.value)
        moves = (MoveStat(result.action, text(result.action), 0, value, None,
                          line(result.pv)),)
    return Analysis(
        action=result.action,
        move=text(result.action),
        value=float(result.value),
        unit=result.unit,
        exact=result.exact,
        nodes=result.nodes,
        depth=result.depth,
        elapsed=result.seconds,
        pv=line(result.pv),
        moves=moves,
        proven=result.proven,
        engine=result.engine,
        final=final,
    )


def _root_moves(result: SearchResult, lines: dict[int, list[int]], text: Any, line: Any,
                ) -> tuple[MoveStat, ...]:
    """Every root move with a visit or a prior: the move played first (a game's rules of play
    may choose another than the most visited), then the most visited."""
    visits, q, prior = result.visits, result.q, result.prior
    assert visits is not None and q is not None and prior is not None
    listed = set(np.flatnonzero((visits > 0) | (prior > 0)).tolist()) | {result.action}
    order = sorted(listed, key=lambda a: (a != result.action, -visits[a], -prior[a]))
    return tuple(
        MoveStat(int(a), text(int(a)), int(visits[a]),
                 None if np.isnan(q[a]) else float(q[a]), float(prior[a]),
                 line(lines.get(int(a), [int(a)])))
        for a in order
    )
