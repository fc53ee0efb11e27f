"""Othello (Reversi) on an N x N board, N = 4, 6 or 8.

=================  =============================================================
Actions            N*N + 1: square = row * N + col, row 0 at the top (0 = a1, top-left);
                   N*N = pass, legal only when the side to move has no other move
Move notation      "a1".."h8" (column letter, row number counting from the top) and "pass"
                   (case-insensitive in, lower case out; 6x6 uses a1..f6, 4x4 a1..d4)
Observation        float32 (N, N, 3) from the observer's view: plane 0 the observer's discs,
                   plane 1 the opponent's, plane 2 the squares where the observer may place a
                   disc now (all zeros when it is not the observer's turn, at the end, and
                   when the only legal move is pass)
Rewards            at the end, +1 / -1 for more / fewer discs than the opponent, 0 for equal
                   counts; the game ends as soon as neither side can move (no passes needed)
Options            ``board_size``: 4, 6 or 8 (even, so there are four centre squares, and at
                   most 8 so a board fits one 64-bit word)
Position text      the FFO/OBF format: N*N characters for a1..h1, a2..h2, ..., h8 ("X" black,
                   "O" white, "-" empty), a space, and the side to move "X" or "O", e.g. the
                   8x8 start "---------------------------OX------XO--------------------------- X".
                   Also accepted: a trailing ";" and anything after it (as in .obf files), lower
                   case "x" / "o", and "." for an empty square; ``position()`` always writes the
                   canonical form above. Rejected as unreachable: an empty centre square, discs
                   not 8-connected (every disc was placed next to one), four discs other than
                   the start position with black to move.
Version history    v0: first release
=================  =============================================================

Black (``player_0``, "X") moves first. The start position has white on d4 and e5 and black on
d5 and e4 (for N x N: the four centre squares, white on the top-left/bottom-right diagonal).

State: ``uint64`` ``[to_play, outcome, ply, size, black, white]``; ``black`` and ``white`` are
bitboards with bit ``row * size + col``. ``ply`` counts placements and passes; a state parsed
from text starts at ``ply`` = discs - 4 (the text does not record passes).

Compiled helpers (``@njit``) for search code such as an endgame solver, on uint64 bitboards
of the side to move (``player``) and the other side (``opponent``), with ``size`` the board
size: :func:`legal_moves`, :func:`flips`, :func:`~boardzoo.envs.bitboard.popcount` (a disc count),
:func:`final_disc_difference` (the FFO endgame score), :func:`position_key` and :func:`perft`;
:func:`disc_counts` gives (black, white) of a state. The side to move's boards in a state are
``state[BLACK + seat]`` and ``state[WHITE - seat]`` with ``seat = state[TO_PLAY]``.

>>> game = Othello()
>>> [game.action_to_str(a) for a in game.legal_actions(game.initial_state())]
['d3', 'c4', 'f5', 'e6']
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import (
    DRAW,
    ONGOING,
    OUTCOME,
    P0_WINS,
    P1_WINS,
    PLY,
    TO_PLAY,
    DeclaredKnowledge,
    Game,
)
from boardzoo.envs.kernels import Kernels
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import require, strict_keywords
from boardzoo.rng import below, scramble

__all__ = [
    "SIZE",
    "BLACK",
    "WHITE",
    "BOARD_SIZES",
    "Othello",
    "legal_moves",
    "flips",
    "disc_counts",
    "final_disc_difference",
    "position_key",
    "perft",
    "env",
    "raw_env",
]

SIZE, BLACK, WHITE = 3, 4, 5
BOARD_SIZES = (4, 6, 8)
_COLUMNS = "abcdefgh"
_SIDES = "XO"


def _edge_masks() -> tuple[np.ndarray, np.ndarray]:
    """Per board size: all squares, and the squares off the first and last columns."""
    full = np.zeros(9, dtype=np.uint64)
    inner = np.zeros(9, dtype=np.uint64)
    for n in BOARD_SIZES:
        squares = [r * n + c for r in range(n) for c in range(n)]
        full[n] = np.uint64(sum(1 << s for s in squares))
        inner[n] = np.uint64(sum(1 << s for s in squares if 0 < s % n < n - 1))
    return full, inner


_FULL, _INNER = _edge_masks()
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


# ------------------------------------------------------------------------ bitboard kernels
@njit(cache=True)
def _moves_along(player, opponent, shift, runs):
    """Squares reached by jumping over opponent runs from ``player`` in the two directions
    ``+shift`` and ``-shift`` (bit shifts left and right); ``runs`` = longest run - 1."""
    up = (player << shift) & opponent
    down = (player >> shift) & opponent
    for _ in range(runs):
        up |= (up << shift) & opponent
        down |= (down >> shift) & opponent
    return (up << shift) | (down >> shift)


@njit(cache=True)
def legal_moves(player, opponent, size):
    """Bitboard of the squares where ``player`` may place a disc (bit = row * size + col).

    ``player`` and ``opponent`` are uint64 bitboards of the side to move and the other side;
    ``size`` is 4, 6 or 8. Shift-based move generation: horizontal and diagonal runs use the
    opponent's discs off the edge columns only, so no run wraps around an edge.
    """
    inner = opponent & _INNER[size]
    runs = size - 3
    n = np.uint64(size)
    moves = _moves_along(player, inner, np.uint64(1), runs)
    moves |= _moves_along(player, opponent, n, runs)
    moves |= _moves_along(player, inner, n - np.uint64(1), runs)
    moves |= _moves_along(player, inner, n + np.uint64(1), runs)
    return moves & ~(player | opponent) & _FULL[size]


@njit(cache=True)
def _flips_along(player, opponent, move, shift):
    """Opponent discs flipped by ``move`` (a one-bit board) in directions +shift and -shift."""
    flipped = _ZERO
    run = _ZERO
    x = move << shift
    while x & opponent:
        run |= x
        x <<= shift
    if x & player:
        flipped |= run
    run = _ZERO
    x = move >> shift
    while x & opponent:
        run |= x
        x >>= shift
    if x & player:
        flipped |= run
    return flipped


@njit(cache=True)
def _flips_of_bit(player, opponent, move, size):
    """Like :func:`flips`, with the move given as a one-bit board."""
    inner = opponent & _INNER[size]
    n = np.uint64(size)
    flipped = _flips_along(player, inner, move, np.uint64(1))
    flipped |= _flips_along(player, opponent, move, n)
    flipped |= _flips_along(player, inner, move, n - np.uint64(1))
    flipped |= _flips_along(player, inner, move, n + np.uint64(1))
    return flipped


@njit(cache=True)
def flips(player, opponent, square, size):
    """Bitboard of the ``opponent`` discs that ``player`` turns over by placing on ``square``
    (row * size + col); 0 when the placement flips nothing (it is then not a legal move)."""
    return _flips_of_bit(player, opponent, np.uint64(1) << np.uint64(square), size)


@njit(cache=True)
def disc_counts(state):
    """(black discs, white discs) of a state."""
    return popcount(state[BLACK]), popcount(state[WHITE])


@njit(cache=True)
def final_disc_difference(player, opponent, size):
    """Final score of a finished game for ``player``: its discs minus the opponent's, with the
    empty squares added to the winner's count (the FFO / Edax convention; 0 for a draw)."""
    own = popcount(player)
    other = popcount(opponent)
    empties = size * size - own - other
    if own > other:
        return own - other + empties
    if own < other:
        return own - other - empties
    return 0


