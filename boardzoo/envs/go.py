"""Go with real rules: captures, ko or superko, optional suicide, area (Tromp-Taylor) scoring.

=================  =============================================================
Actions            N*N + 1: point = row * N + col with row 0 at the top (GTP's row N),
                   N*N = pass (as PettingZoo's go_v5). Pass is always legal.
Move notation      GTP vertices: column letter A..T without I, then the row counted from
                   the bottom, e.g. "D4" on 9x9 is row 5, col 3; "pass". Case-insensitive.
Players            player_0 is Black ("X") and moves first; player_1 is White ("O").
Observation        float32 (N, N, 10) from the observer's view:
                   0 observer's stones, 1 opponent's stones, 2 empty points,
                   3 the point of the last move, 4 the point of the move before it
                   (all zeros for a pass or no move), 5 observer's stones in atari,
                   6 opponent's stones in atari (chains with exactly one liberty),
                   7 empty points the side to move may not play (ko, superko, suicide;
                   zeros once the game is over), 8 ones if the observer is to move,
                   9 ones if the last move was a pass
Rewards            +1 / -1 by area score at the end, 0 for a draw (integer komi only)
Ending             two consecutive passes, or ``max_moves`` plies (passes count); either way
                   the game is scored, never truncated
Scoring            area (Tromp-Taylor): a player's stones plus the empty regions that touch
                   only that player's stones; komi is added to White. No dead-stone removal:
                   agents (or a GTP engine) must capture dead stones before passing.
Options            ``board_size=9`` (2..19), ``komi=7.5`` (a multiple of 0.5),
                   ``ko="positional"``: "positional" (no move may recreate an earlier
                   whole-board position, the starting one included), "situational" (the
                   position with the same side to move), "simple" (only the immediate
                   recapture of a single stone that just captured a single stone is
                   illegal), "none"; a ko-illegal move is just illegal, it never ends the game.
                   ``suicide=False``: True allows single- and multi-stone suicide (the
                   stones are removed and count as captured by the opponent, as GNU Go's
                   ``--allow-all-suicide``). ``max_moves=None`` (3*N*N; at most 100,000).
Position text      SGF (FF[4], GM[1]): SZ (must equal board_size), KM (must equal komi if
                   present), AB/AW setup stones, PL (side to move at the setup), then B/W
                   moves; ``B[]`` or ``B[tt]`` is a pass. Moves need not alternate (each is
                   played by its own colour) and are checked under this env's rules, so the
                   superko history is rebuilt exactly. ``position()`` writes such a record.
Playout policy     uniformly random among the legal moves that do not fill one of the
                   mover's own eyes; a player with no such move passes. An *eye* of colour c
                   is an empty point whose orthogonal neighbours on the board are all c's
                   stones and whose diagonal neighbours hold no opponent stone when the point
                   is on the edge or in a corner, at most one otherwise.
Version history    v0: first release
=================  =============================================================

State: int64, one self-contained array; its layout and the board kernels are in
:mod:`boardzoo.envs.go_board`.

Module-level compiled helpers for search: :func:`area_score`, :func:`ownership_kernel`,
:func:`playout_score_kernel` (score from Black's view).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import ONGOING, OUTCOME, PLY, TO_PLAY, DeclaredKnowledge, Game
from boardzoo.envs.go_board import (
    BLACK,
    BORDER,
    COLUMNS,
    EMPTY,
    EMPTY_BOARD_KEY,
    GRID,
    GRID_ROWS,
    HASH,
    KO_RULE,
    KO_RULES,
    KOMI2,
    LIBS,
    MAX_MOVES,
    MAX_MOVES_LIMIT,
    MAX_SIZE,
    NUM_PLANES,
    POSITIONAL,
    ROOT,
    SIZE,
    START_TO_PLAY,
    STONE,
    SUICIDE,
    TABLE_SIZE,
    WHITE,
    ZOBRIST,
    add_stone,
    apply_move,
    area_score,
    captures,
    empty_points,
    grid,
    history_start,
    in_atari,
    is_legal,
    moves_since,
    num_slots,
    ownership_kernel,
    play_point,
    position_key,
    random_move,
    remember,
    setup_start,
    to_point,
)
from boardzoo.envs.kernels import Kernels
from boardzoo.envs.sgf import SgfRecord, parse_sgf, write_sgf
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import parse_int, require, strict_keywords

__all__ = [
    "Go",
    "KO_RULES",
    "area_score",
    "ownership_kernel",
    "playout_score_kernel",
    "captures",
    "env",
    "raw_env",
]

#: the largest komi, either sign: far beyond any board's area (361 points), small enough
#: for the state's integer slot
MAX_KOMI = 1000

# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill bool ``out`` (shape ``[N*N + 1]``) with the side to move's legal actions."""
    n = state[SIZE]
    if state[OUTCOME] != ONGOING:
        out[:] = False
        return 0
    g = grid(state)
    colour = state[TO_PLAY] + 1
    count = 1
    for a in range(n * n):
        legal = is_legal(state, g, to_point(state, a), colour)
        out[a] = legal
        count += legal
    out[n * n] = True
    return count


