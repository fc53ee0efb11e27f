"""Single-agent Gymnasium view of a boardzoo game against a fixed opponent.

The learner plays one seat; the opponent's replies happen inside ``step``. The reward is the
learner's (+1 win, 0 draw, -1 loss, at the end). ``info["action_mask"]`` and the
``action_masks()`` method (sb3-contrib's MaskablePPO) give the learner's legal moves.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from boardzoo.envs import make_env
from boardzoo.envs.aec import AGENTS
from boardzoo.errors import InvalidOptionError

__all__ = ["SingleAgentEnv", "resolve_opponent"]


def resolve_opponent(opponent: Any, seed: int | None) -> Any:
    """An agent from "random" / a spec string / a dict / an Agent / a stable-baselines3 model."""
    from boardzoo.agents import make_agent  # agents depend on wrappers; resolve lazily

    if isinstance(opponent, (str, dict)):
        return make_agent(opponent, seed=seed)
    if hasattr(opponent, "act"):
        return opponent
    if hasattr(opponent, "predict"):
        return make_agent({"name": "sb3", "model": opponent})
    raise InvalidOptionError(
        f"opponent {opponent!r} is not usable: give 'random', 'mcts', 'alphabeta', "
        "'alphazero', a dict {'name': ..., **options}, a boardzoo agent, or an SB3 model"
    )


class SingleAgentEnv(gym.Env):
    """``gymnasium.make("boardzoo/ConnectFour-v0", opponent="random", seat="random")``.

    ``seat`` is the learner's seat: 0 (moves first), 1, or "random" (drawn at each reset).
    Observations are the learner's planes (H, W, C) float32.
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponent: Any = "random",
        seat: int | str = "random",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **options: Any,
    ):
        if seat not in (0, 1, "random"):
            raise InvalidOptionError(f"seat={seat!r} is not allowed; use 0, 1 or 'random'")
        self.aec_env = make_env(
            game, render_mode=render_mode, illegal_action=illegal_action, **options
        )
        self.game = self.aec_env.game
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, 1.0, self.game.planes_shape, np.float32)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self._opponent_spec = opponent
        self._seat_spec = seat
        self.opponent = resolve_opponent(opponent, seed=None)
        self.seat = 0 if seat == "random" else seat

    @property
    def learner(self) -> str:
        return AGENTS[self.seat]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            opponent_seed = int(self.np_random.integers(2**31))
            self.opponent = resolve_opponent(self._opponent_spec, seed=opponent_seed)
        if self._seat_spec == "random":
            self.seat = int(self.np_random.integers(2))
        self.aec_env.reset(seed=seed, options=options)
        self._let_opponent_move()
        return self._observation(), self._info()

    def step(self, action: Any):
        if self._done():
            raise InvalidOptionError("the episode has ended; call reset()")
        self.aec_env.step(action)
        self._let_opponent_move()
        terminated = self._done()
        reward = float(self.aec_env.rewards[self.learner]) if terminated else 0.0
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (for sb3-contrib's MaskablePPO)."""
        return self.aec_env.legal_mask()

    def render(self):
        return self.aec_env.render()

    def close(self) -> None:
        self.aec_env.close()

    def _done(self) -> bool:
        return self.aec_env.terminations[self.learner]

    def _let_opponent_move(self) -> None:
        env = self.aec_env
        while not self._done() and env.agent_selection != self.learner:
            env.step(self.opponent.act(env))

    def _observation(self) -> np.ndarray:
        return self.aec_env.observe(self.learner)["observation"]

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.aec_env.legal_mask().astype(np.int8), "seat": self.seat}
