"""What every agent is: something that picks an action for the side to move."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Agent", "PolicyAgent"]


@runtime_checkable
class Agent(Protocol):
    """``act(env)`` returns a legal action for the agent to move in ``env`` (a PettingZoo AEC
    env at that agent's turn, or boardzoo's single-agent gym view)."""

    def act(self, env: Any) -> int: ...


@runtime_checkable
class PolicyAgent(Agent, Protocol):
    """An agent that also exposes its move distribution (MCTS visits, a network's policy)."""

    def policy(self, env: Any) -> np.ndarray:
        """Probabilities over all actions, shape ``[num_actions]``, summing to 1."""
        ...
