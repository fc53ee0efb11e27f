"""The single-agent gym view: conformance for every id and opponent, the learner's reward
perspective, the learner convention for illegal actions, masks through wrappers, and the
compiled opponents' tactics."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import boardzoo  # noqa: F401 - registers the ids
from boardzoo.agents import AlphaBetaAgent, RandomAgent
from boardzoo.arena import play_match
from boardzoo.envs import GAMES, gym_id
from boardzoo.envs.registry import HAS_PETTINGZOO_REGISTRY
from boardzoo.errors import GameOverError, IllegalActionError, InvalidOptionError
from boardzoo.rl import BoardVectorEnv, CompiledOpponent, SingleAgentEnv, resolve_opponent

GYM_IDS = [gym_id(name) for name in GAMES]
#: SB3's checker calls any 3-D Box an image and advises uint8 and >= 36x36; boards are not
#: images (use MlpPolicy, the flat format, or boardzoo's BoardCNN), so that advice is expected
SB3_IMAGE_ADVICE = ("is an image but", "minimal resolution for an image")
OPPONENTS = [
    "random",
    "win_or_block",
    {"name": "alphabeta", "depth": 2},
    "mcts:simulations=16",
    "alphazero:checkpoint=tictactoe,simulations=8",  # the shipped networks as opponents
    "ppo:checkpoint=tictactoe",
    RandomAgent(0),
]


def sb3_check_quietly(env) -> None:
    """SB3's check_env, failing on any warning other than the image advice."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(env)
    unexpected = [w for w in caught if not any(a in str(w.message) for a in SB3_IMAGE_ADVICE)]
    assert not unexpected, [str(w.message) for w in unexpected]


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_check_env_passes_for_every_id_with_defaults(gym_id):
    env = gym.make(gym_id)
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_quietly(env.unwrapped)
    sb3_check_quietly(gym.make(gym_id, observation="flat").unwrapped)


@pytest.mark.parametrize("opponent", OPPONENTS, ids=lambda o: str(o)[:24])
def test_check_env_passes_for_every_opponent_type(opponent):
    env = gym.make("boardzoo/TicTacToe-v0", opponent=opponent)
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_quietly(env.unwrapped)


def _play(env, actions):
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
    return obs, reward, terminated, info


# X X .     the learner (X, seat 0) to move; O threatens the middle row
# O O .
# . . .
XX_OO = {"moves": [0, 3, 1, 4]}


def test_the_learner_gets_its_own_win():
    env = SingleAgentEnv("tictactoe", opponent="win_or_block", seat=0)
    env.reset(seed=0, options=XX_OO)
    obs, reward, terminated, info = _play(env, [2])
    assert terminated and reward == 1.0 and "illegal_action" not in info
    assert obs[0, :, 0].tolist() == [1, 1, 1]  # the learner's own marks in plane 0


def test_the_learner_gets_minus_one_when_the_opponents_reply_wins():
    """PettingZoo #1147: a wrapper that reads the reward of the agent who moved last hands the
    learner +1 for the opponent's winning reply. Here the learner must get -1."""
    env = SingleAgentEnv("tictactoe", opponent="win_or_block", seat=0)
    env.reset(seed=0, options=XX_OO)
    obs, reward, terminated, info = _play(env, [8])  # ignores its own win and the threat
    assert terminated and reward == -1.0
    assert obs[1, :, 1].tolist() == [1, 1, 1]  # the opponent's row, in the opponent plane
    assert env.aec_env.rewards == {"player_0": -1.0, "player_1": 1.0}


class _Scripted:
    """Plays the given actions in order (for positions drawn by hand)."""

    def __init__(self, actions):
        self.actions = list(actions)

    def act(self, env):
        return self.actions.pop(0)


def test_seat_one_learner_wins_and_loses_with_the_right_sign():
    # X (opponent) plays 0, 8, 2; O (learner) plays 4, 1, 7: O completes the middle column
    env = SingleAgentEnv("tictactoe", opponent=_Scripted([0, 8, 2]), seat=1)
    obs, _ = env.reset(seed=0)
    assert obs[0, 0, 1] == 1 and obs[..., 0].sum() == 0  # X's corner is the opponent's
    obs, reward, terminated, _ = _play(env, [4, 1])
    assert not terminated
    obs, reward, terminated, _ = _play(env, [7])
    assert terminated and reward == 1.0
    # X (opponent) plays 0, 1, 2 and wins on its third move: the learner (O) gets -1
    env = SingleAgentEnv("tictactoe", opponent=_Scripted([0, 1, 2]), seat=1)
    env.reset(seed=0)
    obs, reward, terminated, _ = _play(env, [4, 8])
    assert terminated and reward == -1.0


def test_an_illegal_action_ends_the_episode_with_minus_one():
    env = gym.make("boardzoo/ConnectFour-v0", seat=0)
    env.reset(seed=1, options={"moves": [0] * 6})  # column 0 is full
    obs, reward, terminated, truncated, info = env.step(0)
    assert terminated and not truncated and reward == -1.0 and info["illegal_action"] is True
    assert not info["action_mask"].any() and not env.unwrapped.action_masks().any()
    with pytest.raises(GameOverError):
        env.step(1)


def test_illegal_action_raise_is_the_debugging_option():
    env = gym.make("boardzoo/TicTacToe-v0", seat=0, illegal_action="raise")
    env.reset(seed=0, options={"moves": [4, 0]})
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(4)
    with pytest.raises(InvalidOptionError, match="illegal_action"):
        gym.make("boardzoo/TicTacToe-v0", illegal_action="ignore")


