"""Go knowledge: position keys, an area-estimate evaluation and a capture/atari-aware
playout policy (the knowledge-module contract of :mod:`boardzoo.knowledge`).

Everything reuses the compiled board of :mod:`boardzoo.envs.go_board` (chains with
pseudo-liberties, the Zobrist hash, the eye test, the legality test and Tromp-Taylor
ownership).

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

Playout policy (:func:`pattern_playout_kernel`, with the ladder check below the default
:func:`ladder_playout_kernel`; without step 3: :func:`heuristic_playout_kernel`)
    At every move, with this priority (as in MoGo's and Fuego's simple playout policies):

    1. capture: a legal move on the last liberty of the chain the opponent just played to,
       or of an opponent chain in atari next to one of our chains the last move put in
       atari (uniformly among these);
    2. save: extend one of our chains in atari next to the last move on its liberty, if the
       extended chain then has at least two liberties;
    3. patterns: a move on an empty neighbour of the last move that matches one of MoGo's
       3x3 patterns (:data:`PATTERNS_3X3`: hane, cuts, edge moves; any rotation, reflection
       and colour; a 65536-entry table of neighbourhood codes), not a big self-atari
       (uniformly among these);
    4. otherwise the game's own eye-respecting uniformly random move (pass when none),
       redrawn up to :data:`SELF_ATARI_TRIES` times while it would leave a chain of two or
       more stones in atari (a big self-atari, as Fuego's playouts avoid; a lone stone may
       still throw in).

    Measured against the plain playout (MCTS, 1000 simulations each, 7x7, komi 9, 100
    games): 0.77 [0.68, 0.84] with step 4's self-atari filter, 0.55 [0.40, 0.69] (40 games)
    without it (both before step 3 existed). Step 3 costs 13% of the playout rate on 9x9,
    29% on 13x13 and 36% on 19x19, and pays for it at equal time: 0.75 [0.55, 0.88] over 24
    games against the same playouts without it (9x9, 0.3 s a move;
    ``python -m benchmarks.go_strength feature patterns``; docs/agents.md), so the default
    playout is :func:`pattern_playout_kernel` with the ladder check below
    (:func:`ladder_playout_kernel`); :func:`heuristic_playout_kernel` is steps 1, 2 and 4
    only. The optional steps below are each measured on top of the default playout of their
    day; their kernels now add them to the ladder playout.

    An optional low-liberty step between 2 and 3 (:func:`low_liberty_playout_kernel`, as
    Fuego's playouts): when the last move's chain has exactly two liberties, atari it from a
    liberty where our stone keeps two; for one of our chains next to the last move with two
    liberties, capture an opponent chain in atari touching it or extend to three liberties.
    It costs about a quarter of the playout rate on 9x9 (a fifth on 13x13) and has not paid
    for that at equal time (0.475 [0.37, 0.58] over 80 games against the default playouts,
    9x9, 0.3 s a move; docs/agents.md), so it is not a default.

    Ladders (:func:`ladder_escape_fails`, :func:`ladder_atari_captures`): a chain in atari
    whose extension leaves it two liberties is read out as a ladder (each atari answered by
    the extension or by capturing an attacker in atari; three liberties escape, at most
    :data:`LADDER_BUDGET` ataris read per question, on a copy of the grid, ignoring ko). The
    ladder playouts (:func:`ladder_playout_kernel`) skip extensions into a working ladder in
    steps 2 and 3, and the ladder priors (:func:`ladder_prior_kernel`) turn the saving bonus
    of such an extension into a penalty and favour an atari that starts a working ladder.
    Both are the defaults since 2026-12-04: against GNU Go level 10 (9x9, 1 s a move) they
    lifted the default agent from 0.74 to 0.88 on the same 50 openings and from 0.67 to 0.74
    on 100 others (33 games won only with them, 19 only without; sign test p = 0.07), and
    scored 0.86 [0.78, 0.91] over 100 games; in self-play, where neither side reads ladders,
    0.50 [0.35, 0.65] over 40 games against the same agent without them (docs/agents.md).

    Last good reply with forgetting (:func:`reply_playout_trace_kernel`, Baier & Drake 2010):
    after the tactical step, the reply that won the last playout that met the same one or
    two previous moves; each playout's winner stores its moves as replies, the loser forgets
    its stored replies that it played. The tables live in the search's trace buffer (see
    :data:`REPLY_OFFSET`), so they last one search. Not a default: 0.475 [0.33, 0.63] over 40
    games against the default at x0.89 the simulations (9x9, 0.5 s a move), and against GNU
    Go level 10 0.83 over 52 games where the default scored 0.87 on the same openings (9x9,
    1 s a move; docs/agents.md).

    Nakade (:func:`nakade_playout_kernel`, as in Pachi's playouts): after the tactical
    step, the vital point of an empty region of 3 to :data:`NAKADE_MAX` points next to the
    last move, bordered by one colour only (the one point with the most neighbours in the
    region: the middle of a straight three, the centre of a pyramid four, bulky five or
    rabbity six). Not a default: 0.475 [0.33, 0.63] over 40 games against the default at
    about 0.7x the playout rate (9x9, 0.5 s a move; docs/agents.md).

    Two-liberty priors (:func:`liberty_prior_kernel`, optional): the ladder priors plus a
    bonus for an atari on an opponent chain of two liberties that keeps two of its own, and
    for a move that gives an own two-liberty chain three. Not a default: against GNU Go level
    10 0.80 over 44 games where the default scored 0.91 on the same openings (9x9, 1 s a
    move; docs/agents.md).

    Score-shaded playout values (:func:`score_playout_value`, optional, Fuego's score
    modification): a playout is worth its result shaded by 2% of its area margin, so the
    search prefers the bigger of two equally sure wins. Not a default: against GNU Go level
    10 0.82 over 44 games where the default scored 0.91 on the same openings (9x9, 1 s a
    move; docs/agents.md).

    Learned pattern priors (:func:`make_learned_prior_kernel`, optional): the ladder priors
    with the pattern term read from a table of one logit per 3x3 pattern
    (:func:`canonical_codes`: the side to move's view, the 8 symmetries as one) fitted to GNU
    Go's moves (``benchmarks.go_fit_patterns``) instead of PRIOR_PATTERN for MoGo's patterns.
    Not a default: they predict GNU Go's moves better (top move 27% against 18% on held-out
    games) but scored 0.87 over 100 games against GNU Go level 10 where the default scored
    0.86 on the same openings (9x9, 1 s a move; docs/agents.md).

    No move ever fills one of the mover's own eyes (the eye test of :mod:`boardzoo.envs.go_board`)
    and every move is legal under the state's ko/superko/suicide rules; the game ends as the
    plain playout does (two passes, or ``max_moves``). Only chains near the last move are
    examined, so a tactical move costs a few neighbour look-ups.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.envs.go_board import (
    BLACK,
    COUNT,
    EMPTY,
    HASH,
    KO_POINT,
    KO_RULE,
    KOMI2,
    LIBS,
    LSUM,
    NEXT,
    NO_KO,
    PASSES,
    ROOT,
    SIZE,
    STONE,
    WHITE,
    WHITE_TO_MOVE_KEY,
    area_score,
    empty_points,
    fill_ownership,
    grid,
    history_start,
    in_atari,
    is_eye,
    is_legal,
    moves_since,
    num_slots,
    ownership_kernel,
    place_stone,
    play_point,
    random_move,
    to_point,
    zobrist_keys,
)
from boardzoo.errors import CheckpointError
from boardzoo.knowledge.base import Knowledge, SearchDefaults
from boardzoo.rng import below

__all__ = [
    "KNOWLEDGE",
    "RADIUS",
    "CLAIM",
    "key_kernel",
    "evaluate_kernel",
    "ladder_atari_captures",
    "ladder_escape_fails",
    "ladder_playout_kernel",
    "ladder_playout_trace_kernel",
    "ladder_prior_kernel",
    "exact_value",
    "heuristic_playout_kernel",
    "heuristic_playout_trace_kernel",
    "low_liberty_playout_kernel",
    "low_liberty_playout_trace_kernel",
    "nakade_playout_kernel",
    "nakade_playout_trace_kernel",
    "ownership_estimate_kernel",
    "pattern_playout_kernel",
    "pattern_playout_trace_kernel",
    "PATTERNS_3X3",
    "pattern_table",
    "prior_kernel",
    "score_playout_value",
    "canonical_codes",
    "neighbourhood_code_of",
    "pattern_logits",
    "logits_of_keys",
    "load_pattern_logits",
    "ladder_move_logits",
    "make_learned_prior_kernel",
    "PATTERN_LOGITS",
    "NO_PATTERN_LOGITS",
]

RADIUS = 3
"""A stone's influence on a point at Manhattan distance d is ``RADIUS + 1 - d`` (0 beyond)."""
CLAIM = 3
"""Influence (own minus opponent's) from which a contested empty point counts as area."""
SELF_ATARI_TRIES = 3
"""How many times the random move is redrawn while it is a big self-atari."""
SCALE_PER_POINT = 0.5
"""The evaluation is ``tanh(score / (SCALE_PER_POINT * N * N))``."""
SCORE_WEIGHT = 0.02
"""Share of a playout's value that comes from its final score (Fuego's score modification)."""

