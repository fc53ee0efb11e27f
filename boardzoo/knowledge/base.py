"""What search knows about a game, declared on the game: the :class:`Knowledge` record,
search defaults as data, and solve results.

A game declares its knowledge with a class attribute ``knowledge`` (a :class:`Knowledge`, or
``DeclaredKnowledge("module:NAME")`` from :mod:`boardzoo.envs.core`, imported on first use so
the rules never import search code); planners read ``game.knowledge`` and use what is there.
Every entry is optional (None: the game does not have it).
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

__all__ = ["Knowledge", "MoveRules", "SearchDefaults",
           "Solution", "estimated_solve_seconds", "plies_until_affordable", "solve_if_affordable",
           "solve_within_reach", "solver_horizon", "solver_speed"]

#: an attempt is made while its estimated cost is at most this many times the budget (the
#: estimates are rough: a factor of 2-3 either way on single positions)
ATTEMPT_FACTOR = 2.0
#: an attempt gives up after this many times its estimate (and never after the budget), so
#: a position much harder than estimated hands most of the budget back to the search
GIVE_UP_FACTOR = 4.0
#: the least time an attempt gets before giving up (seconds)
MIN_ATTEMPT = 0.05


class Solution(NamedTuple):
    """An exact solve. ``value`` is in the game's exact unit (Connect Four: Pons' score; Othello:
    final disc difference; other games: +1/0/-1), from the side to move's view."""

    action: int
    value: int
    nodes: int


class SearchDefaults(NamedTuple):
    """The search settings measured strongest on a game, as data (None: no recommendation;
    the planner's plain choice). ``evidence`` says what was measured."""

    selection: str | None = None  #: "uct" | "puct" | "gumbel"
    rollout: str | None = None  #: "random" | "heuristic" (the knowledge's playout policy)
    evaluator: str | None = None  #: "heuristic" (the knowledge's evaluation)
    implicit_minimax: float | None = None  #: alpha of implicit minimax backups, in [0, 1]
    rave: bool | None = None  #: RAVE (all-moves-as-first values blended into Q)
    c: float | None = None  #: the selection's exploration constant
    prior_visits: float | None = None  #: RAVE's virtual visits at the move priors' values
    rave_k: float | None = None  #: RAVE's equivalence parameter: weight sqrt(k / (3 N + k))
    evidence: str = ""

    def recommended(self) -> dict[str, Any]:
        """The settings given, as ``{name: value}`` (what ``MCTSAgent``'s "auto" applies)."""
        return {k: v for k, v in self._asdict().items() if v is not None and k != "evidence"}


class MoveRules(Protocol):
    """What a player of the game does whatever its search says (Go: pass when passing wins,
    never fill an own eye), applied by every searching agent's move pipeline
    (:mod:`boardzoo.agents.move`). ``state`` is the position to move in (not terminal)."""

    def before_search(self, game: Any, state: np.ndarray) -> int | None:
        """The move to play without searching, or None to search."""

    def after_search(self, game: Any, state: np.ndarray, action: int,
                     visits: np.ndarray | None) -> int:
        """The move to play instead of the searched ``action`` (``visits``: the search's root
        visits per action, None where it counts none), or ``action`` itself."""


Kernel = Callable[..., Any]


