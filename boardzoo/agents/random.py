"""The uniformly random agent: the baseline every rating table starts from."""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.agents.move import by_rules_of_play, rules_after_search, rules_before_search
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.options import KeywordChecked
from boardzoo.wrappers.model import boardzoo_env, legal_mask

__all__ = ["RandomAgent"]


class RandomAgent(KeywordChecked):
    """Plays a uniformly random legal action: the baseline rating tables start from.

    ``seed`` (int or Generator) makes it repeatable; ``rules_of_play=True``: by the game's
    rules of play (:mod:`boardzoo.agents.move`; Go: a pass instead of filling an own eye,
    and a pass when passing wins after the opponent's pass, so that its games end sooner).
    """

    def __init__(self, seed: int | np.random.Generator | None = None,
                 rules_of_play: bool = False):
        self.rng = np.random.default_rng(seed)
        self.rules_of_play = rules_of_play

    def reseed(self, seed: int) -> None:
        """Restart the random stream (the arena does this before every game)."""
        self.rng = np.random.default_rng(seed)

    def act(self, env: Any) -> int:
        action = int(self.rng.choice(np.flatnonzero(legal_mask(env))))
        raw = self._ruled_env(env)
        return action if raw is None else by_rules_of_play(raw.game, raw.state_array, action,
                                                           None)

    def policy(self, env: Any) -> np.ndarray:
        """The probabilities :meth:`act` plays each action with: uniform over the legal
        actions, each moved where the rules of play move it."""
        mask = legal_mask(env)
        uniform = mask / mask.sum()
        raw = self._ruled_env(env)
        if raw is None:
            return uniform
        game, state = raw.game, raw.state_array
        ruled = rules_before_search(game, state)
        out = np.zeros(uniform.shape)
        if ruled is not None:
            out[ruled] = 1.0
            return out
        for action in np.flatnonzero(mask):
            out[rules_after_search(game, state, int(action), None)] += uniform[action]
        return out

    def _ruled_env(self, env: Any) -> BoardGameEnv | None:
        """The boardzoo env behind ``env`` when the rules of play apply (None: they don't,
        or a PettingZoo env of another library, whose rules of play are not known)."""
        return boardzoo_env(env) if self.rules_of_play else None

    def __repr__(self) -> str:
        return "RandomAgent(rules_of_play=True)" if self.rules_of_play else "RandomAgent()"
