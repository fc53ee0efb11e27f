"""Game knowledge for search: heuristic evaluations, position keys, exact solvers, playout
policies and the search settings measured strongest on each game.

Agents are generic; what they know about a game is declared on the game: ``game.knowledge``
is a :class:`~boardzoo.knowledge.base.Knowledge` (or None), for boardzoo's games the
``KNOWLEDGE`` record of ``boardzoo.knowledge.<game name>``, which the Game class names with
``DeclaredKnowledge`` so the rules never import it. See :mod:`boardzoo.knowledge.base` for the
contract (every entry optional; values from the side to move's view).
"""

from __future__ import annotations

from boardzoo.knowledge.base import (
    Knowledge,
    SearchDefaults,
    Solution,
    solve_if_affordable,
    solve_within_reach,
)

__all__ = [
    "Knowledge",
    "SearchDefaults",
    "Solution",
    "solve_if_affordable",
    "solve_within_reach",
]

