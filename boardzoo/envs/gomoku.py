"""Gomoku (free-style by default): five or more stones in a row wins.

=================  =============================================================
Options            ``board_size=15`` (3..25); ``win_length=5`` (3..board_size);
                   ``exact_five=False``: True makes only a line of exactly ``win_length``
                   win (an overline does not win, and play goes on)
Actions            N*N: ``row * N + col``, row 0 at the top (as OpenSpiel's gomoku numbers
                   them); no pass
Move notation      column letter "A".. skipping "I" (as in Go/GTP), then the row number
                   counted from the bottom: on 15x15 "A15" is the top-left point (action 0),
                   "A1" the bottom-left, "H8" the centre (action 112); case-insensitive
Observation        float32 (N, N, 3): plane 0 the observer's stones, plane 1 the opponent's,
                   plane 2 a one-hot of the last move (all zeros before the first move)
Rewards            +1 / -1 for the first line of ``win_length`` (horizontal, vertical or
                   diagonal) through a stone just played; 0 for a full board without one
Position text      SGF (see :mod:`boardzoo.envs.sgf`): GM[4], SZ equal to ``board_size``,
                   optional AB/AW setup stones, then alternating B/W moves (no passes).
                   Black (player_0) moves first: the setup must have as many black stones
                   as white (Black to play) or one more (White to play); PL, if given, must
                   agree. KM and unknown properties are ignored; ``position()`` writes the
                   setup stones (row-major) and the moves played since.
Version history    v0: first release
=================  =============================================================

Black is player_0 and White player_1, also in positions where White is to play.

State: int16 ``[to_play, outcome, ply, N, win_length, exact_five, setup_stones,
cells[N*N], moves[N*N]]``: cells 0 empty, 1 black, 2 white; ``moves[:ply]`` the actions played
since the setup (the rest zero), so ``position()`` round-trips exactly. A win is found by
scanning the four lines through the stone just played.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, PLY, TO_PLAY, DeclaredKnowledge, Game
from boardzoo.envs.kernels import Kernels
from boardzoo.envs.sgf import SgfRecord, parse_sgf, write_sgf
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import parse_int, require, strict_keywords
from boardzoo.rng import below

__all__ = ["Gomoku", "env", "raw_env"]

SIZE, WIN_LENGTH, EXACT, SETUP = 3, 4, 5, 6
CELLS = 7
MIN_SIZE, MAX_SIZE = 3, 25
COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # no "I", as on Go boards
SGF_GAME = 4
#: the four line directions (row step, column step): horizontal, vertical, both diagonals
DIRECTIONS = np.array([[0, 1], [1, 0], [1, 1], [1, -1]], dtype=np.int64)


# ------------------------------------------------------------------------------ kernels
@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill ``out`` (bool ``[N*N]``) with the empty points; all False once the game is over."""
    count = 0
    playing = state[OUTCOME] == ONGOING
    for cell in range(out.shape[0]):
        legal = playing and state[CELLS + cell] == 0
        out[cell] = legal
        count += legal
    return count


@njit(cache=True)
def _run(state, n, row, col, dr, dc, stone):
    """How many ``stone``s follow (row, col) in direction (dr, dc), (row, col) excluded."""
    count = 0
    r, c = row + dr, col + dc
    while 0 <= r < n and 0 <= c < n and state[CELLS + r * n + c] == stone:
        count += 1
        r += dr
        c += dc
    return count


@njit(cache=True)
def _makes_win(state, cell):
    """Whether the stone on ``cell`` lies in a winning line (exact length if exact_five)."""
    n, length, exact = np.int64(state[SIZE]), state[WIN_LENGTH], state[EXACT]
    row, col = cell // n, cell % n
    stone = state[CELLS + cell]
    for d in range(4):
        dr, dc = DIRECTIONS[d, 0], DIRECTIONS[d, 1]
        ahead = _run(state, n, row, col, dr, dc, stone)
        run = 1 + ahead + _run(state, n, row, col, -dr, -dc, stone)
        if run == length or (run > length and exact == 0):
            return True
    return False


@njit(cache=True)
def apply_kernel(state, action):
    """Play ``action`` for the side to move, in place; a win is looked for only on the four
    lines through it, and a full board without one is a draw."""
    seat = state[TO_PLAY]
    n2 = np.int64(state[SIZE]) * np.int64(state[SIZE])
    state[CELLS + action] = seat + 1
    state[CELLS + n2 + state[PLY]] = action
    state[PLY] += 1
    state[TO_PLAY] = 1 - seat
    if _makes_win(state, action):
        state[OUTCOME] = seat + 1
    elif state[SETUP] + state[PLY] == n2:
        state[OUTCOME] = DRAW


