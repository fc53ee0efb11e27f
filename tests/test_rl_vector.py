"""The compiled vector env: the same games as N single envs, masks that never allow an
illegal move, next-step autoreset, the learner convention, and SB3's VecEnv adapter."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import boardzoo  # noqa: F401 - registers the ids
from boardzoo.errors import IllegalActionError, InvalidOptionError
from boardzoo.rl import BoardVectorEnv, SingleAgentEnv


def masked_random(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (0 for a row with no legal action)."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


@pytest.mark.parametrize(
    ("game", "opponent", "options"),
    [
        ("connect_four", "random", {}),
        ("connect_four", "win_or_block", {}),
        ("tictactoe", "win_or_block", {}),
        ("nim", "random", {"heaps": (3, 4, 5), "max_take": None}),  # no observe kernel
        ("othello", "random", {"board_size": 6}),
        ("tictactoe", "alphabeta:depth=2", {}),  # called per env, not compiled
        ("connect_four", "win_or_block", {"opening_plies": 6}),
        ("tictactoe", "random", {"opening_plies": 8}),  # openings that would end the game
    ],
)
def test_the_vector_env_plays_the_games_of_n_single_envs(game, opponent, options):
    n, seed, steps = 4, 11, 60
    venv = BoardVectorEnv(game, num_envs=n, opponent=opponent, **options)
    singles = [SingleAgentEnv(game, opponent=opponent, **options) for _ in range(n)]
    obs, info = venv.reset(seed=seed)
    single = [env.reset(seed=seed + i) for i, env in enumerate(singles)]
    rng = np.random.default_rng(0)
    finished = np.zeros(n, dtype=bool)
    episodes = 0
    for _ in range(steps):
        np.testing.assert_array_equal(obs, np.stack([o for o, _ in single]))
        masks = np.stack([i["action_mask"] for _, i in single])
        np.testing.assert_array_equal(info["action_mask"], masks)
        np.testing.assert_array_equal(info["seat"], [i["seat"] for _, i in single])
        actions = masked_random(rng, masks)
        obs, rewards, terminated, truncated, info = venv.step(actions)
        for i, env in enumerate(singles):
            if finished[i]:  # next-step autoreset: this step restarted env i
                single[i] = env.reset()
                assert rewards[i] == 0.0 and not terminated[i]
                continue
            o, r, t, _, inf = env.step(int(actions[i]))
            single[i] = (o, inf)
            assert (rewards[i], terminated[i]) == (r, t)
        finished = terminated.copy()
        episodes += int(terminated.sum())
        assert not truncated.any()
    assert episodes >= n  # every env finished at least one game on average


def test_make_vec_builds_the_compiled_env_and_declares_next_step_autoreset():
    venv = gym.make_vec(
        "boardzoo/ConnectFour-v0",
        num_envs=64,
        vectorization_mode="vector_entry_point",
        opponent="random",
    )
    assert isinstance(venv, BoardVectorEnv)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, info = venv.reset(seed=0)
    assert obs.shape == (64, 6, 7, 2) and obs.dtype == np.float32
    assert info["action_mask"].shape == (64, 7) and info["action_mask"].dtype == np.int8
    assert venv.observation_space.contains(obs)
    # the learner moves first in about half of the games: the others show one stone
    stones = obs.sum(axis=(1, 2, 3))
    np.testing.assert_array_equal(stones, info["seat"])


def test_ten_thousand_masked_random_steps_are_never_illegal():
    venv = gym.make_vec("boardzoo/ConnectFour-v0", num_envs=64, opponent="win_or_block")
    obs, info = venv.reset(seed=1)
    rng = np.random.default_rng(1)
    results = []
    for _ in range(10_000 // 64 + 1):
        obs, rewards, terminated, _, info = venv.step(masked_random(rng, venv.action_masks()))
        assert "illegal_action" not in info
        results.extend(rewards[terminated])
    assert len(results) > 300 and -1.0 in results  # win_or_block beats random most often
    assert np.mean(results) < 0


def test_ten_thousand_masked_random_steps_through_subproc_vec_env_are_never_illegal():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # worker processes import boardzoo through the "module:" prefix of the id
    venv = make_vec_env(
        "boardzoo:boardzoo/TicTacToe-v0", n_envs=4, seed=0, vec_env_cls=SubprocVecEnv
    )
    try:
        venv.reset()
        rng = np.random.default_rng(2)
        for _ in range(2_500):
            _, _, dones, infos = venv.step(masked_random(rng, get_action_masks(venv)))
            assert not any(info.get("illegal_action") for info in infos)
    finally:
        venv.close()


def test_random_openings_vary_in_length_and_never_end_the_game():
    """tic-tac-toe with up to 8 random plies: many openings would end the game (a five-ply
    line can win, and the random reply to an 8-ply one fills the board); each game still
    starts in progress with the learner to move, and every stone count from 0 to 8 occurs."""
    venv = BoardVectorEnv("tictactoe", num_envs=400, opening_plies=8, opponent="random")
    obs, info = venv.reset(seed=3)
    stones = obs[..., :2].sum(axis=(1, 2, 3)).astype(int)  # the two sides' mark planes
    legal = info["action_mask"].sum(axis=1)
    assert (legal > 0).all() and (legal + stones == 9).all()
    assert set(stones.tolist()) == set(range(9))
    with pytest.raises(InvalidOptionError, match="opening_plies"):
        BoardVectorEnv("tictactoe", opening_plies=-1)
    with pytest.raises(InvalidOptionError, match="opening_plies"):
        SingleAgentEnv("tictactoe", opening_plies=2.5)


def test_illegal_actions_end_the_episode_or_raise():
    venv = BoardVectorEnv("tictactoe", num_envs=2, seat=0)  # "terminate": -1, no warning
    venv.reset(seed=0)
    obs, rewards, terminated, _, info = venv.step([0, 0])
    obs, rewards, terminated, _, info = venv.step([0, 1])  # env 0 repeats its move
    assert terminated[0] and rewards[0] == -1.0 and info["illegal_action"].tolist()[0]
    assert not info["action_mask"][0].any()
    strict = BoardVectorEnv("tictactoe", num_envs=2, seat=0, illegal_action="raise")
    strict.reset(seed=0)
    strict.step([0, 0])
    with pytest.raises(IllegalActionError, match="not legal"):
        strict.step([0, 1])
    with pytest.raises(InvalidOptionError, match="num_envs"):
        BoardVectorEnv("tictactoe", num_envs=0)


def test_sb3_adapter_resets_in_the_same_step_and_keeps_the_terminal_observation():
    from boardzoo.rl.sb3 import SB3VecEnv

    env = SB3VecEnv(BoardVectorEnv("tictactoe", num_envs=3, seat=0, opponent="win_or_block"))
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, 3, 3, 2) and not obs.any()  # the learner moves first
    rng = np.random.default_rng(0)
    seen_end = False
    for _ in range(30):
        masks = np.stack(env.env_method("action_masks"))
        obs, rewards, dones, infos = env.step(masked_random(rng, masks))
        for i in np.flatnonzero(dones):
            seen_end = True
            terminal = infos[i]["terminal_observation"]
            assert terminal.sum() >= 5  # a finished game shows its stones
            assert not obs[i].any()  # already the next game's first observation
    assert seen_end and env.has_attr("action_masks")


def test_maskable_ppo_trains_on_the_adapter():
    from sb3_contrib import MaskablePPO

    from boardzoo.rl.sb3 import make_sb3_vec_env

    env = make_sb3_vec_env("connect_four", num_envs=4, observation="flat")
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(256)
    assert model.num_timesteps >= 256
