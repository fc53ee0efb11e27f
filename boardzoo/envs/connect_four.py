"""Connect Four.

=================  =============================================================
Actions            ``columns`` (7): the column to drop a stone in, 0 = leftmost
Move notation      Pascal Pons' 1-based column number, "1".."7" (action + 1)
Observation        float32 (rows, columns, 2): plane 0 the observer's stones, plane 1 the
                   opponent's; row 0 at the top
Rewards            +1 / -1 for four in a row (vertical, horizontal or diagonal), 0 when the
                   board fills up without one
Options            ``rows=6, columns=7``; rows, columns >= 4 and (rows + 1) * columns <= 64
Position text      Pascal Pons' column sequence: the 1-based columns played from the empty
                   board, one digit per move, e.g. "4453" ("" is the empty board). Boards
                   with 10 or more columns write the numbers separated by commas, e.g.
                   "4,10,3". The side to move follows from the length (first player after an
                   even number). A sequence may end with a win but not continue after one.
Coordinates        columns "1".."7" from the left, rows "1".."6" from the top
Version history    v0: first release
=================  =============================================================

State: uint64 ``[to_play, outcome, ply, rows, columns, current, mask, move_0, move_1, ...]``
with one move slot per cell (the 0-based columns played, in order; slots past ``ply`` are 0).
``current`` and ``mask`` are bitboards in the layout of Pascal Pons' solver: column ``c``
owns bits ``c * (rows + 1)`` (bottom cell) to ``c * (rows + 1) + rows - 1`` (top cell) and
bit ``c * (rows + 1) + rows`` is an always-empty sentinel. ``mask`` holds every stone,
``current`` the stones of the side to move (at the end: of the side that did not move last).

The bitboard helpers (:func:`position_key`, :func:`winning_cells`, :func:`winning_columns`,
:func:`playable_cells`, :func:`popcount`, :func:`has_four`) are compiled module-level
functions over ``(current, mask)`` pairs so a solver can reuse them without a state array.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import DRAW, HEADER, ONGOING, OUTCOME, PLY, TO_PLAY, DeclaredKnowledge, Game
from boardzoo.envs.kernels import Kernels
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import parse_int, require, strict_keywords
from boardzoo.rng import below

__all__ = [
    "ROWS",
    "COLUMNS",
    "CURRENT",
    "MASK",
    "MOVES",
    "ConnectFour",
    "bottom_mask",
    "board_mask",
    "has_four",
    "playable_cells",
    "winning_cells",
    "winning_columns",
    "position_key",
    "env",
    "raw_env",
]

ROWS, COLUMNS, CURRENT, MASK = HEADER, HEADER + 1, HEADER + 2, HEADER + 3
MOVES = HEADER + 4

_ZERO = np.uint64(0)
_ONE = np.uint64(1)


# --------------------------------------------------------------------- bitboard helpers
@njit(cache=True)
def bottom_mask(rows, columns):
    """uint64 bitboard with the bottom cell of every column set."""
    bottom = _ZERO
    for c in range(columns):
        bottom |= _ONE << np.uint64(c * (rows + 1))
    return bottom


@njit(cache=True)
def board_mask(rows, columns):
    """uint64 bitboard with every cell of the board set (sentinels clear): each bottom cell
    times a full column (no carries: a column's ``rows`` bits stop below its sentinel)."""
    return bottom_mask(rows, columns) * ((_ONE << np.uint64(rows)) - _ONE)


@njit(cache=True)
def _line(stones, step):
    """Whether ``stones`` hold four in a row along bit distance ``step`` (uint64)."""
    pairs = stones & (stones >> step)
    return (pairs & (pairs >> (step + step))) != _ZERO


@njit(cache=True)
def has_four(stones, rows):
    """Whether the bitboard ``stones`` contains four in a row in any direction."""
    height = np.uint64(rows)
    return (
        _line(stones, _ONE)
        or _line(stones, height)
        or _line(stones, height + _ONE)
        or _line(stones, height + np.uint64(2))
    )


@njit(cache=True)
def _completions(stones, step):
    """Cells that would complete four with ``stones`` along bit distance ``step`` (both ways)."""
    two = step + step
    three = two + step
    up = (stones << step) & (stones << two)
    cells = (up & (stones << three)) | (up & (stones >> step))
    down = (stones >> step) & (stones >> two)
    return cells | (down & (stones << step)) | (down & (stones >> three))


@njit(cache=True)
def winning_cells(current, mask, rows, columns):
    """Empty cells (uint64 bitboard, playable or not) where the side to move would make four.

    ``current`` holds the side to move's stones, ``mask`` all stones (Pons' layout). The
    opponent's threats are ``winning_cells(current ^ mask, mask, rows, columns)``.
    """
    height = np.uint64(rows)
    vertical = (current << _ONE) & (current << np.uint64(2)) & (current << np.uint64(3))
    cells = (
        vertical
        | _completions(current, height + _ONE)
        | _completions(current, height)
        | _completions(current, height + np.uint64(2))
    )
    return cells & (board_mask(rows, columns) ^ mask)


@njit(cache=True)
def playable_cells(mask, rows, columns):
    """The cell a stone would land on in every column that is not full (uint64 bitboard)."""
    return (mask + bottom_mask(rows, columns)) & board_mask(rows, columns)


@njit(cache=True)
def winning_columns(current, mask, rows, columns):
    """Columns where the side to move wins at once, as an int with bit ``c`` for column ``c``."""
    wins = winning_cells(current, mask, rows, columns) & playable_cells(mask, rows, columns)
    column = (_ONE << np.uint64(rows)) - _ONE
    found = 0
    for c in range(columns):
        if wins & (column << np.uint64(c * (rows + 1))) != _ZERO:
            found |= 1 << c
    return found


@njit(cache=True)
def position_key(current, mask):
    """A uint64 key unique to the position (Pons' ``current + mask``); equal for transpositions.

    Within each column ``mask`` is ``2**h - 1`` for ``h`` stones and ``current`` a subset of
    those bits, so the sum ``2**h - 1 + current`` fits the column's ``rows + 1`` bits and
    determines both ``h`` and ``current``; the side to move follows from the stone count.
    """
    return current + mask


# -------------------------------------------------------------------------- kernels
@njit(cache=True)
def _top_cell(column, rows):
    """The bitboard bit of the top cell of ``column``."""
    return _ONE << np.uint64(column * (rows + 1) + rows - 1)


@njit(cache=True)
def _landing_cell(mask, column, rows):
    """The bit of the cell a stone dropped in ``column`` (not full) lands on."""
    return (mask + (_ONE << np.uint64(column * (rows + 1)))) & ~mask


@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill ``out`` (bool, shape ``[columns]``) with the columns that are not full; the count."""
    rows = np.int64(state[ROWS])
    mask = state[MASK]
    playing = state[OUTCOME] == ONGOING
    count = 0
    for c in range(out.shape[0]):
        legal = playing and (mask & _top_cell(c, rows)) == _ZERO
        out[c] = legal
        count += legal
    return count


@njit(cache=True)
def apply_kernel(state, action):
    """Drop a stone of the side to move in column ``action`` (in place; assumed legal)."""
    rows = np.int64(state[ROWS])
    ply = np.int64(state[PLY])
    seat = np.int64(state[TO_PLAY])
    move = _landing_cell(state[MASK], action, rows)
    mover = state[CURRENT] | move
    state[MASK] |= move
    state[CURRENT] = mover ^ state[MASK]
    state[MOVES + ply] = action
    state[PLY] = ply + 1
    state[TO_PLAY] = 1 - seat
    if has_four(mover, rows):
        state[OUTCOME] = seat + 1
    elif ply + 1 == rows * np.int64(state[COLUMNS]):
        state[OUTCOME] = DRAW


@njit(cache=True)
def _kth_open_column(mask, rows, columns, k):
    """The ``k``-th (0-based) column from the left that is not full."""
    for c in range(columns):
        if (mask & _top_cell(c, rows)) == _ZERO:
            if k == 0:
                return c
            k -= 1
    return -1


@njit(cache=True)
def playout_kernel(state, rng):
    """Uniformly random moves in place to the end; returns the outcome code."""
    if state[OUTCOME] != ONGOING:
        return np.int64(state[OUTCOME])
    rows, columns = np.int64(state[ROWS]), np.int64(state[COLUMNS])
    ply, seat = np.int64(state[PLY]), np.int64(state[TO_PLAY])
    current, mask = state[CURRENT], state[MASK]
    top_row = bottom_mask(rows, columns) << np.uint64(rows - 1)
    open_columns = columns - popcount(mask & top_row)
    outcome = ONGOING
    while outcome == ONGOING:
        column = _kth_open_column(mask, rows, columns, below(rng, open_columns))
        move = _landing_cell(mask, column, rows)
        mover = current | move
        mask |= move
        current = mover ^ mask
        state[MOVES + ply] = column
        ply += 1
        seat = 1 - seat
        if (move & top_row) != _ZERO:
            open_columns -= 1
        if has_four(mover, rows):
            outcome = 2 - seat
        elif ply == rows * columns:
            outcome = DRAW
    state[CURRENT], state[MASK], state[PLY], state[TO_PLAY] = current, mask, ply, seat
    state[OUTCOME] = outcome
    return outcome


# --------------------------------------------------------------------------- the game
@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (rows, columns, 2), row 0 at the top: plane 0 ``seat``'s stones,
    plane 1 the opponent's."""
    rows, columns = np.int64(state[ROWS]), np.int64(state[COLUMNS])
    current, mask = state[CURRENT], state[MASK]
    own = current if seat == np.int64(state[TO_PLAY]) else current ^ mask
    other = own ^ mask
    for c in range(columns):
        for r in range(rows):
            bit = _ONE << np.uint64(c * (rows + 1) + r)
            out[rows - 1 - r, c, 0] = 1.0 if own & bit else 0.0
            out[rows - 1 - r, c, 1] = 1.0 if other & bit else 0.0


class ConnectFour(Game):
    """Connect Four rules on a ``rows`` x ``columns`` board (see the module docstring)."""

    name = "connect_four"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.connect_four:KNOWLEDGE")
    symmetry = "mirror"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      observe=observe_kernel)
    piece_symbols = (".", "X", "O")
    board_rgb = (40, 90, 200)
    piece_rgb = ((220, 40, 40), (245, 210, 50))
    position_format = (
        "Pascal Pons' column sequence: the 1-based columns played from the empty board, one "
        'digit per move, e.g. "4453" ("" = empty board); with 10 or more columns the numbers '
        'are separated by commas, e.g. "4,10,3"'
    )

    def __init__(self, rows: int = 6, columns: int = 7) -> None:
        for option, value in (("rows", rows), ("columns", columns)):
            require(
                isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value >= 4,
                f"connect_four option {option}={value!r} is not allowed: use an integer >= 4",
            )
        rows, columns = int(rows), int(columns)
        require(
            (rows + 1) * columns <= 64,
            f"connect_four board rows={rows}, columns={columns} is too large: the bitboards need "
            f"(rows + 1) * columns <= 64, here {(rows + 1) * columns}",
        )
        super().__init__(
            num_actions=columns, planes_shape=(rows, columns, 2), rows=rows, columns=columns
        )
        self.rows, self.columns = rows, columns
        top_down = np.arange(rows - 1, -1, -1)[:, None]
        #: bitboard bit of each cell, shape (rows, columns), row 0 at the top
        self._bits = (top_down + np.arange(columns)[None, :] * (rows + 1)).astype(np.uint64)

    def initial_state(self) -> np.ndarray:
        state = np.zeros(MOVES + self.rows * self.columns, dtype=np.uint64)
        state[ROWS], state[COLUMNS] = self.rows, self.columns
        return state

    def _planes(self, state: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """0/1 uint64 boards (rows, columns), row 0 at the top: ``seat``'s stones, the other's."""
        current, mask = state[CURRENT], state[MASK]
        own = current if seat == int(state[TO_PLAY]) else current ^ mask
        return (own >> self._bits) & _ONE, ((own ^ mask) >> self._bits) & _ONE

    def cells(self, state: np.ndarray) -> np.ndarray:
        first, second = self._planes(state, 0)
        return (first + 2 * second).astype(np.int8)

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        """Rows numbered from the bottom (row "1" is where the first stone lands)."""
        return [str(self.rows - r) for r in range(self.rows)], [
            str(c + 1) for c in range(self.columns)
        ]

    def action_to_str(self, action: int) -> str:
        return str(action + 1)

    def str_to_action(self, text: str) -> int:
        column = parse_int(text, max_digits=3)
        if column is not None and 1 <= column <= self.columns:
            return column - 1
        raise IllegalActionError(
            f"{excerpt(text)} is not a connect_four move; use a column number 1..{self.columns} "
            "(1 = leftmost)"
        )

    def illegal_reason(self, state: np.ndarray, action: int) -> str:
        return f"action {action} (column {action + 1}) is full"

    def position(self, state: np.ndarray) -> str:
        played = [str(int(c) + 1) for c in state[MOVES : MOVES + int(state[PLY])]]
        return ("," if self.columns > 9 else "").join(played)

    def parse_position(self, text: str) -> np.ndarray:
        state = self.initial_state()
        for ply, column in enumerate(self._parse_columns(text)):
            if state[OUTCOME] != ONGOING:
                raise InvalidPositionError(
                    f"connect_four position {excerpt(text)} is unreachable: move {ply + 1} is "
                    f"played after player_{int(state[OUTCOME]) - 1} connected four at move {ply}"
                )
            if (state[MASK] & np.uint64(_top_cell(column, self.rows))) != _ZERO:
                raise InvalidPositionError(
                    f"connect_four position {excerpt(text)} is unreachable: move {ply + 1} "
                    f"plays in column {column + 1}, which is already full"
                )
            self.kernels.apply(state, column)
        return state

    def _parse_columns(self, text: str) -> list[int]:
        """The 0-based columns of position text, or InvalidPositionError saying what is wrong."""
        if not isinstance(text, str):
            raise InvalidPositionError(
                f"connect_four position must be text ({self.position_format}), got {excerpt(text)}"
            )
        body = text.strip()
        if not body:
            return []
        tokens = body.split(",") if self.columns > 9 else list(body)
        for token in tokens:
            if not (
                (column := parse_int(token, max_digits=3)) is not None
                and token == str(column)
                and 1 <= column <= self.columns
            ):
                raise InvalidPositionError(
                    f"connect_four position {excerpt(text)} is malformed at {excerpt(token)}: "
                    f"expected columns 1..{self.columns}; format: {self.position_format}"
                )
        return [int(token) - 1 for token in tokens]


@strict_keywords("connect_four_v0.env()")
def env(
    rows: int = 6,
    columns: int = 7,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
) -> BoardGameEnv:
    """Connect Four as a PettingZoo AEC env (player_0 plays X and moves first)."""
    return BoardGameEnv(
        ConnectFour(rows, columns), render_mode=render_mode, illegal_action=illegal_action
    )


raw_env = env