@njit(cache=True)
def apply_kernel(state, action):
    """Play legal ``action`` in place (a pass is N*N)."""
    apply_move(state, action, np.empty(0, dtype=np.int64))


@njit(cache=True)
def _playout(state, rng):
    """Play the eye-respecting random policy in place to the end of the game."""
    n = state[SIZE]
    w = n + 1
    g = grid(state)
    empties, where, size = empty_points(state, g)
    removed = np.empty(n * n, dtype=np.int64)
    while state[OUTCOME] == ONGOING:
        point = random_move(state, g, w, state[TO_PLAY] + 1, rng, empties, where, size)
        size = play_point(state, g, point, empties, where, size, removed)


@njit(cache=True)
def playout_kernel(state, rng):
    """Eye-respecting random playout to the end, in place; returns the outcome code."""
    _playout(state, rng)
    return state[OUTCOME]


@njit(cache=True)
def playout_trace_kernel(state, rng, trace):
    """Playout in place (as ``playout_kernel``) that writes the actions played (passes
    included) into ``trace`` as far as it fits; returns the number of plies played."""
    start = state[PLY]
    _playout(state, rng)
    return moves_since(state, start, trace)


@njit(cache=True)
def playout_score_kernel(state, rng):
    """Playout in place (as ``playout_kernel``); returns the final area score from Black's
    view, komi included."""
    _playout(state, rng)
    return area_score(state)