_SLOTS = num_slots(19)
_EXTRA_KEYS = zobrist_keys(_SLOTS + 1, seed=20240612)
_KO_KEYS = _EXTRA_KEYS[:_SLOTS]  # one per padded point: the simple-ko ban
_PASS_KEY = _EXTRA_KEYS[_SLOTS]  # the last move was a pass


# ------------------------------------------------------------------------ key and value
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


# --------------------------------------------------------------------------- evaluation
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


# ------------------------------------------------------------------------- 3x3 patterns
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
    variants = [sum(cells[..., perm[k]] << (2 * k) for k in range(8)) for perm in _symmetries()]
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


# ----------------------------------------------------------------------- playout policy
@njit(cache=True, inline="always")
def _point_at(state, ply):
    """Padded point of the move at ``ply`` (0 for a pass or before the game)."""
    if ply < 0:
        return 0
    action = state[history_start(state) + ply] // 2
    n = state[SIZE]
    return 0 if action == n * n else to_point(state, action)


@njit(cache=True, inline="always")
def _last_point(state):
    """Padded point of the last move, or 0 when there is none or it was a pass."""
    return _point_at(state, state[PLY] - 1)


@njit(cache=True, inline="always")
def _liberty(g, root):
    """The only liberty of a chain in atari (its pseudo-liberties all name it)."""
    return g[LSUM, root] // g[LIBS, root]


