"""AlphaBetaAgent: exact play on tic-tac-toe and Nim, the search's contract (time, depth,
fastest wins, seeds, evaluators, errors) on Othello, Connect Four and games without
knowledge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from boardzoo.agents import AGENTS, AlphaBetaAgent, make_agent
from boardzoo.agents.alphabeta import _state_key
from boardzoo.agents.move import SearchResult
from boardzoo.analysis import HEURISTIC
from boardzoo.envs import connect_four_v0, gomoku_v0, nim_v0, othello_v0, tictactoe_v0
from boardzoo.envs.gomoku import Gomoku
from boardzoo.envs.tictactoe import TicTacToe
from boardzoo.errors import GameOverError, InvalidOptionError

DATA = Path(__file__).parent / "data"


def tictactoe_positions() -> list[tuple[str, int, set[int]]]:
    """(board, value for the side to move, value-preserving cells) of every reachable
    non-terminal tic-tac-toe position."""
    rows = []
    for line in (DATA / "tictactoe" / "ttt_all_positions.tsv").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        board, _, status, value, optimal = line.split("\t")
        if status == "ongoing":
            rows.append((board, int(value), {int(c) for c in optimal.split(",")}))
    return rows


def at(env_fn, position: str, **options):
    env = env_fn(**options)
    env.reset(options={"position": position})
    return env


# ------------------------------------------------------------------------ tic-tac-toe
def test_tictactoe_every_position_solved_with_a_value_preserving_move():
    positions = tictactoe_positions()
    assert len(positions) == 4520
    agent = AlphaBetaAgent(depth=9, seed=0)
    env = tictactoe_v0.env()
    wrong = []
    for board, value, optimal in positions:
        env.reset(options={"position": board})
        result = agent.search(env)
        if not (result.exact and result.value == value and result.action in optimal):
            wrong.append((board, value, optimal, result))
    assert wrong == []


def test_fastest_win_preferred():
    """Positions where the side to move wins at once but also has slower winning moves:
    the search always takes an immediate win."""
    positions = [(b, opt) for b, v, opt in tictactoe_positions() if v == 1]
    agent = AlphaBetaAgent(depth=9)
    checked = 0
    for board, optimal in positions:
        env = at(tictactoe_v0.env, board)
        immediate = {a for a in optimal if _wins_at_once(env, a)}
        if not immediate or immediate == optimal:
            continue
        checked += 1
        for seed in range(3):
            agent.reseed(seed)
            result = agent.search(env)
            assert result.action in immediate, (board, result)
            assert result.pv == [result.action]
    assert checked > 100


def _wins_at_once(env, action: int) -> bool:
    raw = env.unwrapped
    state = raw.game.step(raw.state_array, action)
    return bool(raw.game.returns(state)[raw.game.to_play(raw.state_array)] == 1)


# ------------------------------------------------------------------------------- Nim
@pytest.mark.parametrize("max_take", [1, 2, 3, 4])
@pytest.mark.parametrize("misere", [False, True])
def test_nim_single_heap_exact_values(max_take: int, misere: bool):
    agent = AlphaBetaAgent(depth=40, seed=0)
    for heap in range(1, 17):
        env = nim_v0.env(heaps=(heap,), max_take=max_take, misere=misere)
        env.reset()
        result = agent.search(env)
        losing = heap % (max_take + 1) == (1 if misere else 0)
        assert result.exact
        assert result.value == (-1 if losing else 1), (heap, max_take, misere)
        if not losing:  # the move leaves the opponent a losing heap
            left = heap - (result.action + 1)
            assert left % (max_take + 1) == (1 if misere else 0)


def test_nim_multi_heap_follows_bouton():
    agent = AlphaBetaAgent(depth=40, seed=0)
    env = nim_v0.env(heaps=(4, 4, 4), max_take=None)
    for heaps in np.ndindex(5, 5, 5):
        if sum(heaps) == 0:
            continue
        env.reset(options={"position": ",".join(map(str, heaps)) + " 0"})
        result = agent.search(env)
        assert result.exact
        assert result.value == (1 if np.bitwise_xor.reduce(heaps) else -1), heaps


# ------------------------------------------------------------------- search contract
def test_time_limit_respected_on_othello():
    env = at(othello_v0.env, "-" * 27 + "OX------XO" + "-" * 27 + " X")
    agent = AlphaBetaAgent(time_limit=0.2, seed=0)
    agent.search(env)  # compiles
    started = time.monotonic()
    result = agent.search(env)
    assert time.monotonic() - started < 1.5
    assert result.depth >= 1 and not result.exact
    assert result.action in np.flatnonzero(env.unwrapped.legal_mask())
    assert result.nodes > 0 and result.nodes_per_second > 0
    assert -1 < result.value < 1


def test_iterative_deepening_reports_each_depth():
    env = othello_v0.env()
    env.reset()
    results = [AlphaBetaAgent(depth=d, seed=0).search(env) for d in range(1, 6)]
    assert [r.depth for r in results] == [1, 2, 3, 4, 5]
    assert all(a.nodes < b.nodes for a, b in zip(results, results[1:], strict=False))
    assert all(len(r.pv) == r.depth and r.pv[0] == r.action for r in results)


def test_same_seed_same_search_and_seeds_break_ties():
    env = othello_v0.env()
    env.reset(options={"moves": [19, 18, 17]})
    first = AlphaBetaAgent(depth=5, seed=3).search(env)
    again = AlphaBetaAgent(depth=5, seed=3).search(env)
    assert (first.action, first.value, first.nodes, first.pv) == (
        again.action, again.value, again.nodes, again.pv)
    board = tictactoe_v0.env()
    board.reset()  # every first move draws: the seed picks one
    agent = AlphaBetaAgent(depth=9, seed=0)
    moves = set()
    for seed in range(12):
        agent.reseed(seed)
        result = agent.search(board)
        assert result.exact and result.value == 0
        moves.add(result.action)
    assert len(moves) >= 3


@njit
def _half(state):
    return 0.5


def test_evaluator_is_used_from_the_side_to_move_view():
    env = othello_v0.env()
    env.reset()
    assert AlphaBetaAgent(depth=1, evaluator=_half).search(env).value == -0.5
    assert AlphaBetaAgent(depth=2, evaluator=_half).search(env).value == 0.5


def test_exact_search_reports_connect_four_scores():
    """End games that the generic search solves on its own (solver off) get Pons' score."""
    lines = (DATA / "connect4" / "Test_L3_R1").read_text().splitlines()[:10]
    agent = AlphaBetaAgent(depth=20, seed=0, solver=False)
    for line in lines:
        sequence, score = line.split()
        result = agent.search(at(connect_four_v0.env, sequence))
        assert result.exact and result.value == int(score), (sequence, result)
        assert result.depth >= 1 and result.nodes > 1