@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (N, N, 10) with the planes of the spec sheet from ``seat``'s view."""
    n = state[SIZE]
    g = grid(state)
    out[:] = 0.0
    own, mover = seat + 1, state[TO_PLAY] + 1
    playing = state[OUTCOME] == ONGOING
    for a in range(n * n):
        r, c, p = a // n, a % n, to_point(state, a)
        s = g[STONE, p]
        if s == EMPTY:
            out[r, c, 2] = 1.0
            out[r, c, 7] = playing and not is_legal(state, g, p, mover)
        else:
            plane = 0 if s == own else 1
            out[r, c, plane] = 1.0
            out[r, c, plane + 5] = in_atari(g, g[ROOT, p])
    history = history_start(state)
    for back in range(2):
        if state[PLY] > back:
            action = state[history + state[PLY] - 1 - back] // 2
            if action < n * n:
                out[action // n, action % n, 3 + back] = 1.0
            elif back == 0:
                out[:, :, 9] = 1.0
    if state[TO_PLAY] == seat:
        out[:, :, 8] = 1.0


@njit(cache=True)
def _start(state):
    """Place the setup stones of a fresh state, hash them and remember the starting
    position. Returns False if a setup chain has no liberty."""
    n = state[SIZE]
    g = grid(state)
    w = n + 1
    setup = setup_start(state)
    for a in range(n * n):
        colour = state[setup + a]
        if colour != EMPTY:
            p = to_point(state, a)
            add_stone(g, w, p, colour)
            state[HASH] ^= ZOBRIST[colour, p]
    for a in range(n * n):
        p = to_point(state, a)
        if g[STONE, p] != EMPTY and g[LIBS, g[ROOT, p]] == 0:
            return False
    if state[KO_RULE] >= POSITIONAL:
        remember(state, position_key(state, state[HASH], state[TO_PLAY]))
    return True


# -------------------------------------------------------------------------------- game
class Go(Game):
    """Go rules (see the module docstring)."""

    name = "go"
    knowledge = DeclaredKnowledge("boardzoo.knowledge.go:KNOWLEDGE")
    symmetry = "dihedral"
    kernels = Kernels(legal_mask=legal_mask_kernel, apply=apply_kernel, playout=playout_kernel,
                      playout_trace=playout_trace_kernel, observe=observe_kernel)
    pieces_on_intersections = True
    seat_names = ("Black", "White")
    pass_action: int  #: N*N, set with the board's size
    position_format = (
        "SGF text, e.g. (;GM[1]FF[4]SZ[9]KM[7.5]AB[cc]AW[gg]PL[B];B[ee];W[]): SZ, KM, "
        "AB/AW setup stones, PL side to move at the setup, B/W moves ('' or tt = pass)"
    )

    def __init__(
        self,
        board_size: int = 9,
        komi: float = 7.5,
        ko: str = "positional",
        suicide: bool = False,
        max_moves: int | None = None,
    ) -> None:
        _check_options(board_size, komi, ko, suicide, max_moves)
        n = int(board_size)
        self.size = n
        self.komi = float(komi)
        self.ko = ko
        self.suicide = bool(suicide)
        self.max_moves = 3 * n * n if max_moves is None else int(max_moves)
        self.pass_action = n * n
        super().__init__(
            num_actions=n * n + 1,
            planes_shape=(n, n, NUM_PLANES),
            board_size=n,
            komi=self.komi,
            ko=ko,
            suicide=self.suicide,
            max_moves=self.max_moves,  # None stands for its default: one key for both
        )
        self._empty = self._blank_state()
        _start(self._empty)

    def _blank_state(self, to_play: int = 0) -> np.ndarray:
        """A state with the header and an empty board, before ``_start``."""
        n, entries = self.size, self.max_moves + 1
        table = 0 if self.ko in ("none", "simple") else 1 << max(2, (entries * 4 // 3).bit_length())
        slots = num_slots(n)
        state = np.zeros(GRID + GRID_ROWS * slots + n * n + self.max_moves + table, np.int64)
        state[TO_PLAY] = state[START_TO_PLAY] = to_play
        state[SIZE], state[KOMI2] = n, round(2 * self.komi)
        state[KO_RULE], state[SUICIDE] = KO_RULES.index(self.ko), self.suicide
        state[MAX_MOVES], state[TABLE_SIZE], state[HASH] = self.max_moves, table, EMPTY_BOARD_KEY
        grid = state[GRID : GRID + GRID_ROWS * slots].reshape(GRID_ROWS, slots)
        grid[STONE] = BORDER
        for a in range(n * n):
            grid[STONE, (a // n + 1) * (n + 1) + a % n + 1] = EMPTY
        return state

    def board_position(self, cells: np.ndarray, to_play: int) -> np.ndarray:
        """A fresh game whose setup stones are ``cells`` (``[N*N]`` in action order: 0 empty,
        1 Black, 2 White) with ``to_play`` (0 Black, 1 White) to move: a board without its
        history (the playouts that score a finished game start from one).
        InvalidPositionError if some chain has no liberty."""
        state = self._blank_state(int(to_play))
        state[setup_start(state) : setup_start(state) + self.size**2] = cells
        if not _start(state):
            raise InvalidPositionError("the board is not a Go position: a chain has no liberty")
        return state

    # ------------------------------------------------------------------- game hooks
    def initial_state(self) -> np.ndarray:
        return self._empty.copy()

    def cells(self, state: np.ndarray) -> np.ndarray:
        n = self.size
        stones = grid(state)[STONE, : (n + 2) * (n + 1)].reshape(n + 2, n + 1)
        return stones[1 : n + 1, 1:].astype(np.int8)

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        n = self.size
        return [str(n - r) for r in range(n)], list(COLUMNS[:n])

    def action_to_str(self, action: int) -> str:
        n = self.size
        if action == n * n:
            return "pass"
        return f"{COLUMNS[action % n]}{n - action // n}"

    def str_to_action(self, text: str) -> int:
        move = str(text).strip().upper()
        n = self.size
        if move == "PASS":
            return n * n
        column, row = move[:1], move[1:]
        number = parse_int(row, max_digits=2) if row == row.strip() else None
        if column and column in COLUMNS[:n] and number is not None and 1 <= number <= n:
            return (n - number) * n + COLUMNS.index(column)
        raise IllegalActionError(
            f"{excerpt(text)} is not a move on the {n}x{n} board: use a GTP vertex, column "
            f"{COLUMNS[0]}..{COLUMNS[n - 1]} (no I) then row 1..{n} from the bottom "
            f'(e.g. "{COLUMNS[min(2, n - 1)]}{min(3, n)}"), or "pass"'
        )

    # --------------------------------------------------------------------- scoring
    def score(self, state: np.ndarray) -> float:
        """Area score from Black's (player_0's) view, komi included."""
        return float(area_score(state))

    def captures(self, state: np.ndarray) -> tuple[int, int]:
        """Stones captured so far by Black and by White."""
        return captures(state)

    def recent_boards(self, state: np.ndarray, count: int) -> list[tuple[np.ndarray, int]]:
        """The boards (as :meth:`cells`) after each of the last ``count`` moves of ``state``,
        oldest first, with the colour that played each (1 Black, 2 White): replayed from the
        state's own setup and move record, so a restored state has its history too."""
        n = self.size
        replay = self._blank_state(int(state[START_TO_PLAY]))
        first = setup_start(state)
        replay[first : first + n * n] = state[first : first + n * n]
        _start(replay)
        record = state[history_start(state) : history_start(state) + int(state[PLY])]
        boards = []
        for ply, entry in enumerate(record.tolist()):
            replay[TO_PLAY] = entry % 2  # moves of a record need not alternate
            self.kernels.apply(replay, entry // 2)
            if ply >= len(record) - count:
                boards.append((self.cells(replay), entry % 2 + 1))
        return boards

    # -------------------------------------------------------------------- positions
    def position(self, state: np.ndarray) -> str:
        n = self.size
        setup = state[setup_start(state) : setup_start(state) + n * n]
        history = state[history_start(state) : history_start(state) + int(state[PLY])]
        moves = tuple(("BW"[int(entry) % 2], self._point(int(entry) // 2)) for entry in history)
        start = int(state[START_TO_PLAY])
        implied = 0 if not moves else "BW".index(moves[0][0])
        record = SgfRecord(
            size=n,
            komi=self.komi,
            black_setup=tuple(divmod(int(a), n) for a in np.flatnonzero(setup == BLACK)),
            white_setup=tuple(divmod(int(a), n) for a in np.flatnonzero(setup == WHITE)),
            moves=moves,
            to_play=None if start == implied else "BW"[start],
        )
        return write_sgf(record, game=1)

    def parse_position(self, text: str) -> np.ndarray:
        record = parse_sgf(text, game=1)
        self._check_record(record)
        start = record.to_play or (record.moves[0][0] if record.moves else "B")
        state = self._blank_state("BW".index(start))
        setup = state[setup_start(state) : setup_start(state) + self.size**2]
        for stone, points in ((BLACK, record.black_setup), (WHITE, record.white_setup)):
            for row, col in points:
                if setup[row * self.size + col] not in (EMPTY, stone):
                    raise InvalidPositionError(
                        f"SGF sets up both a black and a white stone on {self._vertex(row, col)}"
                    )
                setup[row * self.size + col] = stone
        if not _start(state):
            raise InvalidPositionError(
                "SGF setup is not a legal Go position: some chain of AB/AW stones has no liberty"
            )
        for number, (colour, point) in enumerate(record.moves, start=1):
            self._replay_move(state, number, colour, point)
        return state

    def _check_record(self, record: SgfRecord) -> None:
        if record.size != self.size:
            raise InvalidPositionError(
                f"SGF board SZ[{record.size}] does not match this env's board_size="
                f"{self.size}; create the env with go_v0.env(board_size={record.size})"
            )
        if record.komi is not None and record.komi != self.komi:
            raise InvalidPositionError(
                f"SGF komi KM[{record.komi:g}] does not match this env's komi={self.komi:g}; "
                f"create the env with go_v0.env(komi={record.komi:g}) or drop KM"
            )

    def _replay_move(self, state: np.ndarray, number: int, colour: str, point) -> None:
        """Play SGF move ``number`` for ``colour`` after checking it under this env's rules."""
        action = self.size**2 if point is None else point[0] * self.size + point[1]
        where = f"SGF move {number} ({colour}[{self.action_to_str(action)}])"
        if state[OUTCOME] != ONGOING:
            raise InvalidPositionError(f"{where} comes after the end of the game")
        state[TO_PLAY] = "BW".index(colour)
        if not self.legal_mask(state)[action]:
            raise InvalidPositionError(
                f"{where} is illegal under this env's rules (ko={self.ko!r}, "
                f"suicide={self.suicide}): the point is occupied, or it is suicide or a "
                "ko/superko repetition"
            )
        self.kernels.apply(state, action)

    def _point(self, action: int | np.integer) -> tuple[int, int] | None:
        n = self.size
        return None if action == n * n else (int(action) // n, int(action) % n)

    def _vertex(self, row: int, col: int) -> str:
        return self.action_to_str(row * self.size + col)


def _check_options(board_size, komi, ko, suicide, max_moves) -> None:
    """Validate Go's options (InvalidOptionError naming the option and what is allowed)."""
    require(
        isinstance(board_size, (int, np.integer))
        and not isinstance(board_size, bool)
        and 2 <= board_size <= MAX_SIZE,
        f"board_size={board_size!r} is not allowed: use an integer 2..{MAX_SIZE}",
    )
    require(
        isinstance(komi, Real)
        and not isinstance(komi, bool)
        and math.isfinite(komi)
        and abs(float(komi)) <= MAX_KOMI
        and float(komi) * 2 == round(float(komi) * 2),
        f"komi={excerpt(komi)} is not allowed: use a multiple of 0.5 in -{MAX_KOMI}..{MAX_KOMI} "
        "such as 7.5 or 6 (an integer komi makes draws possible)",
    )
    require(ko in KO_RULES, f"ko={ko!r} is not allowed: use one of {KO_RULES}")
    require(
        isinstance(suicide, (bool, np.bool_)),
        f"suicide={suicide!r} is not allowed: use True or False",
    )
    require(
        max_moves is None
        or (
            isinstance(max_moves, (int, np.integer))
            and not isinstance(max_moves, bool)
            and 1 <= max_moves <= MAX_MOVES_LIMIT
        ),
        f"max_moves={max_moves!r} is not allowed: use None (3 * board_size**2) or an integer "
        f"1..{MAX_MOVES_LIMIT}",
    )


@strict_keywords("go_v0.env()")
def env(
    board_size: int = 9,
    komi: float = 7.5,
    ko: str = "positional",
    suicide: bool = False,
    max_moves: int | None = None,
    render_mode: str | None = None,
    illegal_action: str = "terminate",
) -> BoardGameEnv:
    """Go as a PettingZoo AEC env (player_0 is Black and moves first)."""
    game = Go(board_size=board_size, komi=komi, ko=ko, suicide=suicide, max_moves=max_moves)
    return BoardGameEnv(game, render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
