"""Chain and liberty reading on the compiled Go board, shared by the playout policy
(:mod:`.playouts`), the ladder reader (:mod:`.ladders`) and the move priors (:mod:`.priors`):
the last move's point, a chain's liberties before and after a stone, and the big self-atari
test. Points are padded grid slots (:mod:`boardzoo.envs.go_board`); colours BLACK/WHITE.
"""

from __future__ import annotations

from numba import njit

from boardzoo.envs.core import PLY
from boardzoo.envs.go_board import (
    EMPTY,
    LIBS,
    LSUM,
    NEXT,
    ROOT,
    SIZE,
    STONE,
    history_start,
    in_atari,
    to_point,
)


@njit(cache=True, inline="always")
def point_at(state, ply):
    """Padded point of the move at ``ply`` (0 for a pass or before the game)."""
    if ply < 0:
        return 0
    action = state[history_start(state) + ply] // 2
    n = state[SIZE]
    return 0 if action == n * n else to_point(state, action)


@njit(cache=True, inline="always")
def last_point(state):
    """Padded point of the last move, or 0 when there is none or it was a pass."""
    return point_at(state, state[PLY] - 1)


@njit(cache=True, inline="always")
def only_liberty(g, root):
    """The only liberty of a chain in atari (its pseudo-liberties all name it)."""
    return g[LSUM, root] // g[LIBS, root]


@njit(cache=True, inline="always")
def push_candidate(candidates, k, p):
    """Append ``p`` to the ``k`` candidates so far, if there is room; returns the new count."""
    if k < candidates.shape[0]:
        candidates[k] = p
        k += 1
    return k


@njit(cache=True, inline="always")
def attacker_captures(g, w, root, candidates, k):
    """Append the liberties of the opponent chains in atari that touch the chain ``root``."""
    other = 3 - g[STONE, root]
    s = root
    while True:
        for q in (s - 1, s + 1, s - w, s + w):
            if g[STONE, q] == other and in_atari(g, g[ROOT, q]):
                k = push_candidate(candidates, k, only_liberty(g, g[ROOT, q]))
        s = g[NEXT, s]
        if s == root:
            break
    return k


@njit(cache=True, inline="always")
def liberties_after(g, w, p, colour, cap=2):
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
def two_liberties(g, w, root, libs):
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


@njit(cache=True, inline="always")
def is_big_self_atari(g, w, p, colour):
    """Whether a ``colour`` stone on ``p`` joins another stone in a chain left in atari."""
    joins = False
    for q in (p - 1, p + 1, p - w, p + w):
        joins = joins or g[STONE, q] == colour
    return joins and liberties_after(g, w, p, colour) < 2