@njit(cache=True)
def playout_kernel(state, rng):
    """Uniformly random moves to the end, in place; returns the outcome code.

    Keeps a list of the empty points (swap-remove), so each random move is O(1).
    """
    n2 = np.int64(state[SIZE]) * np.int64(state[SIZE])
    empties = np.empty(n2, dtype=np.int64)
    count = 0
    for cell in range(n2):
        if state[CELLS + cell] == 0:
            empties[count] = cell
            count += 1
    while state[OUTCOME] == ONGOING:
        k = below(rng, count)
        action = empties[k]
        count -= 1
        empties[k] = empties[count]
        apply_kernel(state, action)
    return state[OUTCOME]


@njit(cache=True)
def playout_trace_kernel(state, rng, trace):
    """Playout in place (as ``playout_kernel``) that writes the actions played into
    ``trace`` as far as it fits; returns the number of plies played."""
    start = np.int64(state[PLY])
    playout_kernel(state, rng)
    return moves_since(state, start, trace)


@njit(cache=True)
def moves_since(state, start, trace):
    """Write the actions played since ply ``start`` into ``trace`` as far as it fits;
    returns the number of plies played since then."""
    plies = np.int64(state[PLY]) - start
    moves = CELLS + np.int64(state[SIZE]) * np.int64(state[SIZE]) + start
    for j in range(min(plies, trace.shape[0])):
        trace[j] = state[moves + j]
    return plies


