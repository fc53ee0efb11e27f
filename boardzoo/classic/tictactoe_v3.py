"""A drop-in for ``pettingzoo.classic.tictactoe_v3`` on boardzoo's compiled tic-tac-toe.

``from boardzoo.classic import tictactoe_v3`` in place of ``from pettingzoo.classic import
tictactoe_v3``: the same agents (``player_1`` moves first, ``player_2``), spaces, int8
observations (3, 3, 2) (action ``a`` is the cell ``[a // 3, a % 3]``), action masks,
integer rewards, wrapper chain, ``board`` (a ``Board`` whose ``squares`` are the 9
cells by action: 0 empty, 1 ``player_1``, 2 ``player_2``) and ``rgb_array`` frames of
PettingZoo's size (``screen_height`` square; boardzoo's picture, fitted in).
"""

from __future__ import annotations

from typing import Any

from numba import njit

from boardzoo.classic.adapter import (
    ClassicEnv,
    checked_screen_height,
    pettingzoo_metadata,
    wrapped,
)
from boardzoo.classic.kernels import final_position
from boardzoo.envs.tictactoe import TicTacToe, legal_mask_kernel, observe_kernel
from boardzoo.options import strict_keywords

__all__ = ["Board", "env", "raw_env"]


@njit(cache=True)
def observation_kernel(state, seat, planes, legal, mask):
    """The selected agent's observation in one call (see :mod:`boardzoo.classic.kernels`)."""
    observe_kernel(state, seat, planes)
    legal_mask_kernel(final_position(state), legal)
    mask[:] = legal


class Board:
    """The board as PettingZoo's tic-tac-toe ``Board`` shows it: ``squares``, 9 ints by
    action (a copy: playing goes through the env)."""

    def __init__(self, squares: list[int]):
        self.squares = squares

    def legal_moves(self) -> list[int]:
        """The empty squares."""
        return [i for i, mark in enumerate(self.squares) if mark == 0]

    def __str__(self) -> str:
        return str(self.squares)


class raw_env(ClassicEnv):  # noqa: N801 - PettingZoo's name
    """Tic-tac-toe as PettingZoo's raw ``tictactoe_v3`` env (pictures are boardzoo's, in
    frames of PettingZoo's size: ``screen_height`` square; None: the picture's own size)."""

    agent_names = ("player_1", "player_2")
    metadata = pettingzoo_metadata("tictactoe_v3", render_fps=1)
    observation_kernel = staticmethod(observation_kernel)

    @strict_keywords("tictactoe_v3.raw_env()")
    def __init__(self, render_mode: str | None = None, screen_height: int | None = 1000):
        super().__init__(TicTacToe(), render_mode=render_mode)
        self.screen_height = checked_screen_height("tictactoe_v3.raw_env()", screen_height)

    @property
    def board(self) -> Board:
        """The squares, built from the state when read."""
        return Board(self.game.cells(self._state).ravel().tolist())


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``tictactoe_v3.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
