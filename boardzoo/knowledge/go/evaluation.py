"""Go position keys and values for search: the transposition key, the exact value of a
finished game, a heuristic evaluation, the value of a finished playout and an ownership
estimate.

Position key (:func:`key_kernel`)
    The board's Zobrist hash, xor a key for White to move, xor a key for the simple-ko ban
    point (when the ko rule has one), xor a key when the last move was a pass (a second pass
    would end the game). The superko history is **not** part of the key: two positions with
    the same board, side to move, ko ban and pass state share a key even when different
    earlier positions make different moves illegal under positional/situational superko.

Evaluation (:func:`evaluate_kernel`)
    An area estimate from the side to move's view, squashed by ``tanh(score / (0.5 N*N))``:

    * stones count for their colour; empty regions that touch only one colour count for it
      (Tromp-Taylor area);
    * every other empty point counts for a colour when that colour's influence there
      exceeds the other's by at least :data:`CLAIM` (Zobrist-style influence: each stone
      radiates ``4 - d`` to the points at Manhattan distance ``d <= 3``), so a lone stone
      claims its four neighbours and a wall the points two lines away;
    * komi is subtracted from White's area;
    * atari: the side to move gains 2 points per stone of the largest opponent chain in
      atari (it can capture it now) and loses 1 point per stone of its own chains in atari
      (it can save at most one of them with its move).

    Without chains in atari the value is exactly antisymmetric: swapping the side to move
    (with komi 0) negates it. Dead stones are not recognised.

Score-shaded playout values (:func:`score_playout_value`, optional, Fuego's score
modification): a playout is worth its result shaded by 2% of its area margin, so the
search prefers the bigger of two equally sure wins. Not a default: against GNU Go level
10 0.82 over 44 games where the default scored 0.91 on the same openings (9x9, 1 s a
move; benchmarks/results/go-strength.md).

Ownership (:func:`ownership_estimate_kernel`): who owns each point at the end, averaged over
heuristic playouts, for the dead stones of :mod:`boardzoo.knowledge.go.scoring`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, TO_PLAY
from boardzoo.envs.go_board import (
    BLACK,
    COUNT,
    EMPTY,
    HASH,
    KO_POINT,
    KO_RULE,
    KOMI2,
    NO_KO,
    PASSES,
    ROOT,
    SIZE,
    STONE,
    WHITE,
    WHITE_TO_MOVE_KEY,
    area_score,
    fill_ownership,
    grid,
    in_atari,
    num_slots,
    ownership_kernel,
    zobrist_keys,
)
from boardzoo.knowledge.go.playouts import heuristic_playout

RADIUS = 3
"""A stone's influence on a point at Manhattan distance d is ``RADIUS + 1 - d`` (0 beyond)."""
CLAIM = 3
"""Influence (own minus opponent's) from which a contested empty point counts as area."""
SCALE_PER_POINT = 0.5
"""The evaluation is ``tanh(score / (SCALE_PER_POINT * N * N))``."""
SCORE_WEIGHT = 0.02
"""Share of a playout's value that comes from its final score (Fuego's score modification)."""

_SLOTS = num_slots(19)
_EXTRA_KEYS = zobrist_keys(_SLOTS + 1, seed=20240612)
_KO_KEYS = _EXTRA_KEYS[:_SLOTS]  # one per padded point: the simple-ko ban
_PASS_KEY = _EXTRA_KEYS[_SLOTS]  # the last move was a pass


@njit(cache=True)
def key_kernel(state):
    """Transposition key: board hash, side to move, ko ban point and "last move was a
    pass" (the superko history is not included; see the module docstring)."""
    key = state[HASH]
    if state[TO_PLAY] == 1:
        key ^= WHITE_TO_MOVE_KEY
    if state[KO_RULE] != NO_KO and state[KO_POINT] != 0:
        key ^= _KO_KEYS[state[KO_POINT]]
    if state[PASSES] > 0:
        key ^= _PASS_KEY
    return np.uint64(key)


@njit(cache=True)
def exact_value(state):
    """+1 / 0 / -1: the result of a finished game for the side to move at that point."""
    outcome = state[OUTCOME]
    if outcome == DRAW or outcome == ONGOING:
        return 0
    return 1 if outcome == state[TO_PLAY] + 1 else -1


