"""What the agent found, as the page shows it: :class:`boardzoo.analysis.Analysis` as JSON
(``to_json()``: the move, its value in ``unit`` from the side to move's view, nodes, time,
root moves with visits, values and principal variations), for Go an ownership map, and for a
PPO policy its move probabilities (``engine`` "policy": each move's ``prior``).

``think`` plays one move, reporting progress while it searches and obeying ``stop``; agents
without an analysis (random) just move. ``ponder`` lets an agent that can (MCTS, AlphaZero)
search the person's position until ``stop`` is set, keeping its tree for the reply.
``go_end`` marks a finished Go game's dead stones and scores it as every front-end does.
"""

from __future__ import annotations

import math
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
    data = _labelled_for_people(env, analysis.to_json())
    if env.game.name == "go":
        data["ownership"] = ownership if ownership is not None else go_ownership(env)
    return data


def _labelled_for_people(env: Any, data: dict[str, Any]) -> dict[str, Any]:
    """``data``'s moves and lines as the page's move list writes them (the game's
    ``move_label``: SAN for chess) where that differs from the game's notation (UCI), which
    the agents write; unchanged for the other games."""
    from boardzoo.envs.core import Game

    game = env.game
    if type(game).move_label is Game.move_label:
        return data
    root = env.state_array

    def labels(texts: list[str]) -> list[str]:
        state, out = root, []
        for text in texts:
            action = game.str_to_move(state, text)
            out.append(game.move_label(state, action))
            state = game.step(state, action)
        return out

    data["pv"] = labels(data["pv"])
    data["move"] = game.move_label(root, data["action"])
    for move in data["moves"]:
        move["move"], move["pv"] = game.move_label(root, move["action"]), labels(move["pv"])
    return data


def go_ownership(env: Any, playouts: int = OWNERSHIP_PLAYOUTS, seed: int = 0) -> list[float]:
    """The mean final owner of every point over ``playouts`` heuristic playouts from
    ``env``'s (non-terminal) position, +1 Black ... -1 White: the estimator dead stones are
    found with (:func:`boardzoo.knowledge.go.ownership_estimate_kernel`)."""
    from boardzoo.knowledge.go import ownership_estimate_kernel
    from boardzoo.rng import make_rng

    out = np.zeros(env.game.size * env.game.size)
    ownership_estimate_kernel(env.state_array, make_rng(seed), playouts, out)
    return np.round(out, 2).tolist()


def go_end(env: Any) -> tuple[list[int], str]:
    """(the cells of the dead stones, row-major; the score without them, e.g. "B+2.5") of
    the finished Go game at ``env``'s position: :func:`boardzoo.knowledge.go.final_score`,
    as the arena and ``boardzoo gtp``'s final_score report it."""
    from boardzoo.knowledge.go import final_score

    score = final_score(env.game, env.state_array)
    return score.dead_stones, score.text
