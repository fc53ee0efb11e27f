"""A ``stop`` event ends every search within a second, the exact solvers included: the web
page's "Move now" and its closing of a game rely on it. A Connect Four MCTS with a 60 s limit
used to hand the first 30 s to the exact solver (its cost estimate from the empty board fits
half the move), which never looked at ``stop``."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.envs import connect_four_v0, othello_v0
from boardzoo.knowledge import connect_four as c4
from boardzoo.knowledge import othello_solver

STOP_AFTER = 0.3  # seconds into the search
BOUND = 1.0  # seconds from the stop to the answer


def stopped_after(seconds: float) -> threading.Event:
    stop = threading.Event()
    threading.Timer(seconds, stop.set).start()
    return stop


def timed(call):
    """(result, seconds) of ``call()``."""
    start = time.monotonic()
    result = call()
    return result, time.monotonic() - start


def test_the_connect_four_solver_gives_up_when_stopped():
    state = connect_four_v0.env().unwrapped.game.replay([3, 3])  # far beyond its reach
    c4.solve(state, 0.0)  # compile first
    solution, seconds = timed(lambda: c4.solve(state, 30.0, stop=stopped_after(STOP_AFTER)))
    assert solution is None and seconds < STOP_AFTER + 0.2


def test_a_connect_four_solve_finished_before_the_stop_is_kept():
    env = connect_four_v0.env()
    env.reset(options={"position": "4453353"})
    state = env.unwrapped.state_array
    never = threading.Event()
    watched, plain = c4.solve(state, 10.0, stop=never), c4.solve(state, 10.0)
    assert watched is not None and watched[:2] == plain[:2]  # action, score


def test_the_othello_solver_gives_up_when_stopped():
    env = othello_v0.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):  # 30 plies in: about 30 empties, far too many to solve in 30 s
        mask = env.unwrapped.game.legal_mask(env.unwrapped.state_array)
        env.step(int(rng.choice(np.flatnonzero(mask))))
    state = env.unwrapped.state_array
    othello_solver.solve(state, 0.0)  # compile first
    solution, seconds = timed(lambda: othello_solver.solve(state, 30.0,
                                                           stop=stopped_after(STOP_AFTER)))
    assert solution is None and seconds < STOP_AFTER + 0.2


@pytest.mark.parametrize("agent", [MCTSAgent(time_limit=60.0, seed=0),
                                   AlphaBetaAgent(time_limit=60.0, seed=0)],
                         ids=["mcts", "alphabeta"])
def test_a_long_connect_four_search_stops_within_a_second(agent):
    env = connect_four_v0.env()
    env.reset(options={"moves": [3]})
    agent.prepare(env)  # compile first: a stop cannot interrupt compiling
    result, seconds = timed(lambda: agent.search(env, stop=stopped_after(STOP_AFTER)))
    assert seconds < STOP_AFTER + BOUND
    assert env.unwrapped.game.legal_mask(env.unwrapped.state_array)[result.action]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tictactoe", "nim", "connect_four", "othello", "go", "gomoku"])
@pytest.mark.parametrize("kind", ["mcts", "alphabeta"])
def test_every_games_long_search_stops_within_a_second(game, kind):
    from boardzoo.envs import make_env

    env = make_env(game)
    env.reset(seed=0)
    agent = (MCTSAgent if kind == "mcts" else AlphaBetaAgent)(time_limit=60.0, seed=0)
    agent.prepare(env)
    result, seconds = timed(lambda: agent.search(env, stop=stopped_after(STOP_AFTER)))
    assert seconds < STOP_AFTER + BOUND, seconds
    assert env.unwrapped.game.legal_mask(env.unwrapped.state_array)[result.action]
