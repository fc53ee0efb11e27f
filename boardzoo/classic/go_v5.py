"""A drop-in for ``pettingzoo.classic.go_v5`` on boardzoo's compiled Go.

``from boardzoo.classic import go_v5`` in place of ``from pettingzoo.classic import go_v5``:
go_v5's rules (simple ko, no suicide, area scoring with ``komi`` added to White, the game
ends after two passes in a row; a draw, possible with an integer komi, counts as White's
win as in go_v5), agents ``black_0`` (moves first) and ``white_0``, actions ``row * N + col``
with row 0 at the top and ``N * N`` the pass, bool observations (N, N, 17) and np.float64
rewards as go_v5's.

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

from boardzoo.classic.adapter import ClassicEnv, wrapped
from boardzoo.envs.core import DRAW, OUTCOME
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import MAX_MOVES_LIMIT
from boardzoo.options import strict_keywords

__all__ = ["env", "raw_env"]

#: positions of history in the observation (two planes each)
HISTORY = 8


class raw_env(ClassicEnv):  # noqa: N801 - PettingZoo's name
    """Go as PettingZoo's raw ``go_v5`` env (``screen_height`` is accepted and unused:
    pictures are boardzoo's). ``komi`` must be a multiple of 0.5."""

    agent_names = ("black_0", "white_0")
    game: Go
    _history: np.ndarray  # (N, N, 16) bool, the history planes
    no_reward = np.float64(0.0)
    observation_dtype = np.bool_
    metadata = {
        "render_modes": ["human", "rgb_array"],
        "name": "go_v5",
        "is_parallelizable": False,
        "render_fps": 2,
    }

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
        self.screen_height = screen_height

    def _planes_shape(self) -> tuple[int, ...]:
        n = self.game.size
        return (n, n, 2 * HISTORY + 1)

    def planes(self, agent: str) -> np.ndarray:
        """The 16 history planes and the side plane (module docstring)."""
        side = np.full(self._history.shape[:2], agent == self.agent_names[1], dtype=np.bool_)
        return np.dstack((self._history, side))

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

    # the history planes follow the state: a move shifts them, anything else rebuilds them
    def _after_move(self) -> None:
        before, _ = self._last_move  # type: ignore[misc]  # set by _play
        colour = int(before[0]) + 1  # the mover's: state[TO_PLAY] before the move
        shifted = np.empty_like(self._history)
        shifted[:, :, 2:] = self._history[:, :, :-2]
        _put(shifted, 0, self.game.cells(self._state), colour)
        self._history = shifted
        super()._after_move()

    def _reset_bookkeeping(self) -> None:
        self._rebuild_history()
        super()._reset_bookkeeping()

    def restore_state(self, snapshot: Any) -> None:
        super().restore_state(snapshot)
        self._rebuild_history()

    def _rebuild_history(self) -> None:
        n = self.game.size
        history = np.zeros((n, n, 2 * HISTORY), dtype=np.bool_)
        recent = self.game.recent_boards(self._state, HISTORY)
        for k, (cells, colour) in enumerate(reversed(recent)):
            _put(history, k, cells, colour)
        self._history = history


def _put(history: np.ndarray, k: int, cells: np.ndarray, colour: int) -> None:
    """Planes 2k, 2k + 1: the stones of ``colour`` (who moved) and of the other colour."""
    history[:, :, 2 * k] = cells == colour
    history[:, :, 2 * k + 1] = cells == 3 - colour


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``go_v5.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
