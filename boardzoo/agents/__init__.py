"""Agents: every one has ``act(env) -> int``; planners read positions through
:class:`boardzoo.wrappers.EnvModel`, and the compiled searches reach a game's kernels and
knowledge through its tags (:mod:`boardzoo.envs.tags`).

``make_agent("mcts:simulations=200,c=1.4")`` builds an agent from the command-line syntax.
"""

from __future__ import annotations

import importlib
import inspect
import json
from typing import Any

from boardzoo.agents.alphabeta import AlphaBetaAgent
from boardzoo.agents.base import Agent, PolicyAgent, check_agent_plays
from boardzoo.agents.mcts import MCTSAgent
from boardzoo.agents.random import RandomAgent
from boardzoo.agents.sb3 import SB3Agent
from boardzoo.errors import InvalidOptionError, excerpt, missing_extra
from boardzoo.options import check_options, did_you_mean, split_assignment, unique_assignments

__all__ = [
    "AGENTS",
    "Agent",
    "AlphaBetaAgent",
    "AlphaZeroAgent",
    "MCTSAgent",
    "PolicyAgent",
    "RandomAgent",
    "SB3Agent",
    "check_agent_plays",
    "make_agent",
    "parse_agent_spec",
]

#: agent name in specs -> "module:class"
AGENTS: dict[str, str] = {
    "random": "boardzoo.agents.random:RandomAgent",
    "alphabeta": "boardzoo.agents.alphabeta:AlphaBetaAgent",
    "mcts": "boardzoo.agents.mcts:MCTSAgent",
    "alphazero": "boardzoo.agents.alphazero.agent:agent_from_spec",
    "sb3": "boardzoo.agents.sb3:SB3Agent",
    "ppo": "boardzoo.agents.ppo:PPOAgent",
    "gnugo": "boardzoo.gtp.agent:GnuGoAgent",
}


def __getattr__(name: str) -> Any:
    """``AlphaZeroAgent`` is imported on first use: it needs torch (the ``torch`` extra)."""
    if name == "AlphaZeroAgent":
        try:
            from boardzoo.agents.alphazero import AlphaZeroAgent
        except ModuleNotFoundError as err:
            raise missing_extra(err, "AlphaZeroAgent") or err from None
        return AlphaZeroAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:simulations=200,c=1.4"`` -> ``("mcts", {"simulations": "200", "c": "1.4"})``:
    the agent's name and its options as text, converted later by the agent's type hints
    (:func:`boardzoo.options.check_options`); nothing is evaluated."""
    name, _, rest = spec.strip().partition(":")
    pairs = [split_assignment(part) for part in rest.split(",") if part.strip()]
    return name, unique_assignments(pairs, f"agent spec {excerpt(spec)}")


def make_agent(spec: str | dict[str, Any], seed: int | None = None) -> Agent:
    """An agent from ``"name:k=v,..."`` or ``{"name": ..., **options}``; ``seed`` is passed
    to agents that take one unless the spec sets it. Names: see :data:`AGENTS`."""
    if isinstance(spec, dict):
        options = dict(spec)
        name = options.pop("name", None)
    else:
        name, options = parse_agent_spec(spec)
    if name not in AGENTS:
        raise InvalidOptionError(
            f"unknown agent {excerpt(name)}{did_you_mean(str(name), list(AGENTS))}; known agents: "
            f"{', '.join(AGENTS)}"
        )
    module, cls_name = AGENTS[name].split(":")
    try:
        cls = getattr(importlib.import_module(module), cls_name)
    except ModuleNotFoundError as err:
        raise missing_extra(err, f"agent {name!r}") or err from None
    options = check_options(cls, options, f"agent {name!r}", from_text=isinstance(spec, str))
    if seed is not None and "seed" in inspect.signature(cls).parameters:
        options.setdefault("seed", seed)
    chosen = options.get("seed")
    if chosen is not None and (type(chosen) is not int or not 0 <= chosen < 2**63):
        raise InvalidOptionError(f"agent {name!r}: seed={excerpt(chosen)}; use an integer >= 0")
    try:
        agent = cls(**options)
    except TypeError as err:
        raise InvalidOptionError(f"agent {name!r}: {err}") from None
    agent.spec = full_spec(name, cls, options)
    return agent


def full_spec(name: str, cls: type, options: dict[str, Any]) -> dict[str, Any]:
    """``{"name": name, **every constructor argument}`` with defaults filled in, as JSON
    values (other objects as their repr, which can differ between runs: such an agent's
    match is then never resumed, never mixed): what identifies the agent in a stored match."""
    bound = inspect.signature(cls).bind_partial(**options)
    bound.apply_defaults()
    return {"name": name, **json.loads(json.dumps(bound.arguments, default=repr))}
