"""MCTS tries a node's unvisited moves in prior order, equal priors in random order, never in
action order: with action order, a node with fewer visits than moves only ever tried the first
actions, so a Gomoku search answered every move on the top rows (principal variations all
ending in A15, action 0) and missed the opponent's winning reply. Known answers: a four must
be blocked, a five completed, an open three blocked (10,000 simulations); principal
variations are legal lines whose replies are spread over the board."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.agents import MCTSAgent
from boardzoo.envs import go_v0, gomoku_v0
from boardzoo.knowledge import gomoku as knowledge


def gomoku_after(moves: list[str]):
    env = gomoku_v0.env(illegal_action="raise")
    env.reset()
    for move in moves:
        env.step(env.unwrapped.str_to_action(move))
    return env


# White to move; Black's H8-H11 is closed by White's H7: White must take H12.
BLACK_FOUR = ["H8", "H7", "H9", "A1", "H10", "A2", "H11"]
# Black to move with a four of its own (H8-H11, open) and White's A1-A4 four: Black wins.
BOTH_FOURS = ["H8", "A1", "H9", "A2", "H10", "A3", "H11", "A4"]
# White to move against Black's open three H8-H10: only H7 and H11 stop an open four.
OPEN_THREE = ["H8", "A1", "H9", "O15", "H10"]
# A quiet opening (the position of the report: PVs "K8 A15", "L3 A15").
OPENING = ["H8", "J9"]


@pytest.mark.parametrize("seed", range(3))
def test_gomoku_defaults_block_a_four(seed):
    analysis = MCTSAgent(seed=seed).analyse(gomoku_after(BLACK_FOUR))
    assert analysis.move == "H12"


@pytest.mark.parametrize("seed", range(3))
def test_gomoku_defaults_complete_their_own_five_before_blocking(seed):
    assert MCTSAgent(seed=seed).analyse(gomoku_after(BOTH_FOURS)).move in ("H7", "H12")


def test_gomoku_blocks_an_open_three_at_ten_thousand_simulations():
    analysis = MCTSAgent(simulations=10_000, seed=0).analyse(gomoku_after(OPEN_THREE))
    assert analysis.move in ("H7", "H11")


def legal_line(env, line: tuple[str, ...]) -> bool:
    """Whether the moves of ``line`` can be played one after another from ``env``'s position."""
    game = env.unwrapped.game
    state = env.unwrapped.state_array
    for move in line:
        action = game.str_to_action(move)
        if game.is_terminal(state) or not game.legal_mask(state)[action]:
            return False
        state = game.step(state, action)
    return True


def replies(analysis) -> list[str]:
    """The second move of every searched line that has one (the opponent's reply)."""
    return [m.pv[1] for m in analysis.moves if len(m.pv) > 1]


def test_gomoku_principal_variations_are_legal_and_their_replies_spread():
    env = gomoku_after(OPENING)
    analysis = MCTSAgent(simulations=5000, seed=0).analyse(env)
    answered = replies(analysis)
    assert len(answered) >= 20
    assert all(legal_line(env, m.pv) for m in analysis.moves)
    corner = env.unwrapped.action_to_str(0)
    assert answered.count(corner) <= len(answered) // 10  # action order: every one was A15
    assert len(set(answered)) >= len(answered) // 4


@pytest.mark.parametrize("options", [{}, {"selection": "uct"}], ids=["defaults", "uct"])
def test_go_principal_variations_are_legal_and_their_replies_spread(options):
    env = go_v0.env(board_size=9, illegal_action="raise")
    env.reset()
    for move in ("E5", "C3"):
        env.step(env.unwrapped.str_to_action(move))
    analysis = MCTSAgent(simulations=2000, seed=0, **options).analyse(env)
    answered = replies(analysis)
    assert len(answered) >= 10
    assert all(legal_line(env, m.pv) for m in analysis.moves)
    corner = env.unwrapped.action_to_str(0)  # A9
    assert answered.count(corner) <= len(answered) // 10
    assert len(set(answered)) >= 4


def test_gomoku_priors_rank_wins_blocks_fours_and_nearness():
    # Black to move: its H8-H11 four (closed by White's H7) wins on H12; White's A1-A4 four
    # must otherwise be blocked on A5; Black's D4-F4 three makes a four on C4 or G4; White's
    # O13-O15 three would make one on O12; J8 is next to a stone, M2 far from all.
    env = gomoku_after(["H8", "A1", "H9", "A2", "H10", "A3", "H11", "A4", "D4", "H7", "E4",
                        "O15", "F4", "O14", "B10", "O13"])
    game, state = env.unwrapped.game, env.unwrapped.state_array.copy()
    mask = game.legal_mask(state)
    priors, values = np.zeros(game.num_actions), np.ones(game.num_actions)
    knowledge.prior_kernel(state, mask, priors, values)
    weight = {m: priors[game.str_to_action(m)] / priors[game.str_to_action("M2")]
              for m in ("H12", "A5", "G4", "C4", "O12", "J8", "M2")}
    assert weight["H12"] == pytest.approx(knowledge.PRIOR_WIN)
    assert weight["A5"] == pytest.approx(knowledge.PRIOR_BLOCK)
    assert weight["G4"] == weight["C4"] == pytest.approx(knowledge.PRIOR_FOUR)
    assert weight["O12"] == pytest.approx(knowledge.PRIOR_STOP_FOUR)
    assert weight["J8"] == pytest.approx(knowledge.PRIOR_NEAR) and weight["M2"] == 1.0
    assert priors.sum() == pytest.approx(1.0) and not priors[~mask].any() and not values.any()
    assert np.array_equal(state, env.unwrapped.state_array)  # the kernel leaves the state
