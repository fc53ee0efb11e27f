"""stable-baselines3 on boardzoo's compiled vector env.

:class:`SB3VecEnv` adapts a :class:`~boardzoo.rl.vector.BoardVectorEnv` to SB3's ``VecEnv``:
SB3 resets an env in the same step its episode ends and passes the last observation in
``infos[i]["terminal_observation"]``; ``env_method("action_masks")`` gives sb3-contrib's
MaskablePPO the learners' masks. :func:`make_sb3_vec_env` builds one wrapped in SB3's
``VecMonitor`` (episode returns and lengths for SB3's logger).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from boardzoo.rl.vector import BoardVectorEnv

__all__ = ["SB3VecEnv", "make_sb3_vec_env"]


class SB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` over a compiled :class:`BoardVectorEnv` (same-step autoreset)."""

    def __init__(self, venv: BoardVectorEnv):
        self.venv = venv
        self.render_mode = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions = np.zeros(venv.num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        seeds = None if self._seeds[0] is None else list(self._seeds)
        obs, _ = self.venv.reset(seed=seeds)
        self._reset_seeds()
        self._reset_options()
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terminated, truncated, step_infos = self.venv.step(self._actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            illegal = step_infos.get("illegal_action", np.zeros(self.num_envs, dtype=bool))
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": obs[i], "TimeLimit.truncated": False}
                if illegal[i]:
                    infos[i]["illegal_action"] = True
            obs, _ = self.venv.restart_finished()
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """Bool ``[num_envs, num_actions]``: the learners' legal actions now."""
        return self.venv.action_masks()

    def close(self) -> None:
        self.venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self if attr_name == "action_masks" else self.venv, attr_name)
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any):
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        result = getattr(self.venv, method_name)(*args, **kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


def make_sb3_vec_env(game: str, num_envs: int = 8, **kwargs: Any) -> VecMonitor:
    """A monitored SB3 ``VecEnv`` of ``num_envs`` compiled games (kwargs: BoardVectorEnv's)."""
    return VecMonitor(SB3VecEnv(BoardVectorEnv(game, num_envs=num_envs, **kwargs)))
