"""Ladders (``knowledge.go.ladder_escape_fails`` / ``ladder_atari_captures``): read out on
textbook shapes with and without a ladder breaker, and what the move priors and the
playouts do with the answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardzoo.envs.go_board import BLACK, WHITE, grid, is_eye, to_point
from boardzoo.knowledge import go as knowledge
from tests.test_go_knowledge import first_moves, position, share

# Black's (4, 5) has just put White's (4, 4) in atari; extending on (5, 4) gives two
# liberties, and Black chases it down and to the left, stair by stair, to the edge.
LADDER = """
    .........
    .........
    .........
    ....X....
    ...XO....
    .....X...
    .........
    .........
    .........
    """
ATARI = ("B", (4, 5))
ESCAPE = 5 * 9 + 4


def with_stone(diagram: str, row: int, col: int, stone: str) -> str:
    rows = diagram.split()
    rows[row] = rows[row][:col] + stone + rows[row][col + 1:]
    return "\n".join(rows)


def point(state: np.ndarray, row: int, col: int) -> int:
    return int(to_point(state, row * 9 + col))


def escape_fails(diagram: str) -> bool:
    _, state = position(diagram, moves=(ATARI,))
    return knowledge.ladder_escape_fails(grid(state), 10, point(state, 5, 4), WHITE)


def test_the_escape_from_a_ladder_fails_without_a_breaker():
    assert escape_fails(LADDER)


@pytest.mark.parametrize("breaker", [(7, 1), (8, 2), (6, 1)])
def test_a_white_stone_on_the_ladders_path_breaks_it(breaker):
    assert not escape_fails(with_stone(LADDER, *breaker, "O"))


def test_a_black_stone_on_the_path_keeps_the_ladder_working():
    assert escape_fails(with_stone(LADDER, 7, 1, "X"))


def test_an_extension_to_three_liberties_is_no_ladder():
    """Without Black's (5, 5) the extension has three liberties."""
    assert not escape_fails(with_stone(LADDER, 5, 5, "."))


def test_an_atari_starts_a_ladder_only_towards_the_side_without_a_breaker():
    """Before Black's atari: from (4, 5) White is chased down-left to the empty edge; from
    (5, 4) up-right into White's (1, 7)."""
    _, state = position(with_stone(LADDER, 1, 7, "O"), to_play="B")
    g = grid(state)
    assert knowledge.ladder_atari_captures(g, 10, point(state, 4, 5), BLACK)
    assert not knowledge.ladder_atari_captures(g, 10, point(state, 5, 4), BLACK)
    quiet = point(state, 6, 6)  # touches no white chain
    assert not knowledge.ladder_atari_captures(g, 10, quiet, BLACK)


def logits(kernel, diagram: str, **kw) -> np.ndarray:
    """The prior logits up to a constant: log of the softmax (the legal moves only)."""
    game, state = position(diagram, **kw)
    mask = np.zeros(game.num_actions, np.bool_)
    game.kernels.legal_mask(state, mask)
    out, values = np.empty(game.num_actions), np.empty(game.num_actions)
    kernel(state, mask, out, values)
    return np.where(mask, np.log(np.where(mask, out, 1.0)), -np.inf)


def test_the_ladder_priors_turn_the_escape_bonus_into_a_penalty():
    quiet = 6 * 9 + 6
    plain = logits(knowledge.prior_kernel, LADDER, moves=(ATARI,))
    ladder = logits(knowledge.ladder_prior_kernel, LADDER, moves=(ATARI,))
    # the escape's logit relative to a quiet point: the saving bonus becomes the penalty
    assert plain[ESCAPE] - plain[quiet] >= knowledge.PRIOR_SAVE
    assert ladder[ESCAPE] - ladder[quiet] == pytest.approx(
        plain[ESCAPE] - plain[quiet] - knowledge.PRIOR_SAVE + knowledge.PRIOR_LADDER_ESCAPE)
    broken = with_stone(LADDER, 7, 1, "O")
    assert logits(knowledge.ladder_prior_kernel, broken, moves=(ATARI,))[ESCAPE] == \
        pytest.approx(logits(knowledge.prior_kernel, broken, moves=(ATARI,))[ESCAPE])


