"""The harness that measures a Connect Four AlphaZero network against exact answers with every
exact solver forbidden to it (benchmarks/alphazero_strength.py, issue 9's checks)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.alphazero_strength import (
    NoSolverAgent,
    PerfectPlayer,
    SolverUsed,
    connect_four_result,
    endgame_summary,
    endgame_table,
    endgame_values,
    move_accuracy,
    network_alone,
    othello_result,
    public_rows,
    solved_rows,
    solvers_forbidden,
)
from boardzoo.agents import AlphaZeroAgent, MCTSAgent
from boardzoo.arena import GameRecord, play_match
from boardzoo.envs import make_env, make_game
from boardzoo.knowledge.connect_four import Solver, solve


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


def test_the_endgame_report_finds_the_move_that_threw_a_won_game_away():
    """A game cut after its 20th move, a column that turns the mover's +4 (a win with its 18th
    stone) into -2 (the opponent wins with its 20th): the solver's column scores of the
    19-stone position are 4, 4, 2, full, 4, -2, 4."""
    game = make_game("connect_four")
    played = [int(c) - 1 for c in "1714446424462133222"] + [5]
    scores = {a: -Solver().solve(game.step(game.replay(played[:19]), a)).value
              for a in game.legal_actions(game.replay(played[:19]))}
    assert scores == {0: 4, 1: 4, 2: 2, 4: 4, 5: -2, 6: 4}
    for seat in (1, 0):  # the 20th move is player_1's (the second player's)
        record = GameRecord(index=0, agent_a_seat=seat, opening=played[:4], moves=played[4:],
                            returns=[0.0, 0.0], score=0.0)
        rows = endgame_values(record, game, connect_four_result())
        assert len(rows) == 20 - 14  # from 14 stones, where the solver's reach begins
        assert rows[-1] == (1, -1, seat == 1)  # won before the move, lost after: mover's view
        for (_, after, _), (before, _, _) in zip(rows, rows[1:], strict=False):
            assert before == -after  # each row's value is the next mover's, negated
        summary = endgame_summary([record], game, connect_four_result())
        assert summary.games_thrown == (seat == 1) and summary.opponent_thrown == (seat == 0)
        assert summary.thrown == {(1, -1): seat == 1, (1, 0): 0, (0, -1): 0}
        value = rows[0][0] if rows[0][2] else -rows[0][0]  # at 14 stones, the agent's view
        assert summary.at_reach[value] == 1 and summary.kept_score == (value + 1) / 2
        assert endgame_table(summary, "14 stones").row_count == 1


def test_the_othello_endgame_report_follows_the_mover_through_passes():
    """Othello 6x6 games of random moves: from 20 empty squares on every result is the
    mover's, so no move improves it (the exact result is the best the mover can get); a
    perspective slip at a pass would show as a move that does."""
    game = make_game("othello", board_size=6)
    rng = np.random.default_rng(3)
    for index in range(3):
        state, moves = game.initial_state(), []
        while not game.is_terminal(state):
            moves.append(int(rng.choice(game.legal_actions(state))))
            state = game.step(state, moves[-1])
        record = GameRecord(index=index, agent_a_seat=0, opening=moves[:4], moves=moves[4:],
                            returns=list(game.returns(state)), score=0.0)
        rows = endgame_values(record, game, othello_result)
        assert len(rows) >= 10  # a pass is a move too
        assert all(after <= before for before, after, _ in rows)
        assert {mine for _, _, mine in rows} == {True, False}


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



# ---------------------------------------------- the shipped checkpoint (its model card)
def _shipped_agent() -> AlphaZeroAgent:
    return AlphaZeroAgent.from_checkpoint("connect_four", simulations=200, exact_solver=False,
                                          seed=0)


@pytest.mark.slow
@pytest.mark.parametrize(("rows", "search_bar", "alone_bar"), [
    (public_rows, 0.97, 0.85),
    (lambda: solved_rows("Test_L2_R1"), 0.95, 0.85),
], ids=["public_200", "Test_L2_R1"])
def test_the_shipped_connect_four_network_preserves_the_outcome(rows, search_bar, alone_bar):
    """Issue 9's bars with every solver forbidden: an outcome-preserving move in the won and
    drawn positions (123 of the public 200, 560 of Test_L2_R1) with 200 simulations, and the
    network alone (its policy's argmax) well above what search could hide."""
    agent = _shipped_agent()
    table = rows()
    with solvers_forbidden(make_game("connect_four")):
        positions, kept, optimal = move_accuracy(table, agent.act)
        _, alone, _ = move_accuracy(table, network_alone(agent))
    print(f"{positions} won/drawn positions: {kept:.1%} outcome-preserving "
          f"({optimal:.1%} strictly optimal), network alone {alone:.1%}")
    assert kept >= search_bar and alone >= alone_bar


@pytest.mark.slow
def test_the_shipped_connect_four_network_beats_search_alone_at_equal_simulations():
    """What learning buys: at 200 simulations each, every solver forbidden to both, the
    network against MCTS with random rollouts over 40 paired games from 4-ply openings
    (measured before shipping: 0.938, +37 =1 -2); the lower end of its 95% interval clears 50%."""
    agent = NoSolverAgent(_shipped_agent(), "connect_four")
    mcts = NoSolverAgent(MCTSAgent(simulations=200, exact_solver=False, seed=0), "connect_four")
    result = play_match("connect_four", agent, mcts, games=40, seed=0, opening_plies=4)
    print(f"+{result.wins} ={result.draws} -{result.losses}: {result.score:.3f} "
          f"{result.score_ci}")
    assert result.score_ci[0] > 0.5


@pytest.mark.slow
@pytest.mark.parametrize(("simulations", "options", "measured"), [
    (100, {"rollout": "random"}, "0.975, +39 -1"),
    (200, {}, "0.738, +29 =1 -10"),
], ids=["random_rollouts_100", "othello_defaults_200"])
def test_the_shipped_othello_network_beats_search_alone_at_equal_simulations(
        simulations, options, measured):
    """Othello 6x6, every solver forbidden to both: the shipped network against MCTS at the
    same simulations, with random rollouts and with Othello's default search (heuristic
    evaluation), over 40 paired games from 4-ply openings (measured before shipping: see
    ``measured``); the lower end of the 95% interval clears 50%."""
    agent = NoSolverAgent(AlphaZeroAgent.from_checkpoint(
        "othello_6x6", simulations=simulations, exact_solver=False, seed=0), "othello")
    mcts = NoSolverAgent(MCTSAgent(simulations=simulations, exact_solver=False, seed=0,
                                   **options), "othello")
    result = play_match("othello", agent, mcts, games=40, seed=0, opening_plies=4,
                        game_options={"board_size": 6})
    print(f"+{result.wins} ={result.draws} -{result.losses}: {result.score:.3f} "
          f"{result.score_ci} (measured {measured})")
    assert result.score_ci[0] > 0.5


def test_the_othello_check_plays_both_matches_with_the_solvers_forbidden_to_the_network(
        tmp_path, capsys):
    """``--game othello_6x6``: the network (here an untrained one) and the MCTS baseline each
    play paired games against alpha-beta at the same time a move; a network that consulted
    the endgame solver would raise (SolverUsed) instead of finishing its games."""
    from benchmarks.alphazero_strength import main
    from boardzoo.agents.alphazero.checkpoint import save_checkpoint
    from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig

    game = make_game("othello", board_size=6)
    path = tmp_path / "tiny.pt"
    save_checkpoint(path, game, AlphaZeroNet.for_game(game, NetworkConfig(1, 8)), step=1)
    main(["--game", "othello_6x6", "--checkpoint", str(path), "--games", "2",
          "--time-limit", "0.02"])
    lines = capsys.readouterr().out.splitlines()
    matches = [line for line in lines if "vs AlphaBetaAgent(time_limit=0.02)" in line]
    assert len(matches) == 2 and "over 2 games" in matches[0]
    assert matches[0].startswith("AlphaZero 0.02 s") and "baseline" in matches[1]


def test_the_learned_agent_takes_more_options_but_never_its_exact_solver(tmp_path, capsys):
    from benchmarks.alphazero_strength import learned_agent, main

    agent = learned_agent("othello_6x6", "time_limit=0.02", "solver=True,c=2.0")
    assert agent.options["solver"] and agent.options["c"] == 2.0 and agent.time_limit == 0.02
    assert not agent.exact_solver
    main(["--game", "othello_6x6", "--games", "2", "--time-limit", "0.02",
          "--agent-options", "solver=True", "--skip-baseline"])
    matches = [line for line in capsys.readouterr().out.splitlines() if " vs " in line]
    assert len(matches) == 1 and matches[0].startswith("AlphaZero 0.02 s")
    with pytest.raises(SystemExit):
        main(["--game", "othello_6x6", "--agent-options", "exact_solver=True"])
