"""Connect Four knowledge: Pons-style solver on Pascal Pons' test sets and the generated
positions with every optimal move, the threat evaluation, keys and exact values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardzoo.agents import AlphaBetaAgent
from boardzoo.envs import connect_four_v0
from boardzoo.envs.connect_four import ConnectFour
from boardzoo.knowledge import connect_four as knowledge

DATA = Path(__file__).parent / "data" / "connect4"
GAME = ConnectFour()
#: seconds per position given to AlphaBetaAgent (half of it goes to the solver)
TIME_LIMIT = {"Test_L3_R1": 10.0, "Test_L2_R1": 10.0, "Test_L2_R2": 20.0, "Test_L1_R1": 20.0}


def read_lines(name: str) -> list[list[str]]:
    return [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]


def check_pons_set(name: str) -> None:
    """``search(env).value`` is Pons' score for every line of the set."""
    agent = AlphaBetaAgent(time_limit=TIME_LIMIT[name], seed=0)
    env = connect_four_v0.env()
    wrong = []
    for sequence, score in read_lines(name):
        env.reset(options={"position": sequence})
        result = agent.search(env)
        if not (result.exact and result.value == int(score)):
            wrong.append((sequence, score, result))
    assert wrong == []


@pytest.mark.parametrize("name", ["Test_L3_R1", "Test_L2_R1"])
def test_pons_easy_sets_exact(name: str):
    check_pons_set(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["Test_L2_R2", "Test_L1_R1"])
def test_pons_medium_sets_exact(name: str):
    check_pons_set(name)


def generated_rows(min_stones: int = 0) -> list[tuple[str, int, set[int]]]:
    """(sequence, score, optimal 0-based columns) of the generated public positions."""
    rows = []
    for fields in read_lines("generated_public_200_moves.txt"):
        if len(fields[0]) >= min_stones:
            rows.append((fields[0], int(fields[1]), {int(c) - 1 for c in fields[2].split(",")}))
    return rows


def check_strictly_optimal(rows: list[tuple[str, int, set[int]]]) -> None:
    wrong = []
    for sequence, score, optimal in rows:
        solution = knowledge.solve(GAME.parse_position(sequence), None, max_nodes=10**11)
        if solution.value != score or solution.action not in optimal:
            wrong.append((sequence, score, optimal, solution))
    assert wrong == []


def test_strictly_optimal_moves_middle_and_end_games():
    rows = generated_rows(min_stones=15)
    assert len(rows) == 140
    check_strictly_optimal(rows)


@pytest.mark.slow
def test_strictly_optimal_moves_all_public_positions():
    rows = generated_rows()
    assert len(rows) == 200
    check_strictly_optimal(rows)