def test_the_ladder_priors_favour_the_atari_that_captures():
    diagram = with_stone(LADDER, 1, 7, "O")
    plain = logits(knowledge.prior_kernel, diagram, to_play="B")
    ladder = logits(knowledge.ladder_prior_kernel, diagram, to_play="B")
    works, fails = 4 * 9 + 5, 5 * 9 + 4
    assert ladder[works] - ladder[fails] == pytest.approx(
        plain[works] - plain[fails] + knowledge.PRIOR_LADDER_CAPTURE)
    assert math.isfinite(ladder[works])


def test_the_ladder_playouts_do_not_run_from_a_working_ladder():
    """The pattern playouts always extend first (their saving step); the ladder playouts
    skip the extension a ladder captures, and extend when a breaker is on the path."""
    game, state = position(LADDER, moves=(ATARI,))
    assert share(first_moves(knowledge.pattern_playout_trace_kernel, game, state), ESCAPE) == 1
    assert share(first_moves(knowledge.ladder_playout_trace_kernel, game, state), ESCAPE) < 0.2
    game, state = position(with_stone(LADDER, 7, 1, "O"), moves=(ATARI,))
    assert share(first_moves(knowledge.ladder_playout_trace_kernel, game, state), ESCAPE) == 1


def _chain_and_liberties(board: np.ndarray, r: int, c: int) -> tuple[set, set]:
    """The chain through (r, c) and its liberties, by flood fill (the test's own reading)."""
    n = board.shape[0]
    colour, chain, liberties, todo = board[r, c], {(r, c)}, set(), [(r, c)]
    while todo:
        y, x = todo.pop()
        for v, u in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= v < n and 0 <= u < n:
                if board[v, u] == 0:
                    liberties.add((v, u))
                elif board[v, u] == colour and (v, u) not in chain:
                    chain.add((v, u))
                    todo.append((v, u))
    return chain, liberties


def two_liberty_terms(game, state) -> dict[int, float]:
    """Each legal board move's two-liberty prior term, read by flood fill: an atari on an
    opponent chain of two liberties that keeps two of its own, an extension of an own chain
    of two liberties to three; none for a capture, a ladder atari or an own-eye fill."""
    board, n = game.cells(state), game.size
    colour = int(game.to_play(state)) + 1
    g = grid(state)
    terms = {}
    for a in np.flatnonzero(game.legal_mask(state)[: n * n]):
        r, c = divmod(int(a), n)
        p = int(to_point(state, a))
        if is_eye(g, n + 1, p, colour):
            continue
        neighbours = [(v, u) for v, u in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                      if 0 <= v < n and 0 <= u < n and board[v, u] != 0]
        liberties = {q: len(_chain_and_liberties(board, *q)[1]) for q in neighbours}
        if any(board[q] != colour and liberties[q] == 1 for q in neighbours):
            continue  # a capture
        if knowledge.ladder_atari_captures(g, n + 1, p, colour):
            continue
        after = board.copy()
        after[r, c] = colour
        own_after = len(_chain_and_liberties(after, r, c)[1])
        atari = any(board[q] != colour and liberties[q] == 2 for q in neighbours)
        extend = any(board[q] == colour and liberties[q] == 2 for q in neighbours)
        terms[int(a)] = (knowledge.PRIOR_ATARI * (atari and own_after >= 2)
                         + knowledge.PRIOR_EXTEND * (extend and own_after >= 3))
    return terms


@pytest.mark.parametrize("seed", range(6))
def test_the_two_liberty_priors_add_exactly_the_flood_filled_terms(seed):
    """On positions of random games, liberty_prior_kernel's logits minus
    ladder_prior_kernel's are the two-liberty terms a flood fill reads (up to the softmax's
    constant), and some of them apply."""
    game, _ = position("\n".join(["." * 9] * 9))
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    applied = 0
    for ply in range(70):
        legal = np.flatnonzero(game.legal_mask(state)[:-1])
        if game.is_terminal(state) or not len(legal):
            break
        state = game.step(state, int(rng.choice(legal)))
        if ply % 10 != 9:
            continue
        mask = game.legal_mask(state)
        out, values = np.empty(game.num_actions), np.empty(game.num_actions)
        knowledge.ladder_prior_kernel(state, mask, out, values)
        before = np.log(np.where(mask, out, 1.0))
        knowledge.liberty_prior_kernel(state, mask, out, values)
        added = np.log(np.where(mask, out, 1.0)) - before
        terms = two_liberty_terms(game, state)
        moves = sorted(terms)
        expected = np.array([terms[a] for a in moves])
        assert np.allclose(added[moves] - expected, added[moves[0]] - expected[0])
        applied += int(np.count_nonzero(expected))
    assert applied >= 5
