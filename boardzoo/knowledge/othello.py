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

Exact endgame solver (:func:`solve`)
    Negamax alpha-beta on the final disc difference (the FFO convention: empty squares go to
    the winner). An aspiration driver first asks only win, draw or loss (window (-1, 1)), then
    the exact score on that side of 0; every node runs a principal-variation search (the first
    move with the full window, the others with a null window, re-searched when they beat
    alpha). Above :data:`SHALLOW_EMPTIES` empties: a transposition table (two entries per
    bucket, the bigger search kept), enhanced transposition cutoffs from 10 empties on, and
    fastest-first move ordering (fewest replies for the opponent, opponent corners counted
    twice, then fewest empty squares next to one's own discs, corners and odd regions; the
    table's move first). At and below it: parity ordering (moves in quadrants with an odd
    number of empties first; within them corners, plain squares, then X and C squares) down
    to dedicated last-two and last-one routines. Passes are handled as moves (the side
    without a move hands over the turn; the game ends when neither side can move).

    "Within reach" means at most :data:`REACH_EMPTIES` empty squares: 18 on 8x8, 20 on 6x6,
    every position on 4x4 (override with ``max_empties``). Typical times on one core of the
    reference machine: FFO #1-#19 (14-16 empties) 8 ms on average, 22 ms at most; 8x8
    positions from random play 0.1-0.3 s at 18 empties, 1-5 s at 20; FFO #40 (20 empties)
    1.7 s, #41-#44 (22-23) 3-10 s each; 6x6 0.3-0.7 s at 20 empties. The search also gives
    up (returns None) once ``time_limit`` has passed, reading :func:`boardzoo.clock.monotonic`
    every :data:`CLOCK_CHECK_NODES` nodes.

Rollout policy (:func:`heuristic_playout_kernel`)
    Moves are drawn at random with weights by square: corner 50, edge square (A, B, or a C
    square whose corner is occupied) 10, other square 5 (an X square whose corner is occupied
    counts as other), C square next to an empty corner 2, X square next to an empty corner 1.

>>> from boardzoo.envs.othello import Othello
>>> game = Othello()
>>> state = game.parse_position(
...     "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X")  # FFO #1
>>> solution = solve(state, time_limit=None)
>>> game.action_to_str(solution.action), solution.value
('g8', 18)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardzoo.clock import monotonic
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.envs.othello import (
    BLACK,
    BOARD_SIZES,
    SIZE,
    WHITE,
    final_disc_difference,
    flips,
    legal_moves,
    popcount,
    position_key,
)
from boardzoo.knowledge import Solution
from boardzoo.rng import below

__all__ = [
    "REACH_EMPTIES",
    "SHALLOW_EMPTIES",
    "CLOCK_CHECK_NODES",
    "key_kernel",
    "evaluate_kernel",
    "exact_value",
    "solve",
    "heuristic_playout_kernel",
]

