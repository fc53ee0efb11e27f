"""What search knows about a game, as types: the exact-solve result (more in later changes)."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["Solution"]


class Solution(NamedTuple):
    """An exact solve. ``value`` is in the game's exact unit (Connect Four: Pons' score; Othello:
    final disc difference; other games: +1/0/-1), from the side to move's view."""

    action: int
    value: int
    nodes: int
