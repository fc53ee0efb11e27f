"""A drop-in for ``pettingzoo.classic.chess_v6`` on boardzoo's compiled chess.

``from boardzoo.classic import chess_v6`` in place of ``from pettingzoo.classic import
chess_v6``: agents ``player_0`` (white, moves first) and ``player_1``, chess_v6's 4,672
actions (boardzoo's chess numbers them the same way), integer rewards, and the game ends
when a draw can be *claimed* (python-chess's ``can_claim_draw()``:
:class:`~boardzoo.envs.chess_claim.ClaimChess`), one ply before ``chess_v0`` ends.
``rgb_array`` frames have chess_v6's size (``screen_height`` square; boardzoo's picture,
fitted in).

Observation, bool (8, 8, 111), as chess_v6's code builds it. Row 0 is rank 8 for
``player_0``; for ``player_1`` the board is turned (row 0 rank 1) and white's and black's
piece planes trade places:

- 0-3: all ones while a castling right holds: the observer's king's side and queen's side,
  then the opponent's king's side and queen's side (PettingZoo's docstring has the order of
  the first two swapped; its code reads so);
- 4: ones for ``player_1``; 5: a single one at square ``halfmove_clock // 2`` (counted from
  a1 along the ranks, on the observer's turned board); 6: ones;
- 7 + 13k .. 19 + 13k, k = 0..7: the position after the k-th most recent move (all zeros
  before the first move): white's pawns, knights, bishops, rooks, queens, king, then black's
  (swapped for ``player_1``), a pawn that has just advanced two squares drawn on its first
  rank (as Leela Chess Zero marks en passant), and ones if the position occurred before.

The ``board`` attribute is a python-chess ``Board`` (python-chess installed separately),
built from the state when read, with the moves since the last capture or pawn move on its
move stack (they decide repetitions). After ``restore_state`` or a reset to a given position
the history planes are rebuilt from the positions since the last capture or pawn move (older
ones read as empty, and a two-square pawn advance that allows no en passant capture is not
marked on that first position); a snapshot taken and restored in play within them, or
any game stepped from the start, has chess_v6's planes exactly.
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
from boardzoo.envs import chess_moves as cm
from boardzoo.envs.chess import fen, parse_fen, uci, window_start
from boardzoo.envs.chess_claim import ClaimChess
from boardzoo.envs.core import ONGOING, OUTCOME, PLY
from boardzoo.errors import MissingExtraError
from boardzoo.options import strict_keywords

__all__ = ["env", "raw_env"]

HISTORY = 8  # positions in the observation
BOARD_PLANES = 13  # per position: 12 piece planes and the repetition plane
PLANES = 7 + HISTORY * BOARD_PLANES  # 111
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


# -------------------------------------------------------------------- compiled planes
@njit(cache=True)
def _push_board(history, state, move):
    """Shift ``history`` (HISTORY x 13 bitboards, white's side, newest first) and put the
    position ``state`` reached by ``move`` first."""
    history[1:] = history[:-1].copy()
    for colour in range(2):
        for piece in range(6):
            history[0, 6 * colour + piece] = state[cm.PIECES + piece] & state[cm.COLOURS + colour]
    to = (move // 64) % 64
    if abs(to - move % 64) == 16 and cm.bit(to) & state[cm.PIECES + cm.PAWN]:
        colour = 0 if cm.bit(to) & state[cm.COLOURS] else 1
        plane, first = 6 * colour + cm.PAWN, to % 8 + 56 * colour
        history[0, plane] = (history[0, plane] & ~cm.bit(to)) | cm.bit(first)
    history[0, 12] = _FULL if cm.repetitions(state) >= 2 else np.uint64(0)


@njit(cache=True)
def push_history_kernel(history, before, action, after):
    """:func:`_push_board` for ``action`` played from ``before`` to ``after``."""
    _push_board(history, after, cm.move_of_action(before, action))


@njit(cache=True)
def observation_kernel(state, history, seat, out):
    """Fill bool ``out`` (8, 8, 111) from ``seat``'s view (module docstring)."""
    out[:] = False
    rights = np.int64(state[cm.CASTLING])
    for k in range(4):  # own O-O, own O-O-O, opponent's O-O, opponent's O-O-O
        colour = seat if k < 2 else 1 - seat
        out[:, :, k] = (rights >> (2 * colour + k % 2)) & 1 == 1
    out[:, :, 4] = seat == 1
    clock = np.int64(state[cm.HALFMOVE]) // 2
    out[_row(clock, seat), clock % 8, 5] = True
    out[:, :, 6] = True
    for k in range(HISTORY):
        for plane in range(BOARD_PLANES):
            channel = 7 + BOARD_PLANES * k + plane
            if seat == 1 and plane < 12:
                channel = 7 + BOARD_PLANES * k + (plane + 6) % 12
            bits = history[k, plane]
            while bits:
                sq = cm.lsb(bits)
                bits &= bits - np.uint64(1)
                out[_row(sq, seat), sq % 8, channel] = True


@njit(cache=True, inline="always")
def _row(square, seat):
    """The row of ``square`` in ``seat``'s observation: rank 8 first for seat 0."""
    return 7 - square // 8 if seat == 0 else square // 8


# ------------------------------------------------------------------------------ the env
class raw_env(HistoryEnv):  # noqa: N801 - PettingZoo's name
    """Chess as PettingZoo's raw ``chess_v6`` env (pictures are boardzoo's, in frames of
    PettingZoo's size: ``screen_height`` square; None: the picture's own size)."""

    game: ClaimChess
    observation_dtype = np.bool_
    _history: np.ndarray  # (HISTORY, 13) uint64, the positions of the observation
    metadata = pettingzoo_metadata("chess_v6", ansi=True)

    @strict_keywords("chess_v6.raw_env()")
    def __init__(self, render_mode: str | None = None, screen_height: int | None = 800):
        super().__init__(ClaimChess(), render_mode=render_mode)
        self.screen_height = checked_screen_height("chess_v6.raw_env()", screen_height)

    def _planes_shape(self) -> tuple[int, ...]:
        return (8, 8, PLANES)

    def planes(self, agent: str) -> np.ndarray:
        """The 111 planes (module docstring)."""
        out = np.empty((8, 8, PLANES), dtype=np.bool_)
        observation_kernel(self._state, self._history, self.agent_names.index(agent), out)
        return out

    @property
    def board_history(self) -> np.ndarray:
        """chess_v6's ``board_history``: planes 7.. of ``player_0``'s observation."""
        return self.planes(self.agent_names[0])[:, :, 7:]

    @property
    def board(self) -> Any:
        """The position as a python-chess ``Board`` (module docstring)."""
        try:
            import chess
        except ImportError:
            raise MissingExtraError("chess_v6's board is a python-chess Board, and python-chess "
                                    "is not installed: pip install chess") from None
        start, moves = window_start(self._state)
        board = chess.Board(fen(start))
        for move in moves:
            board.push(chess.Move.from_uci(uci(move)))
        return board

    def render(self) -> str | np.ndarray | None:
        """"ansi" is python-chess's ``str(board)``; the other modes as the other drop-ins'."""
        if self.render_mode == "ansi":
            return "\n".join(" ".join(row) for row in self.game.symbols(self._state))
        return super().render()

    def final_mask(self) -> np.ndarray:
        """The final position's legal moves (none after checkmate or stalemate)."""
        state = self._state.copy()
        state[OUTCOME] = ONGOING
        return self.game.legal_mask(state)

    def _finish(self, returns: np.ndarray) -> None:
        super()._finish(returns)
        self.infos = {agent: {"legal_moves": []} for agent in self.agent_names}

    def _push_history(self, before: np.ndarray, action: int) -> None:
        push_history_kernel(self._history, before, action, self._state)

    def _rebuild_history(self) -> None:
        """The positions since the last capture or pawn move (that move's own position
        included unless it is where the game started)."""
        self._history = np.zeros((HISTORY, BOARD_PLANES), dtype=np.uint64)
        ended, moves = window_start(self._state)
        start = parse_fen(fen(ended))  # the window's first position, with a window of its own
        if int(start[PLY]) > 0:
            double_push = int(start[cm.EP]) != cm.NO_SQUARE
            _push_board(self._history, start, _double_push(start) if double_push else 0)
        position = start
        for move in moves:
            position = position.copy()
            cm.play_move(position, move)
            _push_board(self._history, position, move)


def _double_push(state: np.ndarray) -> int:
    """The move (kernel encoding) of the double pawn push that set ``state``'s EP."""
    ep = int(state[cm.EP])
    step = 8 if ep // 8 == 2 else -8  # white pushed over rank 3, black over rank 6
    return (ep - step) + 64 * (ep + step)


def env(**kwargs: Any) -> Any:
    """PettingZoo's ``chess_v6.env()``: the raw env in PettingZoo's wrapper chain."""
    return wrapped(raw_env(**kwargs))
