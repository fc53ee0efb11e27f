"""A GTP engine (GNU Go) as an arena agent."""

from __future__ import annotations

import pickle

import pytest

from boardzoo.agents import RandomAgent
from boardzoo.agents.gtp import GnuGoAgent, GTPAgent
from boardzoo.arena import play_match
from boardzoo.envs import make_env
from boardzoo.errors import InvalidOptionError
from boardzoo.gtp import find_gnugo

needs_gnugo = pytest.mark.skipif(
    find_gnugo() is None, reason="GNU Go is not installed (apt-get install gnugo)"
)


@needs_gnugo
def test_gnugo_answers_in_a_position_set_up_from_sgf():
    env = make_env("go", board_size=9, komi=6.5, ko="simple")
    env.reset(options={"position": "(;GM[1]SZ[9]KM[6.5]AB[cc][gc]AW[ee];B[dd];W[];B[ef])"})
    agent = GnuGoAgent(level=1)
    try:
        action = agent.act(env)
        assert env.legal_mask()[action]
        env.step(action)
        assert env.legal_mask()[agent.act(env)]
    finally:
        agent.close()


@needs_gnugo
def test_gnugo_beats_random_on_9x9():
    result = play_match(
        "go",
        GnuGoAgent(level=1),
        RandomAgent(0),
        games=2,
        game_options={"board_size": 9},
        opening_plies=0,
    )
    assert result.wins == 2


@needs_gnugo
def test_gnugo_plays_in_arena_worker_processes():
    """The agents travel pickled to the workers: the engine's command line must pickle
    (a closure did not, and --workers 2 against GNU Go failed before the first game)."""
    result = play_match("go", GnuGoAgent(level=1), RandomAgent(0), games=2, workers=2,
                        game_options={"board_size": 7}, opening_plies=0)
    assert result.wins == 2
    fixed = pickle.loads(pickle.dumps(GTPAgent(["gnugo", "--mode", "gtp"])))
    assert fixed._command({"ko": "simple", "suicide": False}) == ["gnugo", "--mode", "gtp"]


def test_gtp_agent_refuses_other_games():
    env = make_env("tictactoe")
    env.reset()
    with pytest.raises(InvalidOptionError, match="Go"):
        GTPAgent(["true"]).act(env)