@njit(cache=True, inline="always")
def _push(candidates, k, p):
    if k < candidates.shape[0]:
        candidates[k] = p
        k += 1
    return k


@njit(cache=True, inline="always")
def _attacker_captures(g, w, root, candidates, k):
    """Append the liberties of the opponent chains in atari that touch the chain ``root``."""
    other = 3 - g[STONE, root]
    s = root
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if g[STONE, q] == other and in_atari(g, g[ROOT, q]):
                k = _push(candidates, k, _liberty(g, g[ROOT, q]))
        s = g[NEXT, s]
        if s == root:
            break
    return k


@njit(cache=True, inline="always")
def _liberties_after(g, w, p, colour, cap=2):
    """Liberties (counted up to ``cap``, at most 3) of ``colour``'s chain after a stone on
    empty ``p``; a move that captures counts as ``cap``."""
    first = second = -1
    for q in (p - 1, p + 1, p - w, p + w):
        s = g[STONE, q]
        if s == 3 - colour and in_atari(g, g[ROOT, q]):
            return cap
        if s == EMPTY:
            first, second, found = _add_liberty(q, first, second, cap)
            if found:
                return cap
        elif s == colour and not in_atari(g, g[ROOT, q]):  # chains in atari add nothing
            root = g[ROOT, q]
            t = root
            while True:
                for u in (t - 1, t + 1, t - w, t + w):
                    if g[STONE, u] == EMPTY and u != p:
                        first, second, found = _add_liberty(u, first, second, cap)
                        if found:
                            return cap
                t = g[NEXT, t]
                if t == root:
                    break
    return (first >= 0) + (second >= 0)


@njit(cache=True, inline="always")
def _add_liberty(q, first, second, cap):
    """Record liberty ``q`` among the distinct ones found so far (first, second); returns
    them and whether ``cap`` distinct liberties are now reached."""
    if q == first or q == second:
        return first, second, False
    if first < 0:
        return q, second, cap <= 1
    if second < 0:
        return first, q, cap <= 2
    return first, second, True


@njit(cache=True)
def _two_liberties(g, w, root, libs):
    """Whether the chain at ``root`` has exactly two liberties (written to ``libs[:2]``).
    Each liberty touches at most 4 of the chain's stones, so more than 8 pseudo-liberties
    mean more than two liberties."""
    if not 2 <= g[LIBS, root] <= 8 or in_atari(g, root):
        return False
    first = second = -1
    t = root
    while True:
        for u in (t - 1, t + 1, t - w, t + w):
            if g[STONE, u] == EMPTY:
                first, second, found = _add_liberty(u, first, second, 3)
                if found:
                    return False
        t = g[NEXT, t]
        if t == root:
            break
    libs[0], libs[1] = first, second
    return True


@njit(cache=True)
def _low_liberty_move(state, g, w, colour, rng, candidates, libs):
    """A two-liberty fight next to the last move (Fuego's low-liberty playout step): atari
    the last move's chain when it has two liberties, from a liberty where our stone keeps
    two; or, for one of our chains next to it with two liberties, capture an opponent chain
    in atari touching it or extend to three liberties. -1 when there is none."""
    last = _last_point(state)
    if last == 0 or g[STONE, last] != 3 - colour:
        return -1
    k = 0
    if _two_liberties(g, w, g[ROOT, last], libs):
        for j in range(2):
            if _liberties_after(g, w, libs[j], colour) >= 2:
                k = _push(candidates, k, libs[j])
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and _two_liberties(g, w, g[ROOT, q], libs):
            k = _attacker_captures(g, w, g[ROOT, q], candidates, k)
            for j in range(2):
                if _liberties_after(g, w, libs[j], colour, 3) >= 3:
                    k = _push(candidates, k, libs[j])
    return _pick_legal(state, g, w, colour, rng, candidates, k)


@njit(cache=True, inline="always")
def _pick_legal(state, g, w, colour, rng, candidates, k):
    """A uniformly random legal candidate among ``candidates[:k]`` that does not fill one of
    ``colour``'s eyes, or -1 (rejected candidates are swapped out)."""
    while k > 0:
        i = below(rng, k)
        p = candidates[i]
        if not is_eye(g, w, p, colour) and is_legal(state, g, p, colour):
            return p
        k -= 1
        candidates[i] = candidates[k]
    return -1


# ---------------------------------------------------------------------------- ladders
LADDER_BUDGET = 100
"""Ataris read per ladder question; a ladder not settled within them counts as escaping."""


@njit(cache=True)
def _touches_atari_of(g, w, root, colour):
    """Whether a ``colour`` chain in atari touches the chain at ``root``."""
    s = root
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
                return True
        s = g[NEXT, s]
        if s == root:
            return False