def test_generic_path_without_knowledge(monkeypatch):
    """With no knowledge module (state-hash keys, zero evaluation, +1/0/-1 values) the
    search still solves tic-tac-toe and blocks the only threat in Gomoku."""
    for game_class in (TicTacToe, Gomoku):
        monkeypatch.setattr(game_class, "knowledge", None)
    agent = AlphaBetaAgent(depth=9, seed=0)
    for board, value, optimal in tictactoe_positions()[::50]:
        result = agent.search(at(tictactoe_v0.env, board))
        assert result.exact and result.value == value and result.action in optimal
    env = gomoku_v0.env(board_size=7, win_length=4)
    env.reset(options={"moves": [0, 10, 1, 20, 2]})  # X on a1 b1 c1: d1 must be blocked
    result = AlphaBetaAgent(depth=2, seed=0).search(env)
    assert (result.action, result.value, result.exact) == (3, 0.0, False)


def test_state_key_fallback_is_a_function_of_the_array():
    first = np.array([0, 0, 3, 7, 255], np.int16)
    assert _state_key(first) == _state_key(first.copy())
    assert _state_key(first) != _state_key(np.array([0, 0, 3, 7, 254], np.int16))


# -------------------------------------------------------------------------- errors
def test_finished_game_and_foreign_env_raise():
    env = at(tictactoe_v0.env, "XXXOO....")
    with pytest.raises(GameOverError, match="over"):
        AlphaBetaAgent(depth=2).act(env)
    with pytest.raises(InvalidOptionError):
        AlphaBetaAgent(depth=2).act(object())


