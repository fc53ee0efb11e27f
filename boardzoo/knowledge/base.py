"""What search knows about a game, declared on the game: the :class:`GameKnowledge` contract,
its standard implementation :class:`Knowledge`, search defaults as data, and solve results.

A game declares its knowledge with a class attribute ``knowledge`` (a :class:`Knowledge`, or
``DeclaredKnowledge("module:NAME")`` from :mod:`boardzoo.envs.core`, imported on first use so
the rules never import search code); planners read ``game.knowledge`` and use what is there.
Every entry is optional (None: the game does not have it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

import numpy as np

__all__ = ["GameKnowledge", "Knowledge", "SearchDefaults", "Solution"]


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
    evidence: str = ""

    def recommended(self) -> dict[str, Any]:
        """The settings given, as ``{name: value}`` (what ``MCTSAgent``'s "auto" applies)."""
        return {k: v for k, v in self._asdict().items() if v is not None and k != "evidence"}


Kernel = Callable[..., Any]


class GameKnowledge(Protocol):
    """The contract (all entries may be None). Values are from the side to move's view.

    * ``evaluate_kernel(state) -> float``: compiled heuristic value of a non-terminal state,
      strictly inside (-1, 1) (+1/-1 are reserved for proven results);
    * ``key_kernel(state) -> np.uint64``: compiled transposition key (equal positions, equal
      keys, whatever the move order; collisions rare);
    * ``exact_value(state) -> int``: the result of a finished game in the game's exact unit;
    * ``solve(state, time_limit) -> Solution | None``: an exact solution when within reach;
      ``within_reach(state) -> bool``: whether ``solve`` is worth trying (None: always);
    * ``playout_kernel(state, rng) -> outcome`` and ``playout_trace_kernel(state, rng,
      trace) -> plies``: a heuristic playout policy, the same contract as the game's own;
    * ``search_defaults``: :class:`SearchDefaults`.
    """

    @property
    def evaluate_kernel(self) -> Kernel | None: ...
    @property
    def key_kernel(self) -> Kernel | None: ...
    @property
    def exact_value(self) -> Callable[[np.ndarray], int] | None: ...
    @property
    def solve(self) -> Callable[[np.ndarray, float | None], Solution | None] | None: ...
    @property
    def within_reach(self) -> Callable[[np.ndarray], bool] | None: ...
    @property
    def playout_kernel(self) -> Kernel | None: ...
    @property
    def playout_trace_kernel(self) -> Kernel | None: ...
    @property
    def search_defaults(self) -> SearchDefaults: ...


@dataclass(frozen=True)
class Knowledge:
    """The standard :class:`GameKnowledge`: a record of the entries a game has."""

    evaluate_kernel: Kernel | None = None
    key_kernel: Kernel | None = None
    exact_value: Callable[[np.ndarray], int] | None = None
    solve: Callable[[np.ndarray, float | None], Solution | None] | None = None
    within_reach: Callable[[np.ndarray], bool] | None = None
    playout_kernel: Kernel | None = None
    playout_trace_kernel: Kernel | None = None
    search_defaults: SearchDefaults = field(default_factory=SearchDefaults)


def solve_within_reach(
    knowledge: GameKnowledge | None, state: np.ndarray, time_limit: float | None
) -> Solution | None:
    """The exact solution of ``state`` if the knowledge has a solver, the position is within
    its reach, and it finishes within ``time_limit`` seconds (None: its own budget)."""
    if knowledge is None or knowledge.solve is None:
        return None
    if knowledge.within_reach is not None and not knowledge.within_reach(state):
        return None
    return knowledge.solve(state, time_limit)
