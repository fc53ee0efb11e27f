"""Where a chess alpha-beta node's time goes: the CPU time of each kernel a node calls, one at
a time in a compiled loop, on the positions of ``boardzoo bench chess``'s alpha-beta row.

Columns (microseconds a call): ``gen`` the legal move generation, ``mask`` the 4,672-entry
legal mask (a generation and a fill), ``scan`` reading the mask's legal actions, ``list``
the knowledge's move list and ``captures`` its quiescence list, ``value all`` the tactical
value of every legal move (what ordering costs), ``apply`` one move played with the rules'
``apply`` (which generates the reply's moves again to settle mate and stalemate), ``play``
the move alone, ``eval`` the evaluation, ``check`` whether the side to move is in check.

Run::

    nice python -m benchmarks.chess_node_cost
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

import boardzoo.envs.chess_moves as cm
from boardzoo.bench.alphabeta import POSITIONS
from boardzoo.envs.chess import Chess
from boardzoo.knowledge.chess import evaluate_kernel, moves_kernel, tactical_kernel

CALLS = 20_000


@njit
def _generate(state, calls):
    moves, total = np.empty(cm.MAX_MOVES, np.int64), 0
    for _ in range(calls):
        total += cm.generate_moves(state, moves)
    return total


@njit
def _mask(state, out, calls):
    total = 0
    for _ in range(calls):
        total += cm.legal_mask_kernel(state, out)
    return total


@njit
def _scan(mask, calls):
    total = 0
    for _ in range(calls):
        for action in range(mask.shape[0]):
            if mask[action]:
                total += 1
    return total


@njit
def _list(state, out, tactical_only, calls):
    total = 0
    for _ in range(calls):
        total += moves_kernel(state, out, tactical_only)
    return total


@njit
def _value_all(state, actions, calls):
    total = 0
    for _ in range(calls):
        for action in actions:
            total += tactical_kernel(state, action)
    return total


@njit
def _apply_each(state, actions, calls):
    child = state.copy()
    for _ in range(calls):
        for action in actions:
            child[:] = state
            cm.apply_kernel(child, action)
    return calls * actions.shape[0]


@njit
def _play_each(state, moves, calls):
    child = state.copy()
    for _ in range(calls):
        for move in moves:
            child[:] = state
            cm.play_move(child, move)
    return calls * moves.shape[0]


@njit
def _evaluate(state, calls):
    total = 0.0
    for _ in range(calls):
        total += evaluate_kernel(state)
    return total


@njit
def _check(state, calls):
    total = 0
    for _ in range(calls):
        total += cm.in_check(state)
    return total


def microseconds(function, *args, per: int = CALLS) -> float:
    """CPU microseconds per unit of ``function(*args)`` (compiled by a first call)."""
    function(*args)
    started = time.process_time()
    function(*args)
    return (time.process_time() - started) * 1e6 / per


def main() -> None:
    game = Chess()
    print("| position | legal | gen | mask | scan | list | captures | value all | apply | play "
          "| eval | check |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for index, fen in enumerate(POSITIONS):
        state = game.parse_position(fen)
        mask = np.zeros(cm.NUM_ACTIONS, np.bool_)
        legal = cm.legal_mask_kernel(state, mask)
        actions = np.flatnonzero(mask).astype(np.int64)
        moves = np.empty(cm.MAX_MOVES, np.int64)
        moves = moves[: cm.generate_moves(state, moves)].copy()
        out = np.empty(cm.MAX_MOVES, np.int64)
        each = CALLS // legal
        row = [microseconds(_generate, state, CALLS), microseconds(_mask, state, mask, CALLS),
               microseconds(_scan, mask, CALLS), microseconds(_list, state, out, False, CALLS),
               microseconds(_list, state, out, True, CALLS),
               microseconds(_value_all, state, actions, each, per=each),
               microseconds(_apply_each, state, actions, each, per=each * legal),
               microseconds(_play_each, state, moves, each, per=each * legal),
               microseconds(_evaluate, state, CALLS), microseconds(_check, state, CALLS)]
        print(f"| {index + 1} | {legal} | " + " | ".join(f"{t:.3f}" for t in row) + " |",
              flush=True)


if __name__ == "__main__":
    main()
