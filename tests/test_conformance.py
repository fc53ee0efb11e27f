"""One conformance suite over every registered game and option set.

Checks what every boardzoo env promises: PettingZoo's api_test, Gymnasium's check_env on the
single-agent view, pure functions that never mutate their input, clone/restore independence,
determinism under a seed, zero-sum returns only at the end, observation dtype and shape,
non-empty masks while the game runs, and position text that round-trips.
"""

from __future__ import annotations

import pickle
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import boardzoo
from boardzoo.agents import RandomAgent
from boardzoo.envs import GAMES, make_env
from boardzoo.envs.aec import UnusedResetOptionWarning
from boardzoo.errors import (
    GameOverError,
    IllegalActionError,
    IncompatibleSnapshotError,
    InvalidOptionError,
    InvalidPositionError,
    UnknownGameError,
)

#: (game, options, random games to play through the pure API)
CONFIGS = [
    ("tictactoe", {}, 2000),
    ("nim", {}, 2000),
    ("nim", {"heaps": (1, 3, 5, 7), "max_take": None, "misere": True}, 2000),
    ("nim", {"heaps": (4, 6), "max_take": 2}, 1000),
    ("connect_four", {}, 1000),
    ("connect_four", {"rows": 5, "columns": 4}, 500),
    ("othello", {}, 300),
    ("othello", {"board_size": 6}, 300),
    ("go", {"board_size": 4}, 200),
    ("go", {"board_size": 5, "ko": "simple", "suicide": True, "komi": 0.5}, 200),
    ("go", {"board_size": 7, "ko": "situational", "komi": 6}, 100),
    ("go", {}, 60),
    ("go", {"board_size": 13, "ko": "none", "max_moves": 200}, 20),
    ("go", {"board_size": 19}, 5),
    ("gomoku", {}, 100),
    ("gomoku", {"board_size": 7, "win_length": 4, "exact_five": True}, 300),
]
GAME_NAMES = sorted({name for name, _, _ in CONFIGS})
IDS = [
    f"{name}-{'-'.join(f'{k}={v}' for k, v in opts.items()) or 'default'}"
    for name, opts, _ in CONFIGS
]


@pytest.fixture(params=CONFIGS, ids=IDS)
def config(request):
    return request.param


def test_every_registered_game_is_covered():
    assert GAME_NAMES == sorted(GAMES)


def _random_trajectory(env, rng_seed: int, plies: int | None = None) -> list[int]:
    """Play masked random actions on an AEC env; returns the actions played."""
    agent = RandomAgent(rng_seed)
    actions = []
    for _ in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if plies is not None and len(actions) == plies:
            break
        action = agent.act(env)
        actions.append(action)
        env.step(action)
    return actions


def test_pettingzoo_api_test(config):
    name, options, _ = config
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make_env(name, **options), num_cycles=200)
    # api_test resets with a dummy option, which we flag; its other warnings are advice for
    # flat observations, while classic games rightly use dict observations with masks
    assert UnusedResetOptionWarning in {type(w.message) for w in caught}


