"""MoGo's 3x3 patterns around a move (the playouts' pattern step and the priors' pattern
term), 16-bit neighbourhood codes, and canonical pattern keys (the side to move's view, the 8
symmetries as one) for the learned pattern logits (``benchmarks.go_fit_patterns``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.go_board import (
    BLACK,
    EMPTY,
    SIZE,
    STONE,
    WHITE,
    grid,
    is_eye,
    to_point,
)

#: MoGo's 3x3 patterns (Gelly et al. 2006), the move at the centre, for either colour to
#: move: X and O are stones of two different colours, ``.`` empty, ``x`` not X (O or empty),
#: ``o`` not O, ``?`` anything, ``#`` off the board. Rows: north, centre, south.
PATTERNS_3X3 = (
    ("XOX", "...", "???"),  # hane: enclosing hane
    ("XO.", "...", "?.?"),  # hane: non-cutting hane
    ("XO?", "X..", "x.?"),  # hane: magari
    ("XOO", "...", "?.?"),  # hane: thin hane
    (".O.", "X..", "..."),  # katatsuke / diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut 1: unprotected cut
    ("XO?", "O.X", "???"),  # cut 1: peeped cut
    ("?X?", "O.O", "ooo"),  # cut 2
    ("X.?", "O.?", "###"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block side cut
    ("?X?", "x.O", "###"),  # edge: block side connection
    ("?OX", "X.O", "###"),  # edge: cut
)
_CELL_VALUES = {
    "X": (BLACK,), "O": (WHITE,), ".": (EMPTY,), "x": (EMPTY, WHITE), "o": (EMPTY, BLACK),
    "?": (EMPTY, BLACK, WHITE, 3), "#": (3,),
}
# neighbour order of a code (2 bits each, 0 empty, 1 black, 2 white, 3 off the board):
# NW, N, NE, W, E, SW, S, SE as (row, col) offsets
_OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


def _pattern_variants(rows: tuple[str, str, str]) -> set[tuple[str, ...]]:
    """The 8 rotations/reflections of a pattern, each as its 8 cells in _OFFSETS order."""
    grid3 = [list(row) for row in rows]
    variants = set()
    for flip in (False, True):
        cells = [row[::-1] for row in grid3] if flip else [row[:] for row in grid3]
        for _ in range(4):
            cells = [list(row) for row in zip(*cells[::-1], strict=True)]  # rotate 90
            variants.add(tuple(cells[1 + dr][1 + dc] for dr, dc in _OFFSETS))
    return variants


def pattern_table() -> np.ndarray:
    """bool ``[65536]``: whether a neighbourhood code (see _OFFSETS) matches a pattern of
    :data:`PATTERNS_3X3` in some rotation or reflection, with either colour as X."""
    import itertools

    table = np.zeros(1 << 16, dtype=np.bool_)
    for rows in PATTERNS_3X3:
        for cells in _pattern_variants(rows):
            for swap in (False, True):
                options = []
                for cell in cells:
                    values = _CELL_VALUES[cell]
                    options.append(tuple(3 - v if swap and v in (BLACK, WHITE) else v
                                         for v in values))
                for combo in itertools.product(*options):
                    code = 0
                    for k, value in enumerate(combo):
                        code |= value << (2 * k)
                    table[code] = True
    return table


PATTERN_TABLE = pattern_table()


def _symmetries() -> list[list[int]]:
    """The 8 rotations/reflections of a 3x3 neighbourhood, each as where every cell of
    _OFFSETS goes."""
    result = []
    for flip in (False, True):
        for turns in range(4):
            perm = []
            for dr, dc in _OFFSETS:
                r, c = dr, (-dc if flip else dc)
                for _ in range(turns):
                    r, c = c, -r
                perm.append(_OFFSETS.index((r, c)))
            result.append(perm)
    return result


def canonical_codes(codes: np.ndarray, to_move: np.ndarray | int) -> np.ndarray:
    """Neighbourhood codes (:func:`neighbourhood_code`) as the side to move sees them (its
    stones 1, the opponent's 2) and made equal under the 8 symmetries (the least variant):
    one key per pattern whatever its orientation and colours. ``to_move``: BLACK or WHITE."""
    codes = np.asarray(codes, dtype=np.int64)
    cells = np.stack([(codes >> (2 * k)) & 3 for k in range(8)], axis=-1)
    white = np.expand_dims(np.asarray(to_move) == WHITE, -1)
    cells = np.where(white & (cells == BLACK), WHITE,
                     np.where(white & (cells == WHITE), BLACK, cells))
    variants = [np.sum([cells[..., perm[k]] << (2 * k) for k in range(8)], axis=0)
                for perm in _symmetries()]
    return np.minimum.reduce(variants)


def logits_of_keys(keys: np.ndarray, canonical: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """The logit of each canonical key in ``keys`` from one logit per code of the sorted
    ``canonical`` (0 for keys not given)."""
    if len(canonical) == 0:
        return np.zeros(np.shape(keys))
    where = np.clip(np.searchsorted(canonical, keys), 0, len(canonical) - 1)
    return np.where(canonical[where] == keys, logits[where], 0.0)


def pattern_logits(canonical: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """float32 ``[2, 65536]``: the logit of every neighbourhood code for Black to move (row 0)
    and White to move (row 1), from one logit per canonical code (0 for codes not given)."""
    order = np.argsort(canonical)
    canonical, logits = np.asarray(canonical)[order], np.asarray(logits, np.float64)[order]
    return np.stack([logits_of_keys(canonical_codes(np.arange(1 << 16), colour), canonical,
                                    logits) for colour in (BLACK, WHITE)]).astype(np.float32)


@njit(cache=True, inline="always")
def neighbourhood_code(g, w, p):
    """The 16-bit code of the 8 points around ``p`` (see _OFFSETS; STONE values 0..3)."""
    code = 0
    k = 0
    for q in (p - w - 1, p - w, p - w + 1, p - 1, p + 1, p + w - 1, p + w, p + w + 1):
        code |= g[STONE, q] << (2 * k)
        k += 1
    return code


def neighbourhood_code_of(state: np.ndarray, action: int) -> int:
    """:func:`neighbourhood_code` of a board action's point in ``state``."""
    w = state[SIZE] + 1
    return int(neighbourhood_code(grid(state), w, to_point(state, action)))


def fills_own_eye(state: np.ndarray, action: int) -> bool:
    """Whether the board action fills one of the mover's own eyes: the priors give such a
    move PRIOR_OWN_EYE alone, with no pattern term (so a fit of pattern logits leaves it
    out)."""
    return bool(is_eye(grid(state), state[SIZE] + 1, to_point(state, action),
                       state[TO_PLAY] + 1))
