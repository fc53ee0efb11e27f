"""The agents boardzoo offers for a game when the user names none, in one place: the round
robin of ``boardzoo arena GAME`` without ``--agents``, the opponent of ``boardzoo play GAME``
without ``--opponent``.

A game's round robin is random, its shipped PPO policy (where one plays the game and its
options), alpha-beta at :data:`ALPHABETA_SECONDS` a move, MCTS at two budgets
(:func:`mcts_budgets`: ten times apart, small enough that a game of the larger one takes
seconds, not minutes) and its shipped AlphaZero network at :data:`ALPHAZERO_SIMULATIONS`
simulations (where one plays it): the planners against the learners, on any game, user's
games included. Everything is an agent spec (``make_agent``'s text).
"""

from __future__ import annotations

import importlib.util

from boardzoo.checkpoints import shipped_for
from boardzoo.envs.core import Game

__all__ = ["ALPHABETA_SECONDS", "ALPHAZERO_SIMULATIONS", "MCTS_BUDGETS", "default_agents",
           "default_opponent", "mcts_budgets"]

#: seconds a move for the round robin's alpha-beta agent
ALPHABETA_SECONDS = 0.05
#: simulations a move for the shipped AlphaZero networks
ALPHAZERO_SIMULATIONS = 200
#: the round robin's two MCTS budgets (simulations a move) where a game needs others than
#: the 1,000 and 10,000 of the small boards: Go's and Gomoku's searches are slower per
#: simulation (knowledge in every playout) and their games much longer, and chess's random
#: playouts run a few hundred plies each
MCTS_BUDGETS: dict[str, tuple[int, int]] = {"go": (100, 1000), "gomoku": (100, 1000),
                                            "chess": (100, 1000)}
_DEFAULT_BUDGETS = (1000, 10000)


def mcts_budgets(game: Game) -> tuple[int, int]:
    """The smaller and the larger MCTS budget (simulations a move) of ``game``'s round
    robin."""
    return MCTS_BUDGETS.get(game.name, _DEFAULT_BUDGETS)


def default_agents(game: Game) -> list[str]:
    """The agent specs of ``game``'s round robin (the module docstring), weakest kinds
    first."""
    small, large = mcts_budgets(game)
    ppo, alphazero = shipped_for(game, "ppo"), shipped_for(game, "alphazero")
    return [
        "random",
        *([f"ppo:checkpoint={ppo}"] if ppo else []),
        f"alphabeta:time_limit={ALPHABETA_SECONDS}",
        f"mcts:simulations={small}",
        f"mcts:simulations={large}",
        *([f"alphazero:checkpoint={alphazero},simulations={ALPHAZERO_SIMULATIONS}"]
          if alphazero else []),
    ]


def default_opponent(game: Game) -> str:
    """The agent spec a person plays ``game`` against by default: the shipped AlphaZero
    network where one plays the game and torch (the ``torch`` extra) is installed, else
    MCTS at the round robin's larger budget."""
    alphazero = shipped_for(game, "alphazero")
    if alphazero and importlib.util.find_spec("torch") is not None:
        return f"alphazero:checkpoint={alphazero},simulations={ALPHAZERO_SIMULATIONS}"
    return f"mcts:simulations={mcts_budgets(game)[1]}"
