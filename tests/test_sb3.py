"""stable-baselines3 models on boardzoo's gym view, and as agents."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import boardzoo  # noqa: F401 - registers the gym ids
from boardzoo.agents import RandomAgent, SB3Agent, make_agent
from boardzoo.arena import play_match
from boardzoo.envs import make_game
from boardzoo.errors import InvalidOptionError

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def maskable_ppo():
    env = gym.make("boardzoo/TicTacToe-v0", opponent="random", seat="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0,
                                    device="cpu")
    model.learn(total_timesteps=128)
    return model


def test_maskable_ppo_trains_on_the_gym_view_and_plays_legal_moves(maskable_ppo):
    agent = SB3Agent(maskable_ppo)
    result = play_match("tictactoe", agent, RandomAgent(0), games=6)
    assert agent.illegal_choices == 0  # the mask reached the model: it never asked for a taken cell
    game = make_game("tictactoe")
    for record in result.records:  # every game the model played replays legally to its end
        final = game.replay(record.opening + record.moves)
        assert game.is_terminal(final) and list(game.returns(final)) == record.returns


def test_a_model_is_a_gym_opponent(maskable_ppo):
    env = gym.make("boardzoo/TicTacToe-v0", opponent=maskable_ppo, seat=1)
    obs, info = env.reset(seed=0)
    assert obs.shape == (3, 3, 2) and info["action_mask"].sum() == 8  # the model moved
    assert np.any(obs[..., 1])


def test_unmasked_models_fall_back_to_the_best_legal_action(maskable_ppo):
    class Stubborn:  # always asks for cell 0
        policy = maskable_ppo.policy

        def predict(self, obs, deterministic=True):
            return np.array(0), None

    agent = SB3Agent(Stubborn())
    result = play_match("tictactoe", agent, RandomAgent(1), games=2)
    assert result.games == 2 and agent.illegal_choices > 0


def test_bad_models_are_refused():
    with pytest.raises(InvalidOptionError, match="stable-baselines3"):
        SB3Agent(object())
    with pytest.raises(InvalidOptionError, match="unknown agent"):
        make_agent("sb4")
