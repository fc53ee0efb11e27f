"""Go's move priors (``knowledge.go.prior_kernel``): exact values on an empty board, the
tactical moves they favour, and the searches that read them (PUCT, progressive widening,
RAVE's prior visits)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boardzoo.agents import MCTSAgent
from boardzoo.agents.mcts.tree import ACTION, AMAF_N, AMAF_W
from boardzoo.envs import make_env, make_game
from boardzoo.errors import InvalidOptionError
from boardzoo.knowledge import go as knowledge
from boardzoo.wrappers.model import EnvModel
from tests.test_go_knowledge import position, sgf_of


def priors_and_values(game, state) -> tuple[np.ndarray, np.ndarray]:
    mask = np.zeros(game.num_actions, np.bool_)
    game.legal_mask_kernel(state, mask)
    out, values = np.empty(game.num_actions), np.empty(game.num_actions)
    knowledge.prior_kernel(state, mask, out, values)
    assert out.sum() == pytest.approx(1.0) and not out[~mask].any()
    assert not values[~mask].any() and (np.abs(values) < 1).all()
    return out, values


def priors_of(game, state) -> np.ndarray:
    return priors_and_values(game, state)[0]


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
    # each move's heuristic value: tanh(0.2 * its logit)
    values = priors_and_values(game, state)[1]
    assert knowledge.PRIOR_VALUE_PER_LOGIT == 0.2
    assert values[centre] == 0.0
    assert values[first_line] == pytest.approx(math.tanh(-0.2))
    assert values[second_line] == pytest.approx(math.tanh(-0.06))
    assert values[81] == pytest.approx(math.tanh(-0.6))


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


def test_puct_progressive_widening_and_rave_search_with_the_priors():
    env = make_env("go", board_size=7, komi=7.5)
    env.reset(options={"position": sgf_of(CAPTURE, to_play="B")})
    game, state = position(CAPTURE, to_play="B")
    assert (env.unwrapped.state_array == state).all()
    expected = priors_of(game, state)
    puct = MCTSAgent(simulations=50, selection="puct", seed=0)
    puct.act(env)
    assert puct.last_search.prior == pytest.approx(expected)
    default = MCTSAgent(simulations=50, seed=0)  # RAVE reads them for its prior visits
    default.act(env)
    assert default.last_search.prior == pytest.approx(expected)
    uct = MCTSAgent(simulations=50, rave=False, seed=0)  # UCT: the order of first visits
    uct.act(env)
    assert uct.last_search.prior == pytest.approx(expected)
    widened = MCTSAgent(simulations=3, progressive_widening=True, seed=0)
    widened.act(env)  # the first children tried are the capture's
    assert widened.last_search.visits[3 * 7 + 4] >= 1


def test_rave_prior_visits_start_each_child_at_its_heuristic_value():
    """Under RAVE with prior_visits, an unvisited child's AMAF value is its heuristic value
    (over prior_visits virtual visits), so the capture is the first child tried; without
    them too, since a node's children are tried in prior order."""
    env = make_env("go", board_size=7, komi=7.5)
    env.reset(options={"position": sgf_of(CAPTURE, to_play="B")})
    game, state = position(CAPTURE, to_play="B")
    values = priors_and_values(game, state)[1]
    capture = 3 * 7 + 4
    seeded = MCTSAgent(simulations=2, rave=True, prior_visits=10, exact_solver=False, seed=0)
    seeded.act(env)
    assert seeded.last_search.visits[capture] == 1
    tree = seeded.searcher(EnvModel(env)).tree
    for child in tree.children():
        action = int(tree.ints[child, ACTION])
        if seeded.last_search.visits[action] == 0:  # no playout has touched its AMAF value?
            n, w = tree.floats[child, AMAF_N], tree.floats[child, AMAF_W]
            assert n >= 10 and (n > 10 or w / n == pytest.approx(values[action]))
    plain = MCTSAgent(simulations=2, rave=True, prior_visits=0, exact_solver=False, seed=0)
    plain.act(env)
    assert plain.last_search.visits[capture] == 1
    tree = plain.searcher(EnvModel(env)).tree
    assert all(tree.floats[child, AMAF_N] <= 2 for child in tree.children())  # 2 sims, none virtual


def test_go_searches_with_20_prior_visits_by_default_and_only_under_its_rave():
    """The game's recommendation (measured: 0.65 [0.54, 0.75] over 80 games against none)
    applies where RAVE is as recommended; other games and plain UCT on Go get none."""
    assert MCTSAgent().config_for(make_game("go")).prior_visits == 20.0
    assert MCTSAgent(prior_visits=5).config_for(make_game("go")).prior_visits == 5.0
    assert MCTSAgent(rave=False).config_for(make_game("go")).prior_visits == 0.0
    assert MCTSAgent().config_for(make_game("othello")).prior_visits == 0.0


def test_prior_visits_must_be_a_count():
    with pytest.raises(InvalidOptionError, match="prior_visits=-1"):
        MCTSAgent(prior_visits=-1)
