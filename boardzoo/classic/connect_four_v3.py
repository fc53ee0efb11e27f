"""A drop-in for ``pettingzoo.classic.connect_four_v3`` on boardzoo's compiled Connect Four.

``from boardzoo.classic import connect_four_v3`` in place of ``from pettingzoo.classic import
connect_four_v3``: the same agents (``player_0`` moves first), spaces, int8 observations
(6, 7, 2) with row 0 at the top, action masks, integer rewards, wrapper chain and ``board``
(a list of 42 ints, row-major from the top: 0 empty, 1 ``player_0``, 2 ``player_1``), and
``rgb_array`` frames of PettingZoo's size (boardzoo's picture, fitted in).
"""

from __future__ import annotations

from typing import Any

from numba import njit

from boardzoo.classic.adapter import (
    ClassicEnv,
    checked_screen_scaling,
    pettingzoo_metadata,
    wrapped,
)
from boardzoo.classic.kernels import final_position
from boardzoo.envs.connect_four import ConnectFour, legal_mask_kernel, observe_kernel
from boardzoo.options import strict_keywords

__all__ = ["env", "raw_env"]


@njit(cache=True)
def observation_kernel(state, seat, planes, legal, mask):
    """The selected agent's observation in one call (see :mod:`boardzoo.classic.kernels`)."""
    observe_kernel(state, seat, planes)
    legal_mask_kernel(final_position(state), legal)
    mask[:] = legal


class raw_env(ClassicEnv):  # noqa: N801 - PettingZoo's name
    """Connect Four as PettingZoo's raw ``connect_four_v3`` env (pictures are boardzoo's, in
    frames of PettingZoo's size: ``screen_scaling`` sets it)."""

    metadata = pettingzoo_metadata("connect_four_v3")
    observation_kernel = staticmethod(observation_kernel)

    @strict_keywords("connect_four_v3.raw_env()")
    def __init__(self, render_mode: str | None = None, screen_scaling: int = 9):
        super().__init__(ConnectFour(), render_mode=render_mode)
        self.screen_scaling = checked_screen_scaling("connect_four_v3.raw_env()", screen_scaling)

    @property
    def board(self) -> list[int]:
        """The 42 cells row-major from the top: 0 empty, 1 player_0, 2 player_1 (built from
        the state when read)."""
        return self.game.cells(self._state).ravel().tolist()

    def frame_size(self) -> tuple[int, int]:
        """PettingZoo's: 99 x 86 pixels per unit of ``screen_scaling``."""
        width = 99 * self.screen_scaling
        return width, int(86 / 99 * width)


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``connect_four_v3.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
