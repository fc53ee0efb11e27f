"""The Go board as compiled kernels: the state layout, chains, legality, captures, superko,
area scoring and the pieces of the eye-respecting random playout.

:mod:`boardzoo.envs.go` (the rules, notation and the Game) and :mod:`boardzoo.knowledge.go`
(evaluation, tactical playouts) are both written over these public kernels. Points are
*padded grid slots* (see below), actions are ``row * N + col`` (:func:`to_point` /
:func:`to_action` convert); ``g`` is the per-point array view :func:`grid` returns and ``w``
the padded row width ``N + 1``; colours are BLACK (1) and WHITE (2).

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

Speed: the kernels every playout move runs through are compiled with ``inline="always"``, so
numba inlines them into their callers. A compiled call that passes arrays costs an atomic
reference-count increment and decrement per array, which was a third of a playout's time
(perf, 2026-12-03); inlined, the 9x9 random playout is about 1.6x faster with the same moves.
Chain merging, removal and :func:`add_stone` stay calls: inlining them too tripled the
compile time of the policy playouts for no measurable gain.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.core import DRAW, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.rng import below, splitmix64

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


def zobrist_keys(count: int, seed: int) -> np.ndarray:
    """``count`` fixed 63-bit keys: the splitmix64 sequence from ``seed`` (the same in every
    process)."""
    return np.array([splitmix64(seed, k + 1) >> 1 for k in range(count)], dtype=np.int64)


_MAX_POINTS = (MAX_SIZE + 1) * (MAX_SIZE + 2) + 1
_KEYS = zobrist_keys(2 * _MAX_POINTS + 2, seed=20240611)
ZOBRIST = np.zeros((3, _MAX_POINTS), dtype=np.int64)  # [colour, padded point]; row 0 unused
ZOBRIST[1] = _KEYS[:_MAX_POINTS]
ZOBRIST[2] = _KEYS[_MAX_POINTS : 2 * _MAX_POINTS]
EMPTY_BOARD_KEY = _KEYS[-2]  # hash of the empty board (non-zero: 0 marks a free table slot)
WHITE_TO_MOVE_KEY = _KEYS[-1]  # xored into situational keys when White is to move


# ------------------------------------------------------------------------------ layout
@njit(cache=True, inline="always")
def _width(state):
    return state[SIZE] + 1


@njit(cache=True, inline="always")
def num_slots(n):
    """P: slots of the padded grid of an n x n board."""
    return (n + 1) * (n + 2) + 1


@njit(cache=True)
def grid(state):
    """The per-point arrays as a (8, P) view of the state."""
    slots = num_slots(state[SIZE])
    return state[GRID : GRID + GRID_ROWS * slots].reshape((GRID_ROWS, slots))


@njit(cache=True, inline="always")
def setup_start(state):
    return GRID + GRID_ROWS * num_slots(state[SIZE])


@njit(cache=True, inline="always")
def history_start(state):
    n = state[SIZE]
    return setup_start(state) + n * n


@njit(cache=True, inline="always")
def _table_start(state):
    return history_start(state) + state[MAX_MOVES]


@njit(cache=True, inline="always")
def to_point(state, action):
    """Padded grid slot of a board action (row * N + col)."""
    n = state[SIZE]
    return (action // n + 1) * (n + 1) + action % n + 1


@njit(cache=True, inline="always")
def to_action(state, point):
    w = state[SIZE] + 1
    return (point // w - 1) * state[SIZE] + point % w - 1


# ------------------------------------------------------------------- superko hash set
@njit(cache=True, inline="always")
def _table_find(state, key):
    """Slot index of ``key`` in the superko table, or of the free slot where it would go."""
    start = _table_start(state)
    mask = state[TABLE_SIZE] - 1
    i = key & mask
    while state[start + i] != 0 and state[start + i] != key:
        i = (i + 1) & mask
    return start + i


@njit(cache=True, inline="always")
def _seen(state, key):
    return state[_table_find(state, key)] == key


@njit(cache=True, inline="always")
def remember(state, key):
    state[_table_find(state, key)] = key


@njit(cache=True, inline="always")
def position_key(state, board_hash, to_play):
    """Superko key of a board with seat ``to_play`` to move (side ignored unless situational)."""
    if state[KO_RULE] == SITUATIONAL and to_play == 1:
        return board_hash ^ WHITE_TO_MOVE_KEY
    return board_hash


# ------------------------------------------------------------------------------ chains
@njit(cache=True, inline="always")
def in_atari(g, root):
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
def add_stone(g, w, p, colour):
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


@njit(cache=True)
def place_stone(g, w, p, colour, removed):
    """Put a ``colour`` stone on empty ``p`` and take off the opponent chains it captures,
    on the grid alone (no hash, ko, prisoners or history): what reading ahead on a scratch
    copy of the grid needs, as ladders do. Returns the root of the stone's chain."""
    root = add_stone(g, w, p, colour)
    for q in (p - 1, p + 1, p - w, p + w):
        if g[STONE, q] == 3 - colour and g[LIBS, g[ROOT, q]] == 0:
            _remove_chain(g, w, g[ROOT, q], removed, 0)
    return root


# ------------------------------------------------------------------------------- moves
@njit(cache=True, inline="always")
def is_legal(state, g, p, colour):
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
        atari = in_atari(g, r)
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
        return not _seen(state, position_key(state, after, 2 - colour))
    return True


