"""Connect Three on a 4x4 board: a toy game written as a user would, in one file.

=================  =============================================================
Actions            4: the column to drop a disc into, 0 = leftmost
Observation        float32 (4, 4, 2): plane 0 the observer's discs, plane 1 the opponent's
Rewards            +1 / -1 for three in a row (any direction), 0 for a full board
Position text      the columns played, 1-based, e.g. "2231"
=================  =============================================================

State: int8 ``[to_play, outcome, ply, c0 .. c15, m0 .. m15]``: cells (cell = row * 4 + col,
row 0 at the top; 0 empty, 1 player_0, 2 player_1), then the columns played in order.
``tests/test_registry.py`` registers it with one ``register_game(ConnectThree)`` line and runs
``check_game`` on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs import Game
from boardzoo.envs.core import DRAW, HEADER, ONGOING, OUTCOME, PLY, TO_PLAY, make_random_playout
from boardzoo.envs.kernels import Kernels, own_opponent_planes
from boardzoo.errors import IllegalActionError, InvalidPositionError

SIZE = 4
MOVES = HEADER + SIZE * SIZE  # where the move list starts
DIRECTIONS = np.array([[0, 1], [1, 0], [1, 1], [1, -1]], dtype=np.int64)


@njit(cache=True)
def legal_mask_kernel(state, out):
    count = 0
    for col in range(SIZE):
        out[col] = state[OUTCOME] == ONGOING and state[HEADER + col] == 0
        count += out[col]
    return count


@njit(cache=True)
def _run(state, row, col, dr, dc, mark):
    """How many of ``mark``'s discs continue from (row, col) in direction (dr, dc)."""
    count = 0
    r, c = row + dr, col + dc
    while 0 <= r < SIZE and 0 <= c < SIZE and state[HEADER + r * SIZE + c] == mark:
        count += 1
        r, c = r + dr, c + dc
    return count


@njit(cache=True)
def apply_kernel(state, action):
    seat = state[TO_PLAY]
    row = SIZE - 1
    while state[HEADER + row * SIZE + action] != 0:
        row -= 1
    state[HEADER + row * SIZE + action] = seat + 1
    state[MOVES + state[PLY]] = action
    state[PLY] += 1
    state[TO_PLAY] = 1 - seat
    for d in range(4):
        dr, dc = DIRECTIONS[d, 0], DIRECTIONS[d, 1]
        line = 1 + _run(state, row, action, dr, dc, seat + 1)
        line += _run(state, row, action, -dr, -dc, seat + 1)
        if line >= 3:
            state[OUTCOME] = seat + 1
            return
    if state[PLY] == SIZE * SIZE:
        state[OUTCOME] = DRAW


@njit(cache=True)
def _num_actions(state):
    return SIZE


playout_kernel, playout_trace_kernel = make_random_playout(
    legal_mask_kernel, apply_kernel, _num_actions
)


class ConnectThree(Game):
    """4x4 Connect Three (see the module docstring)."""

    name = "connect_three"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      playout_trace=playout_trace_kernel)
    position_format = 'the columns played, 1-based, e.g. "2231"'

    def __init__(self) -> None:
        super().__init__(num_actions=SIZE, planes_shape=(SIZE, SIZE, 2))

    def initial_state(self) -> np.ndarray:
        return np.zeros(MOVES + SIZE * SIZE, dtype=np.int8)

    def cells(self, state: np.ndarray) -> np.ndarray:
        return state[HEADER:MOVES].reshape(SIZE, SIZE).copy()

    def observe(self, state: np.ndarray, seat: int) -> np.ndarray:
        return own_opponent_planes(state[HEADER:MOVES], seat, SIZE, SIZE)

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        return [str(SIZE - r) for r in range(SIZE)], [str(c + 1) for c in range(SIZE)]

    def action_to_str(self, action: int) -> str:
        return str(action + 1)

    def str_to_action(self, text: str) -> int:
        if text.strip() in {str(c + 1) for c in range(SIZE)}:
            return int(text) - 1
        raise IllegalActionError(f"{text!r} is not a column; use 1..{SIZE}")

    def position(self, state: np.ndarray) -> str:
        return "".join(str(int(col) + 1) for col in state[MOVES : MOVES + state[PLY]])

    def parse_position(self, text: str) -> np.ndarray:
        if set(text) - set("1234"):
            raise InvalidPositionError(f"{text!r} is not {self.position_format}")
        return self.replay(list(text))
