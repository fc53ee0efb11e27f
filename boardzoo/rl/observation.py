"""Observation formats for learners: the game's planes, or the same numbers flattened.

* ``"planes"``: float32 ``(H, W, C)`` in [0, 1] from the learner's view (the game's planes;
  :class:`boardzoo.agents.ppo.BoardCNN` is a small CNN features extractor for them);
* ``"flat"``: float32 ``(H * W * C,)``, the planes in C order (for MlpPolicy).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from boardzoo.errors import InvalidOptionError

__all__ = ["OBSERVATION_FORMATS", "observation_shape", "observation_space", "shape_observation"]

OBSERVATION_FORMATS = ("planes", "flat")


def observation_shape(game: Any, observation: str) -> tuple[int, ...]:
    """The shape of one observation in format ``observation``."""
    if observation not in OBSERVATION_FORMATS:
        raise InvalidOptionError(
            f"observation={observation!r} is not allowed; use one of {OBSERVATION_FORMATS}"
        )
    shape = tuple(game.planes_shape)
    return shape if observation == "planes" else (int(np.prod(shape)),)


def observation_space(game: Any, observation: str) -> spaces.Box:
    return spaces.Box(0.0, 1.0, observation_shape(game, observation), np.float32)


def shape_observation(planes: np.ndarray, observation: str) -> np.ndarray:
    """``planes`` (``[..., H, W, C]``) in format ``observation`` (no copy for "flat")."""
    if observation == "planes":
        return planes
    return planes.reshape(*planes.shape[:-3], -1)
