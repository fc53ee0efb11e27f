"""Go's move priors (``knowledge.go.prior_kernel``): exact values on an empty board, the
tactical moves they favour, and the searches that read them (PUCT, progressive widening)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardzoo.agents import MCTSAgent
from boardzoo.envs import make_env
from boardzoo.knowledge import go as knowledge
from tests.test_go_knowledge import position, sgf_of


def priors_of(game, state) -> np.ndarray:
    mask = np.zeros(game.num_actions, np.bool_)
    game.legal_mask_kernel(state, mask)
    out, values = np.empty(game.num_actions), np.empty(game.num_actions)
    knowledge.prior_kernel(state, mask, out, values)
    assert out.sum() == pytest.approx(1.0) and not out[~mask].any() and not values.any()
    return out


def test_an_empty_board_favours_the_centre_over_the_edges_and_a_pass_least():
    game, state = position("\n".join(["." * 9] * 9), to_play="B")
    priors = priors_of(game, state)
    centre, first_line, second_line, corner = 4 * 9 + 4, 0 * 9 + 4, 1 * 9 + 4, 0
    # no stones: only the line terms (first line -1.0, second -0.3) and the pass (-3.0)
    assert priors[centre] / priors[first_line] == pytest.approx(math.exp(1.0))
    assert priors[centre] / priors[second_line] == pytest.approx(math.exp(0.3))
    assert priors[corner] == pytest.approx(priors[first_line])
    assert priors[centre] / priors[81] == pytest.approx(math.exp(3.0))
    # 5x5 points off the two outer lines, 56 on the second line or the edge, then the pass
    z = 25 + 24 * math.exp(-0.3) + 32 * math.exp(-1.0) + math.exp(-3.0)
    assert priors[centre] == pytest.approx(1 / z)


CAPTURE = """
    .......
    ...X...
    ..XOX..
    ..XO...
    ...X...
    .......
    .......
    """


def test_a_capture_is_the_most_likely_move_and_an_own_eye_fill_the_least():
    """White's two stones have one liberty (row 3, col 4): Black's capture there outweighs
    any quiet move by at least PRIOR_CAPTURE; after it, filling Black's own eye is below
    every other move."""
    game, state = position(CAPTURE, to_play="B")
    priors = priors_of(game, state)
    capture = 3 * 7 + 4
    assert int(np.argmax(priors)) == capture
    quiet = 5 * 7 + 3  # third line, far from the fight, no pattern
    assert priors[capture] / priors[quiet] >= math.exp(knowledge.PRIOR_CAPTURE)
    game, state = position("""
        .X.....
        X.X....
        .X.....
        .......
        .......
        .......
        .......
        """, to_play="B")
    priors = priors_of(game, state)
    eye = 1 * 7 + 1
    board = [a for a in range(49) if priors[a] > 0]
    assert priors[eye] == min(priors[a] for a in board)


def test_white_saves_its_chain_in_atari_by_extending():
    """The same White chain, White to move: extending at its liberty (to three liberties)
    is the most likely move."""
    game, state = position(CAPTURE, to_play="W")
    priors = priors_of(game, state)
    assert int(np.argmax(priors)) == 3 * 7 + 4


def test_puct_and_progressive_widening_search_with_the_priors():
    env = make_env("go", board_size=7, komi=7.5)
    env.reset(options={"position": sgf_of(CAPTURE, to_play="B")})
    game, state = position(CAPTURE, to_play="B")
    assert (env.unwrapped.state_array == state).all()
    expected = priors_of(game, state)
    puct = MCTSAgent(simulations=50, selection="puct", seed=0)
    puct.act(env)
    assert puct.last_search.prior == pytest.approx(expected)
    uct = MCTSAgent(simulations=50, seed=0)  # UCT reads no priors: uniform ones
    uct.act(env)
    legal = expected > 0
    assert uct.last_search.prior[legal] == pytest.approx(1 / legal.sum())
    widened = MCTSAgent(simulations=3, progressive_widening=True, seed=0)
    widened.act(env)  # the first children tried are the capture's
    assert widened.last_search.visits[3 * 7 + 4] >= 1