REACH_EMPTIES = {4: 16, 6: 20, 8: 18}
"""Default largest number of empty squares :func:`solve` attempts, per board size."""
SHALLOW_EMPTIES = 6
"""At and below this many empties the solver drops the table and the mobility ordering."""
CLOCK_CHECK_NODES = 4096
"""How many nodes the solver searches between two readings of the clock."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_NO_SCORE = 1000  # below every disc difference: "no move searched yet"

# ------------------------------------------------------------------------- square tables
CORNER, C_SQUARE, X_SQUARE, A_SQUARE, B_SQUARE, RING, CENTRE = range(7)
_SQUARE_WEIGHTS = np.array([100, -20, -50, 10, 5, -2, -1], dtype=np.int64)


def _square_type(n: int, row: int, col: int) -> int:
    """The type of a square (CORNER ... CENTRE) on an n x n board."""
    dr, dc = min(row, n - 1 - row), min(col, n - 1 - col)
    near, far = min(dr, dc), max(dr, dc)
    if near == 0:
        return (CORNER, C_SQUARE, A_SQUARE)[far] if far < 3 else B_SQUARE
    if near == 1:
        return X_SQUARE if far == 1 else RING
    return CENTRE


def _corner_squares(n: int) -> list[tuple[int, list[int], list[int]]]:
    """Per corner: (corner square, its two C squares, its X square as a one-item list)."""
    out = []
    for row, col, dr, dc in ((0, 0, 1, 1), (0, n - 1, 1, -1), (n - 1, 0, -1, 1),
                             (n - 1, n - 1, -1, -1)):
        c_squares = [row * n + col + dc, (row + dr) * n + col]
        out.append((row * n + col, c_squares, [(row + dr) * n + col + dc]))
    return out


def _edge_lines(n: int) -> list[list[int]]:
    """The 8 edge lines, each starting at a corner and running along an edge (n squares)."""
    top, bottom = list(range(n)), [(n - 1) * n + c for c in range(n)]
    left, right = [r * n for r in range(n)], [r * n + n - 1 for r in range(n)]
    return [top, top[::-1], bottom, bottom[::-1], left, left[::-1], right, right[::-1]]


def _bits(squares) -> int:
    return sum(1 << s for s in squares)


def _tables() -> dict[str, np.ndarray]:
    """Per-size bitboard tables, indexed by board size (rows 4, 6 and 8 are filled)."""
    t = {
        "types": np.zeros((9, 7), np.uint64),  # squares of each type
        "corner": np.zeros((9, 4), np.uint64),  # one corner square each
        "c_sq": np.zeros((9, 4), np.uint64),  # the C squares of each corner
        "x_sq": np.zeros((9, 4), np.uint64),  # the X square of each corner
        "quadrants": np.zeros((9, 4), np.uint64),  # the four quarters (parity regions)
        "edges": np.zeros((9, 4), np.uint64),  # the four edges
        "lines": np.zeros((9, 8, 8), np.int64),  # edge lines from a corner (first n used)
        "board": np.zeros(9, np.uint64),  # all squares
        "not_left": np.zeros(9, np.uint64),  # squares off the first column
        "not_right": np.zeros(9, np.uint64),  # squares off the last column
    }
    for n in BOARD_SIZES:
        squares = [(r, c) for r in range(n) for c in range(n)]
        for k in range(7):
            t["types"][n, k] = _bits(r * n + c for r, c in squares if _square_type(n, r, c) == k)
        for i, (corner, c_squares, x_squares) in enumerate(_corner_squares(n)):
            t["corner"][n, i] = 1 << corner
            t["c_sq"][n, i] = _bits(c_squares)
            t["x_sq"][n, i] = _bits(x_squares)
            top, left = i < 2, i % 2 == 0
            t["quadrants"][n, i] = _bits(r * n + c for r, c in squares
                                         if (r < n // 2) == top and (c < n // 2) == left)
        lines = _edge_lines(n)
        for i, line in enumerate(lines):
            t["lines"][n, i, :n] = line
        for i in range(4):
            t["edges"][n, i] = _bits(lines[2 * i])
        t["board"][n] = _bits(range(n * n))
        t["not_left"][n] = _bits(r * n + c for r, c in squares if c > 0)
        t["not_right"][n] = _bits(r * n + c for r, c in squares if c < n - 1)
    return t


_T = _tables()
_TYPES, _CORNER, _C_SQ, _X_SQ = _T["types"], _T["corner"], _T["c_sq"], _T["x_sq"]
_QUADRANTS, _EDGES, _LINES, _BOARD = _T["quadrants"], _T["edges"], _T["lines"], _T["board"]
_NOT_LEFT, _NOT_RIGHT = _T["not_left"], _T["not_right"]
_CORNERS = _TYPES[:, CORNER].copy()
_EDGE = _TYPES[:, CORNER] | _TYPES[:, C_SQUARE] | _TYPES[:, A_SQUARE] | _TYPES[:, B_SQUARE]
# the solver's static order below SHALLOW_EMPTIES: corners, plain squares, then X and C
_TIERS = np.stack([_CORNERS, _BOARD & ~(_CORNERS | _TYPES[:, C_SQUARE] | _TYPES[:, X_SQUARE]),
                   _TYPES[:, C_SQUARE] | _TYPES[:, X_SQUARE]], axis=1)
del _T


# ------------------------------------------------------------------------ small helpers
@njit(cache=True)
def _lowest_bit(bits):
    """The lowest set bit of a non-empty bitboard, as a one-bit board."""
    return bits & ~(bits - _ONE)


@njit(cache=True)
def _square_of(bit):
    """The square index of a one-bit board."""
    return popcount(bit - _ONE)


@njit(cache=True)
def _neighbours(bits, size):
    """Squares next to (8 directions) any square of ``bits``, inside the board."""
    n = np.uint64(size)
    left = bits & _NOT_LEFT[size]  # may step one column left
    right = bits & _NOT_RIGHT[size]
    out = (right << _ONE) | (left >> _ONE) | (bits << n) | (bits >> n)
    out |= (right << (n + _ONE)) | (left << (n - _ONE))
    out |= (right >> (n - _ONE)) | (left >> (n + _ONE))
    return out & _BOARD[size]


@njit(cache=True)
def _danger_squares(occupied, size):
    """X and C squares whose corner is still empty (the squares a player avoids)."""
    danger = _ZERO
    for i in range(4):
        if not occupied & _CORNER[size, i]:
            danger |= _C_SQ[size, i] | _X_SQ[size, i]
    return danger


@njit(cache=True)
def _player_boards(state):
    """(player, opponent, size): the side to move's and the other side's bitboards."""
    seat = np.int64(state[TO_PLAY])
    return state[BLACK + seat], state[WHITE - seat], np.int64(state[SIZE])


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
        mask = _TYPES[size, k]
        score += _SQUARE_WEIGHTS[k] * (popcount(player & mask) - popcount(opponent & mask))
    occupied = player | opponent
    for i in range(4):
        if occupied & _CORNER[size, i]:
            for mask, weight in ((_C_SQ[size, i], _SQUARE_WEIGHTS[C_SQUARE]),
                                 (_X_SQ[size, i], _SQUARE_WEIGHTS[X_SQUARE])):
                score -= weight * (popcount(player & mask) - popcount(opponent & mask))
    return score


@njit(cache=True)
def _stable_edge_discs(discs, occupied, size):
    """Bitboard of ``discs`` on an edge that cannot be flipped: an unbroken run from a corner
    of the same colour, or any disc on a completely filled edge."""
    stable = _ZERO
    for i in range(8):
        for j in range(size):
            bit = _ONE << np.uint64(_LINES[size, i, j])
            if not discs & bit:
                break
            stable |= bit
    for i in range(4):
        edge = _EDGES[size, i]
        if occupied & edge == edge:
            stable |= discs & edge
    return stable


@njit(cache=True)
def evaluate_kernel(state):
    """Heuristic value of a position from the side to move's view, strictly inside (-1, 1)
    (see the module docstring for the features and weights)."""
    player, opponent, size = _player_boards(state)
    return _evaluate(player, opponent, size)


@njit(cache=True)
def _evaluate(player, opponent, size):
    """:func:`evaluate_kernel` on the side to move's and the other side's bitboards."""
    occupied = player | opponent
    empty = _BOARD[size] & ~occupied
    own_discs, other_discs = popcount(player), popcount(opponent)
    phase = (own_discs + other_discs) / (size * size)
    mobility = _ratio(popcount(legal_moves(player, opponent, size)),
                      popcount(legal_moves(opponent, player, size)))
    potential = _ratio(popcount(_neighbours(opponent, size) & empty),
                       popcount(_neighbours(player, size) & empty))
    corners = 25 * (popcount(player & _CORNERS[size]) - popcount(opponent & _CORNERS[size]))
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
    player, opponent, _ = _player_boards(state)
    return position_key(player, opponent)


def exact_value(state: np.ndarray) -> int:
    """Final disc difference of a finished game from the side to move's view (the FFO
    convention: empty squares are counted for the winner)."""
    seat = int(state[TO_PLAY])
    return int(final_disc_difference(state[BLACK + seat], state[WHITE - seat], int(state[SIZE])))


# ------------------------------------------------------------------------ rollout policy
@njit(cache=True)
def _nth_bit(bits, k):
    """The ``k``-th (from 0, lowest first) set bit of ``bits``, as a one-bit board."""
    for _ in range(k):
        bits &= bits - _ONE
    return _lowest_bit(bits)


@njit(cache=True)
def _heuristic_move(player, opponent, moves, size, rng):
    """A move drawn from the non-empty bitboard ``moves`` with the rollout weights (corner 50,
    edge 10, other 5, C square of an empty corner 2, X square of an empty corner 1)."""
    danger = _danger_squares(player | opponent, size)
    corners = moves & _CORNERS[size]
    c_squares = moves & danger & _TYPES[size, C_SQUARE]
    x_squares = moves & danger & _TYPES[size, X_SQUARE]
    edges = moves & _EDGE[size] & ~(corners | c_squares)
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
    player, opponent, size = _player_boards(state)
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
            flipped = flips(player, opponent, _square_of(move), size)
            player |= move | flipped
            opponent ^= flipped
            moves = legal_moves(opponent, player, size)
        player, opponent = opponent, player
        seat = 1 - seat
        plies += 1
    state[BLACK + seat] = player
    state[WHITE - seat] = opponent
    state[TO_PLAY] = seat
    state[PLY] += np.uint64(plies)
    black_lead = final_disc_difference(state[BLACK], state[WHITE], size)
    state[OUTCOME] = P0_WINS if black_lead > 0 else (P1_WINS if black_lead < 0 else DRAW)
    return np.int64(state[OUTCOME])


# ------------------------------------------------------------------- endgame: the leaves
@njit(cache=True)
def _full_board_score(player_discs, size):
    """Disc difference on a full board for the side with ``player_discs`` discs."""
    return 2 * player_discs - size * size


@njit(cache=True)
def _last_one(player, opponent, square, size):
    """Exact score for ``player`` to move with one empty ``square`` left."""
    flipped = flips(player, opponent, square, size)
    if flipped:
        return _full_board_score(popcount(player | flipped) + 1, size)
    flipped = flips(opponent, player, square, size)
    if flipped:
        return -_full_board_score(popcount(opponent | flipped) + 1, size)
    return final_disc_difference(player, opponent, size)


@njit(cache=True)
def _last_two(player, opponent, first, second, beta, size, stats):
    """Exact score (fail-soft above ``beta``) for ``player`` to move with two empty squares."""
    stats[0] += 1
    best = -_NO_SCORE
    for square, other in ((first, second), (second, first)):
        flipped = flips(player, opponent, square, size)
        if flipped:
            bit = _ONE << np.uint64(square)
            value = -_last_one(opponent ^ flipped, player | bit | flipped, other, size)
            if value > best:
                best = value
                if best >= beta:
                    return best
    if best > -_NO_SCORE:
        return best
    worst = _NO_SCORE  # player passes: the opponent picks the lower score
    for square, other in ((first, second), (second, first)):
        flipped = flips(opponent, player, square, size)
        if flipped:
            bit = _ONE << np.uint64(square)
            worst = min(worst, _last_one(player ^ flipped, opponent | bit | flipped, other, size))
    if worst < _NO_SCORE:
        return worst
    return final_disc_difference(player, opponent, size)


@njit(cache=True)
def _odd_regions(empty, size):
    """The quadrants holding an odd number of empty squares (played first: parity)."""
    odd = _ZERO
    for i in range(4):
        if popcount(empty & _QUADRANTS[size, i]) & 1:
            odd |= _QUADRANTS[size, i]
    return odd


@njit(cache=True)
def _shallow(player, opponent, alpha, beta, size, stats):
    """Exact fail-soft alpha-beta score for ``player`` with few empties (no table; parity
    ordering: odd regions first, within them corners, plain squares, then X and C)."""
    empty = _BOARD[size] & ~(player | opponent)
    count = popcount(empty)
    if count <= 2:
        if count == 2:
            first = _lowest_bit(empty)
            return _last_two(player, opponent, _square_of(first), _square_of(empty ^ first),
                             beta, size, stats)
        stats[0] += 1
        if count == 1:
            return _last_one(player, opponent, _square_of(empty), size)
        return final_disc_difference(player, opponent, size)
    stats[0] += 1
    odd = _odd_regions(empty, size)
    best = -_NO_SCORE
    for region in (odd, ~odd):
        for tier in range(3):
            candidates = empty & region & _TIERS[size, tier]
            while candidates:
                bit = _lowest_bit(candidates)
                candidates ^= bit
                flipped = flips(player, opponent, _square_of(bit), size)
                if not flipped:
                    continue
                value = -_shallow(opponent ^ flipped, player | bit | flipped,
                                  -beta, -max(alpha, best), size, stats)
                if value > best:
                    best = value
                    if best >= beta:
                        return best
    if best > -_NO_SCORE:
        return best
    if legal_moves(opponent, player, size) == 0:
        return final_disc_difference(player, opponent, size)
    return -_shallow(opponent, player, -beta, -alpha, size, stats)


# ------------------------------------------------------------ endgame: the upper plies
_NODES, _ABORTED, _NEXT_CHECK = 0, 1, 2  # slots of the solver's int64 ``stats`` array
_ETC_EMPTIES = 10  # from this many empties on, look up every child in the table first


@njit(cache=True)
def _ordered_moves(player, opponent, moves, table_move, size):
    """The moves of ``moves`` with their flips and a sort score (higher = search first):
    fastest-first (few replies, opponent corners counted twice), corners, odd regions,
    the transposition table's move above all."""
    count = popcount(moves)
    bits = np.empty(count, np.uint64)
    flipped = np.empty(count, np.uint64)
    scores = np.empty(count, np.int64)
    odd = _odd_regions(_BOARD[size] & ~(player | opponent), size)
    for i in range(count):
        bit = _lowest_bit(moves)
        moves ^= bit
        square = _square_of(bit)
        f = flips(player, opponent, square, size)
        replies = legal_moves(opponent ^ f, player | bit | f, size)
        score = -16 * (popcount(replies) + popcount(replies & _CORNERS[size]))
        empty_after = _BOARD[size] & ~(player | opponent | bit)
        score -= 8 * popcount(_neighbours(player | bit | f, size) & empty_after)
        if bit & _CORNERS[size]:
            score += 32
        if bit & odd:
            score += 8
        if square == table_move:
            score += 1 << 20
        bits[i], flipped[i], scores[i] = bit, f, score
    return bits, flipped, scores


