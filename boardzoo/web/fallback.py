"""A move chosen without search, for "Move now" pressed before the agent's search has begun
(its process is still compiling the search): a move that wins at once, else a random one
after which the opponent cannot win at once, else a random legal one. Only the rules are
used, which the server has built already, so it answers in well under a second."""

from __future__ import annotations

import time

import numpy as np

from boardzoo.envs.core import Game

__all__ = ["QUICK_MOVE_SECONDS", "quick_move"]

#: the longest the search for a safe move goes on before a random legal move is played
QUICK_MOVE_SECONDS = 0.3


def quick_move(game: Game, state: np.ndarray, rng: np.random.Generator,
               seconds: float = QUICK_MOVE_SECONDS) -> int:
    """The action for the side to move in ``state`` (see the module docstring)."""
    mover = game.to_play(state)
    legal = [int(a) for a in rng.permutation(game.legal_actions(state))]
    for action in legal:
        after = game.step(state, action)
        if game.is_terminal(after) and game.returns(after)[mover] > 0:
            return action
    deadline = time.monotonic() + seconds
    for action in legal:
        if time.monotonic() > deadline:
            break
        if not _gives_a_win(game, game.step(state, action), mover):
            return action
    return legal[0]


def _gives_a_win(game: Game, state: np.ndarray, mover: int) -> bool:
    """Whether the opponent of ``mover`` can win at once from ``state`` (or has won)."""
    if game.is_terminal(state):
        return game.returns(state)[mover] < 0
    return any(game.returns(after)[mover] < 0
               for after in (game.step(state, a) for a in game.legal_actions(state))
               if game.is_terminal(after))