def test_action_masks_reach_through_wrappers_and_sb3():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.env_util import make_vec_env

    env = gym.wrappers.RecordEpisodeStatistics(gym.make("boardzoo/Othello-v0", seat=0))
    obs, info = env.reset(seed=0)
    mask = get_action_masks(env)
    assert is_masking_supported(env) and mask.dtype == np.bool_
    assert sorted(np.flatnonzero(mask)) == [19, 26, 37, 44]  # d3 c4 f5 e6 for black
    np.testing.assert_array_equal(info["action_mask"], mask.astype(np.int8))
    venv = make_vec_env("boardzoo/TicTacToe-v0", n_envs=2, seed=0)
    assert is_masking_supported(venv) and get_action_masks(venv).shape == (2, 9)


def test_flat_observations_are_the_planes_in_c_order():
    planes = gym.make("boardzoo/ConnectFour-v0", seat=1)
    flat = gym.make("boardzoo/ConnectFour-v0", seat=1, observation="flat")
    a, _ = planes.reset(seed=5)
    b, _ = flat.reset(seed=5)
    assert b.shape == (84,) and b.dtype == np.float32
    np.testing.assert_array_equal(a.reshape(-1), b)
    with pytest.raises(InvalidOptionError, match="observation"):
        gym.make("boardzoo/ConnectFour-v0", observation="rgb")


def test_the_same_seed_gives_the_same_seats_and_games():
    def episode(seed):
        env = gym.make("boardzoo/ConnectFour-v0", opponent="win_or_block")
        obs, info = env.reset(seed=seed)
        seats, boards = [info["seat"]], [obs]
        rng = np.random.default_rng(seed)
        for _ in range(200):
            action = rng.choice(np.flatnonzero(info["action_mask"]))
            obs, _, terminated, _, info = env.step(action)
            boards.append(obs)
            if terminated:
                obs, info = env.reset()
                seats.append(info["seat"])
        return seats, np.array(boards)

    seats, boards = episode(3)
    again_seats, again_boards = episode(3)
    assert seats == again_seats and len(set(seats)) == 2
    np.testing.assert_array_equal(boards, again_boards)


@pytest.mark.parametrize(
    ("game", "options", "moves", "expected"),
    [
        # X to move (win_or_block plays X): X X . / O O . / . . . -> X wins at 2
        ("tictactoe", {}, [0, 3, 1, 4], {2}),
        # O to move: O must block X's top row at 2 (no win of its own)
        ("tictactoe", {}, [0, 4, 1], {2}),
        # Connect Four, second player to move: the first has columns 0-2 of the bottom row
        ("connect_four", {}, [0, 0, 1, 1, 2], {3}),
        # first player to move with three in column 3: it wins there
        ("connect_four", {}, [3, 0, 3, 0, 3, 1], {3}),
    ],
)
def test_win_or_block_wins_and_blocks(game, options, moves, expected):
    from boardzoo.envs import make_env

    env = make_env(game, **options)
    env.reset(options={"moves": moves})
    opponent = CompiledOpponent("win_or_block", seed=0)
    assert {opponent.act(env) for _ in range(20)} <= expected


def test_win_or_block_beats_random_and_loses_to_search():
    wob = CompiledOpponent("win_or_block", seed=1)
    versus_random = play_match("connect_four", wob, RandomAgent(2), games=20, seed=0)
    assert versus_random.score >= 0.85
    versus_search = play_match("tictactoe", wob, AlphaBetaAgent(), games=10, opening_plies=0)
    assert versus_search.wins == 0


def test_opponent_specs_resolve_to_agents():
    assert isinstance(resolve_opponent("random"), CompiledOpponent)
    assert isinstance(resolve_opponent({"name": "win_or_block"}), CompiledOpponent)
    assert isinstance(resolve_opponent("alphabeta:depth=2"), AlphaBetaAgent)
    with pytest.raises(InvalidOptionError, match="not usable"):
        resolve_opponent(3.5)
    with pytest.raises(InvalidOptionError, match="seat"):
        gym.make("boardzoo/TicTacToe-v0", seat=2)


@pytest.mark.parametrize(("opponent", "message"), [
    ("alphazero:checkpoint=tictactoe", r"plays TicTacToe\(\), not ConnectFour"),
    ("alphazero", r"no shipped AlphaZero network for ConnectFour\(rows=5"),
    ("ppo:checkpoint=tictactoe", r"takes observations of shape \(18,\)"),
])
def test_an_opponent_that_cannot_play_the_game_is_refused_when_the_env_is_made(
        opponent, message):
    """Not at the first step: the single-agent and the vector env both check it."""
    with pytest.raises(InvalidOptionError, match=message):
        gym.make("boardzoo/ConnectFour-v0", rows=5, opponent=opponent)
    with pytest.raises(InvalidOptionError, match=message):
        BoardVectorEnv("connect_four", 2, opponent=opponent, rows=5)
    assert gym.make("boardzoo/ConnectFour-v0", opponent="alphazero").reset(seed=0)


@pytest.mark.skipif(not HAS_PETTINGZOO_REGISTRY, reason="this PettingZoo has no registry (< 1.27)")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_pettingzoo_parallel_api_through_the_turn_based_conversion(game):
    from pettingzoo.test import parallel_api_test

    from boardzoo.envs.aec import UnusedResetOptionWarning

    env = pettingzoo.make("parallel", f"boardzoo/{game}_v0")
    with warnings.catch_warnings():  # the api test resets with a dummy option, which we flag
        warnings.simplefilter("ignore", UnusedResetOptionWarning)
        parallel_api_test(env, num_cycles=50)