@njit(cache=True)
def _take_best(scores, start):
    """Move the highest score of ``scores[start:]`` to ``start`` (lazy selection sort);
    returns its original index."""
    best = start
    for i in range(start + 1, scores.shape[0]):
        if scores[i] > scores[best]:
            best = i
    return best


@njit(cache=True)
def _probe(player, opponent, boards, bounds):
    """(slot, lower, upper, move) of the table entry for this position, or of the slot to
    overwrite with it (loose bounds and move -1). A bucket holds two entries; the one kept
    is the position with more empty squares (the bigger search)."""
    bucket = np.int64(position_key(player, opponent) & np.uint64(boards.shape[0] - 2))
    for slot in (bucket, bucket + 1):
        if boards[slot, 0] == player and boards[slot, 1] == opponent:
            return slot, np.int64(bounds[slot, 0]), np.int64(bounds[slot, 1]), np.int64(
                bounds[slot, 2])
    victim = bucket + 1
    if _filled(boards, bucket) > _filled(boards, bucket + 1):
        victim = bucket
    return victim, -_NO_SCORE, _NO_SCORE, -1


@njit(cache=True)
def _filled(boards, slot):
    """Discs of the position stored in ``slot``, or 64 for an unused slot (replaced first)."""
    discs = popcount(boards[slot, 0] | boards[slot, 1])
    return discs if discs else 64


