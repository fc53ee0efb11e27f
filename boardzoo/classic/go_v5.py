"""A drop-in for ``pettingzoo.classic.go_v5`` on boardzoo's compiled Go.

``from boardzoo.classic import go_v5`` in place of ``from pettingzoo.classic import go_v5``:
go_v5's rules (simple ko, no suicide, area scoring with ``komi`` added to White, the game
ends after two passes in a row; a draw, possible with an integer komi, counts as White's
win as in go_v5), agents ``black_0`` (moves first) and ``white_0``, actions ``row * N + col``
with row 0 at the top and ``N * N`` the pass, bool observations (N, N, 17), np.float64
rewards as go_v5's and ``rgb_array`` frames of its size (``screen_height`` square;
boardzoo's picture, fitted in).

Observation planes, as go_v5's code builds them (the same for both agents but the last):
planes ``2k`` and ``2k + 1`` are the stones of the player who made the k-th most recent move
(k = 0 the last) and of the other player, on the board right after that move; all zeros
before the first; plane 16 is ones for ``white_0`` and zeros for ``black_0``. Once the game
is over the selected agent's mask holds only the pass.

One difference: go_v5 has no move limit, boardzoo's Go scores the game at ``max_moves``
plies; here ``100 * board_size**2`` (at most 100,000), 20 times or more the longest of
2,000 uniformly random 9x9 games (411 plies) and of 100 random 19x19 games (1,301).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from boardzoo.classic.adapter import (
    HistoryEnv,
    checked_screen_height,
    pettingzoo_metadata,
    wrapped,
)
from boardzoo.envs.core import DRAW, OUTCOME, TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import MAX_MOVES_LIMIT, STONE, grid, to_point
from boardzoo.options import strict_keywords

__all__ = ["env", "raw_env"]

#: positions of history in the observation (two planes each)
HISTORY = 8


class raw_env(HistoryEnv):  # noqa: N801 - PettingZoo's name
    """Go as PettingZoo's raw ``go_v5`` env (pictures are boardzoo's, in frames of
    PettingZoo's size: ``screen_height`` square; None: the picture's own size). ``komi``
    must be a multiple of 0.5."""

    agent_names = ("black_0", "white_0")
    game: Go
    _observations: np.ndarray  # (2, N, N, 17) bool, each seat's observation
    no_reward = np.float64(0.0)
    observation_dtype = np.bool_
    metadata = pettingzoo_metadata("go_v5")

    @strict_keywords("go_v5.raw_env()")
    def __init__(
        self,
        board_size: int = 19,
        komi: float = 7.5,
        render_mode: str | None = None,
        screen_height: int | None = 800,
    ):
        size = Go(board_size=board_size, komi=komi).size  # the options checked first
        limit = min(100 * size**2, MAX_MOVES_LIMIT)
        game = Go(board_size=board_size, komi=komi, ko="simple", max_moves=limit)
        super().__init__(game, render_mode=render_mode)
        self.screen_height = checked_screen_height("go_v5.raw_env()", screen_height)

    def _planes_shape(self) -> tuple[int, ...]:
        n = self.game.size
        return (n, n, 2 * HISTORY + 1)

    def planes(self, agent: str) -> np.ndarray:
        """The 16 history planes and the side plane (module docstring)."""
        return self._observations[self._seats[agent]].copy()

    def final_mask(self) -> np.ndarray:
        """Only the pass."""
        mask = np.zeros(self.game.num_actions, dtype=np.bool_)
        mask[-1] = True
        return mask

    def _finish(self, returns: np.ndarray) -> None:
        """go_v5 gives White the win when the score is level."""
        if self._state[OUTCOME] == DRAW:
            returns = np.array([-1.0, 1.0])
        super()._finish(returns)

    def _push_history(self, before: np.ndarray, action: int) -> None:
        push_history_kernel(self._observations, self._state, before[TO_PLAY] + 1)

    def _rebuild_history(self) -> None:
        n, planes = self.game.size, 2 * HISTORY
        observations = np.zeros((2, n, n, planes + 1), dtype=np.bool_)
        recent = self.game.recent_boards(self._state, HISTORY)
        for k, (cells, colour) in enumerate(reversed(recent)):
            _put(observations[0], k, cells, colour)
        observations[1, :, :, :planes] = observations[0, :, :, :planes]
        observations[1, :, :, planes] = True  # white_0's side plane
        self._observations = observations


@njit(cache=True)
def push_history_kernel(observations, state, colour):
    """In each seat's observation (2, N, N, 17), shift the 16 history planes two back, in
    place, and put the board of ``state`` first: plane 0 the stones of ``colour`` (who
    moved), plane 1 the other's."""
    n = observations.shape[1]
    g = grid(state)
    for a in range(n * n):
        stone = g[STONE, to_point(state, a)]
        for seat in range(2):
            planes = observations[seat, a // n, a % n]
            for k in range(2 * HISTORY - 1, 1, -1):
                planes[k] = planes[k - 2]
            planes[0] = stone == colour
            planes[1] = stone == 3 - colour


def _put(history: np.ndarray, k: int, cells: np.ndarray, colour: int) -> None:
    """Planes 2k, 2k + 1: the stones of ``colour`` (who moved) and of the other colour."""
    history[:, :, 2 * k] = cells == colour
    history[:, :, 2 * k + 1] = cells == 3 - colour


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``go_v5.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