@njit(cache=True)
def _atari_captures(g, w, root, a, budget, removed, libs):
    """Whether the opponent's atari on ``a``, a liberty of the two-liberty chain at ``root``,
    captures that chain in a ladder: the chain's owner answers by capturing a chain in atari
    next to it (an escape) or by extending on its last liberty; an extension that reaches
    three liberties escapes, one left in atari is captured, and one with two is atari'd
    again from either side. Read on a copy of ``g``; ``budget[0]`` ataris at most, after
    which the ladder counts as escaping (so a "captured" answer is always read out)."""
    if budget[0] <= 0:
        return False
    budget[0] -= 1
    colour = g[STONE, root]
    h = g.copy()
    place_stone(h, w, a, 3 - colour, removed)
    root = h[ROOT, root]
    if h[LIBS, h[ROOT, a]] == 0 or not in_atari(h, root):  # a suicide, or no atari
        return False
    if _touches_atari_of(h, w, root, 3 - colour):
        return False
    liberty = _liberty(h, root)
    after = _liberties_after(h, w, liberty, colour, 3)
    if after != 2:
        return after < 2
    root = place_stone(h, w, liberty, colour, removed)
    _two_liberties(h, w, root, libs)
    first, second = libs[0], libs[1]
    return (_atari_captures(h, w, root, first, budget, removed, libs)
            or _atari_captures(h, w, root, second, budget, removed, libs))


@njit(cache=True)
def ladder_escape_fails(g, w, p, colour):
    """Whether ``colour``'s extension on ``p``, the liberty of its chain in atari, leaves a
    chain of two liberties that the opponent captures in a ladder (:func:`_atari_captures`).
    False when the extension gets three liberties or more, or captures."""
    if _liberties_after(g, w, p, colour, 3) != 2:
        return False
    removed = np.empty(0, dtype=np.int64)
    libs = np.empty(2, dtype=np.int64)
    h = g.copy()
    root = place_stone(h, w, p, colour, removed)
    _two_liberties(h, w, root, libs)
    first, second = libs[0], libs[1]
    budget = np.array([LADDER_BUDGET])
    return (_atari_captures(h, w, root, first, budget, removed, libs)
            or _atari_captures(h, w, root, second, budget, removed, libs))


@njit(cache=True)
def ladder_atari_captures(g, w, p, colour):
    """Whether ``colour``'s stone on ``p`` ataris an opponent chain of two liberties that
    then cannot escape the ladder (:func:`_atari_captures`)."""
    near = False  # an opponent chain next to p that may have two liberties
    for q in (p - 1, p + 1, p - w, p + w):
        root = g[ROOT, q]
        near = near or (g[STONE, q] == 3 - colour and 2 <= g[LIBS, root] <= 8
                        and not in_atari(g, root))
    if not near:
        return False
    removed = np.empty(0, dtype=np.int64)
    libs = np.empty(2, dtype=np.int64)
    budget = np.array([LADDER_BUDGET])
    for q in (p - 1, p + 1, p - w, p + w):
        if g[STONE, q] == 3 - colour and _two_liberties(g, w, g[ROOT, q], libs):
            if _atari_captures(g, w, g[ROOT, q], p, budget, removed, libs):
                return True
    return False


# ----------------------------------------------------------------- last good replies
REPLY_OFFSET = 8192
"""The reply playouts' buffer (the ``trace`` argument): its first REPLY_OFFSET entries
receive the playout's moves (for RAVE), the rest holds the reply tables, which persist from
one playout to the next of a search (the search zeroes the buffer when it starts)."""

_NO_REPLIES = np.zeros(0, dtype=np.int64)


@njit(cache=True)
def _reply_indices(state, ply, colour, slots, tables):
    """Where ``colour``'s stored replies to the two moves before ``ply`` live in the reply
    tables: (LGR-2's index or -1, LGR-1's index or -1). LGR-1: one entry per colour and
    previous point; LGR-2: per colour and pair of previous points, when ``tables`` is long
    enough for it (9x9 within REPLY_OFFSET's buffer, not 13x13 and up)."""
    prev = _point_at(state, ply - 1)
    if prev == 0:
        return -1, -1
    one = (colour - 1) * slots + prev
    prev2 = _point_at(state, ply - 2)
    if prev2 == 0 or tables < 2 * slots * (slots + 1):
        return -1, one
    return 2 * slots + ((colour - 1) * slots + prev2) * slots + prev, one


@njit(cache=True)
def _last_good_reply(state, g, w, colour, replies):
    """The stored reply to the last two moves, else to the last move, when it is legal and
    neither an own-eye fill nor a big self-atari; -1 if none."""
    two, one = _reply_indices(state, state[PLY], colour, g.shape[1], replies.shape[0])
    for index in (two, one):
        if index >= 0:
            p = replies[index]
            if (p > 0 and g[STONE, p] == EMPTY and not is_eye(g, w, p, colour)
                    and is_legal(state, g, p, colour)
                    and not _is_big_self_atari(g, w, p, colour)):
                return p
    return -1


@njit(cache=True)
def _learn_replies(state, start, replies):
    """Last good reply with forgetting (Baier & Drake 2010) over the moves played since
    ``start``: the winner's moves become the stored replies to the moves before them; a
    loser's move that is the stored reply is forgotten. Draws teach nothing."""
    outcome = state[OUTCOME]
    if outcome != P0_WINS and outcome != P1_WINS:
        return
    winner = BLACK if outcome == P0_WINS else WHITE
    history = history_start(state)
    slots = num_slots(state[SIZE])
    for ply in range(start, state[PLY]):
        colour = state[history + ply] % 2 + 1
        move = _point_at(state, ply)
        two, one = _reply_indices(state, ply, colour, slots, replies.shape[0])
        for index in (two, one):
            if index < 0:
                continue
            if colour == winner and move != 0:
                replies[index] = move
            elif colour != winner and replies[index] == move:
                replies[index] = 0


