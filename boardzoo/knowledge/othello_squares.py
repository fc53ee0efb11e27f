"""Othello square geometry shared by the evaluation, the rollout policy and the endgame
solver: square types, per-size bitboard tables and small bit helpers (board sizes 4, 6, 8).

Square types: every square is classified by its distance to the nearest edges, which gives
the same types on every board size: *corner*; *C* (an edge square next to a corner); *X*
(diagonally next to a corner); *A* (an edge square two steps from a corner); *B* (other edge
squares); *ring* (the second ring, off the edge, not X); *centre* (the rest).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.othello import BLACK, BOARD_SIZES, SIZE, WHITE

_ONE = np.uint64(1)
_ZERO = np.uint64(0)

# ------------------------------------------------------------------------- square tables
CORNER, C_SQUARE, X_SQUARE, A_SQUARE, B_SQUARE, RING, CENTRE = range(7)
SQUARE_WEIGHTS = np.array([100, -20, -50, 10, 5, -2, -1], dtype=np.int64)


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
TYPES, CORNER_BITS, C_SQ, X_SQ = _T["types"], _T["corner"], _T["c_sq"], _T["x_sq"]
QUADRANTS, EDGES, LINES, BOARD = _T["quadrants"], _T["edges"], _T["lines"], _T["board"]
_NOT_LEFT, _NOT_RIGHT = _T["not_left"], _T["not_right"]
CORNERS = TYPES[:, CORNER].copy()
EDGE = TYPES[:, CORNER] | TYPES[:, C_SQUARE] | TYPES[:, A_SQUARE] | TYPES[:, B_SQUARE]
# the solver's static order below SHALLOW_EMPTIES: corners, plain squares, then X and C
TIERS = np.stack([CORNERS, BOARD & ~(CORNERS | TYPES[:, C_SQUARE] | TYPES[:, X_SQUARE]),
                   TYPES[:, C_SQUARE] | TYPES[:, X_SQUARE]], axis=1)
del _T


# ------------------------------------------------------------------------ small helpers
@njit(cache=True)
def lowest_bit(bits):
    """The lowest set bit of a non-empty bitboard, as a one-bit board."""
    return bits & ~(bits - _ONE)


@njit(cache=True)
def square_of(bit):
    """The square index of a one-bit board."""
    return popcount(bit - _ONE)


@njit(cache=True)
def neighbours(bits, size):
    """Squares next to (8 directions) any square of ``bits``, inside the board."""
    n = np.uint64(size)
    left = bits & _NOT_LEFT[size]  # may step one column left
    right = bits & _NOT_RIGHT[size]
    out = (right << _ONE) | (left >> _ONE) | (bits << n) | (bits >> n)
    out |= (right << (n + _ONE)) | (left << (n - _ONE))
    out |= (right >> (n - _ONE)) | (left >> (n + _ONE))
    return out & BOARD[size]


@njit(cache=True)
def danger_squares(occupied, size):
    """X and C squares whose corner is still empty (the squares a player avoids)."""
    danger = _ZERO
    for i in range(4):
        if not occupied & CORNER_BITS[size, i]:
            danger |= C_SQ[size, i] | X_SQ[size, i]
    return danger


@njit(cache=True)
def player_boards(state):
    """(player, opponent, size): the side to move's and the other side's bitboards."""
    seat = np.int64(state[TO_PLAY])
    return state[BLACK + seat], state[WHITE - seat], np.int64(state[SIZE])