@njit(cache=True)
def _store(slot, player, opponent, lower, upper, move, boards, bounds):
    boards[slot, 0], boards[slot, 1] = player, opponent
    bounds[slot, 0], bounds[slot, 1], bounds[slot, 2] = lower, upper, move


@njit(cache=True)
def _table_cutoff(player, opponent, bits, flipped, beta, boards, bounds):
    """Enhanced transposition cutoff: (score, square) of a move whose stored result already
    reaches ``beta``, else (-_NO_SCORE, -1)."""
    for i in range(bits.shape[0]):
        child, other = opponent ^ flipped[i], player | bits[i] | flipped[i]
        upper = _probe(child, other, boards, bounds)[2]
        if -upper >= beta:
            return -upper, _square_of(bits[i])
    return -_NO_SCORE, -1


@njit
def _clock_says_stop(stats, deadline):
    """Count a node; every CLOCK_CHECK_NODES nodes compare the clock with the deadline.
    True once the search must stop."""
    stats[_NODES] += 1
    if stats[_NODES] >= stats[_NEXT_CHECK]:
        stats[_NEXT_CHECK] = stats[_NODES] + CLOCK_CHECK_NODES
        if monotonic() > deadline:
            stats[_ABORTED] = 1
    return stats[_ABORTED] != 0


