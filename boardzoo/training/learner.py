"""The learner: minibatch gradient steps on AlphaZero's loss over the replay buffer, in the
driver (:class:`Learner`) or in a Ray actor, e.g. on a cluster's GPU node
(:class:`ActorLearner`)."""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

import numpy as np
import torch

from boardzoo.agents.alphazero.network import (
    AlphaZeroNet,
    NetworkConfig,
    alphazero_loss,
    pick_device,
    zero_subnormals,
)
from boardzoo.envs.core import Game
from boardzoo.executor import WorkerDiedError
from boardzoo.torch_files import safe_torch_load, torch_bytes
from boardzoo.training.config import TrainConfig
from boardzoo.training.replay import ReplayBuffer

__all__ = ["ActorLearner", "Learner", "LearnerInActor", "sample_batches"]

#: (planes [B, H, W, C], masks [B, A], pi [B, A], z [B]), as ReplayBuffer.sample returns it
Batch = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def sample_batches(replay: ReplayBuffer, steps: int, batch_size: int,
                   rng: np.random.Generator) -> Iterator[Batch]:
    """``steps`` batches drawn (augmented) from ``replay``, one at a time."""
    for _ in range(steps):
        yield replay.sample(batch_size, rng)


class Learner:
    """Owns the network's training state: optimizer and step counter (what a resume needs).
    ``progress`` (0 to 1: the share of the run's budget spent, set by the loop) drives the
    cosine schedule."""

    def __init__(self, net: AlphaZeroNet, config: TrainConfig):
        self.net = net
        self.config = config
        self.device = next(net.parameters()).device
        self.step = 0
        self.progress = 0.0
        self.optimizer: torch.optim.Optimizer
        if config.optimizer == "adam":
            self.optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
        else:
            self.optimizer = torch.optim.SGD(net.parameters(), lr=config.learning_rate,
                                             momentum=0.9)

    def learning_rate(self) -> float:
        """The scheduled learning rate: constant, or cosine from the base rate down to 5% of
        it over the run's budget."""
        base = self.config.learning_rate
        if self.config.lr_schedule == "constant":
            return base
        progress = min(max(self.progress, 0.0), 1.0)
        return base * (0.05 + 0.95 * 0.5 * (1.0 + math.cos(math.pi * progress)))

    def train(self, replay: ReplayBuffer, steps: int, rng: np.random.Generator) -> dict[str, float]:
        """``steps`` gradient steps on batches sampled (augmented) from ``replay``; returns
        the mean loss parts."""
        return self.fit(sample_batches(replay, steps, self.config.batch_size, rng), steps)

    def fit(self, batches: Iterable[Batch], steps: int) -> dict[str, float]:
        """One gradient step on each of the ``steps`` batches; the mean loss parts."""
        self.net.train()
        totals: dict[str, float] = {}
        for batch in batches:
            planes_t, masks_t, pis_t, zs_t = (torch.from_numpy(x).to(self.device)
                                              for x in batch)
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate()
            loss, parts = alphazero_loss(self.net, planes_t, masks_t, pis_t, zs_t,
                                         l2=self.config.l2)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            zero_subnormals(self.net)  # weight decay's subnormals slow every later pass
            self.step += 1
            for key, value in parts.items():
                totals[key] = totals.get(key, 0.0) + value / steps
        self.net.eval()
        return totals

    def state(self) -> dict:
        """Weights, optimizer state and step counter (tensors and plain values only)."""
        return {"weights": self.net.state_dict(), "optimizer": self.optimizer.state_dict(),
                "step": self.step}

    def load(self, state: dict) -> None:
        self.net.load_state_dict(state["weights"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.step = int(state["step"])

    def close(self) -> None:
        """Release what the learner holds elsewhere (nothing: see ActorLearner)."""


def _state_from_bytes(data: bytes) -> dict:
    """A learner state sent as :func:`torch_bytes`, loaded on the CPU (nothing executed)."""
    return safe_torch_load(io.BytesIO(data), "the learner actor's state")


def _writable(batch: Batch) -> Batch:
    """``batch`` in arrays of its own: Ray hands arrays over read-only, and torch warns on
    tensors made from those."""
    planes, masks, pis, zs = (np.array(x) for x in batch)
    return planes, masks, pis, zs


class LearnerInActor:
    """What a learner actor holds: a :class:`Learner` of its own network on the actor's
    device (``config.device``; "auto" takes the GPU Ray gave it), driven by
    :class:`ActorLearner`."""

    def __init__(self, game: Game, config: TrainConfig):
        net = AlphaZeroNet.for_game(game, NetworkConfig(config.blocks, config.channels))
        self.learner = Learner(net.to(pick_device(config.device)), config)

    def fit(self, request: tuple[bytes | None, list[Batch], float]) -> tuple[dict, bytes]:
        """``request`` = (a state to start from or None to go on, batches, progress): the
        mean loss parts and the whole state after the steps (``torch.save`` bytes)."""
        state, batches, progress = request
        batches = [_writable(batch) for batch in batches]
        if state is not None:
            self.learner.load(_state_from_bytes(state))
        self.learner.progress = progress
        parts = self.learner.fit(batches, len(batches))
        return parts, torch_bytes(self.learner.state())


class ActorLearner(Learner):
    """A :class:`Learner` whose gradient steps run in an actor (on a GPU node of a Ray
    cluster when the driver has none). The driver keeps the learner's network and state
    (this object, on the CPU): batches are drawn here, from the driver's replay with the
    driver's generator, so the run trains exactly as a driver learner would; each call
    sends ``CHUNK`` batches and gets the actor's whole state back. An actor that dies is
    replaced by ``start_actor()``, given the last state and sent the same batches again: no
    step is lost or done twice (tests/test_ray.py kills one mid-run)."""

    CHUNK = 64  # gradient steps per actor call (bounds the batches held in one message)
    RESTARTS = 3

    def __init__(self, net: AlphaZeroNet, config: TrainConfig, start_actor: Callable[[], Any]):
        super().__init__(net, config)
        self._start_actor = start_actor
        self._actor: Any = start_actor()  # now: a backend without actors fails at once
        self._synced = False  # whether the actor holds this object's state

    def fit(self, batches: Iterable[Batch], steps: int) -> dict[str, float]:
        totals: dict[str, float] = {}
        batches = iter(batches)
        while chunk := list(islice(batches, self.CHUNK)):
            parts = self._fit_remotely(chunk)
            for key, value in parts.items():
                totals[key] = totals.get(key, 0.0) + value * len(chunk) / steps
        return totals

    def _fit_remotely(self, chunk: list[Batch]) -> dict[str, float]:
        for _ in range(self.RESTARTS + 1):
            if self._actor is None:
                self._actor, self._synced = self._start_actor(), False
            state = None if self._synced else torch_bytes(self.state())
            try:
                parts, after = self._actor.call("fit", (state, chunk, self.progress))
            except WorkerDiedError:
                self._actor = None  # replaced, and given the last state, on the next try
                continue
            super().load(_state_from_bytes(after))
            self._synced = True
            return parts
        raise WorkerDiedError(
            f"the learner actor died {self.RESTARTS + 1} times in a row; the run is saved "
            "up to its last iteration: continue it with --resume"
        )

    def load(self, state: dict) -> None:
        """Load ``state`` here; the actor gets it before its next steps."""
        super().load(state)
        self._synced = False

    def close(self) -> None:
        if self._actor is not None:
            self._actor.close()
            self._actor = None
