"""Agents under a clock (budgets kept, forced moves, stop, progress, pondering) and the arena's
clocks (losses on time recorded and counted)."""

from __future__ import annotations

import threading
import time

import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent, RandomAgent
from boardzoo.arena import play_match, play_timed_game, tournament
from boardzoo.envs import connect_four_v0
from boardzoo.errors import InvalidOptionError
from boardzoo.timecontrol import ClockView
from boardzoo.wrappers.model import EnvModel


def _connect_four(moves=(3, 3)):
    env = connect_four_v0.env()
    env.reset(options={"moves": list(moves)})
    return env


def _timed(search, **kwargs):
    start = time.monotonic()
    result = search(**kwargs)
    return result, time.monotonic() - start


@pytest.mark.parametrize("make", [lambda: MCTSAgent(seed=0), lambda: AlphaBetaAgent(seed=0)])
def test_a_clock_budget_is_kept(make):
    agent, env = make(), _connect_four()
    agent.prepare(env)
    view = ClockView(remaining=3.0, increment=0.05)  # 21 moves left: ~0.19 s, at most ~0.57 s
    _, seconds = _timed(agent.search, env=env, clock=view)
    assert 0.0 < seconds < view.hard_limit  # no loss on time, even on a busy machine


def test_forced_move_in_connect_four_under_a_clock():
    # columns 0-5 full except column 6: one legal move
    moves = [0, 1] * 3 + [1, 0] * 3 + [2, 3] * 3 + [3, 2] * 3 + [4, 5] * 3 + [5, 4] * 3
    env = _connect_four(moves)
    mask = env.last()[0]["action_mask"]
    assert mask.tolist() == [0, 0, 0, 0, 0, 0, 1]
    for agent in (MCTSAgent(seed=0), AlphaBetaAgent(seed=0)):
        result, seconds = _timed(agent.search, env=env, clock=ClockView(remaining=60.0))
        assert result.action == 6 and seconds < 1.0


def test_mcts_progress_and_stop():
    env, agent = _connect_four(), MCTSAgent(simulations=10**8, seed=0)
    agent.prepare(env)
    reports = []
    stop = threading.Event()

    def report(analysis):
        reports.append(analysis)
        if len(reports) == 3:
            stop.set()

    result = agent.search(env, on_progress=report, stop=stop)
    assert len(reports) == 3 and not any(r.final for r in reports)
    counts = [r.nodes for r in reports]
    assert counts == sorted(counts) and counts[0] > 0
    assert result.nodes >= counts[-1] and result.nodes < 10**8
    assert agent.last_analysis.final and agent.last_analysis.action == result.action


def test_alphabeta_progress_and_stop_from_another_thread():
    env, agent = _connect_four(), AlphaBetaAgent(depth=60, seed=0, solver=False)
    agent.prepare(env)
    reports = []
    stop = threading.Event()
    timer = threading.Timer(0.3, stop.set)
    timer.start()
    result, seconds = _timed(agent.search, env=env, on_progress=reports.append, stop=stop)
    timer.cancel()
    assert seconds < 60.0  # stopped, long before depth 60
    assert [r.depth for r in reports] == list(range(1, len(reports) + 1))
    assert result.depth == reports[-1].depth < 60


def test_pondering_keeps_the_tree_for_the_reply():
    env, agent = _connect_four(), MCTSAgent(simulations=2000, seed=0)
    agent.act(env)
    env.step(agent.last_search.action)
    stop = threading.Event()
    pondered = agent.ponder(env, stop, simulations=3000)  # the opponent's position
    assert pondered.nodes == 3000 and agent.searcher(EnvModel(env)).tree.size > 3000
    reply = pondered.action
    kept = int(next(s.visits for s in pondered.moves if s.action == reply))
    env.step(reply)
    result = agent.search(env)
    assert result.nodes == 2000
    assert result.visits.sum() >= kept + 2000 - 1  # the reply's subtree was reused


def test_a_pondered_position_searched_by_the_same_agent_keeps_its_tree():
    # an engine playing both colours (GTP self-play): it ponders the position it then moves in
    env, agent = _connect_four(), MCTSAgent(simulations=500, seed=0)
    pondered = agent.ponder(env, threading.Event(), simulations=1500)
    assert pondered.nodes == 1500
    result = agent.search(env)
    assert result.nodes == 500 and result.visits.sum() >= 1500 + 500 - 1


class _Sleeper:
    """Takes ``seconds`` for every move, whatever its clock says."""

    def __init__(self, seconds):
        self.seconds = seconds

    def act(self, env, clock=None):
        time.sleep(self.seconds)
        return RandomAgent(seed=0).act(env)


def test_an_agent_that_overruns_loses_on_time_and_the_record_says_so():
    played = play_timed_game("tictactoe", [RandomAgent(seed=1), _Sleeper(0.3)],
                             time_control="0.5+0")
    assert played.flagged == 1 and played.time_loss
    assert played.returns == [1.0, -1.0]
    assert len(played.clock_seconds[1]) == 2 and sum(played.clock_seconds[1]) > 0.5
    assert len(played.moves) == 3  # the flagging move (the sleeper's second) is not played
    warned = play_timed_game("tictactoe", [RandomAgent(seed=1), _Sleeper(0.3)],
                             time_control="0.5+0", on_time="warn")
    assert warned.flagged == 1 and not warned.time_loss
    assert len(warned.moves) >= 5  # the game went on to its end


def test_time_losses_count_in_match_results_and_ratings(tmp_path):
    slow = _Sleeper(0.15)
    result = play_match("tictactoe", RandomAgent(), slow, games=4, opening_plies=0,
                        time_control="0.2+0", store=tmp_path / "r.db")
    assert result.wins == 4
    assert all(r.time_loss and r.flagged == 1 - r.agent_a_seat for r in result.records)
    again = play_match("tictactoe", RandomAgent(), slow, games=4, opening_plies=0,
                       time_control="0.2+0", store=tmp_path / "r.db")  # resumed from the store
    assert [r.time_loss for r in again.records] == [True] * 4
    t = tournament("tictactoe", {"random": RandomAgent(), "slow": slow}, games_per_pair=2,
                   opening_plies=0, time_control="0.2+0")
    assert t.ratings["slow"][0] < t.ratings["random"][0]
    with pytest.raises(InvalidOptionError, match="lose, warn"):
        play_match("tictactoe", RandomAgent(), slow, games=2, time_control="1+0", on_time="x")


def test_clocked_agents_do_not_lose_on_time():
    played = play_timed_game("connect_four", [MCTSAgent(seed=0), AlphaBetaAgent(seed=0)],
                             time_control="3+0.05")
    assert played.flagged is None
    for seat, used in enumerate(played.clock_seconds):
        assert sum(used) <= 3.0 + 0.05 * len(used), seat


def test_cli_arena_under_a_clock(tmp_path, capsys):
    from boardzoo.cli import main

    assert main(["arena", "tictactoe", "--tc", "fast"]) == 2
    assert "Japanese byo-yomi" in capsys.readouterr().err
    args = ["arena", "tictactoe", "--agents", "random alphabeta", "--games", "2",
            "--workers", "1", "--out", str(tmp_path), "--tc", "2+0.01"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "clock 2+0.01" in printed and "alphabeta: 0 loss(es) on time" in printed
