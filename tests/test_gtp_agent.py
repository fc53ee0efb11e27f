"""A GTP engine (GNU Go) as an arena agent."""

from __future__ import annotations

import pickle
import sys

import pytest

from boardzoo.agents import RandomAgent
from boardzoo.arena import play_match
from boardzoo.envs import make_env
from boardzoo.errors import InvalidOptionError
from boardzoo.gtp import GnuGoAgent, GTPAgent, GtpError, find_gnugo

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


# A stand-in GTP engine that answers every command with "=" and genmove with D4, except that
# it dies (exit code 139, as a segfault) at a genmove while the file named in argv[1] holds a
# positive count, which each death lowers by one.
CRASHING_ENGINE = """
import pathlib, sys
deaths = pathlib.Path(sys.argv[1])
for line in sys.stdin:
    command = line.split()[0] if line.split() else ""
    if command == "genmove" and int(deaths.read_text()) > 0:
        deaths.write_text(str(int(deaths.read_text()) - 1))
        sys.exit(139)
    print("= D4\\n" if command == "genmove" else "=\\n", flush=True)
    if command == "quit":
        break
"""


def crashing_agent(tmp_path, deaths: int) -> tuple[GTPAgent, object]:
    script, count = tmp_path / "engine.py", tmp_path / "deaths"
    script.write_text(CRASHING_ENGINE)
    count.write_text(str(deaths))
    return GTPAgent([sys.executable, str(script), str(count)], timeout=20), count


def test_an_engine_that_dies_during_a_move_is_restarted_once_and_plays(tmp_path):
    env = make_env("go", board_size=9)
    env.reset()
    agent, count = crashing_agent(tmp_path, deaths=1)
    try:
        assert env.game.action_to_str(agent.act(env)) == "D4"
        assert count.read_text() == "0"
    finally:
        agent.close()


def test_an_engine_that_dies_again_after_the_restart_is_an_error(tmp_path):
    env = make_env("go", board_size=9)
    env.reset()
    agent, count = crashing_agent(tmp_path, deaths=2)
    try:
        with pytest.raises(GtpError, match=r"died again after a restart in the same "
                           r"position, \(;GM\[1\]") as raised:
            agent.act(env)
        assert raised.value.engine_exited and count.read_text() == "0"
    finally:
        agent.close()


def test_an_engine_s_error_reply_is_not_retried():
    env = make_env("go", board_size=9)
    env.reset()
    agent = GTPAgent([sys.executable, "-c", "import sys\nfor line in sys.stdin:\n"
                      "    print('? unknown command\\n', flush=True)"], timeout=20)
    try:
        with pytest.raises(GtpError, match="unknown command") as raised:
            agent.act(env)
        assert not raised.value.engine_exited
    finally:
        agent.close()