@njit(cache=True, inline="always")
def _tactical_move(state, g, w, colour, rng, candidates, ladders):
    """A capture, else a saving extension, near the last move (see the module docstring;
    with ``ladders``, no extension that a ladder captures); -1 when there is none."""
    last = _last_point(state)
    if last == 0 or g[STONE, last] != 3 - colour:  # no move, a pass, or a suicide
        return -1
    k = 0
    if in_atari(g, g[ROOT, last]):
        k = _push(candidates, k, _liberty(g, g[ROOT, last]))
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
            k = _attacker_captures(g, w, g[ROOT, q], candidates, k)
    p = _pick_legal(state, g, w, colour, rng, candidates, k)
    if p >= 0:
        return p
    k = 0
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
            liberty = _liberty(g, g[ROOT, q])
            if _liberties_after(g, w, liberty, colour) >= 2 and not (
                    ladders and ladder_escape_fails(g, w, liberty, colour)):
                k = _push(candidates, k, liberty)
    return _pick_legal(state, g, w, colour, rng, candidates, k)


@njit(cache=True, inline="always")
def _is_big_self_atari(g, w, p, colour):
    """Whether a ``colour`` stone on ``p`` joins another stone in a chain left in atari."""
    joins = False
    for q in (p - 1, p + 1, p - w, p + w):
        joins = joins or g[STONE, q] == colour
    return joins and _liberties_after(g, w, p, colour) < 2


NAKADE_MAX = 6
"""The largest eye space whose vital point the nakade step plays."""


@njit(cache=True)
def _small_region(g, w, start, region):
    """The empty region containing ``start`` into ``region``, and its size if it has at
    most :data:`NAKADE_MAX` points and touches the stones of one colour only (and the
    edge); else -1."""
    region[0] = start
    size, border = 1, EMPTY
    i = 0
    while i < size:
        p = region[i]
        for q in (p - 1, p + 1, p - w, p + w):
            s = g[STONE, q]
            if s == EMPTY:
                seen = False
                for j in range(size):
                    seen = seen or region[j] == q
                if not seen:
                    if size == NAKADE_MAX:
                        return -1
                    region[size] = q
                    size += 1
            elif s == BLACK or s == WHITE:
                if border == EMPTY:
                    border = s
                elif border != s:
                    return -1
        i += 1
    return size


@njit(cache=True)
def _vital_point(w, region, size):
    """The point of ``region[:size]`` with the most neighbours in it, if only one has that
    many (the middle of a straight three, the centre of a pyramid four, bulky five,
    crossed five or rabbity six); else -1 (a square four has none: dead whoever moves;
    a straight or bent four, none: alive)."""
    best, best_count, ties = -1, -1, 0
    for i in range(size):
        p = region[i]
        count = 0
        for j in range(size):
            d = abs(region[j] - p)
            count += d == 1 or d == w
        if count > best_count:
            best, best_count, ties = p, count, 1
        elif count == best_count:
            ties += 1
    return best if ties == 1 else -1


@njit(cache=True)
def _nakade_move(state, g, w, colour, region):
    """The vital point of a small eye space next to the last move: an empty region of 3 to
    :data:`NAKADE_MAX` points bordered by one colour (:func:`_small_region`) whose vital
    point decides life (:func:`_vital_point`). Whoever moves wants it: the owner for two
    eyes, the other side to leave one (nakade). -1 when there is none."""
    last = _last_point(state)
    if last == 0:
        return -1
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == EMPTY:
            size = _small_region(g, w, q, region)
            if size >= 3:
                p = _vital_point(w, region, size)
                if p >= 0 and is_legal(state, g, p, colour):
                    return p
    return -1


@njit(cache=True)
def _runs_into_ladder(g, w, p, colour):
    """Whether ``p`` extends one of ``colour``'s chains in atari into a working ladder."""
    for q in (p - 1, p + 1, p - w, p + w):
        if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
            return ladder_escape_fails(g, w, p, colour)
    return False


@njit(cache=True, inline="always")
def _pattern_move(state, g, w, colour, rng, candidates, table, ladders):
    """A uniformly random legal move among the empty neighbours of the last move that match
    a 3x3 pattern and are neither an own-eye fill nor a big self-atari (with ``ladders``,
    nor an extension into a working ladder); -1 if none."""
    last = _last_point(state)
    if last == 0:
        return -1
    k = 0
    for q in (last - w - 1, last - w, last - w + 1, last - 1, last + 1, last + w - 1,
              last + w, last + w + 1):
        if g[STONE, q] == EMPTY and table[neighbourhood_code(g, w, q)]:
            if not _is_big_self_atari(g, w, q, colour) and not (
                    ladders and _runs_into_ladder(g, w, q, colour)):
                k = _push(candidates, k, q)
    return _pick_legal(state, g, w, colour, rng, candidates, k)


@njit(cache=True, inline="always")
def _policy_random_move(state, g, w, colour, rng, empties, where, size):
    """The game's eye-respecting random move, redrawn up to SELF_ATARI_TRIES times while it
    is a big self-atari."""
    p = -1
    for _ in range(1 + SELF_ATARI_TRIES):
        p = random_move(state, g, w, colour, rng, empties, where, size)
        if p < 0 or not _is_big_self_atari(g, w, p, colour):
            return p
    return p


