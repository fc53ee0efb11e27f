"""boardzoo.classic against pettingzoo.classic: the same env, step by step.

Each drop-in and PettingZoo's own env play the same seeded random games in lockstep (illegal
moves included), and every ``last()`` must be equal: observation and mask arrays with their
dtype, the reward with its type, terminations, truncations, and the selected agent and the
``board``. PettingZoo's api_test, seed_test and render_test run on each.
"""

from __future__ import annotations

import importlib
import itertools
import re
import warnings

import numpy as np
import pytest
from PIL import Image

from boardzoo import classic
from boardzoo.envs.registry import HAS_PETTINGZOO_REGISTRY
from boardzoo.errors import InvalidOptionError
from boardzoo.wrappers.model import EnvModel

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pettingzoo.test import api_test, render_test, seed_test

# module, options, random games
CASES = [
    ("connect_four_v3", {}, 200),
    ("tictactoe_v3", {}, 300),
    ("go_v5", {"board_size": 9}, 4),
    ("go_v5", {}, 2),  # 19x19: a game is about 600 plies
    ("chess_v6", {}, 16),  # about 300 plies a game; PettingZoo's chess is slow
]
IDS = ["connect_four", "tictactoe", "go_9x9", "go_19x19", "chess"]


def theirs(name: str, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(f"pettingzoo.classic.{name}").env(**options)


def assert_same_last(ours, pz, where) -> None:
    assert ours.agent_selection == pz.agent_selection, where
    mine, want = ours.last(), pz.last()
    for key in ("observation", "action_mask"):
        a, b = mine[0][key], want[0][key]
        assert a.dtype == b.dtype and np.array_equal(a, b), (where, key)
    assert mine[1] == want[1] and type(mine[1]) is type(want[1]), (where, mine[1], want[1])
    assert mine[2:4] == want[2:4], where
    assert sorted(ours.agents) == sorted(pz.agents), where


def assert_same_board(name, ours, pz, where) -> None:
    if name == "connect_four_v3":
        assert ours.env.board == pz.env.board, where  # AgileRL reads env.env.board
    elif name == "tictactoe_v3":
        assert ours.unwrapped.board.squares == pz.unwrapped.board.squares, where
    elif name == "chess_v6":
        board, want = ours.unwrapped.board, pz.unwrapped.board
        assert board.fen() == want.fen() and board.is_repetition(2) == want.is_repetition(2), where


def play_in_lockstep(name, options, games, illegal_every=0, action_type=int):
    """Random games; with ``illegal_every`` = k, every k-th game has one masked-out (illegal)
    action at a random ply, which PettingZoo's TerminateIllegalWrapper ends the game on.
    Actions are of ``action_type`` (numpy's integers, as RL libraries pass them)."""
    ours, pz = getattr(classic, name).env(**options), theirs(name, **options)
    rng = np.random.default_rng(0)
    plies = 0
    for game in range(games):
        ours.reset(seed=game)
        pz.reset(seed=game)
        illegal_at = rng.integers(1, 30) if illegal_every and game % illegal_every == 0 else -1
        for ply in range(100_000):
            where = (name, game, ply)
            if not pz.agents:
                break
            assert_same_last(ours, pz, where)
            assert_same_board(name, ours, pz, where)
            _, _, term, trunc, _ = pz.last()
            mask = pz.last()[0]["action_mask"]
            if term or trunc:
                action = None
            elif ply == illegal_at and not mask.all():
                action = action_type(rng.choice(np.flatnonzero(mask == 0)))
            else:
                action = action_type(rng.choice(np.flatnonzero(mask)))
                plies += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the illegal move warns in both
                ours.step(action)
                pz.step(action)
        assert not ours.agents
    return plies


@pytest.mark.parametrize(("name", "options", "games"), CASES, ids=IDS)
def test_lockstep_with_pettingzoo(name, options, games):
    assert play_in_lockstep(name, options, games) > 0


@pytest.mark.parametrize(("name", "games"), [("connect_four_v3", 40), ("tictactoe_v3", 40),
                                             ("chess_v6", 6)])
def test_illegal_moves_in_lockstep(name, games):
    play_in_lockstep(name, {}, games, illegal_every=2)


@pytest.mark.parametrize("action_type", [np.int64, np.int32, np.uint8])
def test_numpy_actions_in_lockstep(action_type):
    play_in_lockstep("tictactoe_v3", {}, 60, illegal_every=3, action_type=action_type)
    play_in_lockstep("connect_four_v3", {}, 20, illegal_every=3, action_type=action_type)


def test_numpy_actions_skip_gymnasiums_check(monkeypatch):
    """A legal np.int64 goes through the wrapper chain without ``Discrete.contains`` and
    into the raw env without ``Game.check_action`` (the path of a legal Python int)."""
    from gymnasium.spaces import Discrete

    from boardzoo.envs.core import Game

    def slow_path(*args, **kwargs):
        raise AssertionError("a legal np.int64 took the slow path")

    ours, pz = classic.connect_four_v3.env(), theirs("connect_four_v3")
    ours.reset(seed=0)
    pz.reset(seed=0)
    monkeypatch.setattr(Discrete, "contains", slow_path)
    monkeypatch.setattr(Game, "check_action", slow_path)
    for column in (3, 3, 4):
        ours.last()
        ours.step(np.int64(column))
    monkeypatch.undo()
    for column in (3, 3, 4):
        pz.step(column)
    assert ours.unwrapped.board == pz.unwrapped.board


@pytest.mark.parametrize("action_type", [int, np.int64, np.int8, np.uint32, np.uint64, bool,
                                         np.bool_, float, np.float64])
def test_action_types_and_ranges_as_pettingzoo(action_type):
    """Whether a step asserts "not in action space" (PettingZoo's AssertOutOfBounds with
    gymnasium's Discrete, which refuses np.uint64 and floats), fails otherwise (a bool indexes
    the mask as numpy's boolean index), ends the game as illegal or plays, for each type and
    in and out of range, with and without ``last()`` before the step: as PettingZoo's env
    does."""
    for value, observed in itertools.product((-1, 0, 6, 7), (False, True)):
        if value < 0 and action_type in (np.uint32, np.uint64, bool, np.bool_):
            continue
        action = action_type(value)
        results = []
        for env in (classic.connect_four_v3.env(), theirs("connect_four_v3")):
            env.reset(seed=0)
            if observed:
                env.last()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    env.step(action)
            except Exception as err:  # noqa: BLE001 - whatever PettingZoo's raises
                results.append((type(err), str(err)))
            else:
                results.append(("steps", env.terminations, env.rewards, env.agent_selection))
        assert results[0] == results[1], (action_type, value)


@pytest.mark.slow
def test_chess_lockstep_many_games():
    assert play_in_lockstep("chess_v6", {}, 150) > 0


def test_chess_ends_when_a_draw_can_be_claimed():
    """A threefold repetition one move away ends chess_v6 (as PettingZoo's) a ply before
    boardzoo's chess_v0; the fifty-move claim as python-chess's ``can_claim_draw``."""
    import chess

    from boardzoo.envs.chess import env as chess_v0
    from boardzoo.envs.chess_claim import ClaimChess
    from boardzoo.envs.core import ONGOING, OUTCOME

    ours, pz, plain = classic.chess_v6.env(), theirs("chess_v6"), chess_v0()
    for env in (ours, pz, plain):
        env.reset()
    for ply, move in enumerate("g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1".split()):
        action = plain.unwrapped.str_to_action(move)
        for env in (ours, pz, plain):
            env.step(action)
        assert_same_last(ours, pz, ply)
    assert ours.terminations["player_1"] and ours.rewards == {"player_0": 0, "player_1": 0}
    assert not plain.terminations["player_1"]  # chess_v0 waits for the third occurrence
    game = ClaimChess()
    for fen in ("1k6/8/8/8/8/8/8/R6K w - - 99 80", "1k6/8/8/8/8/8/8/R6K w - - 98 80",
                "1k6/8/8/8/8/8/p7/R6K w - - 99 80", "k7/1R6/8/8/8/8/8/1R5K b - - 99 80"):
        over = chess.Board(fen).is_game_over(claim_draw=True)
        assert (game.parse_position(fen)[OUTCOME] != ONGOING) == over, fen


PETTINGZOO_TESTED = [i for i, c in enumerate(CASES) if c[0] != "go_v5" or c[1]]  # not 19x19


@pytest.mark.parametrize(("name", "options"), [CASES[i][:2] for i in PETTINGZOO_TESTED],
                         ids=[IDS[i] for i in PETTINGZOO_TESTED])
def test_pettingzoo_tests(name, options):
    module = getattr(classic, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's advice on dict observations
        api_test(module.env(**options), num_cycles=200)
        seed_test(lambda **kw: module.env(**options, **kw), num_cycles=50)
        render_test(lambda render_mode: module.env(**options, render_mode=render_mode))


@pytest.mark.parametrize("name", ["connect_four_v3", "tictactoe_v3", "go_v5", "chess_v6"])
def test_spaces_agents_metadata_and_wrappers_are_pettingzoo(name):
    ours, pz = getattr(classic, name).env(), theirs(name)
    assert ours.possible_agents == pz.possible_agents
    assert ours.unwrapped.metadata == pz.unwrapped.metadata
    for agent in pz.possible_agents:
        assert ours.observation_space(agent) == pz.observation_space(agent)
        assert ours.action_space(agent) == pz.action_space(agent)
    chain_ours, chain_pz = [], []
    for env, chain in ((ours, chain_ours), (pz, chain_pz)):
        while env is not env.unwrapped:
            chain.append(next(c.__name__ for c in type(env).__mro__ if c.__module__.startswith(
                "pettingzoo.utils.wrappers")))
            env = env.env
    assert chain_ours == chain_pz


@pytest.mark.parametrize("name", ["connect_four_v3", "tictactoe_v3"])
def test_each_observation_is_new_arrays_as_pettingzoo(name):
    """Every observe() gives new arrays in both envs (a learner keeps or changes them):
    zeroing those it was given changes neither the game nor the next observation."""
    lasts = []
    for env in (getattr(classic, name).env(), theirs(name)):
        env.reset(seed=0)
        raw = env.unwrapped
        for action in (0, 1, 2):
            kept, again = raw.observe(raw.agent_selection), raw.observe(raw.agent_selection)
            assert not any(np.shares_memory(kept[key], again[key]) for key in kept)
            for array in (*kept.values(), *again.values()):
                array[...] = 0
            env.step(action)
        lasts.append(env.last())
    (obs, *rest), (want, *want_rest) = lasts
    assert rest == want_rest and obs["action_mask"].any()
    assert all(np.array_equal(obs[key], want[key]) for key in want)


@pytest.mark.parametrize("name", ["connect_four_v3", "tictactoe_v3"])
def test_agent_iter_as_pettingzoo(name):
    """The same agents in the same order to the end or ``max_iter``, and the same refusals:
    before reset, and a second ``next`` without a step."""
    runs = []
    for env in (getattr(classic, name).env(), theirs(name)):
        with pytest.raises(Exception) as refused:
            env.agent_iter()
        seen: list = [type(refused.value)]
        for max_iter in (5, 2**63):
            env.reset(seed=0)
            for agent in env.agent_iter(max_iter):
                obs, _, term, trunc, _ = env.last()
                seen.append((agent, term))
                env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        env.reset(seed=0)
        agents = iter(env.agent_iter())
        next(agents)
        with pytest.raises(AssertionError, match="need to call step"):
            next(agents)
        runs.append(seen)
    assert runs[0] == runs[1] and len(runs[0]) > 6


def test_out_of_range_action_asserts_as_pettingzoo():
    env = classic.connect_four_v3.env()
    env.reset()
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(7)


@pytest.mark.skipif(not HAS_PETTINGZOO_REGISTRY, reason="this PettingZoo has no registry (< 1.27)")
def test_registered_with_pettingzoo():
    import pettingzoo

    env = pettingzoo.make("aec", "boardzoo.classic/tictactoe_v3")
    assert isinstance(env.unwrapped, classic.tictactoe_v3.raw_env)


def test_boardzoo_extras_work_on_the_drop_ins():
    """Snapshots (go_v5's history planes rebuilt from a restored state), the planning model
    and a boardzoo agent."""
    from boardzoo.agents import make_agent

    env = classic.go_v5.env(board_size=5)
    env.reset()
    rng = np.random.default_rng(3)
    for _ in range(9):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"][:-1]))))
    snapshot, seen = env.unwrapped.clone_state(), env.last()[0]["observation"]
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    fresh = classic.go_v5.env(board_size=5)
    fresh.reset()
    fresh.unwrapped.restore_state(snapshot)
    assert np.array_equal(fresh.last()[0]["observation"], seen)
    assert EnvModel(fresh).legal_mask(EnvModel(fresh).root()).any()

    ttt = classic.tictactoe_v3.env()
    ttt.reset()
    agent = make_agent("alphabeta")
    while not ttt.terminations["player_1"]:
        ttt.step(agent.act(ttt))
    assert ttt.rewards == {"player_1": 0, "player_2": 0}  # perfect play draws


def test_chess_snapshots_and_planning():
    """A chess_v6 snapshot continues with the same observations where the eight positions of
    history follow a capture or single pawn step (they are rebuilt from the moves since);
    chess_v0's is refused; boardzoo's model plans on it."""
    from boardzoo.envs.chess import env as chess_v0
    from boardzoo.errors import IncompatibleSnapshotError

    env = classic.chess_v6.env()
    env.reset()
    for move in "e2e4 e7e5 d2d3 b8c6 g1f3 g8f6 f3g1 f6g8 g1f3 c6b8".split():
        env.step(env.unwrapped.str_to_action(move))
    snapshot, seen = env.unwrapped.clone_state(), env.last()[0]
    fresh = classic.chess_v6.env()
    fresh.reset()
    fresh.unwrapped.restore_state(snapshot)
    for key in ("observation", "action_mask"):
        assert np.array_equal(fresh.last()[0][key], seen[key])
    other = chess_v0()
    other.reset()
    with pytest.raises(IncompatibleSnapshotError):
        fresh.unwrapped.restore_state(other.clone_state())
    assert EnvModel(fresh).legal_mask(EnvModel(fresh).root()).sum() == seen["action_mask"].sum()


def test_chess_board_without_python_chess_says_what_to_install(monkeypatch):
    import sys

    from boardzoo.errors import MissingExtraError

    env = classic.chess_v6.env()
    env.reset()
    monkeypatch.setitem(sys.modules, "chess", None)  # import chess fails
    with pytest.raises(MissingExtraError, match="pip install chess"):
        _ = env.unwrapped.board
    env.step(env.unwrapped.str_to_action("e2e4"))  # stepping never needs it


def test_chess_ansi_is_python_chess_text():
    ours, pz = classic.chess_v6.env(render_mode="ansi"), theirs("chess_v6", render_mode="ansi")
    for env in (ours, pz):
        env.reset()
    for move in ("e2e4", "c7c5", "g1f3"):
        action = ours.unwrapped.str_to_action(move)
        for env in (ours, pz):
            env.step(action)
    assert ours.render() == pz.render()


FRAMES = [
    ("connect_four_v3", {}),
    ("connect_four_v3", {"screen_scaling": 4}),
    ("tictactoe_v3", {}),
    ("tictactoe_v3", {"screen_height": 300}),
    ("go_v5", {"board_size": 9}),
    ("go_v5", {"board_size": 13, "screen_height": 500}),
    ("chess_v6", {}),
    ("chess_v6", {"screen_height": 333}),
]


@pytest.mark.parametrize(("name", "options"), FRAMES)
def test_rgb_array_frames_have_pettingzoos_size_with_boardzoos_picture_inside(name, options):
    """Code drawing over PettingZoo's frames (AgileRL's render script writes its captions at
    x = 100 and 700 on Connect Four's) or stacking them into a video finds the same canvas:
    the frame's shape and dtype are PettingZoo's, boardzoo's picture fitted in."""
    ours = getattr(classic, name).env(render_mode="rgb_array", **options)
    pz = theirs(name, render_mode="rgb_array", **options)
    for env in (ours, pz):
        env.reset(seed=0)
    for _ in range(3):
        action = int(np.flatnonzero(pz.last()[0]["action_mask"])[0])
        ours.step(action)
        pz.step(action)
    frame, want = ours.render(), pz.render()
    assert frame.shape == want.shape and frame.dtype == want.dtype == np.uint8
    picture = ours.unwrapped.picture().to_image()
    height, width = frame.shape[:2]
    scale = min(width / picture.width, height / picture.height)
    w, h = round(picture.width * scale), round(picture.height * scale)
    left, top = (width - w) // 2, (height - h) // 2
    inside = Image.fromarray(frame[top : top + h, left : left + w]).resize(picture.size)
    difference = np.abs(np.asarray(inside, float) - np.asarray(picture, float))
    assert difference.mean() < 4  # the same picture, drawn large and reduced again
    ours.close()
    pz.close()


@pytest.mark.parametrize("name", ["tictactoe_v3", "go_v5", "chess_v6"])
def test_screen_height_none_renders_the_picture_and_a_bad_one_is_one_line(name):
    env = getattr(classic, name).env(render_mode="rgb_array", screen_height=None)
    env.reset(seed=0)
    assert env.render().shape == env.unwrapped.picture().to_array().shape
    for bad in (0, -5, 2.5, "800", True):
        with pytest.raises(InvalidOptionError, match=(
                rf"^{name}\.raw_env\(\): screen_height must be a positive int \(pixels\) or "
                rf"None, got {re.escape(repr(bad))}$")):
            getattr(classic, name).env(screen_height=bad)


def test_a_bad_connect_four_screen_scaling_is_one_line():
    for bad in (0, -1, 1.5, "9", None, True):
        with pytest.raises(InvalidOptionError, match=(
                r"^connect_four_v3\.raw_env\(\): screen_scaling must be a positive int "
                rf"\(99 x 86 pixels a unit\), got {re.escape(repr(bad))}$")):
            classic.connect_four_v3.env(screen_scaling=bad)
    env = classic.connect_four_v3.env(render_mode="rgb_array", screen_scaling=2)
    env.reset(seed=0)
    assert env.render().shape == (172, 198, 3)  # PettingZoo's 86 x 99 pixels a unit