@njit(cache=True, inline="always")
def _root_seen_before(g, root, i, n0, n1, n2):
    """Whether one of the first ``i`` neighbours (n0, n1, n2) is a stone of chain ``root``."""
    for j in range(i):
        q = (n0, n1, n2)[j]
        s = g[STONE, q]
        if s != EMPTY and s != BORDER and g[ROOT, q] == root:
            return True
    return False


@njit(cache=True, inline="always")
def _play_stone(state, g, p, colour, removed):
    """Play a legal stone: capture, then (if allowed) remove a suicided chain, update the
    hash, prisoners and the simple-ko ban. Returns the number of stones removed."""
    w = _width(state)
    other = 3 - colour
    root = add_stone(g, w, p, colour)
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
    elif count == 1 and g[COUNT, root] == 1 and in_atari(g, root):
        state[KO_POINT] = g[LSUM, root] // g[LIBS, root]
        state[KO_COLOUR] = other
    return count


@njit(cache=True)
def apply_move(state, action, removed):
    """Play legal ``action`` for the side to move, record it, and end and score the game if
    it is over. Returns the number of stones removed from the board (listed in ``removed``)."""
    return apply_move_on(state, grid(state), action, removed)


@njit(cache=True, inline="always")
def apply_move_on(state, g, action, removed):
    """:func:`apply_move` given the state's :func:`grid` view ``g``: the playouts make the
    view once, since making it costs about as much as a third of a move."""
    n = state[SIZE]
    seat = state[TO_PLAY]
    count = 0
    if action == n * n:
        state[PASSES] += 1
        state[KO_POINT] = 0
    else:
        state[PASSES] = 0
        count = _play_stone(state, g, to_point(state, action), seat + 1, removed)
    state[history_start(state) + state[PLY]] = action * 2 + seat
    state[PLY] += 1
    state[TO_PLAY] = 1 - seat
    if state[KO_RULE] >= POSITIONAL:
        remember(state, position_key(state, state[HASH], 1 - seat))
    if state[PASSES] >= 2 or state[PLY] >= state[MAX_MOVES]:
        score2 = _score2(state)
        state[OUTCOME] = P0_WINS if score2 > 0 else (P1_WINS if score2 < 0 else DRAW)
    return count


# ----------------------------------------------------------------------------- scoring
@njit(cache=True)
def fill_ownership(state, owner):
    """``owner[p]`` for every grid slot: 1 Black's area, 2 White's, 0 neutral or border.

    Area is Tromp-Taylor: stones, and empty regions whose stone neighbours are one colour."""
    g = grid(state)
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
    owner = np.empty(num_slots(state[SIZE]), dtype=np.int64)
    fill_ownership(state, owner)
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
    owner = np.empty(num_slots(state[SIZE]), dtype=np.int64)
    fill_ownership(state, owner)
    for a in range(out.shape[0]):
        o = owner[to_point(state, a)]
        out[a] = 1.0 if o == BLACK else (-1.0 if o == WHITE else 0.0)


def captures(state: np.ndarray) -> tuple[int, int]:
    """Stones captured so far by Black and by White (suicided stones count for the opponent)."""
    return int(state[CAPTURED]), int(state[CAPTURED + 1])


@njit(cache=True, inline="always")
def is_eye(g, w, p, colour):
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
def empty_points(state, g):
    """(empties, where, size): the empty points in ``empties[:size]`` and, for each empty
    point ``p``, its index ``where[p]`` in that list (for playouts)."""
    n = state[SIZE]
    empties = np.empty(n * n, dtype=np.int64)
    where = np.empty(g.shape[1], dtype=np.int64)
    size = 0
    for a in range(n * n):
        p = to_point(state, a)
        if g[STONE, p] == EMPTY:
            empties[size] = p
            where[p] = size
            size += 1
    return empties, where, size


@njit(cache=True, inline="always")
def play_point(state, g, point, empties, where, size, removed):
    """One playout move for the side to move (``g``: the state's :func:`grid`): the stone on
    ``point``, or a pass when it is -1; keeps the empties list of :func:`empty_points` up to
    date and returns its new size."""
    if point < 0:
        apply_move_on(state, g, state[SIZE] * state[SIZE], removed)
        return size
    count = apply_move_on(state, g, to_action(state, point), removed)
    return update_empties(empties, where, size, point, removed, count)


@njit(cache=True, inline="always")
def update_empties(empties, where, size, point, removed, count):
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


@njit(cache=True, inline="always")
def random_move(state, g, w, colour, rng, empties, where, size):
    """A uniformly random legal point among ``empties[:size]`` that is not one of
    ``colour``'s eyes, or -1. Rejected candidates are swapped to the back of the list."""
    k = size
    while k > 0:
        i = below(rng, k)
        p = empties[i]
        if not is_eye(g, w, p, colour) and is_legal(state, g, p, colour):
            return p
        k -= 1
        last = empties[k]
        empties[i], empties[k] = last, p
        where[last], where[p] = i, k
    return -1


@njit(cache=True)
def moves_since(state, start, trace):
    """Write the actions played since ply ``start`` (passes included) into ``trace`` as far
    as it fits; returns the number of plies played since then."""
    plies = state[PLY] - start
    history = history_start(state) + start
    for j in range(min(plies, trace.shape[0])):
        trace[j] = state[history + j] // 2
    return plies