@njit(cache=True)
def _influence(state, owner):
    """Give each neutral empty point of ``owner`` (from ``fill_ownership``) to the colour
    whose influence there reaches :data:`CLAIM` (see the module docstring)."""
    g = grid(state)
    n = state[SIZE]
    w = n + 1
    total = np.zeros(owner.shape[0], dtype=np.int64)  # Black's influence minus White's
    for row in range(1, n + 1):
        for col in range(1, n + 1):
            s = g[STONE, row * w + col]
            if s != BLACK and s != WHITE:
                continue
            sign = 1 if s == BLACK else -1
            for r in range(max(1, row - RADIUS), min(n, row + RADIUS) + 1):
                reach = RADIUS - abs(r - row)
                for c in range(max(1, col - reach), min(n, col + reach) + 1):
                    total[r * w + c] += sign * (RADIUS + 1 - abs(r - row) - abs(c - col))
    for p in range(owner.shape[0]):
        if owner[p] == 0 and g[STONE, p] == EMPTY:
            if total[p] >= CLAIM:
                owner[p] = BLACK
            elif total[p] <= -CLAIM:
                owner[p] = WHITE


@njit(cache=True)
def _atari_points(g, n, w, colour):
    """(stones of ``colour``'s chains in atari, stones of the largest such chain)."""
    total = largest = 0
    for row in range(1, n + 1):
        for p in range(row * w + 1, row * w + n + 1):
            if g[STONE, p] == colour and g[ROOT, p] == p and in_atari(g, p):
                total += g[COUNT, p]
                largest = max(largest, g[COUNT, p])
    return total, largest


@njit(cache=True)
def _score_for_mover(state):
    """The estimated score (points) from the side to move's view; see the module docstring."""
    n = state[SIZE]
    owner = np.empty(num_slots(n), dtype=np.int64)
    fill_ownership(state, owner)
    _influence(state, owner)
    area = 0  # Black's minus White's
    for p in range(owner.shape[0]):
        if owner[p] == BLACK:
            area += 1
        elif owner[p] == WHITE:
            area -= 1
    black_score = area - state[KOMI2] / 2.0
    mover = state[TO_PLAY] + 1
    g = grid(state)
    own_atari, _ = _atari_points(g, n, n + 1, mover)
    _, their_largest = _atari_points(g, n, n + 1, 3 - mover)
    score = black_score if mover == BLACK else -black_score
    return score + 2.0 * their_largest - own_atari


@njit(cache=True)
def evaluate_kernel(state):
    """Heuristic value of a non-terminal position from the side to move's view, strictly
    inside (-1, 1): ``tanh(score / (0.5 N*N))`` of the area estimate of the module docstring."""
    n = state[SIZE]
    scaled = _score_for_mover(state) / (SCALE_PER_POINT * n * n)
    return math.tanh(min(max(scaled, -15.0), 15.0))


@njit(cache=True)
def score_playout_value(state, outcome):
    """Black's (seat 0's) value of a finished playout, shaded by its margin as Fuego does:
    ``(1 - w) * result + w * score / N**2`` (``result`` +1 won / -1 lost / 0 drawn, ``score``
    the Tromp-Taylor area score with komi, clipped to ``[-N**2, N**2]``,
    ``w`` = :data:`SCORE_WEIGHT`), so that among moves that win as often the search prefers
    the bigger margin and does not let a won game thin out. Every win still outranks every
    loss."""
    n = state[SIZE]
    margin = min(max(area_score(state) / (n * n), -1.0), 1.0)
    result = 0.0 if outcome == 3 else (1.0 if outcome == 1 else -1.0)
    return (1.0 - SCORE_WEIGHT) * result + SCORE_WEIGHT * margin


@njit(cache=True)
def ownership_estimate_kernel(state, rng, playouts, out):
    """Who owns each point at the end, estimated from ``playouts`` heuristic playouts
    (steps 1, 2 and 4, as measured against GNU Go) of a copy of the non-terminal ``state``:
    ``out`` (float, ``[N*N]``, action order) gets the mean final Tromp-Taylor owner, +1
    Black ... -1 White. Returns the mean final area score from Black's view, komi included.
    Dead stones are those whose points end mostly owned by the opponent (what
    :mod:`boardzoo.knowledge.go.scoring` removes before the final score)."""
    scratch = np.empty_like(state)
    owner = np.empty(out.shape[0])
    out[:] = 0.0
    total = 0.0
    for _ in range(playouts):
        scratch[:] = state
        heuristic_playout(scratch, rng, False)
        ownership_kernel(scratch, owner)
        out += owner
        total += area_score(scratch)
    out /= max(playouts, 1)
    return total / max(playouts, 1)
