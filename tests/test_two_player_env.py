"""The two-seat batch for self-play: equal, move by move, to AEC envs given the same moves
(1,000 random games on the small boards), seeding, same-step autoreset, both seats' rewards,
the illegal-action modes and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from boardzoo.envs import make_env
from boardzoo.errors import GameOverError, IllegalActionError, InvalidOptionError
from boardzoo.rl import TwoPlayerVectorEnv
from boardzoo.testing import check_two_player_vector_env

#: (game, options, random games compared with AEC envs)
CONFIGS = [
    ("tictactoe", {}, 1000),
    ("nim", {"heaps": (1, 3, 5, 7), "max_take": None, "misere": True}, 1000),
    ("connect_four", {}, 1000),
    ("othello", {"board_size": 6}, 1000),
    ("go", {"board_size": 5, "ko": "situational"}, 300),
    ("go", {"board_size": 9}, 100),
    ("gomoku", {"board_size": 9}, 100),
    ("chess", {}, 30),
]


@pytest.mark.parametrize(("name", "options", "games"), CONFIGS,
                         ids=[f"{name}-{games}" for name, _, games in CONFIGS])
def test_each_game_plays_what_the_aec_env_plays(name, options, games):
    check_two_player_vector_env(lambda: make_env(name, **options), games)


def _random_run(env, seed, steps):
    """Observations and rewards of ``steps`` masked random steps after ``reset(seed)``."""
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=seed)
    seen = [obs]
    for _ in range(steps):
        actions = [rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]]
        obs, rewards, _, _, info = env.step(actions)
        seen += [obs, rewards]
    return seen


def test_a_seed_repeats_the_openings_and_another_changes_them():
    make = lambda: TwoPlayerVectorEnv("connect_four", 4, opening_plies=6)  # noqa: E731
    first, again, other = (_random_run(make(), seed, 30) for seed in (5, 5, 6))
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not np.array_equal(first[0], other[0])
    per_game = TwoPlayerVectorEnv("connect_four", 4, opening_plies=6)
    obs, _ = per_game.reset(seed=[5, 6, 7, 8])  # one seed per game: game i of seed 5 + i
    assert np.array_equal(obs, first[0])
    with pytest.raises(InvalidOptionError, match="give 4 seeds, got 2"):
        per_game.reset(seed=[1, 2])


def test_a_finished_game_restarts_in_the_same_step_and_both_seats_are_scored():
    env = TwoPlayerVectorEnv("tictactoe", 2)
    obs, info = env.reset()
    assert info["to_play"].tolist() == [0, 0] and info["action_mask"].dtype == np.int8
    for move in (4, 0, 5, 1):  # X: b2, b3; O: a1, b1; X's c2 would win
        obs, rewards, terminations, _, info = env.step([move, move])
        assert not terminations.any() and not rewards.any()
    obs, rewards, terminations, truncations, info = env.step([3, 8])
    assert rewards.tolist() == [[1.0, -1.0], [0.0, 0.0]] and rewards.dtype == np.float32
    assert terminations.tolist() == [True, False] and not truncations.any()
    assert info["to_play"].tolist() == [0, 1]  # game 0 is a new game, X to move
    assert not obs[0].any() and info["action_mask"][0].all()
    assert obs[1].sum() == 5  # the five stones of game 1, from O's view
    assert env.action_masks().dtype == np.bool_
    assert env.action_masks().tolist() == info["action_mask"].astype(bool).tolist()


def test_returned_arrays_are_not_changed_by_later_steps():
    env = TwoPlayerVectorEnv("connect_four", 3)
    obs, info = env.reset()
    kept, mask = obs.copy(), info["action_mask"].copy()
    env.step([3, 3, 3])
    assert np.array_equal(obs, kept) and np.array_equal(info["action_mask"], mask)


@pytest.mark.parametrize(("mode", "other"), [("terminate", 0.0), ("lose", 1.0)])
def test_an_illegal_action_ends_its_game_with_minus_one_for_the_mover(mode, other):
    env = TwoPlayerVectorEnv("connect_four", 2, illegal_action=mode)
    env.reset()
    for _ in range(6):
        env.step([0, 1])
    obs, rewards, terminations, _, info = env.step([0, 7])  # a full column; out of range
    assert rewards.tolist() == [[-1.0, other], [-1.0, other]] and terminations.all()
    assert info["illegal_action"].tolist() == [True, True]
    assert not obs.any() and info["to_play"].tolist() == [0, 0]  # both games restarted


def test_illegal_action_raise_names_the_game_and_plays_nothing():
    env = TwoPlayerVectorEnv("tictactoe", 3, illegal_action="raise")
    obs, _ = env.reset()
    env.step([4, 4, 4])
    with pytest.raises(IllegalActionError, match="^game 1: b2 \\(action 4\\) is not legal"):
        env.step([0, 4, 0])
    obs, rewards, _, _, info = env.step([0, 0, 0])  # nothing was played by the refused step
    assert info["to_play"].tolist() == [0, 0, 0] and (obs.sum(axis=(1, 2, 3)) == 2).all()


def test_flat_observations_and_the_spaces():
    env = TwoPlayerVectorEnv("othello", 5, observation="flat", board_size=6)
    obs, info = env.reset()
    assert obs.shape == (5, 6 * 6 * 3) and env.single_observation_space.contains(obs[0])
    assert env.single_action_space.n == 37 and info["action_mask"].shape == (5, 37)


def test_bad_arguments_say_what_is_allowed():
    with pytest.raises(InvalidOptionError, match="num_envs=0"):
        TwoPlayerVectorEnv("tictactoe", 0)
    with pytest.raises(InvalidOptionError, match="illegal_action"):
        TwoPlayerVectorEnv("tictactoe", illegal_action="ignore")
    with pytest.raises(TypeError, match="unexpected keyword argument 'board';.*did you mean "
                                        "'board_size'"):
        TwoPlayerVectorEnv("go", board=9)
    with pytest.raises(GameOverError, match="reset"):
        TwoPlayerVectorEnv("tictactoe").step([0])


# ------------------------------------------------------------------------------ bench rows
def test_bench_rows_say_so_when_pgx_is_missing(monkeypatch):
    import sys

    from boardzoo.bench.common import QUICK
    from boardzoo.bench.run import plan
    from boardzoo.bench.two_player import bench_two_player_env

    monkeypatch.setitem(sys.modules, "pgx", None)  # import pgx now raises ImportError
    rows = bench_two_player_env("connect_four", QUICK)
    assert [row.figure for row in rows] == ["two-seat env (64 envs)", "two-seat env (1024 envs)"]
    assert all(row.reference is None and row.ratio is None and row.ours > 0 for row in rows)
    assert rows[0].reference_name == "pgx not installed (pip install 'boardzoo[pgx]')"
    assert [row.target for row in rows] == [1.5, 2.0]
    assert plan("nim", QUICK, ["two_player"])[0] == []  # no pgx game to compare with
