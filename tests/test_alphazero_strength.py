"""The harness that measures a Connect Four AlphaZero network against exact answers with every
exact solver forbidden to it (benchmarks/alphazero_strength.py, issue 9's checks)."""

from __future__ import annotations

import pytest

from benchmarks.alphazero_strength import (
    NoSolverAgent,
    PerfectPlayer,
    SolverUsed,
    move_accuracy,
    public_rows,
    solvers_forbidden,
)
from boardzoo.agents import MCTSAgent
from boardzoo.envs import make_env, make_game
from boardzoo.knowledge.connect_four import solve


def test_forbidden_solvers_raise_inside_and_work_again_outside():
    env = make_env("connect_four")
    env.reset(options={"position": "44443433311155"})  # 14 stones: within the solver's reach
    with solvers_forbidden(make_game("connect_four")):
        with pytest.raises(SolverUsed):
            solve(env.unwrapped.state_array)
        with pytest.raises(SolverUsed):  # MCTS's default consults the exact solver here
            MCTSAgent(simulations=20, seed=0).act(env)
        MCTSAgent(simulations=20, exact_solver=False, seed=0).act(env)  # search alone: fine
    assert solve(env.unwrapped.state_array) is not None
    # the arena wrapper applies the ban in every move, also in worker processes (pickled)
    with pytest.raises(SolverUsed):
        NoSolverAgent(MCTSAgent(simulations=20, seed=0), "connect_four").act(env)


def test_public_positions_have_every_column_scored():
    rows = public_rows()
    assert len(rows) == 200 and sum(score >= 0 for _, score, _ in rows) == 123
    for sequence, score, scores in rows:
        assert max(s for s in scores if s is not None) == score, sequence



def test_move_accuracy_counts_against_each_columns_score():
    late = [row for row in public_rows() if len(row[0]) >= 20]
    positions, kept, optimal = move_accuracy(late, PerfectPlayer().act)
    assert positions == sum(score >= 0 for _, score, _ in late) and kept == optimal == 1.0
    # the leftmost legal column, scored by hand from the same rows
    leftmost = [(s, next(c for c in cols if c is not None)) for _, s, cols in late if s >= 0]
    first = move_accuracy(late, lambda env: int(env.legal_mask().nonzero()[0][0]))
    assert first[1] == sum((c > 0) if s > 0 else (c == 0) for s, c in leftmost) / positions
    assert first[1] < 1.0

