"""Opponents for learners: compiled ones ("random", "win_or_block") and any boardzoo agent.

:func:`resolve_opponent` turns what a user passes as ``opponent=`` into something that plays:
a :class:`CompiledOpponent` for the names with a compiled form (the vector env then plays
them inside its kernels), a boardzoo agent built with :func:`boardzoo.agents.make_agent` from
a spec, the agent itself, or a stable-baselines3 model wrapped in an SB3Agent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.agents import SB3Agent, check_agent_plays, make_agent
from boardzoo.envs.core import Game
from boardzoo.errors import InvalidOptionError
from boardzoo.rl.kernels import OPPONENT_KINDS, batch_kernels
from boardzoo.rng import make_rng
from boardzoo.wrappers.model import boardzoo_env

__all__ = ["CompiledOpponent", "resolve_opponent"]


class CompiledOpponent:
    """A compiled opponent (``"random"`` or ``"win_or_block"``, see :mod:`boardzoo.rl.kernels`).

    Inside the gym views it draws from the env's generator (:meth:`choose`), so a vector env
    and single envs seeded alike play the same games; as an arena agent (:meth:`act`) it uses
    its own generator from ``seed``.
    """

    def __init__(self, name: str = "random", seed: int | None = None):
        if name not in OPPONENT_KINDS:
            raise InvalidOptionError(
                f"compiled opponent {name!r} does not exist; use one of {sorted(OPPONENT_KINDS)}"
            )
        self.name = name
        self.kind = OPPONENT_KINDS[name]
        self.rng = make_rng(seed)

    def reseed(self, seed: int) -> None:
        self.rng = make_rng(seed)

    def choose(self, game: Any, state: np.ndarray, rng: np.ndarray) -> int:
        """The move for the side to move in ``state`` (not mutated), drawing from ``rng``."""
        kernels = batch_kernels(game)
        mask = np.empty(game.num_actions, np.bool_)
        order = np.empty(game.num_actions, np.int64)
        after, scratch = np.empty_like(state), np.empty_like(state)
        return int(kernels.opponent_action(state, self.kind, rng, mask, order, after, scratch))

    def act(self, env: Any) -> int:
        raw = boardzoo_env(env)
        if raw is None:
            raise InvalidOptionError(f"the {self.name!r} opponent plays boardzoo envs only")
        return self.choose(raw.game, raw.state_array, self.rng)

    def __repr__(self) -> str:
        return f"CompiledOpponent({self.name!r})"


def resolve_opponent(opponent: Any, seed: int | None = None, game: Game | None = None) -> Any:
    """Something with ``act(env)`` from a name or spec ("random", "win_or_block",
    "mcts:simulations=200", {"name": ..., **options}), a boardzoo agent, or an SB3 model;
    with ``game``, an InvalidOptionError now where it cannot play that game (a network
    trained for another), not at its first move."""
    resolved = _resolved(opponent, seed)
    if game is not None:
        check_agent_plays(resolved, game)
    return resolved


def _resolved(opponent: Any, seed: int | None) -> Any:
    """The opponent ``opponent`` describes (see :func:`resolve_opponent`)."""
    if isinstance(opponent, str) and opponent.strip() in OPPONENT_KINDS:
        return CompiledOpponent(opponent.strip(), seed)
    if (
        isinstance(opponent, dict)
        and set(opponent) == {"name"}
        and opponent["name"] in OPPONENT_KINDS
    ):
        return CompiledOpponent(opponent["name"], seed)
    if isinstance(opponent, (str, dict)):
        return make_agent(opponent, seed=seed)
    if hasattr(opponent, "act"):
        return opponent
    if hasattr(opponent, "predict"):
        return SB3Agent(opponent)
    raise InvalidOptionError(
        f"opponent {opponent!r} is not usable: give 'random', 'win_or_block', an agent spec "
        "such as 'mcts:simulations=200' or {'name': 'alphabeta', 'time_limit': 0.1}, a boardzoo "
        "agent, or a stable-baselines3 model"
    )
