"""A drop-in for ``pettingzoo.classic.connect_four_v3`` on boardzoo's compiled Connect Four.

``from boardzoo.classic import connect_four_v3`` in place of ``from pettingzoo.classic import
connect_four_v3``: the same agents (``player_0`` moves first), spaces, int8 observations
(6, 7, 2) with row 0 at the top, action masks, integer rewards, wrapper chain and ``board``
(a list of 42 ints, row-major from the top: 0 empty, 1 ``player_0``, 2 ``player_1``), and
``rgb_array`` frames of PettingZoo's size (boardzoo's picture, fitted in).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from PIL import Image

from boardzoo.classic.adapter import ClassicEnv, pettingzoo_metadata, wrapped
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
        self.screen_scaling = screen_scaling

    @property
    def board(self) -> list[int]:
        """The 42 cells row-major from the top: 0 empty, 1 player_0, 2 player_1 (built from
        the state when read)."""
        return self.game.cells(self._state).ravel().tolist()

    def render(self) -> str | np.ndarray | None:
        """As boardzoo's envs render; an ``rgb_array`` frame is PettingZoo's size (99 x 86
        pixels per unit of ``screen_scaling``), so that code drawing captions over PettingZoo's
        frames (AgileRL's render script) finds the same canvas."""
        if self.render_mode != "rgb_array":
            return super().render()
        width = 99 * self.screen_scaling
        return _fitted(self.picture().to_image(), width, int(86 / 99 * width))


def _fitted(image: Image.Image, width: int, height: int) -> np.ndarray:
    """``image`` scaled to fit ``width`` x ``height`` (aspect kept) and centred, on its own
    corner colour: an RGB uint8 array of shape ``(height, width, 3)``."""
    scale = min(width / image.width, height / image.height)
    size = (round(image.width * scale), round(image.height * scale))
    frame = Image.new("RGB", (width, height), image.getpixel((0, 0)))
    frame.paste(image.resize(size, Image.Resampling.LANCZOS),
                ((width - size[0]) // 2, (height - size[1]) // 2))
    return np.asarray(frame, dtype=np.uint8).copy()


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``connect_four_v3.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
