"""The uniformly random agent: the baseline every rating table starts from."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.options import KeywordChecked
from boardzoo.wrappers.model import legal_mask

__all__ = ["RandomAgent"]


class RandomAgent(KeywordChecked):
    """Plays a uniformly random legal action; ``seed`` (int or Generator) makes it repeatable."""

    def __init__(self, seed: int | np.random.Generator | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int) -> None:
        """Restart the random stream (the arena does this before every game)."""
        self.rng = np.random.default_rng(seed)

    def act(self, env: Any) -> int:
        return int(self.rng.choice(np.flatnonzero(legal_mask(env))))

    def policy(self, env: Any) -> np.ndarray:
        """Uniform over the legal actions."""
        mask = legal_mask(env)
        return mask / mask.sum()

    def __repr__(self) -> str:
        return "RandomAgent()"