def test_optimal_moves_are_every_best_column_in_one_search():
    """``Solver.optimal_moves`` (the labeller's one search) gives the generated positions'
    whole set of optimal columns and their score, and the edge cases: every winning column
    when several win at once, every column when each one loses at once; None past the
    budget or for a finished game."""
    solver = knowledge.Solver(reuse_table=True)
    wrong = []
    for sequence, score, optimal in generated_rows(min_stones=12):
        found = solver.optimal_moves(GAME.parse_position(sequence), None, 10**11)
        if found != (sorted(optimal), score):
            wrong.append((sequence, score, optimal, found))
    assert wrong == []
    assert solver.optimal_moves(GAME.parse_position("445566"), None) == ([2, 6], (43 - 6) // 2)
    assert solver.optimal_moves(GAME.parse_position("4455661"), None) == (
        list(range(7)), -(22 - 5))
    assert solver.optimal_moves(GAME.initial_state(), None, 5_000) is None
    assert solver.optimal_moves(GAME.parse_position("4455667"), None) is None


def test_agent_plays_the_solver_move():
    sequence, score, optimal = generated_rows(min_stones=26)[0]
    env = connect_four_v0.env()
    env.reset(options={"position": sequence})
    result = AlphaBetaAgent(depth=2).search(env)
    assert result.exact and result.value == score and result.action in optimal
    assert result.pv == [result.action] and result.depth == 0


def test_immediate_win_and_forced_loss():
    win = knowledge.solve(GAME.parse_position("4455"), None)  # X makes an open three
    assert win.value == 22 - 4 and win.action in (2, 5)
    now = knowledge.solve(GAME.parse_position("445566"), None)  # X wins at once on 3 or 7
    assert now.value == (43 - 6) // 2 and now.action in (2, 6)
    lost = knowledge.solve(GAME.parse_position("4455661"), None)  # O cannot stop both ends
    assert lost.value == -(22 - 5) and 0 <= lost.action < 7


def test_a_solver_owns_its_table_and_solves_alike_after_release():
    """The 40 MiB table belongs to a Solver: made on its first solve, freed by release();
    a fresh solver, or the same one after release, gives the module solver's answers."""
    own = knowledge.Solver()
    position = GAME.parse_position("4455")
    assert own._keys is None  # nothing allocated before the first solve
    first = own.solve(position, None)
    assert first == knowledge.solve(position, None) and first.value == 22 - 4
    assert own._keys.nbytes + own._values.nbytes > 40 * 10**6
    own.release()
    assert own._keys is None and own.solve(position, None) == first
    assert GAME.knowledge.solve == knowledge.SOLVER.solve  # what agents use


def test_out_of_reach_and_unsupported_return_none():
    empty = GAME.initial_state()
    assert knowledge.solve(empty, None, max_nodes=5_000) is None
    assert knowledge.solve(empty, 0.01) is None
    assert knowledge.solve(ConnectFour(rows=5, columns=6).initial_state(), None) is None
    assert knowledge.solve(GAME.parse_position("4455667"), None) is None  # game over


# --------------------------------------------------------------- key, value, evaluation
def test_key_is_shared_by_transpositions_only():
    key = knowledge.key_kernel
    assert key(GAME.parse_position("4455")) == key(GAME.parse_position("5544"))
    assert key(GAME.parse_position("4455")) != key(GAME.parse_position("4545"))
    assert key(GAME.parse_position("")) != key(GAME.parse_position("4"))


def test_exact_value_of_finished_games():
    assert knowledge.exact_value(GAME.parse_position("4455667")) == -(22 - 4)  # X's 4th
    assert knowledge.exact_value(GAME.parse_position("12121272")) == -(22 - 4)  # O's 4th
    assert knowledge.exact_value(GAME.parse_position(FULL_BOARD_DRAW)) == 0


#: a random game (seed 578) that fills the board without four in a row
FULL_BOARD_DRAW = "667461761634375173525634211144757533452222"


def test_evaluation_is_bounded_symmetric_and_sees_threats():
    rng = np.random.default_rng(0)
    for _ in range(200):
        state = GAME.initial_state()
        for _ply in range(int(rng.integers(0, 30))):
            legal = GAME.legal_actions(state)
            if not legal or GAME.is_terminal(state):
                break
            state = GAME.step(state, int(rng.choice(legal)))
        if GAME.is_terminal(state):
            continue
        value = knowledge.evaluate_kernel(state)
        assert -1 < value < 1
        mirror = GAME.parse_position("".join(str(8 - int(c)) for c in GAME.position(state)))
        assert knowledge.evaluate_kernel(mirror) == pytest.approx(value)
    strong = GAME.parse_position("445566")  # X to move with two open threes
    assert knowledge.evaluate_kernel(strong) > 0.3
    assert knowledge.evaluate_kernel(GAME.parse_position("4455661")) < -0.3


def test_plain_python_mode_agrees():
    end_game = read_lines("Test_L3_R1")[0][0]
    code = (
        f"END = {end_game!r}\n"
        "from boardzoo.envs.connect_four import ConnectFour\n"
        "from boardzoo.knowledge import connect_four as k\n"
        "g = ConnectFour(); s = g.parse_position('4455661')\n"
        "e = g.parse_position('43344')\n"
        "print(k.solve(g.parse_position(END), None).value, k.key_kernel(s),"
        " k.exact_value(g.parse_position('4455667')), repr(float(k.evaluate_kernel(e))))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, check=True)
    expected = (
        knowledge.solve(GAME.parse_position(end_game), None).value,
        knowledge.key_kernel(GAME.parse_position("4455661")),
        knowledge.exact_value(GAME.parse_position("4455667")),
        repr(float(knowledge.evaluate_kernel(GAME.parse_position("43344")))),
    )
    assert run.stdout.split() == [str(x) for x in expected]
