"""Go's playout policy, capture/atari-aware (:func:`pattern_playout_kernel`; the default
:func:`ladder_playout_kernel` adds the ladder check of :mod:`.ladders`; without step 3:
:func:`heuristic_playout_kernel`), and its optional steps.

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
``python -m benchmarks.go_strength feature patterns``; benchmarks/results/go-strength.md),
so the default playout is :func:`pattern_playout_kernel` with the ladder check
(:func:`ladder_playout_kernel`); :func:`heuristic_playout_kernel` is steps 1, 2 and 4
only. The optional steps below are each measured on top of the default playout of their
day; their kernels now add them to the ladder playout.

An optional low-liberty step between 2 and 3 (:func:`low_liberty_playout_kernel`, as
Fuego's playouts): when the last move's chain has exactly two liberties, atari it from a
liberty where our stone keeps two; for one of our chains next to the last move with two
liberties, capture an opponent chain in atari touching it or extend to three liberties.
It costs about a quarter of the playout rate on 9x9 (a fifth on 13x13) and has not paid
for that at equal time (0.475 [0.37, 0.58] over 80 games against the default playouts,
9x9, 0.3 s a move; benchmarks/results/go-strength.md), so it is not a default.

Last good reply with forgetting (:func:`reply_playout_trace_kernel`, Baier & Drake 2010):
after the tactical step, the reply that won the last playout that met the same one or
two previous moves; each playout's winner stores its moves as replies, the loser forgets
its stored replies that it played. The tables live in the search's trace buffer (see
:data:`REPLY_OFFSET`), so they last one search. Not a default: 0.475 [0.33, 0.63] over 40
games against the default at x0.89 the simulations (9x9, 0.5 s a move), and against GNU
Go level 10 0.83 over 52 games where the default scored 0.87 on the same openings (9x9,
1 s a move; benchmarks/results/go-strength.md).

Nakade (:func:`nakade_playout_kernel`, as in Pachi's playouts): after the tactical
step, the vital point of an empty region of 3 to :data:`NAKADE_MAX` points next to the
last move, bordered by one colour only (the one point with the most neighbours in the
region: the middle of a straight three, the centre of a pyramid four, bulky five or
rabbity six). Not a default: 0.475 [0.33, 0.63] over 40 games against the default at
about 0.7x the playout rate (9x9, 0.5 s a move; benchmarks/results/go-strength.md).

No move ever fills one of the mover's own eyes (the eye test of :mod:`boardzoo.envs.go_board`)
and every move is legal under the state's ko/superko/suicide rules; the game ends as the
plain playout does (two passes, or ``max_moves``). Only chains near the last move are
examined, so a tactical move costs a few neighbour look-ups.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.core import ONGOING, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.envs.go_board import (
    BLACK,
    EMPTY,
    ROOT,
    SIZE,
    STONE,
    WHITE,
    empty_points,
    grid,
    history_start,
    in_atari,
    is_eye,
    is_legal,
    moves_since,
    num_slots,
    play_point,
    random_move,
)
from boardzoo.knowledge.go.ladders import ladder_escape_fails, runs_into_ladder
from boardzoo.knowledge.go.liberties import (
    attacker_captures,
    is_big_self_atari,
    last_point,
    liberties_after,
    only_liberty,
    point_at,
    push_candidate,
    two_liberties,
)
from boardzoo.knowledge.go.patterns import PATTERN_TABLE, neighbourhood_code
from boardzoo.rng import below

SELF_ATARI_TRIES = 3
"""How many times the random move is redrawn while it is a big self-atari."""


@njit(cache=True)
def _low_liberty_move(state, g, w, colour, rng, candidates, libs):
    """A two-liberty fight next to the last move (Fuego's low-liberty playout step): atari
    the last move's chain when it has two liberties, from a liberty where our stone keeps
    two; or, for one of our chains next to it with two liberties, capture an opponent chain
    in atari touching it or extend to three liberties. -1 when there is none."""
    last = last_point(state)
    if last == 0 or g[STONE, last] != 3 - colour:
        return -1
    k = 0
    if two_liberties(g, w, g[ROOT, last], libs):
        for j in range(2):
            if liberties_after(g, w, libs[j], colour) >= 2:
                k = push_candidate(candidates, k, libs[j])
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and two_liberties(g, w, g[ROOT, q], libs):
            k = attacker_captures(g, w, g[ROOT, q], candidates, k)
            for j in range(2):
                if liberties_after(g, w, libs[j], colour, 3) >= 3:
                    k = push_candidate(candidates, k, libs[j])
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
    prev = point_at(state, ply - 1)
    if prev == 0:
        return -1, -1
    one = (colour - 1) * slots + prev
    prev2 = point_at(state, ply - 2)
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
                    and not is_big_self_atari(g, w, p, colour)):
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
        move = point_at(state, ply)
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
    last = last_point(state)
    if last == 0 or g[STONE, last] != 3 - colour:  # no move, a pass, or a suicide
        return -1
    k = 0
    if in_atari(g, g[ROOT, last]):
        k = push_candidate(candidates, k, only_liberty(g, g[ROOT, last]))
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
            k = attacker_captures(g, w, g[ROOT, q], candidates, k)
    p = _pick_legal(state, g, w, colour, rng, candidates, k)
    if p >= 0:
        return p
    k = 0
    for q in (last - 1, last + 1, last - w, last + w):
        if g[STONE, q] == colour and in_atari(g, g[ROOT, q]):
            liberty = only_liberty(g, g[ROOT, q])
            if liberties_after(g, w, liberty, colour) >= 2 and not (
                    ladders and ladder_escape_fails(g, w, liberty, colour)):
                k = push_candidate(candidates, k, liberty)
    return _pick_legal(state, g, w, colour, rng, candidates, k)


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
    last = last_point(state)
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


@njit(cache=True, inline="always")
def _pattern_move(state, g, w, colour, rng, candidates, table, ladders):
    """A uniformly random legal move among the empty neighbours of the last move that match
    a 3x3 pattern and are neither an own-eye fill nor a big self-atari (with ``ladders``,
    nor an extension into a working ladder); -1 if none."""
    last = last_point(state)
    if last == 0:
        return -1
    k = 0
    for q in (last - w - 1, last - w, last - w + 1, last - 1, last + 1, last + w - 1,
              last + w, last + w + 1):
        if g[STONE, q] == EMPTY and table[neighbourhood_code(g, w, q)]:
            if not is_big_self_atari(g, w, q, colour) and not (
                    ladders and runs_into_ladder(g, w, q, colour)):
                k = push_candidate(candidates, k, q)
    return _pick_legal(state, g, w, colour, rng, candidates, k)


@njit(cache=True, inline="always")
def _policy_random_move(state, g, w, colour, rng, empties, where, size):
    """The game's eye-respecting random move, redrawn up to SELF_ATARI_TRIES times while it
    is a big self-atari."""
    p = -1
    for _ in range(1 + SELF_ATARI_TRIES):
        p = random_move(state, g, w, colour, rng, empties, where, size)
        if p < 0 or not is_big_self_atari(g, w, p, colour):
            return p
    return p


@njit(cache=True)
def heuristic_playout(state, rng, patterns, low_liberties=False, ladders=False,
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
    heuristic_playout(state, rng, False)
    return state[OUTCOME]


@njit(cache=True)
def heuristic_playout_trace_kernel(state, rng, trace):
    """Heuristic playout in place that writes the actions played (passes included) into
    ``trace`` as far as it fits; returns the number of plies played."""
    start = state[PLY]
    heuristic_playout(state, rng, False)
    return moves_since(state, start, trace)


@njit(cache=True)
def pattern_playout_kernel(state, rng):
    """The heuristic playout with its 3x3 pattern step (step 3), in place; returns the
    outcome code."""
    heuristic_playout(state, rng, True)
    return state[OUTCOME]


@njit(cache=True)
def pattern_playout_trace_kernel(state, rng, trace):
    """:func:`pattern_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    heuristic_playout(state, rng, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def ladder_playout_kernel(state, rng):
    """The default playout: the pattern playout whose saving extensions and pattern moves
    skip the extensions a ladder captures, in place; returns the outcome code."""
    heuristic_playout(state, rng, True, False, True)
    return state[OUTCOME]


@njit(cache=True)
def ladder_playout_trace_kernel(state, rng, trace):
    """:func:`ladder_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    heuristic_playout(state, rng, True, False, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def low_liberty_playout_kernel(state, rng):
    """The default (ladder) playout with the low-liberty step before the patterns, in
    place; returns the outcome code."""
    heuristic_playout(state, rng, True, True, True)
    return state[OUTCOME]


@njit(cache=True)
def low_liberty_playout_trace_kernel(state, rng, trace):
    """:func:`low_liberty_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    heuristic_playout(state, rng, True, True, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def nakade_playout_kernel(state, rng):
    """The default (ladder) playout with the nakade step after the tactical step, in place;
    returns the outcome code."""
    heuristic_playout(state, rng, True, False, True, _NO_REPLIES, True)
    return state[OUTCOME]


@njit(cache=True)
def nakade_playout_trace_kernel(state, rng, trace):
    """:func:`nakade_playout_kernel` that records its moves (for RAVE)."""
    start = state[PLY]
    heuristic_playout(state, rng, True, False, True, _NO_REPLIES, True)
    return moves_since(state, start, trace)


@njit(cache=True)
def reply_playout_trace_kernel(state, rng, trace):
    """The default (ladder) playout with the last good replies (LGRF-2, then LGRF-1) after its
    tactical step, learning from its own result; ``trace`` as :data:`REPLY_OFFSET` says.
    Records its moves (for RAVE); returns the plies recorded."""
    start = state[PLY]
    replies = trace[REPLY_OFFSET:]
    heuristic_playout(state, rng, True, False, True, replies)
    _learn_replies(state, start, replies)
    return min(moves_since(state, start, trace[:REPLY_OFFSET]), REPLY_OFFSET)
