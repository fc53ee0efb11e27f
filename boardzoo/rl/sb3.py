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

from boardzoo.errors import InvalidOptionError
from boardzoo.rl.vector import BoardVectorEnv

__all__ = ["SB3VecEnv", "make_sb3_vec_env"]


class SB3VecEnv(VecEnv):
    """SB3's ``VecEnv`` over one or more compiled :class:`BoardVectorEnv` (same-step autoreset).

    Several vector envs of the same game and observation format (e.g. one against the
    self-play pool and one against "win_or_block") act as one: their envs are concatenated.
    """

    def __init__(self, venvs: BoardVectorEnv | list[BoardVectorEnv]):
        self.venvs = [venvs] if isinstance(venvs, BoardVectorEnv) else list(venvs)
        first = self.venvs[0]
        if any(v.single_observation_space != first.single_observation_space for v in self.venvs):
            raise InvalidOptionError("SB3VecEnv: every vector env needs the same observations")
        self.render_mode = None
        self._bounds = np.cumsum([0] + [v.num_envs for v in self.venvs])
        super().__init__(
            int(self._bounds[-1]), first.single_observation_space, first.single_action_space
        )
        self._actions = np.zeros(self.num_envs, dtype=np.int64)

    def reset(self) -> np.ndarray:
        seeds = None if self._seeds[0] is None else list(self._seeds)
        obs = [venv.reset(seed=self._part(seeds, k))[0] for k, venv in enumerate(self.venvs)]
        self._reset_seeds()
        self._reset_options()
        return np.concatenate(obs)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        parts = [
            self._step_one(venv, self._part(self._actions, k)) for k, venv in enumerate(self.venvs)
        ]
        obs, rewards, dones, infos = zip(*parts, strict=True)
        return np.concatenate(obs), np.concatenate(rewards), np.concatenate(dones), sum(infos, [])

    def action_masks(self) -> np.ndarray:
        """Bool ``[num_envs, num_actions]``: the learners' legal actions now."""
        return np.concatenate([venv.action_masks() for venv in self.venvs])

    def close(self) -> None:
        for venv in self.venvs:
            venv.close()

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self if attr_name == "action_masks" else self.venvs[0], attr_name)
        return [value] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        for venv in self.venvs:
            setattr(venv, attr_name, value)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any):
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            return list(self.action_masks()[rows])
        results = [getattr(venv, method_name)(*args, **kwargs) for venv in self.venvs]
        return [results[int(np.searchsorted(self._bounds, i, side="right")) - 1] for i in rows]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def _part(self, values: Any, k: int) -> Any:
        """The slice of a per-env sequence that belongs to vector env ``k``."""
        return None if values is None else values[self._bounds[k] : self._bounds[k + 1]]

    @staticmethod
    def _step_one(venv: BoardVectorEnv, actions: np.ndarray):
        obs, rewards, terminated, truncated, step_infos = venv.step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(venv.num_envs)]
        if dones.any():
            illegal = step_infos.get("illegal_action", np.zeros(venv.num_envs, dtype=bool))
            for i in np.flatnonzero(dones):
                infos[i] = {"terminal_observation": obs[i], "TimeLimit.truncated": False}
                if illegal[i]:
                    infos[i]["illegal_action"] = True
            obs, _ = venv.restart_finished()
        return obs, rewards.astype(np.float32), dones, infos


def make_sb3_vec_env(game: str, num_envs: int = 8, **kwargs: Any) -> VecMonitor:
    """A monitored SB3 ``VecEnv`` of ``num_envs`` compiled games (kwargs: BoardVectorEnv's).

    Worker processes are not needed: the compiled env steps every game in this process.
    """
    return VecMonitor(SB3VecEnv(BoardVectorEnv(game, num_envs=num_envs, **kwargs)))
