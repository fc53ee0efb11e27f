"""MCTS tries a node's unvisited moves in prior order, equal priors in random order, never in
action order: with action order, a node with fewer visits than moves only ever tried the first
actions, so a Gomoku search answered every move on the top rows (principal variations all
ending in A15, action 0) and missed the opponent's winning reply. Known answers: principal
variations are legal lines whose replies are spread over the board."""

from __future__ import annotations

import pytest

from boardzoo.agents import MCTSAgent
from boardzoo.envs import go_v0, gomoku_v0


def gomoku_after(moves: list[str]):
    env = gomoku_v0.env(illegal_action="raise")
    env.reset()
    for move in moves:
        env.step(env.unwrapped.str_to_action(move))
    return env


# A quiet opening (the position of the report: PVs "K8 A15", "L3 A15").
OPENING = ["H8", "J9"]


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
