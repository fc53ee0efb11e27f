"""A batch of two-player games for self-play learners: the caller plays both seats.

``TwoPlayerVectorEnv("connect_four", num_envs=1024)`` keeps N games as rows of one state array
and steps them in one compiled loop over the game's kernels (:mod:`boardzoo.rl.kernels`), as
pgx's batched envs do in JAX:

* ``reset(seed) -> (obs, info)`` and ``step(actions) -> (obs, rewards, terminations,
  truncations, info)``; ``actions[i]`` is played for the side to move in game ``i``;
* ``obs[i]`` is the position from the side to move's view (the game's planes, float32
  ``[N, H, W, C]``, or ``observation="flat"``: ``[N, H*W*C]``); ``info["to_play"]`` (int64
  ``[N]``) says which seat that is, ``info["action_mask"]`` (int8 ``[N, num_actions]``, 1 =
  legal) what it may play; ``action_masks()`` is the bool form;
* ``rewards`` is float32 ``[N, 2]``: both seats' rewards for that move, +1 win, 0 draw,
  -1 loss, zero until a game ends (zero-sum whenever the game ends by its rules);
* same-step autoreset: a game that ends at a step has ``terminations[i]`` True, and
  ``obs[i]``, ``info`` and the next action are already those of the next game. Truncations
  are always False: every game ends by its rules (Go's move limit is a scored end);
* an illegal action ends its game with -1 for the mover and 0 for the other seat
  (``illegal_action="terminate"``, PettingZoo's convention, without a warning: the rewards
  and ``info["illegal_action"]`` say it), -1 and +1 (``"lose"``), or raises (``"raise"``);
* ``opening_plies=K`` starts every game after a uniformly drawn number (0 to K) of uniformly
  random moves, drawn from game ``i``'s generator, seeded with ``seed + i``.

Game ``i`` plays exactly what a PettingZoo AEC env of the same game plays given the same
moves (``boardzoo.testing.check_two_player_vector_env`` checks it move by move).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from boardzoo.envs import checked_game
from boardzoo.envs.core import Game
from boardzoo.errors import GameOverError, IllegalActionError, InvalidOptionError
from boardzoo.options import keyword_names
from boardzoo.rl.kernels import batch_kernels
from boardzoo.rl.observation import observation_space, shape_observation
from boardzoo.rl.single import check_learner_options
from boardzoo.rng import make_rng

__all__ = ["TwoPlayerVectorEnv"]


class TwoPlayerVectorEnv:
    """``num_envs`` games of ``game`` (with its ``options``) played by one caller for both
    seats (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        observation: str = "planes",
        illegal_action: str = "terminate",
        opening_plies: int = 0,
        **options: Any,
    ):
        check_learner_options(illegal_action, opening_plies, num_envs=num_envs)
        own = [name for name in keyword_names(TwoPlayerVectorEnv) if name != "game"]
        self.game: Game = checked_game(game, options, "TwoPlayerVectorEnv()", also=own)
        self.num_envs = int(num_envs)
        self.illegal_action = illegal_action
        self.opening_plies = int(opening_plies)
        self.observation_format = observation
        self.single_observation_space = observation_space(self.game, observation)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self._kernels = batch_kernels(self.game)
        self._initial = self.game.initial_state()
        n, a = self.num_envs, self.game.num_actions
        self._states = np.tile(self._initial, (n, 1))
        self._rngs = np.stack([make_rng(None) for _ in range(n)])
        self._legal = np.zeros((n, a), dtype=bool)
        self._to_play = np.zeros(n, dtype=np.int64)
        self._planes = np.zeros((n, *self.game.planes_shape), dtype=np.float32)
        self._started = False

    def reset(self, seed: int | list[int] | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game; ``seed``: an int (game i gets ``seed + i``) or one per game."""
        if seed is not None:
            if isinstance(seed, (int, np.integer)):
                seeds = [int(seed) + i for i in range(self.num_envs)]
            else:
                seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise InvalidOptionError(f"give {self.num_envs} seeds, got {len(seeds)}")
            self._rngs = np.stack([make_rng(s) for s in seeds])
        self._planes = self._new_planes()
        self._kernels.selfplay_restart(self._rows(), self._initial, self.opening_plies)
        self._observe_in_python()
        self._started = True
        return shape_observation(self._planes, self.observation_format), self._info(None)

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play ``actions`` (int ``[N]``) for the sides to move: see the module docstring."""
        if not self._started:
            raise GameOverError("no games are running: call reset() before step()")
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if self.illegal_action == "raise":
            self._check_actions(actions)
        rewards = np.empty((self.num_envs, 2), dtype=np.float32)
        terminations = np.empty(self.num_envs, dtype=bool)
        illegal = np.empty(self.num_envs, dtype=bool)
        self._planes = self._new_planes()
        self._kernels.selfplay_step(
            self._rows(), actions, self.illegal_action == "lose", self._initial,
            self.opening_plies, (rewards, terminations, illegal))  # StepResults' fields
        self._observe_in_python()
        obs = shape_observation(self._planes, self.observation_format)
        truncations = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards, terminations, truncations, self._info(illegal)

    def action_masks(self) -> np.ndarray:
        """Bool masks ``[N, num_actions]`` of the sides to move (True = legal)."""
        return self._legal.copy()

    @property
    def to_play(self) -> np.ndarray:
        """The seat to move in each game (0 moves first), as ``info["to_play"]``."""
        return self._to_play.copy()

    def close(self) -> None:
        """Nothing to release (the games live in this process's memory)."""

    # ------------------------------------------------------------------------ internals
    def _new_planes(self) -> np.ndarray:
        """A fresh observation buffer (the kernels fill every entry), so the arrays a step
        returns are never changed by a later one."""
        return np.empty((self.num_envs, *self.game.planes_shape), dtype=np.float32)

    def _rows(self) -> tuple[np.ndarray, ...]:
        """The games' arrays as the compiled step and restart take them: the fields of
        ``kernels.SelfPlayRows`` as a plain tuple (see :mod:`boardzoo.rl.kernels`;
        ``_planes`` is new at every step)."""
        return self._states, self._rngs, self._legal, self._planes, self._to_play

    def _check_actions(self, actions: np.ndarray) -> None:
        """IllegalActionError for the first game whose action is not legal (nothing played)."""
        for i in range(self.num_envs):
            try:
                self.game.check_action(self._states[i], int(actions[i]), self._legal[i])
            except IllegalActionError as err:
                raise IllegalActionError(f"game {i}: {err}") from None

    def _observe_in_python(self) -> None:
        """Observations of games whose rules have no compiled ``kernels.observe``."""
        if self.game.kernels.observe is None:
            for i in range(self.num_envs):
                self._planes[i] = self.game.observe(self._states[i], int(self._to_play[i]))

    def _info(self, illegal: np.ndarray | None) -> dict[str, Any]:
        info = {"action_mask": self._legal.view(np.int8).copy(), "to_play": self._to_play.copy()}
        if illegal is not None and illegal.any():
            info["illegal_action"] = illegal
        return info