@njit(cache=True)
def _rotate_left(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(cache=True)
def position_key(player, opponent):
    """A 64-bit hash of (player to move, opponent) for transposition tables.

    Equal positions give equal keys in every process; different positions collide rarely but
    can, so a table should also store and compare the two bitboards.
    """
    return scramble(player) ^ _rotate_left(scramble(opponent ^ np.uint64(0x9E3779B97F4A7C15)), 29)


@njit(cache=True)
def perft(player, opponent, depth, size):
    """Leaf count of the game tree ``depth`` plies deep in Aart Bik's convention: a pass is a
    ply, and a finished game counts as one leaf at every depth beyond its end."""
    if depth == 0:
        return 1
    moves = legal_moves(player, opponent, size)
    if moves == 0:
        if legal_moves(opponent, player, size) == 0:
            return 1
        return perft(opponent, player, depth - 1, size)
    if depth == 1:
        return popcount(moves)
    total = 0
    while moves:
        move = moves & ~(moves - _ONE)
        moves ^= move
        flipped = _flips_of_bit(player, opponent, move, size)
        total += perft(opponent ^ flipped, player | move | flipped, depth - 1, size)
    return total


# --------------------------------------------------------------------------- state kernels
@njit(cache=True)
def _outcome_by_count(black, white):
    """P0_WINS, P1_WINS or DRAW by disc count (black is player_0)."""
    b = popcount(black)
    w = popcount(white)
    if b > w:
        return P0_WINS
    if w > b:
        return P1_WINS
    return DRAW


@njit(cache=True)
def _settle(state):
    """End the game (set OUTCOME by disc count) if neither side can move."""
    size = np.int64(state[SIZE])
    black = state[BLACK]
    white = state[WHITE]
    if legal_moves(black, white, size) == 0 and legal_moves(white, black, size) == 0:
        state[OUTCOME] = _outcome_by_count(black, white)


@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill bool ``out`` (shape ``[size*size + 1]``) with the legal actions; return the count."""
    out[:] = False
    if state[OUTCOME] != ONGOING:
        return 0
    size = np.int64(state[SIZE])
    seat = np.int64(state[TO_PLAY])
    moves = legal_moves(state[BLACK + seat], state[WHITE - seat], size)
    if moves == 0:
        out[size * size] = True
        return 1
    count = 0
    for square in range(size * size):
        if (moves >> np.uint64(square)) & _ONE:
            out[square] = True
            count += 1
    return count


@njit(cache=True)
def apply_kernel(state, action):
    """Play the legal ``action`` in place (a placement or the pass ``size*size``)."""
    size = np.int64(state[SIZE])
    seat = np.int64(state[TO_PLAY])
    if action != size * size:
        player = state[BLACK + seat]
        opponent = state[WHITE - seat]
        move = _ONE << np.uint64(action)
        flipped = _flips_of_bit(player, opponent, move, size)
        state[BLACK + seat] = player | move | flipped
        state[WHITE - seat] = opponent ^ flipped
    state[PLY] += _ONE
    state[TO_PLAY] = 1 - seat
    _settle(state)


@njit(cache=True)
def _random_move(moves, rng):
    """A uniformly chosen set bit of the non-empty bitboard ``moves``, as a one-bit board."""
    for _ in range(below(rng, popcount(moves))):
        moves &= moves - _ONE
    return moves & ~(moves - _ONE)


@njit(cache=True)
def playout_kernel(state, rng):
    """Random legal moves in place to the end of the game; returns the outcome code."""
    size = np.int64(state[SIZE])
    seat = np.int64(state[TO_PLAY])
    player = state[BLACK + seat]
    opponent = state[WHITE - seat]
    plies = 0
    moves = legal_moves(player, opponent, size)
    while True:
        if moves == 0:
            moves = legal_moves(opponent, player, size)
            if moves == 0:
                break
        else:
            move = _random_move(moves, rng)
            flipped = _flips_of_bit(player, opponent, move, size)
            player |= move | flipped
            opponent ^= flipped
            moves = legal_moves(opponent, player, size)
        player, opponent = opponent, player
        seat = 1 - seat
        plies += 1
    return store_playout_end(state, player, opponent, seat, plies)


@njit(cache=True)
def store_playout_end(state, player, opponent, seat, plies):
    """Write a playout's final boards (``player`` is ``seat``'s, the side that would move) and
    its ``plies`` into ``state``, score it, and return the outcome code (for playout loops
    that run on local bitboards, as the rollout policy of :mod:`boardzoo.knowledge.othello`)."""
    state[BLACK + seat] = player
    state[WHITE - seat] = opponent
    state[TO_PLAY] = seat
    state[PLY] += np.uint64(plies)
    state[OUTCOME] = _outcome_by_count(state[BLACK], state[WHITE])
    return np.int64(state[OUTCOME])


# ----------------------------------------------------------------------------- the game
@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (N, N, 3) from ``seat``'s view: own discs, the opponent's, and
    the squares where ``seat`` may place a disc now (zeros unless it is ``seat``'s turn)."""
    n = np.int64(state[SIZE])
    own, other = state[BLACK + seat], state[WHITE - seat]
    to_move = seat == np.int64(state[TO_PLAY]) and state[OUTCOME] == ONGOING
    mine = legal_moves(own, other, n) if to_move else _ZERO
    for square in range(n * n):
        bit = _ONE << np.uint64(square)
        r, c = square // n, square % n
        out[r, c, 0] = 1.0 if own & bit else 0.0
        out[r, c, 1] = 1.0 if other & bit else 0.0
        out[r, c, 2] = 1.0 if mine & bit else 0.0