def test_gymnasium_check_env(config):
    name, options, _ = config
    gym_id = f"boardzoo/{boardzoo._GYM_NAMES[name]}-v0"
    # check_env steps unmasked random actions, so use the learner convention for illegal ones
    env = gym.make(gym_id, opponent="random", seat="random", illegal_action="lose", **options)
    check_env(env.unwrapped, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    mask = env.unwrapped.action_masks()
    assert mask.dtype == np.bool_ and mask.any()
    np.testing.assert_array_equal(info["action_mask"], mask.astype(np.int8))


def test_random_playouts_keep_the_invariants(config):
    """step never mutates its input; masks non-empty while running; returns zero-sum at the
    end and zero before; position text round-trips; observations fit the space."""
    name, options, games = config
    env = make_env(name, **options)
    game = env.game
    space = env.observation_space("player_0")["observation"]
    rng = np.random.default_rng(0)
    for _ in range(games):
        state = game.initial_state()
        while True:
            returns = game.returns(state)
            mask = game.legal_mask(state)
            if game.is_terminal(state):
                assert returns.sum() == 0 and set(returns.tolist()) <= {-1.0, 0.0, 1.0}
                assert not mask.any()
                break
            assert not returns.any() and mask.any()
            assert game.to_play(state) in (0, 1)
            before = state.copy()
            action = int(rng.choice(np.flatnonzero(mask)))
            after = game.step(state, action)
            np.testing.assert_array_equal(state, before)
            state = after
        _assert_position_round_trip(game, state)
    for seat in (0, 1):
        assert space.contains(game.observe(state, seat))


def _assert_position_round_trip(game, state):
    text = game.position(state)
    parsed = game.parse_position(text)
    assert game.position(parsed) == text
    assert game.to_play(parsed) == game.to_play(state)
    assert game.outcome(parsed) == game.outcome(state)
    np.testing.assert_array_equal(game.legal_mask(parsed), game.legal_mask(state))


def test_positions_round_trip_along_games(config):
    """Round trips at (up to) 40 evenly spaced plies of each game and at its end."""
    name, options, games = config
    env = make_env(name, **options)
    for seed in range(min(20, games)):
        env.reset()
        actions = _random_trajectory(env, seed)
        checked = set(np.linspace(0, len(actions), 40, dtype=int).tolist())
        state = env.game.initial_state()
        for ply, action in enumerate(actions):
            if ply in checked:
                _assert_position_round_trip(env.game, state)
            state = env.game.step(state, action)
        _assert_position_round_trip(env.game, state)


def test_compiled_playout_reaches_a_legal_end(config):
    name, options, _ = config
    from boardzoo.rng import make_rng

    game = make_env(name, **options).game
    outcomes = set()
    rng = make_rng(7)
    for _ in range(200):
        state = game.initial_state()
        outcome = game.playout_kernel(state, rng)
        assert outcome == game.outcome(state) != 0
        outcomes.add(int(outcome))
    assert outcomes <= {1, 2, 3}


def test_traced_playouts_record_the_game_they_played(config):
    """Where a game offers traces (for RAVE), replaying the trace gives the same final state."""
    name, options, _ = config
    from boardzoo.rng import make_rng

    game = make_env(name, **options).game
    if game.playout_trace_kernel is None:
        pytest.skip(f"{name} has no traced playout (RAVE is for games where moves transpose)")
    rng = make_rng(11)
    for _ in range(20):
        state = game.initial_state()
        trace = np.empty(4096, np.int64)
        plies = game.playout_trace_kernel(state, rng, trace)
        assert plies == int(state[2])
        assert game.position(game.replay(trace[:plies].tolist())) == game.position(state)


def test_clone_restore_replays_identically(config):
    name, options, _ = config
    env = make_env(name, **options)
    env.reset(seed=1)
    _random_trajectory(env, rng_seed=5, plies=3)
    snapshot = env.clone_state()
    first = _random_trajectory(env, rng_seed=9)
    first_end = (env.position(), dict(env.rewards))
    env.restore_state(snapshot)
    assert _random_trajectory(env, rng_seed=9) == first
    assert (env.position(), dict(env.rewards)) == first_end
    # a pickled snapshot restores into a fresh env of the same game and plays on the same way
    other = make_env(name, **options)
    other.reset()
    other.restore_state(pickle.loads(pickle.dumps(snapshot)))
    assert _random_trajectory(other, rng_seed=9) == first
    assert (other.position(), dict(other.rewards)) == first_end


def test_clone_is_independent_of_later_play(config):
    name, options, _ = config
    env = make_env(name, **options)
    env.reset()
    snapshot = env.clone_state()
    text = env.position()
    _random_trajectory(env, rng_seed=2)
    env.restore_state(snapshot)
    assert env.position() == text
    assert env.agents == ["player_0", "player_1"] and not any(env.terminations.values())


def _seeded_game(env, seed: int) -> list[tuple]:
    """One game driven by the env's own randomness: reset(seed) seeds the action spaces and
    each move is ``action_space.sample(mask)``. Returns every step as (agent, action,
    observation bytes, mask bytes, rewards) so any hidden state shows up as a difference."""
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        action = None
        if not (termination or truncation):
            action = int(env.action_space(agent).sample(mask=obs["action_mask"]))
        steps.append((agent, action, obs["observation"].tobytes(), obs["action_mask"].tobytes(),
                      tuple(sorted(env.rewards.items()))))
        env.step(action)
    return steps


def test_seeded_games_are_deterministic(config):
    """The same seed replays the same game step for step, in a fresh env and in one that
    played another game first; other seeds play other games (the seed is used)."""
    name, options, _ = config
    fresh = _seeded_game(make_env(name, **options), 42)
    used = make_env(name, **options)
    _seeded_game(used, 7)
    assert _seeded_game(used, 42) == fresh
    others = [_seeded_game(make_env(name, **options), seed) for seed in (1, 2, 3)]
    assert any(other != fresh for other in others)


def test_finished_game_rewards_are_zero_sum_and_agents_leave(config):
    name, options, _ = config
    env = make_env(name, **options)
    env.reset()
    seen = {}
    agent = RandomAgent(0)
    for who in env.agent_iter():
        obs, reward, termination, truncation, _ = env.last()
        if termination or truncation:
            seen[who] = reward
            assert not obs["action_mask"].any()
            env.step(None)
        else:
            assert reward == 0
            env.step(agent.act(env))
    assert env.agents == []
    assert sum(seen.values()) == 0 and set(seen) == {"player_0", "player_1"}
    with pytest.raises(GameOverError):
        env.step(0)


def test_illegal_actions_raise_clear_errors(config):
    name, options, _ = config
    env = make_env(name, **options)
    env.reset()
    num_actions = env.game.num_actions
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(num_actions)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step(1.5)
    illegal = np.flatnonzero(~env.legal_mask())
    if illegal.size:
        with pytest.raises(IllegalActionError, match="legal actions"):
            env.step(int(illegal[0]))
    # nothing changed
    assert env.game.position(env.state_array) == env.game.position(env.game.initial_state())


def test_illegal_action_lose_mode_ends_the_game():
    env = make_env("tictactoe", illegal_action="lose")
    env.reset()
    env.step(4)
    env.step(4)  # player_1 plays an occupied cell
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"illegal_action": True}


