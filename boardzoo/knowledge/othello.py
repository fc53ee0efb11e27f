"""Othello knowledge: a positional evaluation, position keys, an exact endgame solver and a
corner-seeking rollout policy (the knowledge-module contract of :mod:`boardzoo.knowledge`).

Everything works on the side to move's bitboards (``player``, ``opponent``) for board sizes
4, 6 and 8, reusing the move generator of :mod:`boardzoo.envs.othello`.

Square types
    Every square is classified by its distance to the nearest edges, which gives the same
    types on every board size: *corner*; *C* (an edge square next to a corner); *X* (diagonally
    next to a corner); *A* (an edge square two steps from a corner); *B* (other edge squares);
    *ring* (the second ring, off the edge, not X); *centre* (the rest). A 4x4 board has only
    corners, C squares and X squares (its centre).

Evaluation (:func:`evaluate_kernel`)
    A weighted sum of features from the side to move's view, each antisymmetric (swapping the
    two sides negates it), squashed by ``tanh(score / 600)``:

    ============  ======================================================  ===============
    feature       definition                                              weight
    ============  ======================================================  ===============
    squares       square weights, own minus opponent's: corner 100, C     1
                  -20, X -50, A 10, B 5, ring -2, centre -1; an X or C
                  square counts 0 once its corner is occupied
    mobility      100 (m - m') / (m + m' + 2), m = legal moves            4
    potential     the same ratio of empty squares next to the other       2
    mobility      side's discs (a frontier measure)
    corners       25 (own corners - opponent's corners)                   4
    stable edge   discs on an edge in an unbroken run from a corner of    6 per disc
                  their colour, or on a completely filled edge
    discs         100 (d - d') / (d + d')                                 1 + 15 f**4
    ============  ======================================================  ===============

    ``f`` is the share of squares occupied (the phase: 0 empty board, 1 full board), so the
    disc count dominates only near the end. The value is strictly inside (-1, 1).

Exact endgame solver
    :func:`solve`, in :mod:`boardzoo.knowledge.othello_solver` (a search engine of its own).

Rollout policy (:func:`heuristic_playout_kernel`)
    Moves are drawn at random with weights by square: corner 50, edge square (A, B, or a C
    square whose corner is occupied) 10, other square 5 (an X square whose corner is occupied
    counts as other), C square next to an empty corner 2, X square next to an empty corner 1.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.othello import (
    final_disc_difference,
    flips,
    legal_moves,
    position_key,
    store_playout_end,
)
from boardzoo.knowledge.base import Knowledge, SearchDefaults
from boardzoo.knowledge.othello_solver import (
    COST_GROWTH,
    REACH_EMPTIES,
    SOLVE_SPEED,
    solve,
    solve_cost,
    within_reach,
)
from boardzoo.knowledge.othello_squares import (
    BOARD,
    C_SQ,
    C_SQUARE,
    CORNER_BITS,
    CORNERS,
    EDGE,
    EDGES,
    LINES,
    SQUARE_WEIGHTS,
    TYPES,
    X_SQ,
    X_SQUARE,
    danger_squares,
    lowest_bit,
    neighbours,
    player_boards,
    square_of,
)
from boardzoo.rng import below

__all__ = [
    "KNOWLEDGE",
    "REACH_EMPTIES",
    "key_kernel",
    "evaluate_kernel",
    "exact_value",
    "solve",
    "solve_cost",
    "within_reach",
    "heuristic_playout_kernel",
]

_ONE = np.uint64(1)
_ZERO = np.uint64(0)

# --------------------------------------------------------------------------- evaluation
@njit(cache=True)
def _ratio(own, other):
    """100 (own - other) / (own + other + 2): a bounded, antisymmetric comparison."""
    return 100.0 * (own - other) / (own + other + 2)


@njit(cache=True)
def _square_score(player, opponent, size):
    """Square weights, own minus opponent's; X and C squares of occupied corners count 0."""
    score = 0
    for k in range(7):
        mask = TYPES[size, k]
        score += SQUARE_WEIGHTS[k] * (popcount(player & mask) - popcount(opponent & mask))
    occupied = player | opponent
    for i in range(4):
        if occupied & CORNER_BITS[size, i]:
            for mask, weight in ((C_SQ[size, i], SQUARE_WEIGHTS[C_SQUARE]),
                                 (X_SQ[size, i], SQUARE_WEIGHTS[X_SQUARE])):
                score -= weight * (popcount(player & mask) - popcount(opponent & mask))
    return score


@njit(cache=True)
def _stable_edge_discs(discs, occupied, size):
    """Bitboard of ``discs`` on an edge that cannot be flipped: an unbroken run from a corner
    of the same colour, or any disc on a completely filled edge."""
    stable = _ZERO
    for i in range(8):
        for j in range(size):
            bit = _ONE << np.uint64(LINES[size, i, j])
            if not discs & bit:
                break
            stable |= bit
    for i in range(4):
        edge = EDGES[size, i]
        if occupied & edge == edge:
            stable |= discs & edge
    return stable


@njit(cache=True)
def evaluate_kernel(state):
    """Heuristic value of a position from the side to move's view, strictly inside (-1, 1)
    (see the module docstring for the features and weights)."""
    player, opponent, size = player_boards(state)
    return _evaluate(player, opponent, size)