@njit(cache=True)
def _heuristic_playout(state, rng, patterns, low_liberties=False, ladders=False,
                       replies=_NO_REPLIES, nakade=False):
    """Play the policy of the module docstring in place to the end of the game (without
    its 3x3 pattern step unless ``patterns``; with the low-liberty step and the ladder
    check of the saving extensions if asked; with the last good replies of ``replies``
    after the tactical step when it is not empty)."""
    n = state[SIZE]
    w = n + 1
    g = grid(state)
    empties, where, size = empty_points(state, g)
    removed = np.empty(n * n, dtype=np.int64)
    candidates = np.empty(n * n, dtype=np.int64)
    libs = np.empty(2, dtype=np.int64)
    region = np.empty(NAKADE_MAX, dtype=np.int64)
    table = PATTERN_TABLE
    while state[OUTCOME] == ONGOING:
        colour = state[TO_PLAY] + 1
        point = _tactical_move(state, g, w, colour, rng, candidates, ladders)
        if point < 0 and replies.shape[0] > 0:
            point = _last_good_reply(state, g, w, colour, replies)
        if point < 0 and nakade:
            point = _nakade_move(state, g, w, colour, region)
        if point < 0 and low_liberties:
            point = _low_liberty_move(state, g, w, colour, rng, candidates, libs)
        if point < 0 and patterns:
            point = _pattern_move(state, g, w, colour, rng, candidates, table, ladders)
        if point < 0:
            point = _policy_random_move(state, g, w, colour, rng, empties, where, size)
        size = play_point(state, g, point, empties, where, size, removed)


@njit(cache=True)
def heuristic_playout_kernel(state, rng):
    """Capture/atari-aware playout to the end, in place (steps 1, 2 and 4 of the module
    docstring: no 3x3 patterns); returns the outcome code."""
    _heuristic_playout(state, rng, False)
    return state[OUTCOME]


@njit(cache=True)
def heuristic_playout_trace_kernel(state, rng, trace):
    """Heuristic playout in place that writes the actions played (passes included) into
    ``trace`` as far as it fits; returns the number of plies played."""
    start = state[PLY]
    _heuristic_playout(state, rng, False)
    return moves_since(state, start, trace)


@njit(cache=True)
def pattern_playout_kernel(state, rng):
    """The heuristic playout with its 3x3 pattern step (step 3), in place; returns the
    outcome code."""
    _heuristic_playout(state, rng, True)
    return state[OUTCOME]