def test_step_after_the_end_needs_none():
    env = make_env("tictactoe")
    env.reset(options={"moves": [0, 3, 1, 4, 2]})
    assert env.terminations["player_1"]
    with pytest.raises(GameOverError, match="step\\(None\\)"):
        env.step(5)


def test_foreign_snapshots_are_rejected():
    a, b = make_env("nim", heaps=(5,)), make_env("nim", heaps=(6,))
    a.reset()
    b.reset()
    with pytest.raises(IncompatibleSnapshotError, match="heaps"):
        b.restore_state(a.clone_state())
    with pytest.raises(IncompatibleSnapshotError, match="tictactoe"):
        make_env("tictactoe").restore_state(a.clone_state())
    with pytest.raises(IncompatibleSnapshotError, match="EnvSnapshot"):
        a.restore_state({"board": [1, 2]})


def test_bad_options_and_names_raise_clear_errors():
    with pytest.raises(UnknownGameError, match="tictactoe"):
        make_env("chess")
    with pytest.raises(InvalidOptionError, match="render_mode"):
        make_env("tictactoe", render_mode="svg")
    with pytest.raises(InvalidOptionError, match="illegal_action"):
        make_env("tictactoe", illegal_action="ignore")
    with pytest.raises(InvalidOptionError, match="size"):
        make_env("tictactoe", size=4)
    env = make_env("tictactoe")
    with pytest.warns(UnusedResetOptionWarning, match="fen"):
        env.reset(options={"fen": "x"})
    with pytest.raises(InvalidPositionError, match="move 2"):
        env.reset(options={"moves": [4, 4]})


@pytest.mark.parametrize("mode", ["ansi", "rgb_array"])
def test_renders(config, mode):
    name, options, _ = config
    env = make_env(name, render_mode=mode, **options)
    env.reset()
    _random_trajectory(env, rng_seed=0, plies=2)
    frame = env.render()
    if mode == "ansi":
        assert isinstance(frame, str) and "to move" in frame
    else:
        assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_human_render_opens_a_pygame_window():
    pytest.importorskip("pygame", reason="render_mode='human' needs pygame-ce")
    env = make_env("connect_four", render_mode="human")  # SDL's dummy video driver in tests
    env.reset()
    env.step(3)
    assert env.render() is None and env._window is not None
    env.close()
    assert env._window is None