@njit(cache=True)
def _evaluate(player, opponent, size):
    """:func:`evaluate_kernel` on the side to move's and the other side's bitboards."""
    occupied = player | opponent
    empty = BOARD[size] & ~occupied
    own_discs, other_discs = popcount(player), popcount(opponent)
    phase = (own_discs + other_discs) / (size * size)
    mobility = _ratio(popcount(legal_moves(player, opponent, size)),
                      popcount(legal_moves(opponent, player, size)))
    potential = _ratio(popcount(neighbours(opponent, size) & empty),
                       popcount(neighbours(player, size) & empty))
    corners = 25 * (popcount(player & CORNERS[size]) - popcount(opponent & CORNERS[size]))
    stable = (popcount(_stable_edge_discs(player, occupied, size))
              - popcount(_stable_edge_discs(opponent, occupied, size)))
    discs = 100.0 * (own_discs - other_discs) / (own_discs + other_discs)
    score = (_square_score(player, opponent, size) + 4.0 * mobility + 2.0 * potential
             + 4.0 * corners + 6.0 * stable + (1.0 + 15.0 * phase**4) * discs)
    return math.tanh(min(max(score / 600.0, -15.0), 15.0))


@njit(cache=True)
def key_kernel(state):
    """Transposition key of a state: the game's :func:`position_key` of (side to move's
    discs, other side's discs), so the same board with the other side to move differs."""
    player, opponent, _ = player_boards(state)
    return position_key(player, opponent)


def exact_value(state: np.ndarray) -> int:
    """Final disc difference of a finished game from the side to move's view (the FFO
    convention: empty squares are counted for the winner)."""
    player, opponent, size = player_boards(state)
    return int(final_disc_difference(player, opponent, size))


# ------------------------------------------------------------------------ rollout policy
@njit(cache=True)
def _nth_bit(bits, k):
    """The ``k``-th (from 0, lowest first) set bit of ``bits``, as a one-bit board."""
    for _ in range(k):
        bits &= bits - _ONE
    return lowest_bit(bits)


@njit(cache=True)
def _heuristic_move(player, opponent, moves, size, rng):
    """A move drawn from the non-empty bitboard ``moves`` with the rollout weights (corner 50,
    edge 10, other 5, C square of an empty corner 2, X square of an empty corner 1)."""
    danger = danger_squares(player | opponent, size)
    corners = moves & CORNERS[size]
    c_squares = moves & danger & TYPES[size, C_SQUARE]
    x_squares = moves & danger & TYPES[size, X_SQUARE]
    edges = moves & EDGE[size] & ~(corners | c_squares)
    others = moves & ~(corners | c_squares | x_squares | edges)
    classes = (corners, edges, others, c_squares, x_squares)
    weights = (50, 10, 5, 2, 1)
    total = 0
    for i in range(5):
        total += weights[i] * popcount(classes[i])
    r = below(rng, total)
    for i in range(5):
        mass = weights[i] * popcount(classes[i])
        if r < mass:
            return _nth_bit(classes[i], r // weights[i])
        r -= mass
    return _ZERO


@njit(cache=True)
def heuristic_playout_kernel(state, rng):
    """Plays rollout-policy moves (see the module docstring) in place to the end of the game
    and returns the outcome code; the same contract as the game's ``playout_kernel``."""
    player, opponent, size = player_boards(state)
    seat = np.int64(state[TO_PLAY])
    plies = 0
    moves = legal_moves(player, opponent, size)
    while True:
        if moves == 0:
            moves = legal_moves(opponent, player, size)
            if moves == 0:
                break
        else:
            move = _heuristic_move(player, opponent, moves, size, rng)
            flipped = flips(player, opponent, square_of(move), size)
            player |= move | flipped
            opponent ^= flipped
            moves = legal_moves(opponent, player, size)
        player, opponent = opponent, player
        seat = 1 - seat
        plies += 1
    return store_playout_end(state, player, opponent, seat, plies)


#: what search knows about this game (declared on the Game as its ``knowledge``); the
#: search defaults are what MCTSAgent's "auto" settings apply, with the evidence
KNOWLEDGE = Knowledge(
    evaluate_kernel=evaluate_kernel,
    key_kernel=key_kernel,
    exact_value=exact_value,
    solve=solve,
    within_reach=within_reach,
    solve_cost=solve_cost,
    solve_speed=SOLVE_SPEED,
    cost_growth=COST_GROWTH,
    playout_kernel=heuristic_playout_kernel,
    search_defaults=SearchDefaults(
        selection="puct", evaluator="heuristic", implicit_minimax=0.5,
        evidence=(
            "PUCT guided by the evaluation (priors and leaf values) with implicit minimax "
            "backups. Against AlphaBetaAgent at equal time (40 games at 0.1 s per move, 20 "
            "at 1 s), with the exact solver at the root: alpha 0.5 scored 0.775 [0.63, "
            "0.88] and 0.65 [0.43, 0.82]; alpha 0.3: 0.55, alpha 0.7: 0.61, no minimax: "
            "0.55-0.575 and 0.40; UCT with random or heuristic playouts: 0.0-0.1."
        ),
    ),
)