@njit
def _search_moves(player, opponent, moves, alpha, beta, table_move, size, boards, bounds,
                  stats, deadline):
    """(best score, best square) over the non-empty ``moves``: principal-variation search,
    the first move with the full window and the rest with a null window (re-searched when
    they beat alpha). Fail-soft; (0, -1) when the search was stopped."""
    bits, flipped, scores = _ordered_moves(player, opponent, moves, table_move, size)
    if size * size - popcount(player | opponent) >= _ETC_EMPTIES:
        best, best_square = _table_cutoff(player, opponent, bits, flipped, beta, boards, bounds)
        if best >= beta:
            return best, best_square
    best, best_square = -_NO_SCORE, -1
    for i in range(bits.shape[0]):
        j = _take_best(scores, i)
        bit, f = bits[j], flipped[j]
        bits[j], flipped[j], scores[j] = bits[i], flipped[i], scores[i]
        child, other = opponent ^ f, player | bit | f
        low = max(alpha, best)
        if best == -_NO_SCORE:
            value = -_deep(child, other, -beta, -low, size, boards, bounds, stats, deadline)
        else:
            value = -_deep(child, other, -low - 1, -low, size, boards, bounds, stats, deadline)
            if low < value < beta:
                value = -_deep(child, other, -beta, -(value - 1), size, boards, bounds, stats,
                               deadline)
        if stats[_ABORTED]:
            return 0, -1
        if value > best:
            best, best_square = value, _square_of(bit)
            if best >= beta:
                break
    return best, best_square


