"""One conformance suite over every registered game and option set.

The checks are boardzoo.testing's (what ``check_game`` runs on any game, a user's included):
PettingZoo's api_test, Gymnasium's check_env on the single-agent view, pure functions that
never mutate their input, clone/restore independence, determinism under a seed, zero-sum
returns only at the end, observation dtype and shape, non-empty masks while the game runs,
and position text that round-trips. The env shell's own error paths are tested here.
"""

from __future__ import annotations

import warnings

import pytest

from boardzoo.envs import GAMES, make_env
from boardzoo.envs.aec import IllegalActionWarning, UnusedResetOptionWarning
from boardzoo.errors import (
    GameOverError,
    IncompatibleSnapshotError,
    InvalidOptionError,
    InvalidPositionError,
    UnknownGameError,
)
from boardzoo.testing import (
    check_clone_independence,
    check_clone_restore,
    check_compiled_playouts,
    check_determinism,
    check_finished_games,
    check_gymnasium,
    check_illegal_actions,
    check_pettingzoo_api,
    check_random_playouts,
    check_renders,
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
    ("chess", {}, 30),
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


def test_pettingzoo_api_test(config):
    name, options, _ = config
    caught = check_pettingzoo_api(_env_fn(name, options))
    # api_test resets with a dummy option, which we flag; its other warnings are advice for
    # flat observations, while classic games rightly use dict observations with masks
    assert UnusedResetOptionWarning in caught


def test_gymnasium_check_env(config):
    name, options, _ = config
    check_gymnasium(_env_fn(name, options))


def test_random_playouts_keep_the_invariants(config):
    """step never mutates its input; masks non-empty while running; returns zero-sum at the
    end and zero before; position text round-trips along games; observations fit the space."""
    name, options, games = config
    check_random_playouts(_env_fn(name, options), games)


@pytest.mark.parametrize(
    "check",
    [check_compiled_playouts, check_clone_restore, check_clone_independence, check_determinism,
     check_finished_games, check_illegal_actions, check_renders],
    ids=lambda check: check.__name__.removeprefix("check_"),
)
def test_env_promises(config, check):
    name, options, _ = config
    check(_env_fn(name, options))


def _env_fn(name, options):
    return lambda: make_env(name, **options)


def test_an_illegal_action_ends_the_game_as_in_pettingzoo_classic_by_default():
    env = make_env("tictactoe")
    env.reset()
    env.step(4)
    with pytest.warns(IllegalActionWarning, match=r"^player_1 played the illegal action 4: b2 "
                                                  r"\(action 4\) is not legal here; legal "
                                                  r"actions: .*\. The game ends with -1 for "
                                                  r"player_1 and 0 for player_0"):
        env.step(4)  # player_1 plays an occupied cell
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_1"] == {"illegal_action": True}
    seen = {}
    for agent in env.agent_iter():  # both agents leave as after any end
        seen[agent] = env.last()[1]
        env.step(None)
    assert seen == {"player_0": 0.0, "player_1": -1.0}


def test_repr_shows_the_game_its_options_and_the_position_in_its_notation():
    env = make_env("connect_four")
    assert repr(env) == ("<connect_four_v0 env: ConnectFour(rows=6, columns=7), not started: "
                         "call reset()>")
    env.reset(options={"moves": [3, 3, 4]})
    assert repr(env) == ("<connect_four_v0 env: ConnectFour(rows=6, columns=7), ply 3, "
                         f"position {env.position()!r}, player_1 to play>")
    nim = make_env("nim", heaps=(3, 4), illegal_action="lose")
    nim.reset(options={"position": "0,1 1"})
    nim.step(nim.str_to_action("2:1"))
    assert repr(nim) == ("<nim_v0 env: Nim(heaps=(3, 4), max_take=3, misere=False), "
                         "illegal_action='lose', ply 1, position '0,0 0', game over: "
                         "player_1 won>")


def test_a_huge_illegal_action_is_quoted_as_an_excerpt():
    env = make_env("tictactoe")
    env.reset()
    with pytest.warns(IllegalActionWarning) as caught:
        env.step("x" * 10**6)
    message = str(caught[0].message)
    assert len(message) < 1000 and "(1000000 characters)" in message


@pytest.mark.parametrize("options", ["moves", ["moves"], 5])
def test_reset_options_that_are_not_a_dict_are_refused_in_one_line(options):
    env = make_env("connect_four")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "option(s) ['e', 'm', ...] are not used" either
        with pytest.raises(InvalidOptionError, match="reset options must be a dict"):
            env.reset(options=options)


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
        make_env("shogi")
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


def test_human_render_opens_a_pygame_window():
    pytest.importorskip("pygame", reason="render_mode='human' needs pygame-ce")
    env = make_env("connect_four", render_mode="human")  # SDL's dummy video driver in tests
    env.reset()
    env.step(3)
    assert env.render() is None and env._window is not None
    env.close()
    assert env._window is None
