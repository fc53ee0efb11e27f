"""One analysis shape for MCTS, alpha-beta and the exact solvers: known answers, sign, units
and JSON."""

from __future__ import annotations

import json

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.analysis import EXACT, HEURISTIC, MEAN, Analysis
from boardzoo.envs import connect_four_v0, tictactoe_v0


def _tictactoe(position):
    env = tictactoe_v0.env()
    env.reset(options={"position": position})
    return env


def _round_trips(analysis: Analysis) -> dict:
    data = json.loads(json.dumps(analysis.to_json(), allow_nan=False))
    assert data["move"] == analysis.move and data["unit"] == analysis.unit
    return data


def test_alphabeta_analysis_of_a_won_position():
    # X to move wins at once in the top-right corner (action 2, written as its cell name)
    env = _tictactoe("XX.OO....")
    agent = AlphaBetaAgent(depth=9, seed=0)
    result = agent.search(env)
    analysis = agent.last_analysis
    assert (analysis.action, analysis.value, analysis.exact) == (2, 1, True)
    assert analysis.unit == EXACT and analysis.proven == "win"
    assert analysis.move == env.unwrapped.action_to_str(2)
    assert analysis.depth == result.depth and analysis.nodes == result.nodes
    assert analysis.pv[0] == analysis.move
    assert _round_trips(analysis)["moves"][0]["action"] == 2


def test_alphabeta_heuristic_analysis_keeps_the_search_result_fields():
    env = connect_four_v0.env()
    env.reset()
    agent = AlphaBetaAgent(depth=4, seed=0, solver=False)
    result = agent.search(env)  # the documented fields are still there
    assert {"action", "value", "exact", "depth", "nodes"} <= set(result._fields)
    analysis = agent.analyse(env)
    assert analysis.unit == HEURISTIC and not analysis.exact and analysis.depth == 4
    assert -1 < analysis.value < 1
    assert analysis.engine == "alphabeta"


def test_solver_answer_is_an_exact_analysis():
    # Connect Four: 4 in column 4 for the side to move after 3-3-4-4-5-5: it wins now
    env = connect_four_v0.env()
    env.reset(options={"moves": [3, 3, 4, 4, 5, 5]})
    analysis = AlphaBetaAgent(time_limit=5.0, seed=0).analyse(env)
    assert analysis.engine == "solver" and analysis.exact
    assert analysis.action in (2, 6) and analysis.value == 18  # Pons: 22 - 4th stone
    _round_trips(analysis)


def test_mcts_analysis_lists_root_moves_most_visited_first():
    # O to move must block at action 2 (X threatens the top row), which holds the draw
    env = _tictactoe("XX..O....")
    agent = MCTSAgent(simulations=3000, seed=0, solver=False, exact_solver=False)
    analysis = agent.analyse(env)
    assert analysis.action == 2 and analysis.unit in (MEAN,)
    visits = [m.visits for m in analysis.moves]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) <= analysis.nodes + 1
    assert analysis.moves[0].action == 2 and analysis.moves[0].pv[0] == analysis.move
    legal = int(env.last()[0]["action_mask"].sum())
    assert len(analysis.moves) == legal
    best = analysis.moves[0]
    assert analysis.proven is None and best.value is not None
    assert abs(best.value - analysis.value) < 0.5
    data = _round_trips(analysis)
    assert data["final"] is True and data["engine"] == "mcts"


def test_mcts_proven_value_is_reported_in_the_exact_sense():
    env = _tictactoe("XX.OO....")  # X wins at once
    analysis = MCTSAgent(simulations=500, seed=0).analyse(env)
    assert analysis.action == 2 and analysis.proven == "win" and analysis.value == 1.0
    assert analysis.exact
