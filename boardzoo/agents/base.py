"""What every agent is: something that picks an action for the side to move."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardzoo.envs.core import Game

__all__ = ["Agent", "PolicyAgent", "check_agent_plays"]


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


def check_agent_plays(agent: Any, game: Game) -> None:
    """Raise InvalidOptionError, before any move, where ``agent`` cannot play ``game``: an
    agent that plays only some games (a network trained for other rules, no shipped network
    for this one) says so in its ``check_plays(game)``; the others play every game."""
    check = getattr(agent, "check_plays", None)
    if check is not None:
        check(game)
