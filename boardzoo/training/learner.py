"""The learner: minibatch gradient steps on AlphaZero's loss over the replay buffer."""

from __future__ import annotations

import math

import numpy as np
import torch

from boardzoo.agents.alphazero.network import AlphaZeroNet, alphazero_loss
from boardzoo.training.config import TrainConfig
from boardzoo.training.replay import ReplayBuffer

__all__ = ["Learner"]


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
        self.net.train()
        totals: dict[str, float] = {}
        for _ in range(steps):
            planes, masks, pis, zs = replay.sample(self.config.batch_size, rng)
            planes_t, masks_t, pis_t, zs_t = (torch.from_numpy(x).to(self.device)
                                              for x in (planes, masks, pis, zs))
            for group in self.optimizer.param_groups:
                group["lr"] = self.learning_rate()
            loss, parts = alphazero_loss(self.net, planes_t, masks_t, pis_t, zs_t,
                                         l2=self.config.l2)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
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
