"""A compiled vector env: N single-agent games stepped in one process by the numba kernels.

``gymnasium.make_vec("boardzoo/ConnectFour-v0", num_envs=64,
vectorization_mode="vector_entry_point", opponent="random")``. Env ``i`` behaves exactly like
``gymnasium.make("boardzoo/ConnectFour-v0", ...)`` reset with seed ``seed + i`` and given the
same actions (the same generator stream drives the seat draws and the compiled opponents).

* Observations ``[N, *single shape]`` and rewards ``[N]`` are the learners' (see
  :mod:`boardzoo.rl.single`); ``info["action_mask"]`` is int8 ``[N, num_actions]`` and
  ``action_masks()`` the bool masks (all False for an env whose episode just ended).
* An illegal action ends that env's episode with reward -1 and ``info["illegal_action"]``
  (``illegal_action`` "terminate" or "lose", as the single-agent view), or raises
  (``"raise"``).
* Next-step autoreset (``metadata["autoreset_mode"]``): the step after an episode ends resets
  that env, ignores its action and returns the first observation, reward 0, not terminated.
* Opponents "random" and "win_or_block" reply inside the kernels; any other opponent is
  called per env (one agent per env when built from a spec), or in one batch if it has
  ``act_batch(observations, masks) -> actions`` (the self-play pool does).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from boardzoo.envs import checked_game, gym_id, make_env
from boardzoo.envs.aec import snapshot_of
from boardzoo.envs.core import OUTCOME, TO_PLAY
from boardzoo.errors import InvalidOptionError
from boardzoo.rl.kernels import EXTERNAL, batch_kernels
from boardzoo.rl.observation import observation_space, shape_observation
from boardzoo.rl.opponents import CompiledOpponent, resolve_opponent
from boardzoo.rl.single import check_learner_options, env_keywords
from boardzoo.rng import make_rng

__all__ = ["BoardVectorEnv"]


class BoardVectorEnv(VectorEnv):
    """``num_envs`` games of ``game`` against ``opponent``; options as the single-agent view."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        opponent: Any = "random",
        seat: int | str = "random",
        illegal_action: str = "terminate",
        observation: str = "planes",
        render_mode: str | None = None,
        opening_plies: int = 0,
        **options: Any,
    ):
        check_learner_options(illegal_action, opening_plies, seat=seat, num_envs=num_envs)
        if render_mode is not None:
            raise InvalidOptionError(
                "the compiled vector env does not render; use render_mode=None"
            )
        self.opening_plies = int(opening_plies)
        self.game = checked_game(
            game,
            options,
            f"gym.make_vec({gym_id(game)!r})",
            also=["num_envs", "vectorization_mode", *env_keywords(BoardVectorEnv)],
        )
        self.game_name, self.game_options = game, options
        self.num_envs = int(num_envs)
        self.illegal_action = illegal_action
        self.observation_format = observation
        self.single_observation_space = observation_space(self.game, observation)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._opponent_spec = opponent
        self._random_seat = seat == "random"
        self._kernels = batch_kernels(self.game)
        self._initial = self.game.initial_state()
        n, a = self.num_envs, self.game.num_actions
        self._states = np.tile(self._initial, (n, 1))
        self._seats = np.full(n, 0 if seat == "random" else seat, dtype=np.int64)
        self._rngs = np.stack([make_rng(None) for _ in range(n)])
        self._done = np.zeros(n, dtype=bool)
        self._illegal = np.zeros(n, dtype=bool)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=bool)
        self._masks = np.zeros((n, a), dtype=bool)
        self._planes = np.zeros((n, *self.game.planes_shape), dtype=np.float32)
        self._set_opponents(None)
        self._views: dict[int, Any] = {}

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Restart every env; ``seed`` (int: env i gets ``seed + i``; or one seed per env)."""
        if options:
            raise InvalidOptionError(
                f"reset options {sorted(options)} are not supported by the vector env"
            )
        if seed is not None:
            seeds = [seed + i for i in range(self.num_envs)] if isinstance(seed, int) else seed
            if len(seeds) != self.num_envs:
                raise InvalidOptionError(f"give {self.num_envs} seeds, got {len(seeds)}")
            self._rngs = np.stack([make_rng(s) for s in seeds])
            self._set_opponents(seeds)
        self._restart(np.ones(self.num_envs, dtype=bool))
        self._done[:] = False
        self._illegal[:] = False
        return self._observations(), self._infos()

    def step(self, actions: Any):
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        restarting = self._done.copy()
        active = ~restarting
        if self.illegal_action == "raise":
            self._check_actions(actions, active)
        if restarting.any():
            self._restart(restarting)
        k = self._kernels
        k.step(self._games(), actions, active, self._kind, self._illegal,
               self.game.num_actions)
        if self._kind == EXTERNAL:
            self._external_replies(active & ~self._illegal)
        k.rewards(self._states, self._seats, self._illegal, self._rewards, self._terminated)
        self._done[:] = self._terminated
        truncated = np.zeros(self.num_envs, dtype=bool)
        return (
            self._observations(),
            self._rewards.copy(),
            self._terminated.copy(),
            truncated,
            self._infos(),
        )

    def restart_finished(self) -> tuple[np.ndarray, dict[str, Any]]:
        """Restart now the envs whose episode ended at the last step (same-step autoreset,
        as SB3 wants) and return the observations and infos after it."""
        if self._done.any():
            self._restart(self._done.copy())
            self._done[:] = False
            self._illegal[:] = False
        return self._observations(), self._infos()

    def action_masks(self) -> np.ndarray:
        """Bool masks ``[num_envs, num_actions]`` of the learners' legal actions."""
        return self._masks.copy()

    def close_extras(self, **kwargs: Any) -> None:
        self._views.clear()

    # ------------------------------------------------------------------------ internals
    @property
    def seats(self) -> np.ndarray:
        """The learner's seat in each env (0 moves first)."""
        return self._seats.copy()

    def _set_opponents(self, seeds: list[int] | None) -> None:
        spec = self._opponent_spec
        first = resolve_opponent(spec, None if seeds is None else seeds[0], game=self.game)
        self._kind = first.kind if isinstance(first, CompiledOpponent) else EXTERNAL
        self._batched = hasattr(first, "act_batch")
        if self._kind != EXTERNAL or self._batched or not isinstance(spec, (str, dict)):
            self._opponents = [first] * self.num_envs
            if seeds is not None and hasattr(first, "reseed") and not isinstance(spec, (str, dict)):
                first.reseed(seeds[0])
        else:  # agents built from a spec keep per-game state (trees): one per env
            self._opponents = [first] + [
                resolve_opponent(spec, None if seeds is None else seeds[k])
                for k in range(1, self.num_envs)
            ]

    def _games(self) -> tuple[np.ndarray, ...]:
        """The games' arrays as the compiled step and reset take them: the fields of
        ``kernels.Games`` as a plain tuple (see :mod:`boardzoo.rl.kernels`)."""
        return self._states, self._seats, self._rngs

    def _restart(self, which: np.ndarray) -> None:
        self._kernels.reset(self._games(), self._initial, which, self._random_seat,
                            self.opening_plies, self._kind, self.game.num_actions)
        if self._kind == EXTERNAL:
            self._external_replies(which)
            over = which & (self._states[:, OUTCOME] != 0)  # the reply ended the opening game
            if over.any():
                self._states[over] = self._initial
                self._external_replies(over)

    def _check_actions(self, actions: np.ndarray, active: np.ndarray) -> None:
        self._kernels.masks(self._states, self._done, self._masks)
        for i in np.flatnonzero(active):
            self.game.check_action(self._states[i], int(actions[i]), self._masks[i])

    def _external_replies(self, rows: np.ndarray) -> None:
        """Let a non-compiled opponent move in the envs of ``rows`` until the learner is to move."""
        while True:
            waiting = [
                int(i)
                for i in np.flatnonzero(rows)
                if self._states[i, OUTCOME] == 0 and self._states[i, TO_PLAY] != self._seats[i]
            ]
            if not waiting:
                return
            for i, action in zip(waiting, self._opponent_actions(waiting), strict=True):
                self._states[i] = self.game.step(self._states[i], int(action))

    def _opponent_actions(self, waiting: list[int]) -> list[int]:
        if self._batched:
            states, seats = self._states[waiting], self._seats[waiting]
            planes = np.zeros((len(waiting), *self.game.planes_shape), dtype=np.float32)
            self._observe(states, 1 - seats, planes)
            masks = np.zeros((len(waiting), self.game.num_actions), dtype=bool)
            self._kernels.masks(states, np.zeros(len(waiting), dtype=bool), masks)
            obs = shape_observation(planes, self.observation_format)
            return [int(a) for a in self._opponents[0].act_batch(obs, masks)]
        return [self._opponents[i].act(self._view(i)) for i in waiting]

    def _view(self, i: int) -> Any:
        """An AEC env showing env ``i``'s position, for agents that plan through EnvModel."""
        if i not in self._views:
            self._views[i] = make_env(self.game_name, illegal_action="raise", **self.game_options)
        view = self._views[i]
        view.restore_state(snapshot_of(self.game, self._states[i].copy()))
        return view

    def _observe(self, states: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        if self._kernels.observe is not None:
            self._kernels.observe(states, seats, out)
        else:
            for i in range(states.shape[0]):
                out[i] = self.game.observe(states[i], int(seats[i]))

    def _observations(self) -> np.ndarray:
        self._observe(self._states, self._seats, self._planes)
        return shape_observation(self._planes, self.observation_format).copy()

    def _infos(self) -> dict[str, Any]:
        self._kernels.masks(self._states, self._done | self._illegal, self._masks)
        every = np.ones(self.num_envs, dtype=bool)
        infos = {
            "action_mask": self._masks.astype(np.int8),
            "_action_mask": every,
            "seat": self._seats.copy(),
            "_seat": every.copy(),
        }
        if self._illegal.any():
            infos["illegal_action"] = self._illegal.copy()
            infos["_illegal_action"] = self._illegal.copy()
        return infos
