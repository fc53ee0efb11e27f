"""Ladders (``knowledge.go.ladder_escape_fails`` / ``ladder_atari_captures``): read out on
textbook shapes with and without a ladder breaker, and what the move priors and the
playouts do with the answer."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardzoo.envs.go_board import BLACK, WHITE, grid, to_point
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
    game.legal_mask_kernel(state, mask)
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
