"""Tic-tac-toe.

=================  =============================================================
Actions            9: cell = row * 3 + col, row 0 at the top (cell 0 = a1, top-left)
Move notation      "a1".."c3" (column letter, row number from the top) or the cell "0".."8"
Observation        float32 (3, 3, 2): plane 0 the observer's marks, plane 1 the opponent's
Rewards            +1 / -1 for three in a row, 0 for a full board without one
Position text      9 characters row-major from the top-left, "X", "O", "."; X moves first,
                   so the side to move follows from the counts ("X...O...." has X to move)
Version history    v0: first release
=================  =============================================================

State: int8 ``[to_play, outcome, ply, c0 .. c8]`` with cells 0 empty, 1 X (player_0), 2 O.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import (
    DRAW,
    HEADER,
    ONGOING,
    OUTCOME,
    PLY,
    TO_PLAY,
    DeclaredKnowledge,
    Game,
    make_random_playout,
)
from boardzoo.envs.kernels import Kernels, own_opponent_planes
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import strict_keywords

__all__ = ["TicTacToe", "env", "raw_env"]

LINES = np.array(
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]],
    dtype=np.int64,
)
SYMBOLS = ".XO"


@njit(cache=True)
def legal_mask_kernel(state, out):
    count = 0
    playing = state[OUTCOME] == ONGOING
    for cell in range(9):
        legal = playing and state[HEADER + cell] == 0
        out[cell] = legal
        count += legal
    return count


@njit(cache=True)
def _has_line(state, cell):
    """Whether the mark on ``cell`` completes a line through it."""
    mark = state[HEADER + cell]
    for line in range(8):
        a, b, c = LINES[line, 0], LINES[line, 1], LINES[line, 2]
        if (a == cell or b == cell or c == cell) and (
            state[HEADER + a] == mark and state[HEADER + b] == mark and state[HEADER + c] == mark
        ):
            return True
    return False


@njit(cache=True)
def apply_kernel(state, action):
    seat = state[TO_PLAY]
    state[HEADER + action] = seat + 1
    state[PLY] += 1
    state[TO_PLAY] = 1 - seat
    if _has_line(state, action):
        state[OUTCOME] = seat + 1
    elif state[PLY] == 9:
        state[OUTCOME] = DRAW


@njit(cache=True)
def _num_actions(state):
    return 9


playout_kernel, playout_trace_kernel = make_random_playout(
    legal_mask_kernel, apply_kernel, _num_actions
)


@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (3, 3, 2) from ``seat``'s view (see the spec sheet)."""
    out[:] = own_opponent_planes(state[HEADER:], seat, 3, 3)


class TicTacToe(Game):
    """Tic-tac-toe rules (see the module docstring)."""

    name = "tictactoe"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.tictactoe:KNOWLEDGE")
    symmetry = "dihedral"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      playout_trace=playout_trace_kernel, observe=observe_kernel)
    position_format = '9 characters "X", "O", "." row-major from the top-left, e.g. "X...O...."'

    def __init__(self) -> None:
        super().__init__(num_actions=9, planes_shape=(3, 3, 2))

    def initial_state(self) -> np.ndarray:
        return np.zeros(HEADER + 9, dtype=np.int8)

    def cells(self, state: np.ndarray) -> np.ndarray:
        return state[HEADER:].reshape(3, 3).copy()

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        return ["1", "2", "3"], ["a", "b", "c"]

    def action_to_str(self, action: int) -> str:
        return "abc"[action % 3] + str(action // 3 + 1)

    def str_to_action(self, text: str) -> int:
        move = text.strip().lower()
        if len(move) == 1 and move in "012345678":
            return int(move)
        if len(move) == 2 and move[0] in "abc" and move[1] in "123":
            return (int(move[1]) - 1) * 3 + "abc".index(move[0])
        raise IllegalActionError(
            f"{excerpt(text)} is not a tic-tac-toe move; use a1..c3 (column, row from the top) "
            "or 0..8"
        )

    def position(self, state: np.ndarray) -> str:
        return "".join(SYMBOLS[int(c)] for c in state[HEADER:])

    def parse_position(self, text: str) -> np.ndarray:
        board = text.strip().upper()
        if len(board) != 9 or set(board) - set(SYMBOLS.upper()):
            raise InvalidPositionError(
                f"tic-tac-toe position {excerpt(text)} is malformed: expected "
                f"{self.position_format}"
            )
        cells = np.array([SYMBOLS.upper().index(ch) for ch in board], dtype=np.int8)
        xs, os_ = int((cells == 1).sum()), int((cells == 2).sum())
        if xs not in (os_, os_ + 1):
            raise InvalidPositionError(
                f"tic-tac-toe position {excerpt(text)} is unreachable: X moves first, so X has "
                f"as many marks as O or one more (X {xs}, O {os_})"
            )
        state = self.initial_state()
        state[HEADER:] = cells
        state[PLY] = xs + os_
        state[TO_PLAY] = xs - os_
        state[OUTCOME] = _final_outcome(cells, text)
        return state


def _final_outcome(cells: np.ndarray, text: str) -> int:
    """The outcome of a board, checking that some last move could have produced it."""
    winners = {int(cells[a]) for a, b, c in LINES if cells[a] and cells[a] == cells[b] == cells[c]}
    if not winners:
        return DRAW if cells.all() else ONGOING
    if len(winners) == 2:
        raise InvalidPositionError(f"tic-tac-toe position {excerpt(text)} is unreachable: both "
                                   "sides won")
    winner = winners.pop()
    xs, os_ = int((cells == 1).sum()), int((cells == 2).sum())
    if (winner == 1) != (xs == os_ + 1):
        raise InvalidPositionError(
            f"tic-tac-toe position {excerpt(text)} is unreachable: play continued after "
            f"{SYMBOLS[winner].upper()} completed a line"
        )
    lines = [set(line.tolist()) for line in LINES if (cells[line] == winner).all()]
    if not set.intersection(*lines):
        raise InvalidPositionError(
            f"tic-tac-toe position {excerpt(text)} is unreachable: its winning lines share no "
            "cell, "
            "so no single last move made them"
        )
    return winner


@strict_keywords("tictactoe_v0.env()")
def env(render_mode: str | None = None, illegal_action: str = "terminate") -> BoardGameEnv:
    """Tic-tac-toe as a PettingZoo AEC env (player_0 plays X and moves first)."""
    return BoardGameEnv(TicTacToe(), render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
