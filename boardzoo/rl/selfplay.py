"""Self-play for SB3 learners: the opponent is drawn from a pool of the learner's own past
policies, and an SB3 callback keeps the pool up to date during training.

    pool = PolicyPool(size=8, seed=0)
    env = make_sb3_vec_env("connect_four", 64, opponent=pool.opponent(), observation="flat")
    model = MaskablePPO("MlpPolicy", env)
    model.learn(1_000_000, callback=SelfPlayCallback(pool, snapshot_every=50_000))

:class:`PoolOpponent` plays with one snapshot at a time (``act_batch`` for the vector env,
``act`` for the single-agent view and arenas); the callback snapshots the learner every
``snapshot_every`` steps and draws a new opponent snapshot at the start of every rollout.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import torch
from stable_baselines3.common.callbacks import BaseCallback

from boardzoo.errors import InvalidOptionError
from boardzoo.wrappers.model import boardzoo_env

__all__ = ["PolicyPool", "PoolOpponent", "SelfPlayCallback"]


class PolicyPool:
    """Up to ``size`` snapshots (state dicts) of a policy; the oldest leave first."""

    def __init__(self, size: int = 8, seed: int | None = None):
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise InvalidOptionError(f"pool size={size!r} is not allowed; use an integer >= 1")
        self.size = size
        self.snapshots: list[dict[str, torch.Tensor]] = []
        self.rng = np.random.default_rng(seed)
        self._opponent = PoolOpponent(self)

    def add(self, policy: torch.nn.Module) -> None:
        """Store a copy of ``policy``'s weights (the first call also fixes the architecture)."""
        if self._opponent.policy is None:
            self._opponent.policy = copy.deepcopy(policy).cpu()
            self._opponent.policy.set_training_mode(False)
        self.snapshots.append({k: v.detach().cpu().clone() for k, v in policy.state_dict().items()})
        del self.snapshots[: -self.size]

    def opponent(self) -> PoolOpponent:
        """The opponent that plays with this pool's snapshots (one object per pool)."""
        return self._opponent

    def draw(self) -> None:
        """Make the opponent play with a uniformly drawn snapshot from now on."""
        if not self.snapshots:
            raise InvalidOptionError("the policy pool is empty: add the learner's policy first")
        index = int(self.rng.integers(len(self.snapshots)))
        self._opponent.policy.load_state_dict(self.snapshots[index])
        self._opponent.snapshot = index


class PoolOpponent:
    """Plays a pool snapshot's masked policy (sampled, not greedy, for varied games); before
    the pool has a snapshot (SB3 resets its env before training starts) it plays uniformly
    random legal moves."""

    def __init__(self, pool: PolicyPool):
        self.pool = pool
        self.policy: Any = None
        self.snapshot: int | None = None

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions ``[B]`` for observations ``[B, ...]`` from the movers' view, masks ``[B, A]``."""
        if self.policy is None:
            scores = self.pool.rng.random(masks.shape) * masks
            return scores.argmax(axis=1)
        if self.snapshot is None:
            self.pool.draw()
        with torch.no_grad():
            actions, _ = self.policy.predict(observations, deterministic=False, action_masks=masks)
        return np.asarray(actions).reshape(-1)

    def act(self, env: Any) -> int:
        raw = boardzoo_env(env)
        if raw is None:
            raise InvalidOptionError("the pool opponent plays boardzoo envs only")
        observation = raw.observe(raw.agent_selection)
        planes = observation["observation"].reshape(self.policy.observation_space.shape)
        masks = observation["action_mask"].astype(bool)[None]
        return int(self.act_batch(planes[None], masks)[0])


class SelfPlayCallback(BaseCallback):
    """Adds the learner to ``pool`` at the start and every ``snapshot_every`` steps, and
    draws the opponent's snapshot at the start of every rollout."""

    def __init__(self, pool: PolicyPool, snapshot_every: int = 10_000, verbose: int = 0):
        super().__init__(verbose)
        self.pool = pool
        self.snapshot_every = snapshot_every
        self._next_snapshot = 0

    def _on_training_start(self) -> None:
        if not self.pool.snapshots:
            self.pool.add(self.model.policy)
        self._next_snapshot = self.num_timesteps + self.snapshot_every

    def _on_rollout_start(self) -> None:
        self.pool.draw()

    def _on_step(self) -> bool:
        if self.num_timesteps >= self._next_snapshot:
            self.pool.add(self.model.policy)
            self._next_snapshot += self.snapshot_every
            if self.verbose:
                print(
                    f"self-play pool: {len(self.pool.snapshots)} snapshots at {self.num_timesteps}"
                )
        return True