class Othello(Game):
    """Othello rules on a ``board_size`` x ``board_size`` board (see the module docstring)."""

    name = "othello"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.othello:KNOWLEDGE")
    symmetry = "dihedral"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      observe=observe_kernel)
    board_rgb = (30, 120, 60)
    pass_action: int  #: N*N, set with the board's size
    position_format = (
        'N*N characters for a1..h1, a2..h2, ... (rows from the top; "X" black, "O" white, '
        '"-" empty), a space, and the side to move "X" or "O" (the FFO/OBF format), e.g. '
        '"---------------------------OX------XO--------------------------- X"'
    )
    unrecorded_slots = (PLY,)

    def __init__(self, board_size: int = 8) -> None:
        require(
            isinstance(board_size, (int, np.integer))
            and not isinstance(board_size, (bool, np.bool_))
            and int(board_size) in BOARD_SIZES,
            f"board_size={board_size!r} is not allowed; Othello supports board_size 4, 6 or 8 "
            "(even, so there are four centre squares; at most 8, so a board fits 64 bits)",
        )
        n = int(board_size)
        super().__init__(num_actions=n * n + 1, planes_shape=(n, n, 3), board_size=n)
        self.size = n
        self.pass_action = n * n

    def initial_state(self) -> np.ndarray:
        c = self.size // 2
        white = (1 << self._square(c - 1, c - 1)) | (1 << self._square(c, c))
        black = (1 << self._square(c - 1, c)) | (1 << self._square(c, c - 1))
        return np.array([0, ONGOING, 0, self.size, black, white], dtype=np.uint64)

    def check_state(self, state: np.ndarray) -> None:
        """Board, side to move and result as the text round trip checks them; the ply count
        (the text records no passes) between the placements and twice them, since the first
        move is never a pass and two passes in a row end the game."""
        super().check_state(state)
        placements = int((self.cells(state) > 0).sum()) - 4
        if not placements <= int(state[PLY]) <= 2 * placements:
            raise InvalidPositionError(
                f"ply={int(state[PLY])} is impossible with {placements} disc(s) placed: it "
                f"counts placements and passes, so it lies in {placements}..{2 * placements}"
            )

    def cells(self, state: np.ndarray) -> np.ndarray:
        grid = self._grid(state[BLACK]) + 2 * self._grid(state[WHITE])
        return grid.astype(np.int8)

    def final_disc_difference(self, state: np.ndarray, seat: int) -> int:
        """``seat``'s discs minus the opponent's, empty squares counted for the winner (the FFO
        convention, the exact unit of endgame solvers); meant for finished games (before the
        end it scores the board as if the game stopped now)."""
        return int(final_disc_difference(state[BLACK + seat], state[WHITE - seat], self.size))

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        return [str(r + 1) for r in range(self.size)], list(_COLUMNS[: self.size])

    def action_to_str(self, action: int) -> str:
        action = self.action_index(action)
        if action == self.pass_action:
            return "pass"
        return _COLUMNS[action % self.size] + str(action // self.size + 1)

    def str_to_action(self, text: str) -> int:
        move = text.strip().lower() if isinstance(text, str) else ""
        if move == "pass":
            return self.pass_action
        columns, rows = _COLUMNS[: self.size], "12345678"[: self.size]
        if len(move) == 2 and move[0] in columns and move[1] in rows:
            return self._square(rows.index(move[1]), columns.index(move[0]))
        raise IllegalActionError(
            f"{excerpt(text)} is not an Othello move on {self.size}x{self.size}: use "
            f"a1..{columns[-1]}"
            f"{rows[-1]} (column letter, row number from the top) or 'pass'"
        )

    def position(self, state: np.ndarray) -> str:
        board = "".join("-XO"[int(c)] for c in self.cells(state).ravel())
        return f"{board} {_SIDES[int(state[TO_PLAY])]}"

    def parse_position(self, text: str) -> np.ndarray:
        board, side = self._split_position(text)
        cells = np.array(["-XO".index(ch) for ch in board], dtype=np.int8)
        reason = self._unreachable_reason(cells.reshape(self.size, self.size), side)
        if reason:
            raise InvalidPositionError(f"Othello position {excerpt(text)} is unreachable: {reason}")
        black = sum(1 << s for s in np.flatnonzero(cells == 1).tolist())
        white = sum(1 << s for s in np.flatnonzero(cells == 2).tolist())
        plies = int((cells > 0).sum()) - 4
        state = np.array([side, ONGOING, plies, self.size, black, white], dtype=np.uint64)
        _settle(state)
        return state

    # ------------------------------------------------------------------------ internals
    def _square(self, row: int, col: int) -> int:
        return row * self.size + col

    def _grid(self, bits: np.uint64) -> np.ndarray:
        """A bitboard as a 0/1 uint64 array of shape (size, size)."""
        shifts = np.arange(self.size * self.size, dtype=np.uint64)
        return ((np.uint64(bits) >> shifts) & _ONE).reshape(self.size, self.size)

    def _split_position(self, text: str) -> tuple[str, int]:
        """(board as N*N characters of "-XO", seat to move) from position text, or an error."""
        if not isinstance(text, str):
            raise InvalidPositionError(
                f"Othello position must be text ({self.position_format}), got {excerpt(text)}"
            )
        fields = text.split(";", 1)[0].split()
        squares = self.size * self.size
        if len(fields) != 2:
            problem = "it needs exactly two fields, the board and the side to move"
        elif len(fields[0]) != squares:
            problem = f"the board has {len(fields[0])} characters, not {squares}"
        elif set(fields[0]) - set("XOxo-."):
            odd = "".join(sorted(set(fields[0]) - set("XOxo-.")))
            problem = f"the board has characters other than X, O, - ({odd!r})"
        elif fields[1].upper() not in _SIDES:
            problem = f"the side to move is {fields[1]!r}, not X or O"
        else:
            board = fields[0].upper().replace(".", "-")
            return board, _SIDES.index(fields[1].upper())
        raise InvalidPositionError(
            f"Othello position {excerpt(text)} is malformed: {problem}; expected "
            f"{self.position_format}"
        )

    def _unreachable_reason(self, cells: np.ndarray, side: int) -> str | None:
        """Why a board (int8 (size, size), 0/1/2) with ``side`` to move cannot arise, or None."""
        c = self.size // 2
        if not cells[c - 1 : c + 1, c - 1 : c + 1].all():
            return "a centre square is empty (the four centre squares are occupied from the start)"
        if not _is_connected(cells > 0, (c, c)):
            return "its discs are not 8-connected (every disc is placed next to an existing one)"
        start = self.cells(self.initial_state())
        if (cells > 0).sum() == 4 and (side != 0 or not np.array_equal(cells, start)):
            return "with four discs only the start position with X (black) to move can occur"
        return None


def _is_connected(occupied: np.ndarray, seed: tuple[int, int]) -> bool:
    """Whether the True cells of a bool grid form one 8-connected group containing ``seed``."""
    rows, cols = occupied.shape
    seen = {seed}
    frontier = [seed]
    while frontier:
        r, c = frontier.pop()
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                nb = (r + dr, c + dc)
                if 0 <= nb[0] < rows and 0 <= nb[1] < cols and occupied[nb] and nb not in seen:
                    seen.add(nb)
                    frontier.append(nb)
    return len(seen) == int(occupied.sum())


@strict_keywords("othello_v0.env()")
def env(board_size: int = 8, render_mode: str | None = None,
        illegal_action: str = "terminate") -> BoardGameEnv:
    """Othello as a PettingZoo AEC env (player_0 plays black, "X", and moves first)."""
    return BoardGameEnv(Othello(board_size), render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