@dataclass(frozen=True)
class Knowledge:
    """What search knows about a game: a record of the entries it has (all may be None).
    Values are from the side to move's view.

    * ``evaluate_kernel(state) -> float``: compiled heuristic value of a non-terminal state,
      strictly inside (-1, 1) (+1/-1 are reserved for proven results);
    * ``key_kernel(state) -> np.uint64``: compiled transposition key (equal positions, equal
      keys, whatever the move order; collisions rare);
    * ``exact_value(state) -> int``: the result of a finished game in the game's exact unit;
    * ``solve(state, time_limit, stop=None) -> Solution | None``: an exact solution when
      within reach (None also once ``stop``, a ``threading.Event``, is set: it gives up);
      ``within_reach(state) -> bool``: whether ``solve`` is worth trying without a time
      limit (None: always); ``solve_cost(state) -> float``: the estimated nodes of an exact
      solve (``inf``: cannot), and ``solve_speed``: the solver's nodes per second on one
      core of the reference machine, which let a timed search try the solver whenever its
      budget allows (:func:`solve_if_affordable`; the speed is re-measured as it solves);
      ``cost_growth``: how many times smaller that cost gets with each ply played, which
      lets a clock's time allocation foresee when the solver takes over
      (:func:`plies_until_affordable`); ``proven_moves_left(state, value) -> float``: the
      moves the side to move still makes under perfect play in a position of exact
      ``value``, for a clock's allocation once the result is proven;
      ``moves_left(state) -> float``: the own moves the side to move can expect to make
      until the end, for a clock's allocation (None: half the empty cells);
      ``min_thinking_moves``: the fewest own moves a clock's allocation pays a search for
      when the solver is expected to take over (None: the default,
      :data:`boardzoo.timecontrol.MIN_THINKING_MOVES`);
    * ``playout_kernel(state, rng) -> outcome`` and ``playout_trace_kernel(state, rng,
      trace) -> plies``: a heuristic playout policy, the same contract as the game's own;
    * ``playout_value_kernel(state, outcome) -> float``: seat 0's value in [-1, 1] of a
      playout's final ``state`` (its ``outcome`` code); None: the outcome, +1 / 0 / -1;
    * ``prior_kernel(state, mask, out, values)``: compiled move priors for a PUCT search
      (``out``: a distribution over the legal actions of ``mask``; ``values``: the moves'
      heuristic values, or zeros);
    * alpha-beta's tactics (:mod:`boardzoo.agents.alphabeta`): ``tactical_kernel(state,
      action) -> int``: > 0 for a legal move that changes the material (a capture, a
      promotion), searched by the quiescence search and ordered before quiet moves by this
      value (most valuable victim, least valuable attacker), 0 for a quiet move;
      ``in_check_kernel(state) -> bool``: the side to move is in check (its node is extended
      by a ply, never stands pat and is never reduced); ``null_move_kernel(state) -> bool``:
      pass in place where passing is a safe test (False, the state unusable, where it is
      not: zugzwang-prone positions), for null-move pruning; ``late_move_reductions``:
      search late quiet moves a ply shallower first; ``moves_kernel(state, out,
      tactical_only) -> count``: the legal actions written into the int64 array ``out`` (with
      ``tactical_only``, at least every move ``tactical_kernel`` values above 0), so that the
      search neither scans the legal mask nor values quiet moves in the quiescence search;
    * ``move_rules``: :class:`MoveRules`, applied by every searching agent (and to moves
      chosen without a search: ``boardzoo.agents.move.by_rules_of_play``);
    * ``result_text(game, state) -> str``: a finished game's result as its players write it
      (Go: ``B+3.5``, the score with the dead stones removed), which the arena records;
    * ``search_defaults``: :class:`SearchDefaults`.
    """

    evaluate_kernel: Kernel | None = None
    key_kernel: Kernel | None = None
    exact_value: Callable[[np.ndarray], int] | None = None
    solve: Callable[..., Solution | None] | None = None
    within_reach: Callable[[np.ndarray], bool] | None = None
    solve_cost: Callable[[np.ndarray], float] | None = None
    solve_speed: float | None = None
    cost_growth: float | None = None
    proven_moves_left: Callable[[np.ndarray, int], float] | None = None
    moves_left: Callable[[np.ndarray], float] | None = None
    min_thinking_moves: float | None = None
    playout_kernel: Kernel | None = None
    playout_trace_kernel: Kernel | None = None
    playout_value_kernel: Kernel | None = None
    prior_kernel: Kernel | None = None
    tactical_kernel: Kernel | None = None
    in_check_kernel: Kernel | None = None
    null_move_kernel: Kernel | None = None
    late_move_reductions: bool = False
    moves_kernel: Kernel | None = None
    move_rules: MoveRules | None = None
    result_text: Callable[[Any, np.ndarray], str] | None = None
    search_defaults: SearchDefaults = field(default_factory=SearchDefaults)


def load_solver(knowledge: Knowledge | None, state: np.ndarray) -> None:
    """Load the solver's compiled kernels now (an attempt that gives up at once), so that no
    clock pays for them later."""
    if knowledge is not None and knowledge.solve is not None:
        knowledge.solve(state, 0.0)


def solve_within_reach(
    knowledge: Knowledge | None, state: np.ndarray, time_limit: float | None,
    stop: Any = None,
) -> Solution | None:
    """The exact solution of ``state`` if the knowledge has a solver, the position is within
    its reach, and it finishes within ``time_limit`` seconds (None: its own budget) before
    ``stop`` (a ``threading.Event``) is set."""
    if knowledge is None or knowledge.solve is None:
        return None
    if knowledge.within_reach is not None and not knowledge.within_reach(state):
        return None
    return knowledge.solve(state, time_limit, stop=stop)


#: the least seconds of solving that replace the reference speed by the measured one
_MEASURED_SECONDS = 0.05
#: weight kept by earlier solves when a new one is counted (the machine's load changes)
_SPEED_MEMORY = 0.9
_speeds: dict[int, list[float]] = {}  # id(knowledge) -> [nodes, seconds], decayed


