"""Move priors for Go search (the ``priors_fn`` contract of the compiled MCTS loop): one
logit per legal move from the PRIOR_* terms (captures, saving extensions, ladders, 3x3
patterns, nearness to the last move, self-ataris, own-eye fills, the edge), softmaxed into
priors, with each move's heuristic value for RAVE's prior visits. The default is
:func:`ladder_prior_kernel`.

Two-liberty priors (:func:`liberty_prior_kernel`, optional): the ladder priors plus a
bonus for an atari on an opponent chain of two liberties that keeps two of its own, and
for a move that gives an own two-liberty chain three. Not a default: against GNU Go level
10 0.80 over 44 games where the default scored 0.91 on the same openings (9x9, 1 s a
move; benchmarks/results/go-strength.md).

Learned pattern priors (:func:`make_learned_prior_kernel`, optional): the ladder priors
with the pattern term read from a table of one logit per 3x3 pattern
(:func:`.patterns.canonical_codes`: the side to move's view, the 8 symmetries as one) fitted to GNU
Go's moves (``benchmarks.go_fit_patterns``) instead of PRIOR_PATTERN for MoGo's patterns.
Not a default: they predict GNU Go's moves better (top move 27% against 18% on held-out
games) but scored 0.87 over 100 games against GNU Go level 10 where the default scored
0.86 on the same openings (9x9, 1 s a move; benchmarks/results/go-strength.md).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.go_board import (
    COUNT,
    ROOT,
    SIZE,
    STONE,
    grid,
    in_atari,
    is_eye,
    to_point,
)
from boardzoo.errors import CheckpointError
from boardzoo.knowledge.go.ladders import ladder_atari_captures, ladder_escape_fails
from boardzoo.knowledge.go.liberties import (
    is_big_self_atari,
    last_point,
    liberties_after,
    two_liberties,
)
from boardzoo.knowledge.go.patterns import PATTERN_TABLE, neighbourhood_code, pattern_logits

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
    if touches_own_atari and liberties_after(g, w, p, colour) >= 2:
        if ladders and ladder_escape_fails(g, w, p, colour):
            logit += PRIOR_LADDER_ESCAPE
        else:
            logit += PRIOR_SAVE
    if ladders and captured == 0 and ladder_atari_captures(g, w, p, colour):
        logit += PRIOR_LADDER_CAPTURE
    elif liberties and captured == 0:
        logit += _two_liberty_logit(g, w, p, colour, libs)
    if captured == 0 and is_big_self_atari(g, w, p, colour):
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
            atari = two_liberties(g, w, g[ROOT, q], libs)
        elif stone == colour and not own_two:
            own_two = two_liberties(g, w, g[ROOT, q], libs)
    if not (atari or own_two):
        return 0.0
    after = liberties_after(g, w, p, colour, 3)  # once, whichever term asks
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
    last = last_point(state)
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
