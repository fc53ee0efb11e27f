"""Swindles (boardzoo.agents.swindle): once its own solver proves a draw or a loss, an agent on a
clock spends the move's time searching among the moves that keep that outcome, and never
gives the outcome away. Known answers: every column's Pons score in the public positions."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardzoo.agents import AlphaBetaAgent, MCTSAgent
from boardzoo.agents.swindle import outcome_keeping_moves
from boardzoo.envs import connect_four_v0, make_game
from boardzoo.timecontrol import ClockView

GAME = make_game("connect_four")
PUBLIC = Path(__file__).parent / "data" / "connect4" / "generated_public_200_moves.txt"
CLOCK = ClockView(remaining=10.0, increment=0.1)
AGENTS = {"alphabeta": AlphaBetaAgent, "mcts": MCTSAgent}


def public_positions(min_stones: int) -> list[tuple[str, int, dict[int, int]]]:
    """(sequence, score, {action: Pons score}) of the public positions with enough stones
    (their solves take milliseconds)."""
    rows = []
    for line in PUBLIC.read_text().splitlines():
        sequence, score, _best, *scores = line.split()
        if len(sequence) >= min_stones:
            by_action = {a: int(s) for a, s in enumerate(scores) if s != "."}
            rows.append((sequence, int(score), by_action))
    return rows


def drawn_with_a_choice(count: int) -> list[tuple[str, int, dict[int, int]]]:
    """Drawn positions of Pons' Test_L2_R1 and Test_L3_R1 (scores his) where more than one
    column keeps the draw, every column scored by boardzoo's solver (checked on Pons' sets
    elsewhere)."""
    rows = []
    lines = [line for name in ("Test_L2_R1", "Test_L3_R1")
             for line in (PUBLIC.parent / name).read_text().splitlines()]
    for line in lines:
        sequence, score = line.split()
        if int(score) != 0:
            continue
        state = GAME.parse_position(sequence)
        scores = {a: -GAME.knowledge.solve(GAME.step(state, a), None).value
                  for a in GAME.legal_actions(state)
                  if not GAME.is_terminal(GAME.step(state, a))}
        if sum(s == 0 for s in scores.values()) > 1:
            rows.append((sequence, 0, scores))
        if len(rows) == count:
            break
    return rows


def _env(sequence: str):
    env = connect_four_v0.env()
    env.reset(options={"position": sequence})
    return env


def test_the_moves_that_keep_a_draw_are_the_drawing_columns():
    rows = [row for row in public_positions(16) if row[1] == 0]
    assert len(rows) >= 10
    for sequence, _, scores in rows:
        state = GAME.parse_position(sequence)
        solution = GAME.knowledge.solve(state, None)
        drawing = sorted(a for a, s in scores.items() if s == 0)
        found = outcome_keeping_moves(GAME, GAME.knowledge, state, solution.value,
                                      solution.action, 60.0)
        assert found == (drawing if len(drawing) > 1 else None), sequence


def test_a_loss_keeps_every_move_a_win_has_no_swindle_and_unsettled_moves_are_left_out():
    lost = next(row for row in public_positions(16) if row[1] < 0 and len(row[2]) > 1)
    state = GAME.parse_position(lost[0])
    assert outcome_keeping_moves(GAME, GAME.knowledge, state, lost[1], 0, 0.0) == sorted(lost[2])
    won = next(row for row in public_positions(16) if row[1] > 0)
    state = GAME.parse_position(won[0])
    assert outcome_keeping_moves(GAME, GAME.knowledge, state, won[1], 0, 60.0) is None
    sequence, _, scores = drawn_with_a_choice(1)[0]
    state = GAME.parse_position(sequence)
    solver_move = next(a for a, s in scores.items() if s == 0)
    assert outcome_keeping_moves(GAME, GAME.knowledge, state, 0, solver_move, 0.0) is None


@pytest.mark.parametrize("name", AGENTS)
def test_on_a_clock_a_proven_draw_is_swindled_without_giving_it_away(name):
    agent = AGENTS[name](seed=0)
    rows = drawn_with_a_choice(6)
    assert len(rows) == 6
    agent.prepare(_env(rows[0][0]))
    for sequence, _, scores in rows:
        result = agent.search(_env(sequence), clock=CLOCK)
        assert scores[result.action] == 0, sequence  # still a draw
        assert agent.last_analysis.exact and agent.last_analysis.value == 0
        assert agent.last_analysis.engine != "solver"  # the move came from a search


@pytest.mark.parametrize("name", AGENTS)
def test_on_a_clock_a_proven_loss_is_searched_on_where_swindle_false_plays_the_solver(name):
    """Not timed (a search that proves every move lost may end within a millisecond): the
    swindler's move comes from its search, the plain agent's from the solver."""
    lost = [row for row in public_positions(16) if row[1] <= -3 and len(row[2]) > 2][:3]
    assert len(lost) == 3
    swindler, plain = AGENTS[name](seed=0), AGENTS[name](seed=0, swindle=False)
    for agent in (swindler, plain):
        agent.prepare(_env(lost[0][0]))
    for sequence, score, scores in lost:
        result = swindler.search(_env(sequence), clock=CLOCK)
        assert result.action in scores and swindler.last_analysis.exact
        assert swindler.last_analysis.value == score  # the solver's, in Pons' score
        assert swindler.last_analysis.engine != "solver"
        plain.search(_env(sequence), clock=CLOCK)
        assert plain.last_analysis.engine == "solver"


@pytest.mark.parametrize("name", AGENTS)
def test_a_proven_win_and_a_plain_time_limit_play_the_solver_at_once(name):
    won = next(row for row in public_positions(16) if row[1] > 0)
    agent = AGENTS[name](seed=0)
    result = agent.search(_env(won[0]), clock=CLOCK)
    assert agent.last_analysis.engine == "solver" and won[2][result.action] == won[1]
    sequence, _, scores = drawn_with_a_choice(1)[0]
    timed = AGENTS[name](seed=0, time_limit=1.0)
    result = timed.search(_env(sequence))
    assert timed.last_analysis.engine == "solver" and scores[result.action] == 0


def test_connect_four_counts_the_moves_left_in_a_proven_game_as_perfect_play_plays_them():
    from boardzoo.knowledge.connect_four import proven_moves_left

    rows = public_positions(20)[:12]
    assert {(row[1] > 0) - (row[1] < 0) for row in rows} == {1, 0, -1}  # won, drawn, lost
    for sequence, score, _ in rows:
        state = GAME.parse_position(sequence)
        mover, moves = GAME.to_play(state), 0
        while not GAME.is_terminal(state):  # both sides play the solver's strictly optimal move
            moves += GAME.to_play(state) == mover
            state = GAME.step(state, GAME.knowledge.solve(state, None).action)
        assert proven_moves_left(GAME.parse_position(sequence), score) == moves, sequence
