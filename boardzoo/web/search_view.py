"""The agent's search as the page shows it: :class:`boardzoo.analysis.Analysis` as JSON
(``to_json()``: the move, its value in ``unit`` from the side to move's view, nodes, time,
root moves with visits, values and principal variations), and for Go an ownership map.

``think`` plays one move, reporting progress while it searches and obeying ``stop``; agents
without ``analyse`` (random, PPO) just move. ``ponder`` lets an agent that can (MCTS,
AlphaZero) search the person's position until ``stop`` is set, keeping its tree for the reply.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from boardzoo.timecontrol import ClockView, call_act

__all__ = ["OWNERSHIP_PLAYOUTS", "analysis_json", "ponder", "think"]

Report = Callable[[dict[str, Any]], None]
OWNERSHIP_PLAYOUTS = 64  # heuristic playouts averaged into a Go ownership map
OWNERSHIP_SECONDS = 0.5  # the map is recomputed at most this often while a search runs


def think(agent: Any, env: Any, stop: Any, report: Report,
          clock: ClockView | None = None) -> tuple[int, dict[str, Any] | None]:
    """The agent's move in ``env``'s position and the final analysis (None without one)."""
    if not hasattr(agent, "analyse"):
        return int(call_act(agent, env, clock)), None
    live = _Reporter(env, report)
    analysis = agent.analyse(env, clock=clock, on_progress=live, stop=stop)
    return int(analysis.action), analysis_json(env, analysis)


def ponder(agent: Any, env: Any, stop: Any, report: Report) -> bool:
    """Search the person's position until ``stop`` is set; False if the agent cannot."""
    if not hasattr(agent, "ponder") or env.game.is_terminal(env.state_array):
        return False
    agent.ponder(env, stop=stop, on_progress=_Reporter(env, report))
    return True


class _Reporter:
    """``on_progress`` for a search: each analysis as JSON to ``report``, with the Go
    ownership map recomputed at most every OWNERSHIP_SECONDS."""

    def __init__(self, env: Any, report: Report) -> None:
        self.env, self.report = env, report
        self.ownership: list[float] | None = None
        self.when = 0.0

    def __call__(self, analysis: Any) -> None:
        if self.env.game.name == "go" and (
                self.ownership is None or time.monotonic() - self.when >= OWNERSHIP_SECONDS):
            self.ownership, self.when = go_ownership(self.env), time.monotonic()
        self.report(analysis_json(self.env, analysis, self.ownership))


def analysis_json(env: Any, analysis: Any,
                  ownership: list[float] | None = None) -> dict[str, Any]:
    """``analysis.to_json()`` plus ``ownership`` (Go: one value per point in action order,
    +1 Black's, -1 White's; computed unless given)."""
    data = analysis.to_json()
    if env.game.name == "go":
        data["ownership"] = ownership if ownership is not None else go_ownership(env)
    return data


def go_ownership(env: Any, playouts: int = OWNERSHIP_PLAYOUTS, seed: int = 0) -> list[float]:
    """The mean final owner of every point over ``playouts`` heuristic playouts from
    ``env``'s (non-terminal) position, +1 Black ... -1 White: the estimator the GTP engine
    scores dead stones with (:func:`boardzoo.knowledge.go.ownership_estimate_kernel`)."""
    from boardzoo.knowledge.go import ownership_estimate_kernel
    from boardzoo.rng import make_rng

    out = np.zeros(env.game.size * env.game.size)
    ownership_estimate_kernel(env.state_array, make_rng(seed), playouts, out)
    return np.round(out, 2).tolist()
