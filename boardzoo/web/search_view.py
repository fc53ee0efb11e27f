"""What the agent found, as the page shows it: :class:`boardzoo.analysis.Analysis` as JSON
(``to_json()``: the move, its value in ``unit`` from the side to move's view, nodes, time,
root moves with visits, values and principal variations), for Go an ownership map, and for a
PPO policy its move probabilities (``engine`` "policy": each move's ``prior``).

``think`` plays one move, reporting progress while it searches and obeying ``stop``; agents
without an analysis (random) just move. ``ponder`` lets an agent that can (MCTS, AlphaZero)
search the person's position until ``stop`` is set, keeping its tree for the reply.
``go_end`` marks a finished Go game's dead stones as ``boardzoo gtp`` does.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from boardzoo.analysis import Analysis, MoveStat, move_texts
from boardzoo.timecontrol import ClockView, call_act

__all__ = ["OWNERSHIP_PLAYOUTS", "POLICY", "analysis_json", "go_end", "ponder", "think"]

Report = Callable[[dict[str, Any]], None]
OWNERSHIP_PLAYOUTS = 64  # heuristic playouts averaged into a Go ownership map
OWNERSHIP_SECONDS = 0.5  # the map is recomputed at most this often while a search runs
#: ``Analysis.unit`` of a policy's move probabilities (no value: the policy only ranks moves)
POLICY = "policy probability"
POLICY_MOVES = 12  # the most probable moves listed


def think(agent: Any, env: Any, stop: Any, report: Report,
          clock: ClockView | None = None) -> tuple[int, dict[str, Any] | None]:
    """The agent's move in ``env``'s position and its final analysis (None: it has none)."""
    from boardzoo.agents.sb3 import SB3Agent

    if hasattr(agent, "analyse"):
        analysis = agent.analyse(env, clock=clock, on_progress=_Reporter(env, report), stop=stop)
        return int(analysis.action), analysis_json(env, analysis)
    start = time.perf_counter()
    action = int(call_act(agent, env, clock))
    if isinstance(agent, SB3Agent):
        return action, policy_analysis(env, agent.policy(env), action,
                                       time.perf_counter() - start).to_json()
    return action, None


def policy_analysis(env: Any, probabilities: np.ndarray, action: int,
                    seconds: float) -> Analysis:
    """A policy's move probabilities (shape ``[num_actions]``) as an Analysis: the likeliest
    moves with their probability as ``prior``; no value, no search."""
    text = move_texts(env)
    order = [int(a) for a in np.argsort(-probabilities, kind="stable")[:POLICY_MOVES]
             if probabilities[a] > 0]
    moves = tuple(MoveStat(a, text(a), 0, None, float(probabilities[a]), (text(a),))
                  for a in order)
    return Analysis(action=action, move=text(action), value=math.nan, unit=POLICY, exact=False,
                    nodes=0, depth=0, elapsed=seconds, pv=(text(action),), moves=moves,
                    engine="policy")


def ponder(agent: Any, env: Any, stop: Any) -> bool:
    """Search the person's position until ``stop`` is set; False if the agent cannot."""
    if not hasattr(agent, "ponder") or env.game.is_terminal(env.state_array):
        return False
    agent.ponder(env, stop=stop)
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


def go_end(sgf: str, options: dict[str, Any]) -> tuple[list[int], str]:
    """(the cells of the dead stones, row-major; the score without them, e.g. "B+2.5") of a
    finished Go game given as SGF, from ``boardzoo gtp``'s own final_status_list and
    final_score (its ownership playouts), so the page and GTP controllers agree."""
    from boardzoo.envs import make_game
    from boardzoo.gtp.engine import GoGtpEngine

    game = make_game("go", **options)
    engine = GoGtpEngine(agent="random", board_size=int(options["board_size"]),
                         komi=float(options["komi"]), ko=options["ko"],
                         suicide=bool(options["suicide"]), seed=0)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "game.sgf")
        with open(path, "w", encoding="utf-8") as file:
            file.write(sgf)
        _gtp(engine, f"loadsgf {path}")
    dead = [game.str_to_action(vertex)
            for vertex in _gtp(engine, "final_status_list dead").split()]
    return sorted(dead), _gtp(engine, "final_score")


def _gtp(engine: Any, command: str) -> str:
    """The answer to one GTP command (a failure raised as a ValueError)."""
    reply = engine.handle(command).strip()
    if not reply.startswith("="):
        raise ValueError(f"gtp {command.split()[0]}: {reply[1:].strip()}")
    return reply[1:].strip()
