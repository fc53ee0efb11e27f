"""What every agent is: something that picks an action for the side to move."""

from __future__ import annotations

import threading
from typing import Any, Protocol, runtime_checkable

import numpy as np

from boardzoo.analysis import Analysis, ProgressFn
from boardzoo.envs.core import Game
from boardzoo.options import KeywordChecked
from boardzoo.timecontrol import ClockView

__all__ = ["Agent", "PolicyAgent", "SearchingAgent", "check_agent_plays"]


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


class SearchingAgent(KeywordChecked):
    """An agent whose move comes from one ``search`` (MCTS, alpha-beta): ``act`` plays the
    searched move and ``analyse`` returns the search as an :class:`Analysis`. Subclasses
    define ``search(env, clock, on_progress, stop)`` returning a result with ``.action``
    and leave its analysis in ``last_analysis``."""

    last_analysis: Analysis | None

    def search(self, env: Any, clock: ClockView | None = None,
               on_progress: ProgressFn | None = None,
               stop: threading.Event | None = None) -> Any:
        raise NotImplementedError

    def act(self, env: Any, clock: ClockView | None = None,
            on_progress: ProgressFn | None = None, stop: threading.Event | None = None) -> int:
        """The move to play for the side to move in ``env`` (``clock``, ``on_progress``,
        ``stop``: see the subclass's ``search``)."""
        return int(self.search(env, clock=clock, on_progress=on_progress, stop=stop).action)

    def analyse(self, env: Any, clock: ClockView | None = None,
                on_progress: ProgressFn | None = None,
                stop: threading.Event | None = None) -> Analysis:
        """Search as ``search`` does and return the result as an :class:`Analysis`."""
        self.search(env, clock=clock, on_progress=on_progress, stop=stop)
        assert self.last_analysis is not None
        return self.last_analysis


def check_agent_plays(agent: Any, game: Game) -> None:
    """Raise InvalidOptionError, before any move, where ``agent`` cannot play ``game``: an
    agent that plays only some games (a network trained for other rules, no shipped network
    for this one) says so in its ``check_plays(game)``; the others play every game."""
    check = getattr(agent, "check_plays", None)
    if check is not None:
        check(game)
