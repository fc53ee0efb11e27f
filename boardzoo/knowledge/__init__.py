"""Game knowledge for search: heuristic evaluations, position keys, exact solvers, playout
policies and the search settings measured strongest on each game.

Agents are generic; what they know about a game is declared on the game: ``game.knowledge``
is a :class:`~boardzoo.knowledge.base.GameKnowledge` (or None), for boardzoo's games the
``KNOWLEDGE`` record of ``boardzoo.knowledge.<game name>``, which the Game class names with
``DeclaredKnowledge`` so the rules never import it. See :mod:`boardzoo.knowledge.base` for the
contract (every entry optional; values from the side to move's view).

:func:`knowledge_for` and :func:`try_solve` are the older name-based entry points, kept as
thin shims over the declaration for code that still uses them.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from boardzoo.knowledge.base import (
    GameKnowledge,
    Knowledge,
    SearchDefaults,
    Solution,
    solve_if_affordable,
    solve_within_reach,
)

__all__ = [
    "GameKnowledge",
    "Knowledge",
    "SearchDefaults",
    "Solution",
    "knowledge_for",
    "knowledge_of",
    "solve_if_affordable",
    "solve_within_reach",
    "try_solve",
]

#: the older module contract's names for the entries whose names changed
_LEGACY_NAMES = {
    "playout_kernel": "heuristic_playout_kernel",
    "playout_trace_kernel": "heuristic_playout_trace_kernel",
}
_ENTRIES = ("evaluate_kernel", "key_kernel", "exact_value", "solve", "within_reach", "solve_cost",
            "playout_kernel", "playout_trace_kernel")


def knowledge_of(game_name: str) -> GameKnowledge | None:
    """The knowledge declared by the registered game ``game_name`` (None: none, or no such
    game)."""
    from boardzoo.envs.registry import GAMES  # knowledge sits above the rules

    game_class = GAMES.get(game_name)
    return None if game_class is None else game_class.knowledge


def knowledge_for(game_name: str) -> Any:
    """Shim: the game's declared knowledge under the names of the old knowledge-module
    contract (``evaluate_kernel``, ``key_kernel``, ``exact_value``, ``solve``,
    ``within_reach``, ``heuristic_playout_kernel``, ``heuristic_playout_trace_kernel``,
    ``MCTS_DEFAULTS``), with only the entries the game has as attributes (so ``hasattr``
    tests keep their meaning); None for a game without knowledge. New code reads
    ``game.knowledge``."""
    knowledge = knowledge_of(game_name)
    if knowledge is None:
        return None
    entries = {_LEGACY_NAMES.get(name, name): getattr(knowledge, name) for name in _ENTRIES
               if getattr(knowledge, name, None) is not None}
    defaults = knowledge.search_defaults.recommended()
    if defaults:
        entries["MCTS_DEFAULTS"] = defaults
    return SimpleNamespace(**entries)


def try_solve(game_name: str, state: Any, time_limit: float | None) -> Solution | None:
    """Shim over :func:`solve_within_reach` for a game named ``game_name``: its exact solution
    of ``state`` if it has a solver, the position is within its reach, and the solver
    finishes within ``time_limit`` seconds (None: its own budget)."""
    return solve_within_reach(knowledge_of(game_name), state, time_limit)