def solver_speed(knowledge: Knowledge) -> tuple[float, bool]:
    """(nodes per second of the knowledge's solver here, whether measured): measured on this
    process's solves once they add up to :data:`_MEASURED_SECONDS` (and counted nodes: a
    solver that reports none is not measured), else the reference ``solve_speed``."""
    nodes, seconds = _speeds.get(id(knowledge), (0.0, 0.0))
    if seconds >= _MEASURED_SECONDS and nodes > 0:
        return nodes / seconds, True
    return float(getattr(knowledge, "solve_speed", None) or 1e6), False


def estimated_solve_seconds(knowledge: Knowledge, state: np.ndarray) -> float:
    """Seconds an exact solve of ``state`` is expected to take here (inf: no estimate)."""
    cost = getattr(knowledge, "solve_cost", None)
    if knowledge.solve is None or cost is None:
        return math.inf
    return float(cost(state)) / solver_speed(knowledge)[0]


def _count_solve(knowledge: Knowledge, nodes: int, seconds: float) -> None:
    entry = _speeds.setdefault(id(knowledge), [0.0, 0.0])
    entry[0] = _SPEED_MEMORY * entry[0] + nodes
    entry[1] = _SPEED_MEMORY * entry[1] + seconds


def plies_until_affordable(knowledge: Knowledge, state: np.ndarray,
                           seconds: float) -> float:
    """Plies from ``state`` until :func:`solve_if_affordable` is expected to try the solver
    with ``seconds`` for a move (0: now; inf: not foreseeable), from the cost estimate
    shrinking by the knowledge's ``cost_growth`` a ply."""
    growth = getattr(knowledge, "cost_growth", None)
    estimate = estimated_solve_seconds(knowledge, state)
    if seconds > 0 and estimate <= ATTEMPT_FACTOR * seconds:
        return 0.0
    if growth is None or growth <= 1.0 or seconds <= 0 or math.isinf(estimate):
        return math.inf
    return float(math.ceil(math.log(estimate / (ATTEMPT_FACTOR * seconds)) / math.log(growth)))


def solver_horizon(knowledge: Knowledge | None,
                   state: np.ndarray) -> Callable[[float], float] | None:
    """:func:`plies_until_affordable` from ``state`` as a function of the seconds a move
    gets, for a clock's time allocation (None: the knowledge has no solver whose take-over
    can be foreseen)."""
    if knowledge is None or knowledge.solve is None or not getattr(knowledge, "cost_growth", None):
        return None
    return functools.partial(plies_until_affordable, knowledge, state)


def solve_if_affordable(
    knowledge: Knowledge | None, state: np.ndarray, seconds: float | None,
    stop: Any = None,
) -> Solution | None:
    """The exact solution of ``state`` when the solver is worth trying within ``seconds``
    (and gives it before ``stop``, a ``threading.Event``, is set).

    With a budget and a cost estimate (:func:`estimated_solve_seconds`): tried when the
    estimate is at most :data:`ATTEMPT_FACTOR` times the budget, giving up after
    :data:`GIVE_UP_FACTOR` times the estimate or the budget, whichever comes first (the
    caller's search gets the rest; until this process has measured the solver's speed,
    the budget). A position within the fixed reach always gets the whole budget. Without a
    budget or an estimate, the fixed reach:
    :func:`solve_within_reach`.
    """
    if knowledge is None or knowledge.solve is None:
        return None
    if seconds is None or getattr(knowledge, "solve_cost", None) is None:
        return solve_within_reach(knowledge, state, seconds, stop)
    # within the fixed reach the solver always gets the whole budget (it usually finishes,
    # and its estimate is too rough to give up early on); beyond it, only when affordable
    in_reach = knowledge.within_reach is not None and knowledge.within_reach(state)
    estimate = estimated_solve_seconds(knowledge, state)
    if not in_reach and not estimate <= ATTEMPT_FACTOR * seconds:
        return None
    limit = seconds
    if not in_reach and solver_speed(knowledge)[1]:
        limit = min(seconds, max(MIN_ATTEMPT, GIVE_UP_FACTOR * estimate))
    if id(knowledge) not in _speeds:  # the first solve here: load its kernels untimed, or
        load_solver(knowledge, state)  # their loading would count as a slow solver
        _speeds[id(knowledge)] = [0.0, 0.0]
    started = time.monotonic()
    solution = knowledge.solve(state, limit, stop=stop)
    if solution is not None:
        _count_solve(knowledge, solution.nodes, time.monotonic() - started)
    return solution
