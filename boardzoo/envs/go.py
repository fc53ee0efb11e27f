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

State: int64, self-contained (a clone is a copy of the array, superko history included)::

    [to_play, outcome, ply,                       the core header
     size, komi2, ko_rule, suicide, max_moves,    options (komi2 = 2 * komi)
     passes, ko_point, ko_colour, hash,           consecutive passes, simple-ko ban, Zobrist
     captured_by_black, captured_by_white, start_to_play, table_size,
     grid[8, P],                                  per-point arrays, P = (N + 1) * (N + 2) + 1
     setup[N * N],                                setup stones by action index (0/1 B/2 W)
     history[max_moves],                          moves played: action * 2 + (colour - 1)
     table[table_size]]                           superko hash set (empty for simple/none)

The grid is a padded board: point (row, col) lives at ``(row + 1) * (N + 1) + col + 1``
and every other slot is a border. Its rows are: STONE (0 empty, 1 black, 2 white, 3 border),
ROOT (chain id: a stone of the chain), NEXT (ring of the chain's stones), and, at a chain's
root, COUNT (stones), LIBS / LSUM / LSQ (number, sum and sum of squares of the chain's
pseudo-liberties, one per (stone, empty neighbour) pair: the chain is in atari exactly when
``LSUM**2 == LIBS * LSQ``) and CHASH (XOR of the chain's Zobrist keys). Zobrist keys are
63-bit, fixed (same in every process). The superko table is an open-addressing set of the
keys of every position that occurred (board hash, xor a side-to-move key for "situational").

Module-level compiled helpers for search: :func:`area_score`, :func:`ownership_kernel`,
:func:`playout_score_kernel` and :func:`playout_ownership_kernel` (score from Black's view).
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from numba import njit

from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY, Game, require
from boardzoo.envs.sgf import SgfRecord, parse_sgf, write_sgf
from boardzoo.errors import IllegalActionError, InvalidPositionError
from boardzoo.rng import below

__all__ = [
    "Go",
    "KO_RULES",
    "area_score",
    "ownership_kernel",
    "playout_score_kernel",
    "playout_ownership_kernel",
    "captures",
    "env",
    "raw_env",
]

# ------------------------------------------------------------------------- state layout
SIZE, KOMI2, KO_RULE, SUICIDE, MAX_MOVES = 3, 4, 5, 6, 7
PASSES, KO_POINT, KO_COLOUR, HASH = 8, 9, 10, 11
CAPTURED = 12  # 12: stones captured by Black, 13: by White
START_TO_PLAY, TABLE_SIZE = 14, 15
GRID = 16
STONE, ROOT, NEXT, COUNT, LIBS, LSUM, LSQ, CHASH = range(8)
GRID_ROWS = 8

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
KO_RULES = ("none", "simple", "positional", "situational")
NO_KO, SIMPLE_KO, POSITIONAL, SITUATIONAL = 0, 1, 2, 3
MAX_SIZE = 19
MAX_MOVES_LIMIT = 100_000
COLUMNS = "ABCDEFGHJKLMNOPQRST"
NUM_PLANES = 10


def _zobrist_keys(count: int, seed: int) -> np.ndarray:
    """``count`` fixed 63-bit keys from splitmix64 (the same in every process)."""
    mask = (1 << 64) - 1
    keys, z = [], seed
    for _ in range(count):
        z = (z + 0x9E3779B97F4A7C15) & mask
        x = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & mask
        keys.append((x ^ (x >> 31)) >> 1)
    return np.array(keys, dtype=np.int64)


_MAX_POINTS = (MAX_SIZE + 1) * (MAX_SIZE + 2) + 1
_KEYS = _zobrist_keys(2 * _MAX_POINTS + 2, seed=20240611)
ZOBRIST = np.zeros((3, _MAX_POINTS), dtype=np.int64)  # [colour, padded point]; row 0 unused
ZOBRIST[1] = _KEYS[:_MAX_POINTS]
ZOBRIST[2] = _KEYS[_MAX_POINTS : 2 * _MAX_POINTS]
EMPTY_BOARD_KEY = _KEYS[-2]  # hash of the empty board (non-zero: 0 marks a free table slot)
WHITE_TO_MOVE_KEY = _KEYS[-1]  # xored into situational keys when White is to move


# ------------------------------------------------------------------------------ layout
@njit(cache=True)
def _width(state):
    return state[SIZE] + 1


@njit(cache=True)
def _num_slots(n):
    """P: slots of the padded grid of an n x n board."""
    return (n + 1) * (n + 2) + 1


@njit(cache=True)
def _grid(state):
    """The per-point arrays as a (8, P) view of the state."""
    slots = _num_slots(state[SIZE])
    return state[GRID : GRID + GRID_ROWS * slots].reshape((GRID_ROWS, slots))


@njit(cache=True)
def _setup_start(state):
    return GRID + GRID_ROWS * _num_slots(state[SIZE])


@njit(cache=True)
def _history_start(state):
    n = state[SIZE]
    return _setup_start(state) + n * n


@njit(cache=True)
def _table_start(state):
    return _history_start(state) + state[MAX_MOVES]


@njit(cache=True)
def _to_point(state, action):
    """Padded grid slot of a board action (row * N + col)."""
    n = state[SIZE]
    return (action // n + 1) * (n + 1) + action % n + 1


@njit(cache=True)
def _to_action(state, point):
    w = state[SIZE] + 1
    return (point // w - 1) * state[SIZE] + point % w - 1


# ------------------------------------------------------------------- superko hash set
@njit(cache=True)
def _table_find(state, key):
    """Slot index of ``key`` in the superko table, or of the free slot where it would go."""
    start = _table_start(state)
    mask = state[TABLE_SIZE] - 1
    i = key & mask
    while state[start + i] != 0 and state[start + i] != key:
        i = (i + 1) & mask
    return start + i


@njit(cache=True)
def _seen(state, key):
    return state[_table_find(state, key)] == key


@njit(cache=True)
def _remember(state, key):
    state[_table_find(state, key)] = key


@njit(cache=True)
def _position_key(state, board_hash, to_play):
    """Superko key of a board with seat ``to_play`` to move (side ignored unless situational)."""
    if state[KO_RULE] == SITUATIONAL and to_play == 1:
        return board_hash ^ WHITE_TO_MOVE_KEY
    return board_hash


# ------------------------------------------------------------------------------ chains
@njit(cache=True)
def _in_atari(g, root):
    """Whether the chain at ``root`` has exactly one liberty (all pseudo-liberties equal)."""
    libs = g[LIBS, root]
    return libs > 0 and g[LSUM, root] * g[LSUM, root] == libs * g[LSQ, root]


@njit(cache=True)
def _merge(g, a, b):
    """Join chain ``b`` into chain ``a`` (both roots), relabelling the smaller one."""
    if g[COUNT, a] < g[COUNT, b]:
        a, b = b, a
    s = b
    while True:
        g[ROOT, s] = a
        s = g[NEXT, s]
        if s == b:
            break
    g[NEXT, a], g[NEXT, b] = g[NEXT, b], g[NEXT, a]
    for row in (COUNT, LIBS, LSUM, LSQ):
        g[row, a] += g[row, b]
    g[CHASH, a] ^= g[CHASH, b]
    return a


@njit(cache=True)
def _add_stone(g, w, p, colour):
    """Put a ``colour`` stone on empty ``p``: update pseudo-liberties and merge friendly
    chains (no captures). Returns the root of the stone's chain."""
    g[STONE, p] = colour
    g[ROOT, p] = p
    g[NEXT, p] = p
    g[COUNT, p] = 1
    g[CHASH, p] = ZOBRIST[colour, p]
    libs = lsum = lsq = 0
    for q in (p - 1, p + 1, p - w, p + w):
        s = g[STONE, q]
        if s == EMPTY:
            libs += 1
            lsum += q
            lsq += q * q
        elif s != BORDER:
            r = g[ROOT, q]
            g[LIBS, r] -= 1
            g[LSUM, r] -= p
            g[LSQ, r] -= p * p
    g[LIBS, p], g[LSUM, p], g[LSQ, p] = libs, lsum, lsq
    root = p
    for q in (p - 1, p + 1, p - w, p + w):
        if g[STONE, q] == colour and g[ROOT, q] != root:
            root = _merge(g, root, g[ROOT, q])
    return root


@njit(cache=True)
def _remove_chain(g, w, root, removed, count):
    """Take the chain at ``root`` off the board, giving its neighbours their liberties back.

    The removed points are appended to ``removed`` from index ``count`` (if it has room);
    returns the new count."""
    colour = g[STONE, root]
    s = root
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            t = g[STONE, q]
            if t != EMPTY and t != BORDER and t != colour:
                r = g[ROOT, q]
                g[LIBS, r] += 1
                g[LSUM, r] += s
                g[LSQ, r] += s * s
        g[STONE, s] = EMPTY
        if count < removed.shape[0]:
            removed[count] = s
        count += 1
        s = g[NEXT, s]
        if s == root:
            break
    return count


# ------------------------------------------------------------------------------- moves
@njit(cache=True)
def _is_legal(state, g, p, colour):
    """Whether ``colour`` may play on point ``p`` under the state's ko and suicide rules."""
    if g[STONE, p] != EMPTY:
        return False
    rule = state[KO_RULE]
    if rule != NO_KO and p == state[KO_POINT] and colour == state[KO_COLOUR]:
        return False
    w = _width(state)
    after = state[HASH] ^ ZOBRIST[colour, p]
    own_chains = 0  # xor of the distinct friendly chains: what a suicide removes
    lives = False
    n0, n1, n2, n3 = p - 1, p + 1, p - w, p + w
    for i in range(4):
        q = (n0, n1, n2, n3)[i]
        s = g[STONE, q]
        if s == EMPTY:
            lives = True
            continue
        if s == BORDER:
            continue
        r = g[ROOT, q]
        if _root_seen_before(g, r, i, n0, n1, n2):
            continue
        atari = _in_atari(g, r)
        if s == colour:
            own_chains ^= g[CHASH, r]
            lives = lives or not atari
        elif atari:
            after ^= g[CHASH, r]
            lives = True
    if not lives:  # suicide
        if not state[SUICIDE]:
            return False
        after = state[HASH] ^ own_chains
    if rule >= POSITIONAL:
        return not _seen(state, _position_key(state, after, 2 - colour))
    return True


@njit(cache=True)
def _root_seen_before(g, root, i, n0, n1, n2):
    """Whether one of the first ``i`` neighbours (n0, n1, n2) is a stone of chain ``root``."""
    for j in range(i):
        q = (n0, n1, n2)[j]
        s = g[STONE, q]
        if s != EMPTY and s != BORDER and g[ROOT, q] == root:
            return True
    return False


@njit(cache=True)
def _play_stone(state, g, p, colour, removed):
    """Play a legal stone: capture, then (if allowed) remove a suicided chain, update the
    hash, prisoners and the simple-ko ban. Returns the number of stones removed."""
    w = _width(state)
    other = 3 - colour
    root = _add_stone(g, w, p, colour)
    state[HASH] ^= ZOBRIST[colour, p]
    count = 0
    for q in (p - 1, p + 1, p - w, p + w):
        if g[STONE, q] == other and g[LIBS, g[ROOT, q]] == 0:
            state[HASH] ^= g[CHASH, g[ROOT, q]]
            count = _remove_chain(g, w, g[ROOT, q], removed, count)
    state[CAPTURED + colour - 1] += count
    state[KO_POINT] = 0
    if count == 0 and g[LIBS, root] == 0:
        state[HASH] ^= g[CHASH, root]
        count = _remove_chain(g, w, root, removed, 0)
        state[CAPTURED + other - 1] += count
    elif count == 1 and g[COUNT, root] == 1 and _in_atari(g, root):
        state[KO_POINT] = g[LSUM, root] // g[LIBS, root]
        state[KO_COLOUR] = other
    return count


@njit(cache=True)
def _apply(state, action, removed):
    """Play legal ``action`` for the side to move, record it, and end and score the game if
    it is over. Returns the number of stones removed from the board (listed in ``removed``)."""
    n = state[SIZE]
    seat = state[TO_PLAY]
    count = 0
    if action == n * n:
        state[PASSES] += 1
        state[KO_POINT] = 0
    else:
        state[PASSES] = 0
        count = _play_stone(state, _grid(state), _to_point(state, action), seat + 1, removed)
    state[_history_start(state) + state[PLY]] = action * 2 + seat
    state[PLY] += 1
    state[TO_PLAY] = 1 - seat
    if state[KO_RULE] >= POSITIONAL:
        _remember(state, _position_key(state, state[HASH], 1 - seat))
    if state[PASSES] >= 2 or state[PLY] >= state[MAX_MOVES]:
        score2 = _score2(state)
        state[OUTCOME] = P0_WINS if score2 > 0 else (P1_WINS if score2 < 0 else DRAW)
    return count


# ----------------------------------------------------------------------------- scoring
@njit(cache=True)
def _fill_ownership(state, owner):
    """``owner[p]`` for every grid slot: 1 Black's area, 2 White's, 0 neutral or border.

    Area is Tromp-Taylor: stones, and empty regions whose stone neighbours are one colour."""
    g = _grid(state)
    w = _width(state)
    owner[:] = 0
    stack = np.empty(owner.shape[0], dtype=np.int64)
    for start in range(owner.shape[0]):
        s = g[STONE, start]
        if s == BLACK or s == WHITE:
            owner[start] = s
        if s != EMPTY or owner[start] != 0:
            continue
        owner[start] = 4  # visited marker while the region is explored
        top, first, touches = 1, 0, 0
        stack[0] = start
        while first < top:
            p = stack[first]
            first += 1
            for q in (p - 1, p + 1, p - w, p + w):
                t = g[STONE, q]
                if t == EMPTY and owner[q] == 0:
                    owner[q] = 4
                    stack[top] = q
                    top += 1
                elif t == BLACK or t == WHITE:
                    touches |= t
        colour = touches if touches == BLACK or touches == WHITE else 0
        for k in range(top):
            owner[stack[k]] = colour if colour else 5
    for p in range(owner.shape[0]):
        if owner[p] == 5:
            owner[p] = 0


@njit(cache=True)
def _score2(state):
    """Twice the area score from Black's view, komi included (an integer)."""
    owner = np.empty(_num_slots(state[SIZE]), dtype=np.int64)
    _fill_ownership(state, owner)
    black = white = 0
    for p in range(owner.shape[0]):
        if owner[p] == BLACK:
            black += 1
        elif owner[p] == WHITE:
            white += 1
    return 2 * (black - white) - state[KOMI2]


@njit(cache=True)
def area_score(state):
    """Area (Tromp-Taylor) score of the board from Black's (player_0's) view, komi included:
    Black's stones and territory minus White's, minus komi (positive: Black is ahead)."""
    return _score2(state) / 2.0


@njit(cache=True)
def ownership_kernel(state, out):
    """Fill float ``out`` (shape ``[N*N]``, action order) with the area owner of each point:
    +1 Black, -1 White, 0 neutral (Tromp-Taylor, no dead-stone removal)."""
    owner = np.empty(_num_slots(state[SIZE]), dtype=np.int64)
    _fill_ownership(state, owner)
    for a in range(out.shape[0]):
        o = owner[_to_point(state, a)]
        out[a] = 1.0 if o == BLACK else (-1.0 if o == WHITE else 0.0)


def captures(state: np.ndarray) -> tuple[int, int]:
    """Stones captured so far by Black and by White (suicided stones count for the opponent)."""
    return int(state[CAPTURED]), int(state[CAPTURED + 1])


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill bool ``out`` (shape ``[N*N + 1]``) with the side to move's legal actions."""
    n = state[SIZE]
    if state[OUTCOME] != ONGOING:
        out[:] = False
        return 0
    g = _grid(state)
    colour = state[TO_PLAY] + 1
    count = 1
    for a in range(n * n):
        legal = _is_legal(state, g, _to_point(state, a), colour)
        out[a] = legal
        count += legal
    out[n * n] = True
    return count


@njit(cache=True)
def apply_kernel(state, action):
    """Play legal ``action`` in place (a pass is N*N)."""
    _apply(state, action, np.empty(0, dtype=np.int64))


@njit(cache=True)
def _is_eye(g, w, p, colour):
    """Whether empty ``p`` is an eye of ``colour`` (see "Playout policy" in the spec sheet)."""
    for q in (p - 1, p + 1, p - w, p + w):
        s = g[STONE, q]
        if s != colour and s != BORDER:
            return False
    enemies = edges = 0
    for q in (p - w - 1, p - w + 1, p + w - 1, p + w + 1):
        s = g[STONE, q]
        if s == BORDER:
            edges += 1
        elif s == 3 - colour:
            enemies += 1
    return enemies == 0 or (enemies == 1 and edges == 0)


@njit(cache=True)
def _playout(state, rng):
    """Play the eye-respecting random policy in place to the end of the game."""
    n = state[SIZE]
    w = n + 1
    g = _grid(state)
    empties, where, size = _empty_points(state, g)
    removed = np.empty(n * n, dtype=np.int64)
    while state[OUTCOME] == ONGOING:
        colour = state[TO_PLAY] + 1
        point = _random_move(state, g, w, colour, rng, empties, where, size)
        if point < 0:
            _apply(state, n * n, removed)
            continue
        count = _apply(state, _to_action(state, point), removed)
        size = _update_empties(empties, where, size, point, removed, count)


@njit(cache=True)
def _empty_points(state, g):
    """(empties, where, size): the empty points in ``empties[:size]`` and, for each empty
    point ``p``, its index ``where[p]`` in that list (for playouts)."""
    n = state[SIZE]
    empties = np.empty(n * n, dtype=np.int64)
    where = np.empty(g.shape[1], dtype=np.int64)
    size = 0
    for a in range(n * n):
        p = _to_point(state, a)
        if g[STONE, p] == EMPTY:
            empties[size] = p
            where[p] = size
            size += 1
    return empties, where, size


@njit(cache=True)
def _update_empties(empties, where, size, point, removed, count):
    """Take the point just played out of the empties list and put the ``count`` points of
    ``removed`` (captured stones) back in; returns the new size."""
    size -= 1
    moved = empties[size]
    empties[where[point]] = moved
    where[moved] = where[point]
    for k in range(count):
        empties[size] = removed[k]
        where[removed[k]] = size
        size += 1
    return size


@njit(cache=True)
def _random_move(state, g, w, colour, rng, empties, where, size):
    """A uniformly random legal point among ``empties[:size]`` that is not one of
    ``colour``'s eyes, or -1. Rejected candidates are swapped to the back of the list."""
    k = size
    while k > 0:
        i = below(rng, k)
        p = empties[i]
        if not _is_eye(g, w, p, colour) and _is_legal(state, g, p, colour):
            return p
        k -= 1
        last = empties[k]
        empties[i], empties[k] = last, p
        where[last], where[p] = i, k
    return -1


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
def moves_since(state, start, trace):
    """Write the actions played since ply ``start`` (passes included) into ``trace`` as far
    as it fits; returns the number of plies played since then."""
    plies = state[PLY] - start
    history = _history_start(state) + start
    for j in range(min(plies, trace.shape[0])):
        trace[j] = state[history + j] // 2
    return plies


@njit(cache=True)
def playout_score_kernel(state, rng):
    """Playout in place (as ``playout_kernel``); returns the final area score from Black's
    view, komi included."""
    _playout(state, rng)
    return area_score(state)


@njit(cache=True)
def playout_ownership_kernel(state, rng, out):
    """Playout in place; fills ``out`` (``[N*N]``: +1 Black, -1 White, 0 neutral) with the
    final area owners and returns the final score from Black's view."""
    _playout(state, rng)
    ownership_kernel(state, out)
    return area_score(state)


@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (N, N, 10) with the planes of the spec sheet from ``seat``'s view."""
    n = state[SIZE]
    g = _grid(state)
    out[:] = 0.0
    own, mover = seat + 1, state[TO_PLAY] + 1
    playing = state[OUTCOME] == ONGOING
    for a in range(n * n):
        r, c, p = a // n, a % n, _to_point(state, a)
        s = g[STONE, p]
        if s == EMPTY:
            out[r, c, 2] = 1.0
            out[r, c, 7] = playing and not _is_legal(state, g, p, mover)
        else:
            plane = 0 if s == own else 1
            out[r, c, plane] = 1.0
            out[r, c, plane + 5] = _in_atari(g, g[ROOT, p])
    history = _history_start(state)
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
    g = _grid(state)
    w = n + 1
    setup = _setup_start(state)
    for a in range(n * n):
        colour = state[setup + a]
        if colour != EMPTY:
            p = _to_point(state, a)
            _add_stone(g, w, p, colour)
            state[HASH] ^= ZOBRIST[colour, p]
    for a in range(n * n):
        p = _to_point(state, a)
        if g[STONE, p] != EMPTY and g[LIBS, g[ROOT, p]] == 0:
            return False
    if state[KO_RULE] >= POSITIONAL:
        _remember(state, _position_key(state, state[HASH], state[TO_PLAY]))
    return True


# -------------------------------------------------------------------------------- game
class Go(Game):
    """Go rules (see the module docstring)."""

    name = "go"
    symmetry = "dihedral"
    legal_mask_kernel = staticmethod(legal_mask_kernel)
    apply_kernel = staticmethod(apply_kernel)
    playout_kernel = staticmethod(playout_kernel)
    playout_trace_kernel = staticmethod(playout_trace_kernel)
    observe_kernel = staticmethod(observe_kernel)
    pieces_on_intersections = True
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
        slots = _num_slots(n)
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

    # ------------------------------------------------------------------- game hooks
    def initial_state(self) -> np.ndarray:
        return self._empty.copy()

    def cells(self, state: np.ndarray) -> np.ndarray:
        n = self.size
        stones = _grid(state)[STONE, : (n + 2) * (n + 1)].reshape(n + 2, n + 1)
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
        if column and column in COLUMNS[:n] and row.isdigit() and 1 <= int(row) <= n:
            return (n - int(row)) * n + COLUMNS.index(column)
        raise IllegalActionError(
            f"{text!r} is not a move on the {n}x{n} board: use a GTP vertex, column "
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

    # -------------------------------------------------------------------- positions
    def position(self, state: np.ndarray) -> str:
        n = self.size
        setup = state[_setup_start(state) : _setup_start(state) + n * n]
        history = state[_history_start(state) : _history_start(state) + int(state[PLY])]
        moves = tuple(("BW"[int(entry) % 2], self._point(int(entry) // 2)) for entry in history)
        start = int(state[START_TO_PLAY])
        implied = 0 if not moves else "BW".index(moves[0][0])
        record = SgfRecord(
            size=n,
            komi=self.komi,
            black_setup=tuple(self._point(a) for a in np.flatnonzero(setup == BLACK)),
            white_setup=tuple(self._point(a) for a in np.flatnonzero(setup == WHITE)),
            moves=moves,
            to_play=None if start == implied else "BW"[start],
        )
        return write_sgf(record, game=1)

    def parse_position(self, text: str) -> np.ndarray:
        record = parse_sgf(text, game=1)
        self._check_record(record)
        start = record.to_play or (record.moves[0][0] if record.moves else "B")
        state = self._blank_state("BW".index(start))
        setup = state[_setup_start(state) : _setup_start(state) + self.size**2]
        for colour, points in ((BLACK, record.black_setup), (WHITE, record.white_setup)):
            for row, col in points:
                if setup[row * self.size + col] not in (EMPTY, colour):
                    raise InvalidPositionError(
                        f"SGF sets up both a black and a white stone on {self._vertex(row, col)}"
                    )
                setup[row * self.size + col] = colour
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
        self.apply_kernel(state, action)

    def _point(self, action: int) -> tuple[int, int] | None:
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
        and float(komi) * 2 == round(float(komi) * 2),
        f"komi={komi!r} is not allowed: use a multiple of 0.5 such as 7.5 or 6 "
        "(an integer komi makes draws possible)",
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


def env(
    board_size: int = 9,
    komi: float = 7.5,
    ko: str = "positional",
    suicide: bool = False,
    max_moves: int | None = None,
    render_mode: str | None = None,
    illegal_action: str = "raise",
) -> BoardGameEnv:
    """Go as a PettingZoo AEC env (player_0 is Black and moves first)."""
    game = Go(board_size=board_size, komi=komi, ko=ko, suicide=suicide, max_moves=max_moves)
    return BoardGameEnv(game, render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