@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (N, N, 3) from ``seat``'s view: own stones, the opponent's, and
    the last move."""
    n = state[SIZE]
    out[:] = 0.0
    for a in range(n * n):
        stone = state[CELLS + a]
        if stone != 0:
            out[a // n, a % n, 0 if stone == seat + 1 else 1] = 1.0
    if state[PLY] > 0:
        last = state[CELLS + n * n + state[PLY] - 1]
        out[last // n, last % n, 2] = 1.0


# ---------------------------------------------------------------------------- the game
class Gomoku(Game):
    """Gomoku rules (see the module docstring).

    >>> game = Gomoku()
    >>> game.action_to_str(112), game.str_to_action("a15"), game.str_to_action("p1")
    ('H8', 0, 224)
    """

    name = "gomoku"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.gomoku:KNOWLEDGE")
    symmetry = "dihedral"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      playout_trace=playout_trace_kernel, observe=observe_kernel)
    pieces_on_intersections = True
    position_format = (
        "SGF with GM[4] and SZ[board_size]: optional AB/AW setup stones (as many black as "
        "white, or one more black), then alternating B/W moves, no passes; points are "
        'two letters, column then row, "aa" the top-left, e.g. "(;GM[4]FF[4]SZ[15];B[hh];W[ih])"'
    )

    def __init__(self, board_size: int = 15, win_length: int = 5, exact_five: bool = False):
        require(
            _is_int(board_size) and MIN_SIZE <= board_size <= MAX_SIZE,
            f"board_size must be an integer in {MIN_SIZE}..{MAX_SIZE}, got {board_size!r}",
        )
        require(
            _is_int(win_length) and 3 <= win_length <= board_size,
            f"win_length must be an integer in 3..board_size ({board_size}), got {win_length!r}",
        )
        require(
            isinstance(exact_five, (bool, np.bool_)),
            f"exact_five must be True or False, got {exact_five!r}",
        )
        n = int(board_size)
        super().__init__(
            num_actions=n * n,
            planes_shape=(n, n, 3),
            board_size=n,
            win_length=int(win_length),
            exact_five=bool(exact_five),
        )
        self.size = n

    # -------------------------------------------------------------------- state and view
    def initial_state(self) -> np.ndarray:
        state = np.zeros(CELLS + 2 * self.num_actions, dtype=np.int16)
        state[SIZE] = self.size
        state[WIN_LENGTH] = self.options["win_length"]
        state[EXACT] = self.options["exact_five"]
        return state

    def cells(self, state: np.ndarray) -> np.ndarray:
        return state[CELLS : CELLS + self.num_actions].reshape(self.size, self.size).astype(np.int8)

    def moves(self, state: np.ndarray) -> np.ndarray:
        """The actions played since the setup (shape ``[ply]``), in order."""
        start = CELLS + self.num_actions
        return state[start : start + int(state[PLY])].astype(np.int64)

    # ---------------------------------------------------------------------- move notation
    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        return [str(self.size - r) for r in range(self.size)], list(COLUMNS[: self.size])

    def action_to_str(self, action: int) -> str:
        row, col = divmod(int(action), self.size)
        return f"{COLUMNS[col]}{self.size - row}"

    def str_to_action(self, text: str) -> int:
        move = text.strip().upper() if isinstance(text, str) else ""
        columns = COLUMNS[: self.size]
        digits = move[1:]
        row = parse_int(digits, max_digits=2) if digits == digits.strip() else None
        if move[:1] and move[0] in columns and row is not None and 1 <= row <= self.size:
            return (self.size - row) * self.size + columns.index(move[0])
        raise IllegalActionError(
            f"{excerpt(text)} is not a move on the {self.size}x{self.size} gomoku board; use a "
            f"column letter {columns[0]}..{columns[-1]} (no I) and a row 1..{self.size} counted "
            f'from the bottom, e.g. "{self.action_to_str(self.num_actions // 2)}"'
        )

    # ---------------------------------------------------------------------- position text
    def position(self, state: np.ndarray) -> str:
        moves = self.moves(state)
        setup = self.cells(state).reshape(-1).copy()
        setup[moves] = 0
        first = (int(state[TO_PLAY]) + len(moves)) % 2  # seat that played the first move
        record = SgfRecord(
            size=self.size,
            komi=None,
            black_setup=tuple(self._point(a) for a in np.flatnonzero(setup == 1)),
            white_setup=tuple(self._point(a) for a in np.flatnonzero(setup == 2)),
            moves=tuple(("BW"[(first + i) % 2], self._point(a)) for i, a in enumerate(moves)),
            to_play=None,
        )
        return write_sgf(record, SGF_GAME)

    def parse_position(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise InvalidPositionError(f"a gomoku position is text: {self.position_format}")
        record = parse_sgf(text, game=SGF_GAME)
        if record.size != self.size:
            raise InvalidPositionError(
                f"SGF board size SZ[{record.size}] (19 when SZ is absent) does not match this "
                f"game's board_size={self.size}"
            )
        state = self._setup_state(record)
        for number, (colour, point) in enumerate(record.moves, start=1):
            self.kernels.apply(state, self._checked_move(state, number, colour, point))
        return state

    def _point(self, action: int | np.integer) -> tuple[int, int]:
        return divmod(int(action), self.size)

    def _setup_state(self, record: SgfRecord) -> np.ndarray:
        """The state after the setup stones, with the side to move and any result."""
        state = self.initial_state()
        for stone, points in ((1, record.black_setup), (2, record.white_setup)):
            for row, col in points:
                if state[CELLS + row * self.size + col]:
                    raise InvalidPositionError(
                        f"SGF setup puts two stones on {self.action_to_str(row * self.size + col)}"
                    )
                state[CELLS + row * self.size + col] = stone
        blacks, whites = len(record.black_setup), len(record.white_setup)
        if blacks - whites not in (0, 1):
            raise InvalidPositionError(
                "SGF setup is unreachable: Black moves first, so it needs as many black stones "
                f"as white or one more (black {blacks}, white {whites})"
            )
        state[TO_PLAY] = blacks - whites
        state[SETUP] = blacks + whites
        if record.to_play is not None and record.to_play != "BW"[state[TO_PLAY]]:
            raise InvalidPositionError(
                f"SGF PL[{record.to_play}] disagrees with the setup stones (black {blacks}, "
                f"white {whites}): {'Black' if blacks == whites else 'White'} is to play"
            )
        state[OUTCOME] = self._setup_outcome(state)
        return state

    def _setup_outcome(self, state: np.ndarray) -> int:
        """The result of a setup position, checking that a last move could have made it."""
        cells = state[CELLS : CELLS + self.num_actions]
        winners = _winners(state)
        if not winners:
            return DRAW if cells.all() else ONGOING
        mover = 2 - int(state[TO_PLAY])  # the stone colour that moved last
        if winners != {mover}:
            why = "both sides have" if len(winners) == 2 else "the side to play already has"
            raise InvalidPositionError(f"SGF setup is unreachable: {why} a winning line")
        for cell in np.flatnonzero(cells == mover):
            cells[cell] = 0
            before = _winners(state)
            cells[cell] = mover
            if not before:
                return mover
        raise InvalidPositionError(
            "SGF setup is unreachable: no single last move made its winning lines"
        )

    def _checked_move(self, state: np.ndarray, number: int, colour: str, point) -> int:
        """The action of SGF move ``number``; InvalidPositionError unless it can be played in
        ``state``."""
        where = f"SGF move {number} ({colour})"
        if state[OUTCOME] != ONGOING:
            raise InvalidPositionError(f"{where} is played after the game ended")
        if point is None:
            raise InvalidPositionError(f"{where} is a pass; gomoku has no passes")
        if colour != "BW"[state[TO_PLAY]]:
            raise InvalidPositionError(
                f"{where} is out of turn: moves alternate and {'BW'[state[TO_PLAY]]} is to play"
            )
        action = point[0] * self.size + point[1]
        if state[CELLS + action]:
            raise InvalidPositionError(
                f"{where} at {self.action_to_str(action)} is on an occupied point"
            )
        return action


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _winners(state: np.ndarray) -> set[int]:
    """The stone colours (1 black, 2 white) that have a winning line anywhere on the board."""
    n2 = int(state[SIZE]) ** 2
    return {
        int(state[CELLS + cell])
        for cell in range(n2)
        if state[CELLS + cell] and _makes_win(state, cell)
    }


@strict_keywords("gomoku_v0.env()")
def env(
    board_size: int = 15,
    win_length: int = 5,
    exact_five: bool = False,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
) -> BoardGameEnv:
    """Gomoku as a PettingZoo AEC env (player_0 plays Black and moves first)."""
    return BoardGameEnv(
        Gomoku(board_size, win_length, exact_five),
        render_mode=render_mode,
        illegal_action=illegal_action,
    )


raw_env = env