@njit(cache=True)
def pattern_playout_trace_kernel(state, rng, trace):
    """:func:`pattern_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    _heuristic_playout(state, rng, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def ladder_playout_kernel(state, rng):
    """The default playout: the pattern playout whose saving extensions and pattern moves
    skip the extensions a ladder captures, in place; returns the outcome code."""
    _heuristic_playout(state, rng, True, False, True)
    return state[OUTCOME]


@njit(cache=True)
def ladder_playout_trace_kernel(state, rng, trace):
    """:func:`ladder_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    _heuristic_playout(state, rng, True, False, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def low_liberty_playout_kernel(state, rng):
    """The default (ladder) playout with the low-liberty step before the patterns, in
    place; returns the outcome code."""
    _heuristic_playout(state, rng, True, True, True)
    return state[OUTCOME]


@njit(cache=True)
def low_liberty_playout_trace_kernel(state, rng, trace):
    """:func:`low_liberty_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    _heuristic_playout(state, rng, True, True, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def nakade_playout_kernel(state, rng):
    """The default (ladder) playout with the nakade step after the tactical step, in place;
    returns the outcome code."""
    _heuristic_playout(state, rng, True, False, True, _NO_REPLIES, True)
    return state[OUTCOME]


@njit(cache=True)
def nakade_playout_trace_kernel(state, rng, trace):
    """:func:`nakade_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    _heuristic_playout(state, rng, True, False, True, _NO_REPLIES, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def reply_playout_trace_kernel(state, rng, trace):
    """The default (ladder) playout with the last good replies (LGRF-2, then LGRF-1) after its
    tactical step, learning from its own result; ``trace`` as :data:`REPLY_OFFSET` says.
    Records its moves (for RAVE); returns the plies recorded."""
    start = state[PLY]
    replies = trace[REPLY_OFFSET:]
    _heuristic_playout(state, rng, True, False, True, replies)
    _learn_replies(state, start, replies)
    return min(moves_since(state, start, trace[:REPLY_OFFSET]), REPLY_OFFSET)


# ------------------------------------------------------------------------- move priors
#: logit weights of the move prior (:func:`prior_kernel`), in the spirit of Gelly & Silver's
#: (2007) and Fuego's prior knowledge: the playout policy's own knowledge, as a prior
PRIOR_CAPTURE = 3.0  # captures an opponent chain in atari (+ PRIOR_PER_STONE a stone)
PRIOR_PER_STONE = 0.25  # up to 4 stones
PRIOR_SAVE = 2.5  # extends an own chain in atari to two or more liberties
PRIOR_LADDER_ESCAPE = -2.0  # instead of PRIOR_SAVE: the extension is captured in a ladder
PRIOR_LADDER_CAPTURE = 2.0  # ataris an opponent chain that a ladder then captures
PRIOR_ATARI = 1.0  # ataris an opponent chain of two liberties, keeping two of its own
PRIOR_EXTEND = 1.0  # gives an own chain of two liberties three or more
PRIOR_PATTERN = 1.0  # matches a 3x3 pattern of PATTERNS_3X3
PRIOR_NEAR_LAST = 1.0  # one of the 8 neighbours of the last move
PRIOR_SELF_ATARI = -3.0  # a big self-atari
PRIOR_OWN_EYE = -4.0  # fills one of the mover's own eyes
PRIOR_EDGE = (-1.0, -0.3)  # on the first and second line
PRIOR_PASS = -3.0  # passing while a board move is legal
#: the pattern term of the hand-set priors, ``[colour to move - 1, code]``: PRIOR_PATTERN
#: where the code matches PATTERNS_3X3
#: (float32: numba bakes arrays under 1 MB into cached code)
PATTERN_LOGITS = np.stack([PRIOR_PATTERN * PATTERN_TABLE] * 2).astype(np.float32)
#: no pattern term (what the learned pattern logits are fitted on top of)
NO_PATTERN_LOGITS = np.zeros((2, 1 << 16), dtype=np.float32)
#: a move's heuristic value (mover's view, for RAVE's prior visits) is tanh(this * logit)
PRIOR_VALUE_PER_LOGIT = 0.2


@njit(cache=True, inline="always")
def _point_logit(g, n, w, p, colour, last, table, ladders, liberties, libs):
    """The prior logit of ``colour`` playing the legal empty point ``p`` (see PRIOR_*; the
    pattern term ``table[code]``, ``table`` the row of a ``[2, 65536]`` pattern-logit table
    for ``colour``; the ladder terms only with ``ladders``, the two-liberty terms only with
    ``liberties``; ``libs``: scratch for two points)."""
    if is_eye(g, w, p, colour):
        return PRIOR_OWN_EYE
    logit = 0.0
    captured = 0
    touches_own_atari = False
    for q in (p - 1, p + 1, p - w, p + w):
        stone = g[STONE, q]
        if (stone == colour or stone == 3 - colour) and in_atari(g, g[ROOT, q]):
            if stone == colour:
                touches_own_atari = True
            else:
                captured = max(captured, g[COUNT, g[ROOT, q]])
    if captured > 0:
        logit += PRIOR_CAPTURE + PRIOR_PER_STONE * min(captured, 4)
    if touches_own_atari and _liberties_after(g, w, p, colour) >= 2:
        if ladders and ladder_escape_fails(g, w, p, colour):
            logit += PRIOR_LADDER_ESCAPE
        else:
            logit += PRIOR_SAVE
    if ladders and captured == 0 and ladder_atari_captures(g, w, p, colour):
        logit += PRIOR_LADDER_CAPTURE
    elif liberties and captured == 0:
        logit += _two_liberty_logit(g, w, p, colour, libs)
    if captured == 0 and _is_big_self_atari(g, w, p, colour):
        logit += PRIOR_SELF_ATARI
    logit += table[neighbourhood_code(g, w, p)]
    if last != 0 and abs(p // w - last // w) <= 1 and abs(p % w - last % w) <= 1:
        logit += PRIOR_NEAR_LAST
    line = min(p // w, p % w, n + 1 - p // w, n + 1 - p % w) - 1  # 0: the first line
    if line < 2:
        logit += PRIOR_EDGE[line]
    return logit


@njit(cache=True, inline="always")
def _two_liberty_logit(g, w, p, colour, libs):
    """The two-liberty terms of ``colour`` playing ``p``, the fights one move before an
    atari: PRIOR_ATARI when it takes the second-last liberty of an opponent chain and keeps
    two of its own, plus PRIOR_EXTEND when it gives an own two-liberty chain three."""
    atari = own_two = False
    for q in (p - 1, p + 1, p - w, p + w):
        stone = g[STONE, q]
        if stone == 3 - colour and not atari:
            atari = _two_liberties(g, w, g[ROOT, q], libs)
        elif stone == colour and not own_two:
            own_two = _two_liberties(g, w, g[ROOT, q], libs)
    if not (atari or own_two):
        return 0.0
    after = _liberties_after(g, w, p, colour, 3)  # once, whichever term asks
    return PRIOR_EXTEND * (own_two and after >= 3) + PRIOR_ATARI * (atari and after >= 2)


@njit(cache=True)
def prior_kernel(state, mask, out, values):
    """Move priors for a search (the ``priors_fn`` contract of the compiled MCTS loop):
    ``out[a]`` = softmax of each legal move's logit (:func:`_point_logit`; passing:
    PRIOR_PASS while a board move is legal), 0 where illegal; ``values[a]`` = the move's
    heuristic value ``tanh(PRIOR_VALUE_PER_LOGIT * logit)`` for the mover, 0 where illegal."""
    _priors(state, mask, out, values, False, False, PATTERN_LOGITS)


@njit(cache=True)
def ladder_prior_kernel(state, mask, out, values):
    """:func:`prior_kernel` with the ladder terms (PRIOR_LADDER_*)."""
    _priors(state, mask, out, values, True, False, PATTERN_LOGITS)


@njit(cache=True)
def liberty_prior_kernel(state, mask, out, values):
    """:func:`ladder_prior_kernel` with the two-liberty terms (PRIOR_ATARI, PRIOR_EXTEND)
    where no ladder term applies."""
    _priors(state, mask, out, values, True, True, PATTERN_LOGITS)


@njit(cache=True)
def ladder_move_logits(state, mask, out, patterns):
    """``out[a]``: the logit of each legal move under the ladder priors with the pattern
    term read from ``patterns`` (``[2, 65536]``; see :func:`_point_logit`), -inf where
    illegal: what :func:`ladder_prior_kernel` softmaxes (PATTERN_LOGITS) and what learned
    pattern logits are fitted on top of (NO_PATTERN_LOGITS)."""
    _prior_logits(state, mask, out, True, False, patterns)


@njit(cache=True)
def _prior_logits(state, mask, out, ladders, liberties, patterns):
    n = state[SIZE]
    w = n + 1
    g = grid(state)
    colour = state[TO_PLAY] + 1
    last = _last_point(state)
    table = patterns[colour - 1]
    pass_action = n * n
    libs = np.empty(2, dtype=np.int64)
    board_moves = False
    for a in range(mask.shape[0]):
        if not mask[a]:
            out[a] = -np.inf
            continue
        if a == pass_action:
            continue
        board_moves = True
        out[a] = _point_logit(g, n, w, to_point(state, a), colour, last, table, ladders,
                              liberties, libs)
    if pass_action < mask.shape[0] and mask[pass_action]:
        out[pass_action] = PRIOR_PASS if board_moves else 0.0


@njit(cache=True)
def _priors(state, mask, out, values, ladders, liberties, patterns):
    _prior_logits(state, mask, out, ladders, liberties, patterns)
    best = -np.inf
    for a in range(mask.shape[0]):
        if mask[a]:
            best = max(best, out[a])
    total = 0.0
    for a in range(mask.shape[0]):
        values[a] = math.tanh(PRIOR_VALUE_PER_LOGIT * out[a]) if mask[a] else 0.0
        out[a] = math.exp(out[a] - best) if mask[a] else 0.0
        total += out[a]
    for a in range(mask.shape[0]):
        out[a] /= total


def load_pattern_logits(path: str | Path) -> np.ndarray:
    """The ``[2, 65536]`` pattern-logit table of a fitted file (``benchmarks.go_fit_patterns``:
    arrays ``codes``, canonical codes, and ``logits``); read without pickles, so loading
    never runs code. A missing or malformed file is a :class:`CheckpointError`."""
    try:
        with np.load(path, allow_pickle=False) as data:
            codes, logits = data["codes"], data["logits"]
    except (OSError, ValueError, KeyError, EOFError) as err:
        raise CheckpointError(f"{path}: not a pattern-logit file with arrays 'codes' and "
                              f"'logits' ({err})") from None
    if (codes.ndim != 1 or codes.shape != logits.shape or codes.dtype.kind not in "iu"
            or not np.isfinite(logits).all() or (codes < 0).any() or (codes >= 1 << 16).any()):
        raise CheckpointError(f"{path}: 'codes' must be 16-bit neighbourhood codes and "
                              "'logits' finite numbers, one per code")
    return pattern_logits(codes, logits)


def make_learned_prior_kernel(patterns: np.ndarray):
    """The ladder priors (:func:`ladder_prior_kernel`) with the pattern term read from
    ``patterns`` (``[2, 65536]``, e.g. :func:`load_pattern_logits`) instead of the hand-set
    PRIOR_PATTERN; compiled per process (the table is baked in, so it is not cached on
    disk)."""

    @njit
    def learned_prior_kernel(state, mask, out, values):
        _priors(state, mask, out, values, True, False, patterns)

    return learned_prior_kernel


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
    :mod:`boardzoo.gtp_engine` reports for final_score/final_status_list)."""
    scratch = np.empty_like(state)
    owner = np.empty(out.shape[0])
    out[:] = 0.0
    total = 0.0
    for _ in range(playouts):
        scratch[:] = state
        _heuristic_playout(scratch, rng, False)
        ownership_kernel(scratch, owner)
        out += owner
        total += area_score(scratch)
    out /= max(playouts, 1)
    return total / max(playouts, 1)