@pytest.mark.parametrize(
    "options",
    [{"depth": 0}, {"depth": 1.5}, {"time_limit": -1}, {"time_limit": True},
     {"evaluator": lambda state: 0.0}, {"tt_bits": 40}],
)
def test_bad_options_raise(options):
    with pytest.raises(InvalidOptionError):
        AlphaBetaAgent(**options)


def test_registered_and_default_time_limit():
    assert "alphabeta" in AGENTS
    agent = make_agent("alphabeta:depth=3", seed=1)
    assert isinstance(agent, AlphaBetaAgent) and agent.depth == 3
    assert AlphaBetaAgent().time_limit == 1.0
    result = SearchResult(0, 0.0, HEURISTIC, False, None, 1, 10, 0.5, [0], "alphabeta")
    assert result.nodes_per_second == 20


def test_plain_python_mode_gives_the_same_search():
    code = (
        "import json\n"
        "from boardzoo.envs import tictactoe_v0\n"
        "from boardzoo.agents import AlphaBetaAgent\n"
        "env = tictactoe_v0.env(); env.reset(options={'position': 'X...O....'})\n"
        "r = AlphaBetaAgent(depth=9, seed=5).search(env)\n"
        "print(json.dumps([r.action, r.value, r.exact, r.depth, r.nodes, r.pv]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, check=True)
    env = at(tictactoe_v0.env, "X...O....")
    r = AlphaBetaAgent(depth=9, seed=5).search(env)
    assert json.loads(run.stdout) == [r.action, r.value, r.exact, r.depth, r.nodes, r.pv]


def _minimax(game, state, depth, evaluate, ply=0):
    """Plain negamax over every move (no pruning), scored like the search: a finished game
    +-(win, nearer is better), 0 for a draw; the horizon quantised as the search does."""
    if game.is_terminal(state):
        mover_won = game.returns(state)[game.to_play(state)]
        return 0.0 if mover_won == 0 else mover_won * (1000 - ply)
    if depth == 0:
        return int(evaluate(state) * 1_000_000) / 1_000_000
    return max(-_minimax(game, game.step(state, a), depth - 1, evaluate, ply + 1)
               for a in game.legal_actions(state))


@pytest.mark.parametrize("make", [othello_v0.env, connect_four_v0.env])
def test_alphabeta_value_equals_plain_minimax(make):
    rng = np.random.default_rng(1)
    env = make()
    game = env.unwrapped.game
    evaluate = game.knowledge.evaluate_kernel
    for _ in range(12):
        env.reset()
        for _ply in range(int(rng.integers(0, 12))):
            if game.is_terminal(env.unwrapped.state_array):
                break
            env.step(int(rng.choice(np.flatnonzero(env.unwrapped.legal_mask()))))
        if game.is_terminal(env.unwrapped.state_array):
            continue
        depth = int(rng.integers(1, 5))
        result = AlphaBetaAgent(depth=depth, seed=0, solver=False).search(env)
        expected = _minimax(game, env.unwrapped.state_array, depth, evaluate)
        if abs(expected) >= 1:
            assert result.value == np.sign(expected)
        else:
            assert result.value == pytest.approx(expected, abs=1e-12)


def test_agent_pickles_without_its_table():
    import pickle

    agent = AlphaBetaAgent(depth=2, seed=0)
    env = tictactoe_v0.env()
    env.reset()
    first = agent.search(env)
    copy = pickle.loads(pickle.dumps(agent))
    assert copy._table is None and copy.depth == 2
    agent.reseed(0)
    copy.reseed(0)
    assert copy.search(env).action == agent.search(env).action == first.action