@njit
def _deep(player, opponent, alpha, beta, size, boards, bounds, stats, deadline):
    """Exact fail-soft alpha-beta score for ``player`` (the side to move) in the upper plies:
    transposition table, fastest-first ordering; 0 once the search was stopped."""
    empties = size * size - popcount(player | opponent)
    if empties <= SHALLOW_EMPTIES:
        return _shallow(player, opponent, alpha, beta, size, stats)
    if _clock_says_stop(stats, deadline):
        return 0
    slot, lower, upper, table_move = _probe(player, opponent, boards, bounds)
    if lower >= beta or lower == upper:
        return lower
    if upper <= alpha:
        return upper
    alpha, beta = max(alpha, lower), min(beta, upper)
    moves = legal_moves(player, opponent, size)
    if moves == 0:
        if legal_moves(opponent, player, size) == 0:
            return final_disc_difference(player, opponent, size)
        return -_deep(opponent, player, -beta, -alpha, size, boards, bounds, stats, deadline)
    best, square = _search_moves(player, opponent, moves, alpha, beta, table_move, size,
                                 boards, bounds, stats, deadline)
    if stats[_ABORTED]:
        return 0
    if best < beta:
        upper = best
    if best > alpha:
        lower = best
    _store(slot, player, opponent, lower, upper, square, boards, bounds)
    return best


