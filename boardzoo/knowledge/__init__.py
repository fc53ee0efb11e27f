"""Game knowledge for search: heuristic evaluations, position keys, exact solvers.

Agents are generic; what they know about a particular game comes from here. A game may have
a module ``boardzoo.knowledge.<game name>`` that defines any of:

``evaluate_kernel(state) -> float``
    compiled (numba) heuristic value of a non-terminal state from the **side to move's**
    view, strictly inside (-1, 1) (+1/-1 are reserved for proven wins/losses).
``key_kernel(state) -> np.uint64``
    compiled position key for transposition tables: equal positions (same board and side to
    move, whatever the move order) give equal keys; collisions rare.
``solve(state, time_limit: float | None) -> Solution | None``
    exact solution when the position is within reach (None when it is not, or time ran out).
``within_reach(state) -> bool``
    a cheap test of whether ``solve`` is worth trying here (without it, agents always try).
``MCTS_DEFAULTS``
    a dict of the MCTS settings that measured strongest on this game (e.g.
    ``{"selection": "puct", "evaluator": "heuristic"}``); ``MCTSAgent``'s "auto" defaults.
``exact_value(state) -> int``
    the exact result of a finished game in the game's own unit, from the view of the side to
    move at that point (Connect Four: Pons' score, Othello: final disc difference).

:func:`knowledge_for` returns that module, or None.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from boardzoo.knowledge.base import Solution

__all__ = ["Solution", "knowledge_for", "try_solve"]


def knowledge_for(game_name: str) -> ModuleType | None:
    """The knowledge module of a game, or None if the game has none."""
    try:
        return importlib.import_module(f"boardzoo.knowledge.{game_name}")
    except ModuleNotFoundError as err:
        if err.name != f"boardzoo.knowledge.{game_name}":
            raise
        return None


def try_solve(game_name: str, state, time_limit: float | None) -> Solution | None:
    """The game's exact solution of ``state`` if it has a solver, the position is within its
    reach, and the solver finishes within ``time_limit`` seconds (None: its own budget)."""
    knowledge = knowledge_for(game_name)
    if knowledge is None or not hasattr(knowledge, "solve"):
        return None
    within_reach = getattr(knowledge, "within_reach", None)
    if within_reach is not None and not within_reach(state):
        return None
    return knowledge.solve(state, time_limit)