#: what search knows about this game (declared on the Game as its ``knowledge``); the
#: search defaults are what MCTSAgent's "auto" settings apply, with the evidence
KNOWLEDGE = Knowledge(
    evaluate_kernel=evaluate_kernel,
    key_kernel=key_kernel,
    exact_value=exact_value,
    playout_kernel=ladder_playout_kernel,
    playout_trace_kernel=ladder_playout_trace_kernel,
    prior_kernel=ladder_prior_kernel,
    search_defaults=SearchDefaults(
        rollout="heuristic",
        rave=True,
        c=0.1,
        prior_visits=20.0,
        evidence=(
            "the capture/atari playout, which scored 0.77 [0.68, 0.84] over 100 games "
            "against the plain eye-respecting playout (7x7, komi 9, 1000 simulations); its "
            "3x3 pattern step 0.75 [0.55, 0.88] over 24 games against the same playout "
            "without it (9x9, komi 7.5, 0.3 s a move); RAVE with a small UCT term (c = 0.1, "
            "as MoGo's) 0.82 [0.68, 0.91] over 40 games against UCT alone at c = 1.0 (9x9, "
            "komi 7.5, 0.3 s a move); RAVE's children starting with 20 virtual visits at the "
            "move priors' values 0.65 [0.54, 0.75] over 80 games against none (the same); "
            "ladders read in the priors and playouts 0.88 against GNU Go level 10 where the "
            "agent without them scored 0.74 on the same 50 openings (9x9, 1 s a move)."
        ),
    ),
)