@njit
def _solve_kernel(player, opponent, size, boards, bounds, stats, time_limit):
    """(exact score, best square) for ``player`` to move in an unfinished game; the square is
    -1 when ``player`` must pass. (0, -1) when ``time_limit`` seconds passed first (counted
    from here, so compiling this function is not charged to the limit)."""
    deadline = monotonic() + time_limit
    moves = legal_moves(player, opponent, size)
    if moves == 0:
        value, _ = _aspiration(opponent, player, size, boards, bounds, stats, deadline)
        return -value, -1
    return _aspiration(player, opponent, size, boards, bounds, stats, deadline)


@njit
def _aspiration(player, opponent, size, boards, bounds, stats, deadline):
    """(exact score, best square) of a position with moves: a first search with the narrow
    window (-1, 1) asks only win, draw or loss; a second one finds the exact score on that
    side of 0, starting with the first one's move (the table keeps what the first learnt)."""
    moves = legal_moves(player, opponent, size)
    limit = size * size + 1
    value, square = _search_moves(player, opponent, moves, -1, 1, -1, size, boards, bounds,
                                  stats, deadline)
    if value == 0 or stats[_ABORTED]:
        return value, square
    low, high = (0, limit) if value > 0 else (-limit, 0)
    return _search_moves(player, opponent, moves, low, high, square, size, boards, bounds, stats,
                         deadline)


def _table(empties: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table (boards, bounds) sized for a solve with ``empties``."""
    entries = 1 << min(20, max(10, empties))
    return np.zeros((entries, 2), np.uint64), np.zeros((entries, 3), np.int16)


MCTS_DEFAULTS = {"selection": "puct", "evaluator": "heuristic", "implicit_minimax": 0.5}
"""MCTSAgent's "auto" setting here: PUCT guided by the evaluation (priors and leaf values)
with implicit minimax backups. Against AlphaBetaAgent at equal time (40 games at 0.1 s per
move, 20 at 1 s), with the exact solver at the root: alpha 0.5 scored 0.775 [0.63, 0.88] and
0.65 [0.43, 0.82]; alpha 0.3: 0.55, alpha 0.7: 0.61, no minimax: 0.55-0.575 and 0.40; UCT with
random or heuristic playouts: 0.0-0.1."""


def _empties(state: np.ndarray) -> int:
    size = int(state[SIZE])
    return size * size - int(popcount(state[BLACK] | state[WHITE]))


def within_reach(state: np.ndarray) -> bool:
    """Whether :func:`solve` attempts ``state`` by default (at most REACH_EMPTIES empties)."""
    return state[OUTCOME] == ONGOING and _empties(state) <= REACH_EMPTIES[int(state[SIZE])]


def solve(state: np.ndarray, time_limit: float | None = None,
          max_empties: int | None = None) -> Solution | None:
    """Exact solution of an ongoing position: the best action and the final disc difference
    under perfect play (FFO convention) from the side to move's view, and the nodes searched.

    None when the game is over, when the position has more than ``max_empties`` empty squares
    (default :data:`REACH_EMPTIES` for the board size) or when ``time_limit`` seconds (None:
    no limit) pass first; compiling the search on its first call in a process (about 2 s)
    is not charged to ``time_limit``. A side with no move gets the pass action
    (``size * size``).
    """
    seat, size = int(state[TO_PLAY]), int(state[SIZE])
    player, opponent = state[BLACK + seat], state[WHITE - seat]  # np.uint64 scalars
    empties = _empties(state)
    reach = REACH_EMPTIES[size] if max_empties is None else max_empties
    if state[OUTCOME] != ONGOING or empties > reach:
        return None
    seconds = math.inf if time_limit is None else float(time_limit)
    stats = np.array([0, 0, CLOCK_CHECK_NODES], np.int64)
    value, square = _solve_kernel(player, opponent, size, *_table(empties), stats, seconds)
    if stats[_ABORTED]:
        return None
    action = size * size if square < 0 else int(square)
    return Solution(action, int(value), int(stats[_NODES]))
