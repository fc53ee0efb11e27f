"""The boardzoo command: arena (a tournament with Elo ratings), play, bench, and its errors."""

from __future__ import annotations

import json

import pytest

from boardzoo.cli import main


def test_arena_runs_a_tournament_and_saves_the_ratings(tmp_path, capsys):
    out = tmp_path / "results"
    args = ["arena", "tictactoe", "--agents", "random mcts:simulations=50", "--games", "4",
            "--workers", "1", "--out", str(out), "--export", "jsonl"]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "Elo" in printed and "mcts:simulations=50" in printed
    ratings = json.loads((out / "tictactoe" / "ratings.json").read_text())
    assert {row["agent"] for row in ratings["ratings"]} == {"random", "mcts:simulations=50"}
    assert (out / "tictactoe" / "ratings.png").stat().st_size > 0
    assert main(args) == 0  # a rerun resumes: nothing left to play
    assert len((out / "tictactoe" / "random__vs__mcts_simulations=50.jsonl")
               .read_text().splitlines()) == 4


def test_the_main_jobs_agents_are_the_five_kinds_with_shipped_networks():
    """`boardzoo arena` with no arguments: random, PPO, alpha-beta, MCTS and AlphaZero on
    Connect Four, the learned ones loaded from the shipped checkpoints; each makes a legal
    move."""
    from boardzoo.agents import make_agent
    from boardzoo.cli import DEFAULT_ARENA_AGENTS, DEFAULT_GAME
    from boardzoo.envs import make_env

    specs = DEFAULT_ARENA_AGENTS.split()
    kinds = {spec.split(":")[0] for spec in specs}
    assert DEFAULT_GAME == "connect_four"
    assert kinds == {"random", "ppo", "alphabeta", "mcts", "alphazero"}
    for spec in specs:
        env = make_env(DEFAULT_GAME)
        env.reset(seed=0)
        assert env.legal_mask()[make_agent(spec, seed=0).act(env)], spec


def test_play_reads_moves_until_the_game_ends(monkeypatch, capsys):
    moves = iter(["help", "zz", "b2", "a1", "c3", "a3", "c1"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(moves))
    assert main(["play", "tictactoe", "--opponent", "random", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "legal moves:" in printed and "player_1 plays" in printed


def test_play_refuses_a_network_of_another_game_before_the_first_move(monkeypatch, capsys):
    """A checkpoint of another game is refused, naming the agent and both games, before the
    human is asked for a move (and the arena's before any game)."""
    monkeypatch.setattr("builtins.input", lambda prompt="": pytest.fail("asked for a move"))
    assert main(["play", "connect_four", "--opponent", "alphazero:checkpoint=tictactoe"]) == 2
    captured = capsys.readouterr()
    assert "You are" not in captured.out
    assert ("agent alphazero:checkpoint=tictactoe: this AlphaZero network plays TicTacToe"
            in captured.err and "not ConnectFour(rows=6, columns=7)" in captured.err)
    assert main(["arena", "connect_four", "--games", "2",
                 "--agents", "random alphazero:checkpoint=tictactoe"]) == 2
    captured = capsys.readouterr()
    assert "compiling" not in captured.out and "games stored" not in captured.out
    assert "agent alphazero:checkpoint=tictactoe: this AlphaZero network plays" in captured.err
    assert main(["arena", "tictactoe"]) == 2  # the default agents are Connect Four's
    assert "(the default --agents are connect_four's: give --agents)" in capsys.readouterr().err


def test_bench_quick_prints_ratios_and_what_it_left_out(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert main(["bench", "tictactoe", "--quick", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "MCTS 1000 sims" in printed and "random playouts" in printed
    assert "left out by --quick: " in " ".join(printed.split())
    rows = json.loads(out.read_text())
    ratios = [row["ratio"] for row in rows if row["reference"] is not None]
    assert len(ratios) >= 3 and all(0 < ratio < float("inf") for ratio in ratios), rows


@pytest.mark.parametrize(("args", "message"), [
    (["arena", "chess", "--games", "2"], "unknown game 'chess'"),
    (["arena", "tictactoe", "--agents", "random wizard"], "unknown agent 'wizard'"),
    (["play", "go", "--option", "board_size=40"], "board_size"),
])
def test_errors_are_one_clear_line(args, message, capsys):
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(("command", "option", "directory"), [
    (["arena", "tictactoe", "--agents", "random random", "--games", "1", "--workers", "1"],
     "--out", True),
    (["arena", "tictactoe", "--agents", "random random", "--games", "1", "--workers", "1"],
     "--store", False),
    (["train", "tictactoe", "--minutes", "0.01"], "--out", True),
    (["bench", "nim", "--repeats", "1"], "--out", False),
])
def test_outputs_that_cannot_be_written_are_refused_before_the_work(command, option, directory,
                                                                    tmp_path, capsys):
    """An output path that is the wrong kind (a directory for a file or the other way
    round), lies under a file, or cannot be created is a one-line error at once, not a
    traceback after the tournament, training or benchmarks ran."""
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    wrong_kind = a_file if directory else tmp_path
    for path, message in (
            (wrong_kind, f"is a {'file; give a directory' if directory else 'directory'}"),
            (a_file / "x", "a_file' is a file, not a directory"),
            ("/proc/boardzoo_cannot_write_here/x", "cannot be written")):
        extra = ["--out", str(tmp_path / "out")] if option == "--store" else []
        assert main([*command, *extra, option, str(path)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert sorted(p.name for p in tmp_path.iterdir()) in (["a_file"], ["a_file", "out"])
