"""register_game and check_game: a game written in one file (tests/connect_three.py) joins
boardzoo with one register_game line and passes the conformance checks; broken games fail."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest

from boardzoo.agents import RandomAgent
from boardzoo.arena import play_match
from boardzoo.envs import (
    GAMES,
    BoardGameEnv,
    gym_id,
    make_env,
    make_game,
    pettingzoo_id,
    register_game,
    unregister_game,
)
from boardzoo.envs.core import P0_WINS
from boardzoo.envs.registry import HAS_PETTINGZOO_REGISTRY
from boardzoo.envs.tictactoe import TicTacToe
from boardzoo.errors import InvalidOptionError, UnknownGameError
from boardzoo.testing import ConformanceError, check_game, check_gymnasium
from tests.connect_three import ConnectThree


@pytest.fixture
def connect_three():
    register_game(ConnectThree)  # the one line that makes the game known everywhere
    yield "connect_three"
    unregister_game("connect_three")
    assert "connect_three" not in GAMES and "boardzoo/ConnectThree-v0" not in gym.registry
    if HAS_PETTINGZOO_REGISTRY:
        assert "boardzoo/connect_three-v0" not in pettingzoo.aec_registry  # PettingZoo's key


def test_boardzoo_games_are_registered_under_the_design_names():
    assert list(GAMES) == ["tictactoe", "nim", "connect_four", "othello", "go", "gomoku",
                           "chess"]
    assert [gym_id(name) for name in GAMES] == [
        f"boardzoo/{n}-v0"
        for n in ("TicTacToe", "Nim", "ConnectFour", "Othello", "Go", "Gomoku", "Chess")
    ]
    for name in GAMES:
        assert gym.spec(gym_id(name)).kwargs == {"game": name}
        if HAS_PETTINGZOO_REGISTRY:
            assert pettingzoo.spec("aec", pettingzoo_id(name)).kwargs == {"name": name}


def test_a_registered_toy_game_is_known_everywhere_and_conforms(connect_three):
    report = check_game(connect_three, games=300)
    assert report.checks[-3:] == ["pettingzoo_api", "gymnasium", "two_player_vector_env"]
    assert len(report.checks) == 11
    # the rules as written: three in a column wins for the side that completes it
    game = make_game(connect_three)
    state = game.replay(["1", "2", "1", "2", "1"])
    assert game.outcome(state) == P0_WINS and game.position(state) == "12121"
    assert game.outcome(game.replay(["1", "2", "3", "4"])) == 0  # no line yet
    # every entry point finds it by name
    assert make_env(connect_three).game.num_actions == 4
    if HAS_PETTINGZOO_REGISTRY:
        pz_env = pettingzoo.make("aec", "boardzoo/connect_three_v0")
        pz_env.reset()
        assert pz_env.unwrapped.game.name == connect_three
    obs, info = gym.make("boardzoo/ConnectThree-v0", opponent="random").reset(seed=0)
    assert obs.shape == (4, 4, 2)
    result = play_match(connect_three, RandomAgent(0), RandomAgent(1), games=4)
    assert len(result.records) == 4


def test_check_game_catches_a_step_that_mutates_its_input():
    class LeakyConnectThree(ConnectThree):
        name = "leaky_connect_three"

        def step(self, state: np.ndarray, action: int) -> np.ndarray:
            self.kernels.apply(state, action)  # in place: the pure API's promise broken
            return state

    with pytest.raises(ConformanceError, match="random_playouts: step mutated its input"):
        check_game(LeakyConnectThree)


def test_check_game_catches_positions_that_do_not_round_trip():
    class Forgetful(ConnectThree):
        name = "forgetful"

        def position(self, state: np.ndarray) -> str:
            return super().position(state)[1:]  # drops the first move

    with pytest.raises(ConformanceError, match="random_playouts: position .* parses back"):
        check_game(Forgetful)


def test_the_gym_check_needs_a_registered_game():
    with pytest.raises(ConformanceError, match=r"register_game\(ConnectThree\)"):
        check_gymnasium(lambda: BoardGameEnv(ConnectThree()))


def test_register_game_rejects_what_it_cannot_register(connect_three):
    register_game(ConnectThree)  # the same class again: fine
    assert GAMES[connect_three] is ConnectThree

    class Impostor(ConnectThree):
        name = "tictactoe"

    with pytest.raises(InvalidOptionError, match="taken by boardzoo.envs.tictactoe.TicTacToe"):
        register_game(Impostor)
    assert GAMES["tictactoe"] is TicTacToe
    with pytest.raises(InvalidOptionError, match="subclass of boardzoo.envs.Game"):
        register_game(dict)

    class Shouting(ConnectThree):
        name = "Shouting Game"

    with pytest.raises(InvalidOptionError, match="lower-case identifier"):
        register_game(Shouting)
    with pytest.raises(UnknownGameError, match="shogi"):
        unregister_game("shogi")
