"""The agent's search as JSON for the page (an adapter, until boardzoo.analysis lands).

``search_with_progress(agent, env, stop, progress, time_limit)`` plays one move and returns it
with the search's analysis: ``{"kind", "moves": [{"action", "move", "visits", "win_rate",
"pv"}...], "simulations"|"nodes", "value", "seconds", ...}``, win rates and values from the
side to move's view (win rate = (Q + 1) / 2). Agents without a ``search`` return no analysis.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["search_with_progress", "analysis_json"]

TOP_MOVES = 8


def search_with_progress(
    agent: Any, env: Any, stop: Any, progress: Callable[[dict[str, Any]], None],
    time_limit: float | None = None,
) -> tuple[int, dict[str, Any] | None]:
    """The agent's move in ``env``'s position and its analysis (or None)."""
    if not hasattr(agent, "search"):
        return int(agent.act(env)), None
    result = agent.search(env)
    return int(result.action), analysis_json(env, result)


def _number(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else round(float(value), 4)


def analysis_json(env: Any, result: Any) -> dict[str, Any]:
    """An MCTS/AlphaZero or alpha-beta search result as JSON (see the module docstring)."""
    name = env.action_to_str
    if hasattr(result, "visits"):
        visits = np.asarray(result.visits)
        order = [int(a) for a in np.argsort(-visits, kind="stable") if visits[a] > 0]
        moves = [{"action": a, "move": name(a), "visits": int(visits[a]),
                  "win_rate": _number((result.q[a] + 1) / 2)} for a in order[:TOP_MOVES]]
        if moves and result.pv:
            moves[0]["pv"] = [name(a) for a in result.pv]
        return {"kind": "mcts", "moves": moves, "visits": visits.tolist(),
                "simulations": int(result.simulations), "value": _number(result.value),
                "proven": result.proven, "seconds": round(float(result.seconds), 3),
                "best": name(result.action)}
    return {"kind": "alphabeta", "moves": [{"action": int(result.action),
                                             "move": name(result.action),
                                             "pv": [name(a) for a in result.pv]}],
            "value": _number(result.value), "exact": bool(result.exact),
            "depth": int(result.depth), "nodes": int(result.nodes),
            "seconds": round(float(result.seconds), 3), "best": name(result.action)}
