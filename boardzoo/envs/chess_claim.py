"""Chess that ends as soon as a draw can be claimed, as PettingZoo's ``chess_v6`` plays it.

:class:`ClaimChess` is :class:`~boardzoo.envs.chess.Chess` (same state, actions and
observations) with one rule more: after each move the game is drawn when the side to move
could claim a draw, python-chess's ``can_claim_draw()``: the fifty-move rule (100 halfmoves
without capture or pawn move, or 99 and a legal move that makes them 100 and leaves the
opponent a move) or threefold repetition (the position's third occurrence, or a legal move
that brings one about). Checkmate, stalemate and insufficient material decide first, as
``Board.outcome(claim_draw=True)`` does. The claim is decided in compiled code from the
state's repetition window.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs import chess_moves as cm
from boardzoo.envs.chess import Chess
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, make_random_playout
from boardzoo.envs.kernels import Kernels

__all__ = ["ClaimChess", "can_claim_draw"]


@njit(cache=True)
def can_claim_draw(state, moves, n):
    """python-chess's ``can_claim_draw()`` for the side to move, whose ``n`` legal moves
    are ``moves[:n]``."""
    halfmoves = np.int64(state[cm.HALFMOVE])
    if (halfmoves >= 100 and n > 0) or cm.repetitions(state) >= 3:
        return True
    reps = np.int64(state[cm.REPS])
    if halfmoves < 99 and reps < 4:  # a repetition needs two earlier positions, them to move
        return False
    occupied = state[cm.COLOURS] | state[cm.COLOURS + 1]
    child = np.empty_like(state)
    replies = np.empty(cm.MAX_MOVES, np.int64)
    for i in range(n):
        move = moves[i]
        frm, to = move % 64, (move // 64) % 64
        if cm.bit(to) & occupied or cm.bit(frm) & state[cm.PIECES + cm.PAWN]:
            continue  # a capture or pawn move: the clock restarts, no earlier position recurs
        child[: cm.KEYS] = state[: cm.KEYS]  # the move needs no window: only its key is read
        child[cm.REPS] = 1
        cm.play_move(child, move)
        if halfmoves >= 99 and cm.generate_moves(child, replies) > 0:
            return True
        seen = 0
        for j in range(reps):
            if state[cm.KEYS + j] == child[cm.KEY]:
                seen += 1
        if seen >= 2:
            return True
    return False


@njit(cache=True)
def settle_claim(state, moves, n):
    """:func:`~boardzoo.envs.chess_moves.settle`, then a draw when one can be claimed."""
    cm.settle(state, n)
    if state[OUTCOME] == ONGOING and can_claim_draw(state, moves, n):
        state[OUTCOME] = DRAW


@njit(cache=True)
def apply_claim_kernel(state, action):
    """Play the legal ``action`` in place and settle the result, claims included."""
    cm.play_move(state, cm.move_of_action(state, action))
    moves = np.empty(cm.MAX_MOVES, np.int64)
    settle_claim(state, moves, cm.generate_moves(state, moves))


@njit(cache=True)
def _num_actions(state):
    return cm.NUM_ACTIONS


_playout, _playout_trace = make_random_playout(cm.legal_mask_kernel, apply_claim_kernel,
                                               _num_actions)


class ClaimChess(Chess):
    """Chess ending when a draw can be claimed (module docstring)."""

    kernels = Kernels(legal_mask=cm.legal_mask_kernel, apply=apply_claim_kernel,
                      playout=_playout, playout_trace=_playout_trace,
                      observe=cm.observe_kernel)

    @property
    def key(self) -> tuple:
        """Not chess's: a snapshot of chess_v0 may hold a position this game has ended."""
        return ("chess_v6", super().key[1])

    def parse_position(self, text: str) -> np.ndarray:
        """Chess's position text; the position reached ends the game when a draw can be
        claimed there."""
        state = super().parse_position(text)
        moves = np.empty(cm.MAX_MOVES, np.int64)
        settle_claim(state, moves, cm.generate_moves(state, moves))
        return state
