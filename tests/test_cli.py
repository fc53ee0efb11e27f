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
    """`boardzoo arena` with no arguments: random, PPO, alpha-beta, MCTS at 1,000 and 10,000
    simulations and AlphaZero on Connect Four, the learned ones loaded from the shipped
    checkpoints; each makes a legal move."""
    from boardzoo.agents import make_agent
    from boardzoo.agents.defaults import default_agents
    from boardzoo.cli import DEFAULT_GAME
    from boardzoo.envs import make_env, make_game

    assert DEFAULT_GAME == "connect_four"
    specs = default_agents(make_game(DEFAULT_GAME))
    assert specs == ["random", "ppo:checkpoint=connect_four", "alphabeta:time_limit=0.05",
                     "mcts:simulations=1000", "mcts:simulations=10000",
                     "alphazero:checkpoint=connect_four,simulations=200"]
    for spec in specs:
        env = make_env(DEFAULT_GAME)
        env.reset(seed=0)
        assert env.legal_mask()[make_agent(spec, seed=0).act(env)], spec


def test_every_game_has_its_own_default_agents_and_opponent():
    """A game's round robin holds the shipped networks that play it with these options and
    no others; so does the opponent of `boardzoo play`."""
    from boardzoo.agents.defaults import default_agents, default_opponent
    from boardzoo.envs import make_game

    assert default_agents(make_game("tictactoe")) == [
        "random", "ppo:checkpoint=tictactoe", "alphabeta:time_limit=0.05",
        "mcts:simulations=1000", "mcts:simulations=10000",
        "alphazero:checkpoint=tictactoe,simulations=200"]
    assert default_agents(make_game("othello", board_size=6))[-1] == (
        "alphazero:checkpoint=othello_6x6,simulations=200")
    for name, small in (("nim", 1000), ("othello", 1000), ("go", 100), ("gomoku", 100),
                        ("chess", 100)):
        assert default_agents(make_game(name)) == [
            "random", "alphabeta:time_limit=0.05", f"mcts:simulations={small}",
            f"mcts:simulations={10 * small}"], name
    assert default_agents(make_game("connect_four", rows=5, columns=6))[-1] == (
        "mcts:simulations=10000")  # the shipped networks are for 6x7
    assert default_opponent(make_game("connect_four")) == (
        "alphazero:checkpoint=connect_four,simulations=200")
    assert default_opponent(make_game("go")) == "mcts:simulations=1000"


@pytest.mark.slow
@pytest.mark.parametrize("game", ["tictactoe", "nim", "connect_four", "othello", "go", "gomoku"])
def test_the_default_round_robin_of_every_game_runs(game, tmp_path, capsys):
    """`boardzoo arena GAME --games 2` with the game's default agents: every pair plays
    its two games and the table lists every agent."""
    from boardzoo.agents.defaults import default_agents
    from boardzoo.envs import make_game

    out = tmp_path / "results"
    assert main(["arena", game, "--games", "2", "--out", str(out)]) == 0
    ratings = json.loads((out / game / "ratings.json").read_text())
    specs = default_agents(make_game(game))
    assert sorted(row["agent"] for row in ratings["ratings"]) == sorted(specs)
    assert all(row["games"] == 2 * (len(specs) - 1) for row in ratings["ratings"])


def test_play_reads_moves_until_the_game_ends(monkeypatch, capsys):
    moves = iter(["help", "zz", "b2", "a1", "c3", "a3", "c1"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(moves))
    assert main(["play", "tictactoe", "--opponent", "random", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert "legal moves:" in printed and "player_1 plays" in printed


def test_play_without_an_opponent_plays_the_games_default(monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", lambda prompt="": "quit")
    assert main(["play", "nim", "--seat", "0"]) == 0
    assert "against mcts:simulations=10000" in capsys.readouterr().out


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
    (["arena", "shogi", "--games", "2"], "unknown game 'shogi'"),
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


def test_play_chess_takes_san_and_uci_and_answers_in_san(monkeypatch, capsys):
    """The board is labelled a-h and 8-1; a move is read in SAN or UCI, bad text and an
    illegal move each get one line, and the agent's replies are SAN that python-chess plays
    in the same game."""
    board = pytest.importorskip("chess").Board()
    moves = iter(["e4", "zz", "e2e5", "g1f3", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(moves))
    assert main(["play", "chess", "--opponent", "random", "--seed", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "  a b c d e f g h" in lines and "8 r n b q k b n r" in lines
    replies = [line.split(" plays ")[1] for line in lines if line.startswith("player_1 plays")]
    for mine, reply in zip(["e4", "Nf3"], replies, strict=True):
        board.push_san(mine)
        board.push_san(reply)  # raises unless legal SAN in the game
    assert len([line for line in lines if "zz" in line]) == 1
    assert any(line.startswith("e2e5 (action") and "not legal for white" in line
               for line in lines)
    assert "3 . . . . . N . ." in lines


def test_every_command_says_what_an_interruption_left_behind():
    import argparse

    from boardzoo.cli import INTERRUPTED, build_parser

    commands = next(action for action in build_parser()._actions
                    if isinstance(action, argparse._SubParsersAction))
    assert set(commands.choices) == set(INTERRUPTED)
