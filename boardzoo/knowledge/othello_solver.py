"""The exact Othello endgame solver: a search engine of its own over the side to move's
bitboards (board sizes 4, 6 and 8), used as the Othello knowledge's ``solve``.

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
    up (returns None) once ``time_limit`` has passed, reading :func:`boardzoo.timecontrol.monotonic`
    every :data:`CLOCK_CHECK_NODES` nodes.

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
from typing import Any

import numpy as np
from numba import njit

from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import ONGOING, OUTCOME, TO_PLAY
from boardzoo.envs.othello import (
    BLACK,
    SIZE,
    WHITE,
    final_disc_difference,
    flips,
    legal_moves,
    position_key,
)
from boardzoo.knowledge.base import Solution
from boardzoo.knowledge.othello_squares import (
    BOARD,
    CORNERS,
    QUADRANTS,
    TIERS,
    lowest_bit,
    neighbours,
    square_of,
)
from boardzoo.timecontrol import monotonic, watch_stop

__all__ = ["REACH_EMPTIES", "SHALLOW_EMPTIES", "CLOCK_CHECK_NODES", "COST_GROWTH", "COST_MODEL",
           "SOLVE_SPEED", "solve",
           "solve_cost", "within_reach"]

REACH_EMPTIES = {4: 16, 6: 20, 8: 18}
"""Default largest number of empty squares :func:`solve` attempts, per board size."""
COST_MODEL = {4: (16, 2e4), 6: (20, 3e6), 8: (18, 1e6)}
"""Per board size (empties, nodes): a typical solve's nodes at that many empties, from which
:func:`solve_cost` extrapolates (8x8: FFO #22-#27 and #40, 17-20 empties, took 0.6-15
million nodes)."""
COST_GROWTH = 2.6
"""How many times more nodes a solve takes per extra empty square (FFO #40-#47)."""
SOLVE_SPEED = 9e6
"""Nodes per second on one core of the reference machine (FFO #40: 15 million in 1.7 s)."""
SHALLOW_EMPTIES = 6
"""At and below this many empties the solver drops the table and the mobility ordering."""
CLOCK_CHECK_NODES = 4096
"""How many nodes the solver searches between two readings of the clock."""

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_NO_SCORE = 1000  # below every disc difference: "no move searched yet"

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
        if popcount(empty & QUADRANTS[size, i]) & 1:
            odd |= QUADRANTS[size, i]
    return odd


@njit(cache=True)
def _shallow(player, opponent, alpha, beta, size, stats):
    """Exact fail-soft alpha-beta score for ``player`` with few empties (no table; parity
    ordering: odd regions first, within them corners, plain squares, then X and C)."""
    empty = BOARD[size] & ~(player | opponent)
    count = popcount(empty)
    if count <= 2:
        if count == 2:
            first = lowest_bit(empty)
            return _last_two(player, opponent, square_of(first), square_of(empty ^ first),
                             beta, size, stats)
        stats[0] += 1
        if count == 1:
            return _last_one(player, opponent, square_of(empty), size)
        return final_disc_difference(player, opponent, size)
    stats[0] += 1
    odd = _odd_regions(empty, size)
    best = -_NO_SCORE
    for region in (odd, ~odd):
        for tier in range(3):
            candidates = empty & region & TIERS[size, tier]
            while candidates:
                bit = lowest_bit(candidates)
                candidates ^= bit
                flipped = flips(player, opponent, square_of(bit), size)
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
    odd = _odd_regions(BOARD[size] & ~(player | opponent), size)
    for i in range(count):
        bit = lowest_bit(moves)
        moves ^= bit
        square = square_of(bit)
        f = flips(player, opponent, square, size)
        replies = legal_moves(opponent ^ f, player | bit | f, size)
        score = -16 * (popcount(replies) + popcount(replies & CORNERS[size]))
        empty_after = BOARD[size] & ~(player | opponent | bit)
        score -= 8 * popcount(neighbours(player | bit | f, size) & empty_after)
        if bit & CORNERS[size]:
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
            return -upper, square_of(bits[i])
    return -_NO_SCORE, -1


@njit(cache=True)
def _clock_says_stop(stats, deadline):
    """Count a node; every CLOCK_CHECK_NODES nodes compare the clock with the deadline.
    True once the search must stop."""
    stats[_NODES] += 1
    if stats[_NODES] >= stats[_NEXT_CHECK]:
        stats[_NEXT_CHECK] = stats[_NODES] + CLOCK_CHECK_NODES
        if monotonic() > deadline:
            stats[_ABORTED] = 1
    return stats[_ABORTED] != 0


_INNER = -2  # ``root_move`` of every node below the root (see :func:`_search`)


@njit(cache=True)
def _search(player, opponent, alpha, beta, size, boards, bounds, stats, deadline, root_move):
    """(exact fail-soft alpha-beta score, best square) for ``player``, the side to move.

    At the root (``root_move`` >= -1: the move to search first, -1 none) only the moves are
    searched; below it (``root_move == _INNER``) a node first goes to :func:`_shallow` at few
    empties, reads the clock, the transposition table and handles a pass, and stores its
    result. The moves: principal-variation search, the first with the full window and the
    rest with a null window (re-searched when they beat alpha), fastest first. (0, -1) once
    the search was stopped; the square is -1 below the root when no move was searched.

    One self-recursive function whose every call has the same argument types (int64
    windows, never literals): numba calls it directly. Mutual or type-varying recursion is
    linked through numba's unresolved-symbol pointers, which a cached copy loaded in another
    process leaves unset, so the search crashed on load and had to compile in every process.
    """
    moves = legal_moves(player, opponent, size)
    table_move, slot = root_move, np.int64(-1)
    lower, upper = np.int64(-_NO_SCORE), np.int64(_NO_SCORE)
    if root_move == _INNER:
        if size * size - popcount(player | opponent) <= SHALLOW_EMPTIES:
            return np.int64(_shallow(player, opponent, alpha, beta, size, stats)), np.int64(-1)
        if _clock_says_stop(stats, deadline):
            return np.int64(0), np.int64(-1)
        slot, lower, upper, table_move = _probe(player, opponent, boards, bounds)
        if lower >= beta or lower == upper:
            return lower, np.int64(-1)
        if upper <= alpha:
            return upper, np.int64(-1)
        alpha, beta = max(alpha, lower), min(beta, upper)
        if moves == 0:
            if legal_moves(opponent, player, size) == 0:
                return np.int64(final_disc_difference(player, opponent, size)), np.int64(-1)
            value = _search(opponent, player, -beta, -alpha, size, boards, bounds, stats,
                            deadline, root_move)[0]
            return -value, np.int64(-1)
    bits, flipped, scores = _ordered_moves(player, opponent, moves, table_move, size)
    best, best_square = np.int64(-_NO_SCORE), np.int64(-1)
    if size * size - popcount(player | opponent) >= _ETC_EMPTIES:
        best, best_square = _table_cutoff(player, opponent, bits, flipped, beta, boards, bounds)
    if best < beta:
        best, best_square = np.int64(-_NO_SCORE), np.int64(-1)
        for i in range(bits.shape[0]):
            j = _take_best(scores, i)
            bit, f = bits[j], flipped[j]
            bits[j], flipped[j], scores[j] = bits[i], flipped[i], scores[i]
            child, other = opponent ^ f, player | bit | f
            low = max(alpha, best)
            if best == -_NO_SCORE:
                value = -_search(child, other, -beta, -low, size, boards, bounds, stats,
                                 deadline, np.int64(_INNER))[0]
            else:
                value = -_search(child, other, -low - 1, -low, size, boards, bounds, stats,
                                 deadline, np.int64(_INNER))[0]
                if low < value < beta:
                    value = -_search(child, other, -beta, -(value - 1), size, boards, bounds,
                                     stats, deadline, np.int64(_INNER))[0]
            if stats[_ABORTED]:
                return np.int64(0), np.int64(-1)
            if value > best:
                best, best_square = value, np.int64(square_of(bit))
                if best >= beta:
                    break
    if root_move == _INNER:
        if best < beta:
            upper = best
        if best > alpha:
            lower = best
        _store(slot, player, opponent, lower, upper, best_square, boards, bounds)
    return best, best_square


@njit(cache=True, nogil=True)
def _solve_kernel(player, opponent, size, boards, bounds, stats, time_limit):
    """(exact score, best square) for ``player`` to move in an unfinished game; the square is
    -1 when ``player`` must pass. (0, -1) when ``time_limit`` seconds passed first (counted
    from here, so loading or compiling this function is not charged to the limit)."""
    deadline = monotonic() + time_limit
    if legal_moves(player, opponent, size) == 0:
        value, _ = _aspiration(opponent, player, size, boards, bounds, stats, deadline)
        return -value, np.int64(-1)
    return _aspiration(player, opponent, size, boards, bounds, stats, deadline)


@njit(cache=True)
def _aspiration(player, opponent, size, boards, bounds, stats, deadline):
    """(exact score, best square) of a position with moves: a first search with the narrow
    window (-1, 1) asks only win, draw or loss; a second one finds the exact score on that
    side of 0, starting with the first one's move (the table keeps what the first learnt)."""
    limit = np.int64(size * size + 1)
    value, square = _search(player, opponent, np.int64(-1), np.int64(1), size, boards, bounds,
                            stats, deadline, np.int64(-1))
    if value == 0 or stats[_ABORTED]:
        return value, square
    low, high = (np.int64(0), limit) if value > 0 else (-limit, np.int64(0))
    return _search(player, opponent, low, high, size, boards, bounds, stats, deadline, square)


def _table(empties: int) -> tuple[np.ndarray, np.ndarray]:
    """An empty transposition table (boards, bounds) sized for a solve with ``empties``."""
    entries = 1 << min(20, max(10, empties))
    return np.zeros((entries, 2), np.uint64), np.zeros((entries, 3), np.int16)


def _empties(state: np.ndarray) -> int:
    size = int(state[SIZE])
    return size * size - int(popcount(state[BLACK] | state[WHITE]))


def within_reach(state: np.ndarray) -> bool:
    """Whether :func:`solve` attempts ``state`` by default (at most REACH_EMPTIES empties)."""
    return state[OUTCOME] == ONGOING and _empties(state) <= REACH_EMPTIES[int(state[SIZE])]


def solve_cost(state: np.ndarray) -> float:
    """Estimated nodes of an exact solve of ``state`` (0 for a finished game): the
    :data:`COST_MODEL` nodes grown by :data:`COST_GROWTH` per empty square beyond its."""
    if state[OUTCOME] != ONGOING:
        return 0.0
    empties_at, nodes = COST_MODEL[int(state[SIZE])]
    return nodes * COST_GROWTH ** (_empties(state) - empties_at)


def solve(state: np.ndarray, time_limit: float | None = None,
          max_empties: int | None = None, stop: Any = None) -> Solution | None:
    """Exact solution of an ongoing position: the best action and the final disc difference
    under perfect play (FFO convention) from the side to move's view, and the nodes searched.

    None when the game is over, when the position has more than ``max_empties`` empty squares
    (default: without a ``time_limit``, :data:`REACH_EMPTIES` for the board size; with one,
    no bound but the time), when ``time_limit`` seconds (None: no limit) pass first or
    once ``stop`` (a ``threading.Event``) is set (within milliseconds: the search runs
    without the GIL and a watching thread flags it, :func:`boardzoo.timecontrol.watch_stop`);
    loading (or, with an empty cache, compiling) the search on its first call is not charged to
    ``time_limit``. A side with no move gets the pass action
    (``size * size``).
    """
    seat, size = int(state[TO_PLAY]), int(state[SIZE])
    player, opponent = state[BLACK + seat], state[WHITE - seat]  # np.uint64 scalars
    empties = _empties(state)
    if max_empties is not None:
        reach = max_empties
    else:
        reach = REACH_EMPTIES[size] if time_limit is None else size * size
    if state[OUTCOME] != ONGOING or empties > reach:
        return None
    seconds = math.inf if time_limit is None else float(time_limit)
    stats = np.array([0, 0, CLOCK_CHECK_NODES], np.int64)
    with watch_stop(stop, stats, _ABORTED):
        value, square = _solve_kernel(player, opponent, size, *_table(empties), stats, seconds)
    if stats[_ABORTED]:
        return None
    action = size * size if square < 0 else int(square)
    return Solution(action, int(value), int(stats[_NODES]))
