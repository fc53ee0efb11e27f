"""A drop-in for ``pettingzoo.classic.connect_four_v3`` on boardzoo's compiled Connect Four.

``from boardzoo.classic import connect_four_v3`` in place of ``from pettingzoo.classic import
connect_four_v3``: the same agents (``player_0`` moves first), spaces, int8 observations
(6, 7, 2) with row 0 at the top, action masks, integer rewards, wrapper chain and ``board``
(a list of 42 ints, row-major from the top: 0 empty, 1 ``player_0``, 2 ``player_1``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.classic.adapter import ClassicEnv, pettingzoo_metadata, wrapped
from boardzoo.envs.connect_four import ConnectFour
from boardzoo.options import strict_keywords

__all__ = ["env", "raw_env"]


class raw_env(ClassicEnv):  # noqa: N801 - PettingZoo's name
    """Connect Four as PettingZoo's raw ``connect_four_v3`` env (``screen_scaling`` is
    accepted and unused: pictures are boardzoo's)."""

    metadata = pettingzoo_metadata("connect_four_v3")

    @strict_keywords("connect_four_v3.raw_env()")
    def __init__(self, render_mode: str | None = None, screen_scaling: int = 9):
        super().__init__(ConnectFour(), render_mode=render_mode)
        self.screen_scaling = screen_scaling

    @property
    def board(self) -> list[int]:
        """The 42 cells row-major from the top: 0 empty, 1 player_0, 2 player_1 (built from
        the state when read)."""
        return self.game.cells(self._state).ravel().tolist()

    def final_mask(self) -> np.ndarray:
        """The columns whose top cell is empty."""
        return self.game.cells(self._state)[0] == 0


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``connect_four_v3.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
