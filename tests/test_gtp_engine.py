"""``boardzoo gtp``: a scripted GTP exchange (command / expected reply pairs, as gogui-regress
runs them) through a real subprocess, the error cases, dead stones on hand-made positions,
and a whole game driven by GNU Go as the opponent engine."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from boardzoo.errors import InvalidOptionError
from boardzoo.gtp import GtpEngine, GtpError, find_gnugo, gnugo_command
from boardzoo.gtp import engine as gtp_engine
from boardzoo.gtp import record as gtp_record
from boardzoo.gtp import serve as gtp_serve
from boardzoo.gtp.engine import GoGtpEngine
from boardzoo.knowledge.go import fills_own_eye, passing_wins

GNUGO = find_gnugo()
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go not installed (apt-get gnugo)")
FAST_AGENT = "mcts:simulations=300"
ENGINE = [sys.executable, "-m", "boardzoo.cli", "gtp", "--size", "9", "--agent", FAST_AGENT,
          "--seed", "3"]
REQUIRED = (
    "protocol_version name version known_command list_commands quit boardsize clear_board "
    "komi play genmove undo showboard final_score final_status_list time_settings time_left "
    "kgs-time_settings kgs-genmove_cleanup loadsgf"
).split()

DATA = Path(__file__).resolve().parent / "data"


def exchange(script: list[tuple[str, str]], args: list[str] = ENGINE) -> list[str]:
    """Send every command of ``script`` to a fresh engine process in one go and check each
    reply against its pattern (a full match of ``= ...`` / ``? ...``); returns the replies."""
    text = "".join(command + "\n" for command, _ in script)
    done = subprocess.run(args, input=text, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    replies = done.stdout.split("\n\n")
    assert replies[-1] == "", f"output must end with a blank line: {done.stdout!r}"
    replies = replies[:-1]
    assert len(replies) == len(script), done.stdout
    for (command, pattern), reply in zip(script, replies, strict=True):
        assert re.fullmatch(pattern, reply, flags=re.S), f"{command!r} -> {reply!r}"
    return replies


def test_scripted_session_covers_every_command(tmp_path):
    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[7]KM[5.5];B[dd];W[cc];B[ec])")
    listed = "|".join(REQUIRED)
    script = [
        ("protocol_version", r"= 2"),
        ("name", r"= boardzoo"),
        ("version", r"= \S+ \(area scoring, komi 7\.5, ko positional, suicide forbidden; .*\)"),
        ("known_command genmove", r"= true"),
        ("known_command frobnicate", r"= false"),
        ("list_commands", rf"= ({listed}|boardzoo-rules)(\n({listed}|boardzoo-rules))*"),
        ("boardsize 9", r"="),
        ("clear_board", r"="),
        ("komi 6.5", r"="),
        ("boardzoo-rules", r"= area scoring, komi 6\.5, .*"),
        ("play black E5", r"="),
        ("play w e5", r"\? illegal move: .*"),
        ("genmove white", r"= ([A-HJ][1-9]|pass)"),
        ("undo", r"="),
        ("undo", r"="),
        ("undo", r"\? cannot undo.*"),
        ("play B C3", r"="),
        ("showboard",
         r"= \n.*\n3 (\. ){2}X .*\nwhite \(O\) to move; captured by black: 0, by white: 0"),
        ("time_settings 300 30 10", r"="),
        ("time_left black 250 0", r"="),
        ("kgs-time_settings byoyomi 60 10 5", r"="),
        ("kgs-time_settings none", r"="),
        ("final_status_list seki", r"="),
        ("final_status_list alive", r"= C3"),
        ("final_status_list dead", r"="),
        ("final_score", r"= B\+74\.5"),  # one stone owns the empty board: 81 - 6.5
        ("kgs-genmove_cleanup white", r"= ([A-HJ][1-9]|pass)"),
        (f"loadsgf {sgf} 3", r"="),
        ("showboard",
         r"= \n.*\n5 (\. ){2}O (\. ){3}\.\n4 (\. ){3}X (\. ){2}\.\n.*black \(X\) to move.*"),
        (f"loadsgf {sgf}", r"="),
        ("play black E5", r"\? illegal move: .*"),  # E5 on 7x7 is SGF's ec: taken
        ("17 name", r"=17 boardzoo"),
        ("quit", r"="),
    ]
    exchange(script)


def test_errors_are_answered_and_the_engine_keeps_running(tmp_path):
    script = [
        ("frobnicate", r"\? unknown command: 'frobnicate' .*"),
        ("boardsize 25", r"\? unacceptable size: 25 .*"),
        ("boardsize nine", r"\? syntax error: .*"),
        ("boardsize ١٩", r"\? syntax error: .*"),  # digits of other scripts are not numbers
        ("boardsize", r"\? syntax error: use boardsize SIZE"),
        ("komi 6.3", r"\? komi 6\.3 is not supported: .*"),
        ("komi seven", r"\? syntax error: .*"),
        ("play black Z5", r"\? syntax error: 'Z5' is not a move on the 9x9 board.*"),
        ("play black I5", r"\? syntax error: .*"),  # GTP has no column I
        ("play black A10", r"\? syntax error: .*"),
        ("play black A²", r"\? syntax error: .*"),
        ("play purple A1", r"\? syntax error: 'purple' is not a colour .*"),
        ("play black", r"\? syntax error: use play COLOUR VERTEX"),
        ("genmove", r"\? syntax error: use genmove COLOUR"),
        ("final_status_list lost", r"\? syntax error: .*"),
        ("time_settings 1 2", r"\? syntax error: .*"),
        ("time_left white -5 0", r"\? syntax error: .*"),
        ("kgs-time_settings hourglass 5", r"\? syntax error: .*"),
        ("loadsgf /nonexistent/file.sgf", r"\? cannot load file: .*"),
        (f"loadsgf {tmp_path}", r"\? cannot load file: .*"),
        ("42", r"\?42 syntax error: .*"),
        ("name # trailing comment", r"= boardzoo"),
        ("quit", r"="),
    ]
    text = "# only a comment\n\n\t\n"  # comments and blank lines get no reply
    done = subprocess.run(ENGINE, input=text + "name\nquit\n", capture_output=True, text=True,
                          timeout=120)
    assert done.stdout == "= boardzoo\n\n=\n\n"
    exchange(script)


LOAD_FAILED = "? cannot load file: "


def answer_in_time(engine: GoGtpEngine, line: str, fifo: Path | None = None) -> str:
    """``engine``'s reply to ``line``, failing the test (not hanging it) if none comes within
    10 s; a reader stuck opening ``fifo`` is released by opening its writing end."""
    replies: list[str | None] = []
    worker = threading.Thread(target=lambda: replies.append(engine.handle(line)), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():
        if fifo is not None:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # EOF for the stuck reader
            worker.join(10)
        pytest.fail(f"{line!r} blocked the engine")
    assert replies[0] is not None
    return replies[0]


def assert_load_failure(reply: str, path: object, reason: str) -> None:
    """One ``cannot load file`` answer naming ``path``, with ``reason`` (a regex) after it."""
    assert reply.startswith(LOAD_FAILED) and reply.endswith("\n\n"), reply
    assert reply.count("cannot load file") == 1, reply
    assert re.fullmatch(rf"{re.escape(f'{LOAD_FAILED}{path}')}{reason}\n\n", reply, re.S), reply


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_loadsgf_refuses_a_named_pipe_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "game.sgf"
    os.mkfifo(fifo)
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    reply = answer_in_time(engine, f"loadsgf {fifo}", fifo)
    assert_load_failure(reply, fifo, r": not a regular file \(it is a named pipe\)")
    assert engine.handle("name") == "= boardzoo\n\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_loadsgf_does_not_block_on_a_pipe_swapped_in_after_the_file_check(tmp_path, monkeypatch):
    """The type is checked again on the opened file (opened without blocking): a path that
    was a regular file at the check and is a pipe by the open is refused, not waited on."""
    regular, fifo = tmp_path / "regular.sgf", tmp_path / "game.sgf"
    regular.write_text("(;GM[1]SZ[9])")
    os.mkfifo(fifo)
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda path, *args, **kwargs: real_stat(
        regular if str(path) == str(fifo) else path, *args, **kwargs))
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    reply = answer_in_time(engine, f"loadsgf {fifo}", fifo)
    assert_load_failure(reply, fifo, r": not a regular file \(it is a named pipe\)")


def test_loadsgf_refuses_a_directory_and_names_it(tmp_path):
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    assert_load_failure(engine.handle(f"loadsgf {tmp_path}"), tmp_path,
                        r": not a regular file \(it is a directory\)")


def test_loadsgf_refuses_an_oversized_file_with_the_prefix_once(tmp_path):
    huge = tmp_path / "huge.sgf"
    huge.write_text("(;GM[1]SZ[9]C[" + "x" * gtp_record.MAX_SGF_BYTES + "])")
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    reply = answer_in_time(engine, f"loadsgf {huge}")
    assert reply == f"{LOAD_FAILED}{huge}: it is larger than {gtp_record.MAX_SGF_BYTES} bytes\n\n"
    exact = tmp_path / "exact.sgf"  # a file of exactly the limit is read
    head = "(;GM[1]SZ[9];B[ee]C["
    exact.write_text(head + "x" * (gtp_record.MAX_SGF_BYTES - len(head) - 2) + "])")
    assert exact.stat().st_size == gtp_record.MAX_SGF_BYTES
    assert engine.handle(f"loadsgf {exact}") == "=\n\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero here")
def test_loadsgf_refuses_an_endless_device_and_the_engine_runs_on():
    """A real engine process, with its address space capped (an unbounded read of /dev/zero
    dies of MemoryError instead of eating the machine's memory) and a timeout."""
    import resource

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    command = [sys.executable, "-m", "boardzoo.cli", "gtp", "--size", "9", "--agent", "random"]
    done = subprocess.run(command, input="loadsgf /dev/zero\nname\nquit\n", text=True,
                          capture_output=True, timeout=120, preexec_fn=cap_memory)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (f"{LOAD_FAILED}/dev/zero: not a regular file (it is a character "
                           "device)\n\n= boardzoo\n\n=\n\n")


@pytest.mark.parametrize(("text", "reason"), [
    (None, r": No such file or directory"),
    ("(;GM[1]FF[4]SZ[9]", r": SGF is malformed at offset 17 .*"),
    ("(;GM[1]FF[4]SZ[9];B[zz])", r": SGF point 'zz' is off the 9x9 board"),
    ("(;GM[1]FF[4]SZ[9];B[ee];W[ee])", r": move 2: illegal move: W E5 \(occupied.*\)"),
    ("(;GM[1]FF[4]SZ[52])", r": SGF SZ\[52\] is out of range.*"),
    ("(;GM[1]FF[4]SZ[1])", rf": the board is 1x1; boardzoo plays 2\.\.{gtp_record.MAX_SIZE}"),
    ("(;GM[1]FF[4]SZ[9]KM[0.3])", r": komi 0\.3 is not supported: .*"),
])
def test_loadsgf_failures_name_the_file_once_and_keep_the_position(tmp_path, text, reason):
    sgf = tmp_path / "game.sgf"
    if text is not None:
        sgf.write_text(text)
    engine = GoGtpEngine(agent="random", board_size=7, seed=0)
    assert engine.handle("play b D4") == "=\n\n"
    board = engine.handle("showboard")
    assert_load_failure(engine.handle(f"loadsgf {sgf}"), sgf, reason)
    assert engine.handle("showboard") == board


def test_loadsgf_move_numbers_count_from_one(tmp_path):
    sgf = tmp_path / "game.sgf"
    sgf.write_text("(;GM[1]FF[4]SZ[9];B[ee];W[cc])")
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    assert engine.handle(f"loadsgf {sgf} 0").startswith("? syntax error: ")
    assert engine.handle(f"loadsgf {sgf} 1") == "=\n\n"
    assert "X" not in engine.handle("showboard").split("\n", 10)[-1].split("black")[0]


def test_the_default_agent_searches_one_tree_per_core(monkeypatch):
    """Like other Go engines, boardzoo gtp uses the cores it may run on: one MCTS tree each
    (root parallelism), up to MAX_THREADS; one core, one tree."""
    monkeypatch.setattr(gtp_engine, "available_cores", lambda: 2)
    engine = GoGtpEngine(board_size=5)
    assert engine.agent_spec == "mcts:threads=2" and engine.agent.threads == 2
    monkeypatch.setattr(gtp_engine, "available_cores", lambda: 1)
    assert GoGtpEngine(board_size=5).agent.threads == 1
    assert gtp_engine.default_agent(cores=100) == f"mcts:threads={gtp_engine.MAX_THREADS}"
    assert GoGtpEngine(agent=FAST_AGENT, board_size=5).agent.threads == 1


def test_ko_recapture_and_illegal_suicide_are_refused():
    engine = GoGtpEngine(agent=FAST_AGENT, board_size=5, komi=0.5)
    ko = ["play b B3", "play w C3", "play b C2", "play w D2", "play b C4", "play w D4",
          "play b D3", "play w E3", "play w C3"]  # white takes the ko on C3
    for command in ko:
        assert engine.handle(command) == "=\n\n", command
    assert engine.handle("play b D3").startswith("? illegal move: B D3")
    assert engine.handle("play b A1") == "=\n\n"  # a ko threat elsewhere
    engine.handle("play w A5")
    assert engine.handle("play b D3") == "=\n\n"  # now the ko may be retaken
    # Black B1 next to its A1 in White's A2 B2 C1 net: a two-stone suicide
    net = ["play b A1", "play w A2", "play w B2", "play w C1"]
    forbidden = GoGtpEngine(agent=FAST_AGENT, board_size=3, suicide=False)
    allowed = GoGtpEngine(agent=FAST_AGENT, board_size=3, suicide=True)
    for command in net:
        assert forbidden.handle(command) == allowed.handle(command) == "=\n\n", command
    assert forbidden.handle("play b B1").startswith("? illegal move: B B1")
    assert allowed.handle("play b B1") == "=\n\n"
    assert allowed.handle("showboard").endswith("captured by black: 0, by white: 2\n\n")
    assert "suicide allowed" in allowed.handle("version")


def test_play_goes_on_after_two_passes_and_undo_restores_every_position():
    engine = GoGtpEngine(agent=FAST_AGENT, board_size=5, komi=0.5)
    for command in ("play b C3", "play w pass", "play b pass", "play w D3", "play w D4"):
        assert engine.handle(command) == "=\n\n", command  # colours need not alternate
    boards = []
    for _ in range(5):
        boards.append(engine.handle("showboard"))
        assert engine.handle("undo") == "=\n\n"
    assert engine.handle("undo").startswith("? cannot undo")
    assert boards[0].count("O") == 2 and boards[0].count("X") == 2  # "black (X) to move"
    assert boards[-1].count("X") == 1 and boards[-1].count("O") == 1  # C3, "white (O)"
    empty = engine.handle("showboard")
    assert "O" not in empty and empty.count("X") == 1  # "black (X) to move"
    assert engine.handle("komi 6") == "=\n\n"  # komi changes keep the game
    assert engine.handle("play b C3") == "=\n\n" and "komi 6," in engine.rules_text()


def gnugo_positions(count: int) -> list[dict]:
    """Final positions of GNU Go self-play games (benchmarks/go_dead_stones.py) with GNU Go's
    dead stones and final score."""
    lines = (DATA / "go_dead_stones.jsonl").read_text().splitlines()[:count]
    return [json.loads(line) for line in lines]


def engine_at(row: dict, seed: int = 0) -> GoGtpEngine:
    engine = GoGtpEngine(agent=FAST_AGENT, board_size=row["size"], komi=7.5, seed=seed)
    for move in row["moves"]:
        assert engine.handle(f"play {move}") == "=\n\n", move
    return engine


def test_dead_stones_and_scores_agree_with_gnugo_on_finished_games():
    rows = gnugo_positions(20)
    same_dead = same_score = 0
    for k, row in enumerate(rows):
        engine = engine_at(row, seed=k)
        dead = set(engine.handle("final_status_list dead")[1:].split())
        same_dead += dead == set(row["gnugo_dead"])
        same_score += engine.handle("final_score") == f"= {row['gnugo_score']}\n\n"
    assert sum(bool(row["gnugo_dead"]) for row in rows) >= 10  # most have dead stones
    assert same_dead >= 18 and same_score >= 18, (same_dead, same_score)


def test_cleanup_captures_the_dead_stones_and_passing_needs_a_win_both_ways():
    row = gnugo_positions(3)[2]  # GNU Go: B+5.5 with four dead White stones on the board
    assert row["gnugo_score"] == "B+5.5" and len(row["gnugo_dead"]) == 4
    engine = engine_at(row)
    stones = [engine.game.str_to_action(v) for v in row["gnugo_dead"]]
    assert engine.game.score(engine.state) == -27.5  # Tromp-Taylor: the dead stones count
    engine.handle("play w pass")
    assert not passing_wins(engine.game, engine.env(0).state_array)  # it would lose as scored
    assert engine.handle("genmove b") != "= pass\n\n"

    def captured() -> bool:
        return all(engine.game.cells(engine.state).ravel()[a] == 0 for a in stones)

    for _ in range(20):
        if captured():
            break
        assert engine.handle("play w pass") == "=\n\n"
        assert engine.handle("kgs-genmove_cleanup b") != "= pass\n\n"
    assert captured()
    assert engine.game.score(engine.state) > 0  # captured: Black wins as the board stands
    engine.handle("play w pass")
    assert engine.handle("genmove b") == "= pass\n\n"  # and passing ends the game won


def test_engine_never_fills_its_own_eye_while_other_moves_are_searched():
    engine = GoGtpEngine(agent=FAST_AGENT, board_size=5, komi=0.5, seed=1)
    a1 = engine.game.str_to_action("A1")
    assert not fills_own_eye(engine.env(0).state_array, a1)
    for vertex in ("A2", "B1", "B2"):
        engine.handle(f"play b {vertex}")
    assert fills_own_eye(engine.env(0).state_array, a1)
    for _ in range(6):
        assert engine.handle("genmove b") != "= A1\n\n"
        engine.handle("play w pass")


@needs_gnugo
def test_full_game_against_gnugo_as_the_controller():
    """GNU Go and ``boardzoo gtp`` play a 9x9 game through a small twogtp-like driver: every
    move of each is accepted by the other, the game ends by two passes, and the two engines'
    final scores name the same winner."""
    ours = GtpEngine(ENGINE, timeout=120)
    gnugo = GtpEngine(gnugo_command(level=1)({"ko": "positional", "suicide": False}), timeout=60)
    try:
        for engine in (ours, gnugo):
            engine.send("boardsize 9")
            engine.send("komi 7.5")
            engine.send("clear_board")
        players = {"black": gnugo, "white": ours}
        passes, moves = 0, 0
        colour = "black"
        while passes < 2 and moves < 200:
            mover, other = players[colour], (ours if players[colour] is gnugo else gnugo)
            move = mover.send(f"genmove {colour}").lower()
            assert move != "resign"
            other.send(f"play {colour} {move}")  # GtpError if either side disagrees
            passes = passes + 1 if move == "pass" else 0
            moves += 1
            colour = "white" if colour == "black" else "black"
        assert passes == 2, "the game should end by two passes"
        our_score, their_score = ours.send("final_score"), gnugo.send("final_score")
        assert re.fullmatch(r"[BW]\+\d+(\.5)?|0", our_score)
        assert our_score[0] == their_score[0], (our_score, their_score)
        with pytest.raises(GtpError, match="illegal move"):
            ours.send("play black A1" if "A1" in ours.send("final_status_list alive") else
                      "play black " + ours.send("final_status_list alive").split()[0])
    finally:
        ours.close()
        gnugo.close()


def test_loadsgf_names_an_unprintable_path_escaped(tmp_path):
    """A path with a character the terminal cannot show (a lone surrogate, as undecodable
    input bytes arrive) is named in its escaped form, so the answer stays one clean line."""
    engine = GoGtpEngine(agent="random", board_size=9, seed=0)
    path = f"{tmp_path}/game\udcff.sgf"
    reply = engine.handle(f"loadsgf {path}")
    assert reply.startswith(f"{LOAD_FAILED}{path!r}: ") and reply.isascii(), reply
    reply.encode("utf-8")  # writable to the controller


def test_an_overlong_input_line_is_skipped_whole_and_answered_with_a_failure():
    import io

    long = "boardsize " + "9" * (gtp_serve.MAX_LINE + 5) + "\n"
    stdin = io.StringIO(f"1 name\n{long}2 boardsize 7\n3 name\nquit\n")
    stdout = io.StringIO()
    gtp_serve.serve(GoGtpEngine(agent="random"), stdin, stdout)
    replies = stdout.getvalue().split("\n\n")
    assert replies[:4] == ["=1 boardzoo",
                           f"? input line longer than {gtp_serve.MAX_LINE:,} characters; ignored",
                           "=2", "=3 boardzoo"]


def test_alphazero_without_a_checkpoint_resigns_by_its_networks_search(tmp_path, monkeypatch):
    """``alphazero`` without a checkpoint (the shipped network of the game asked about: here
    a 5x5 one put in its place) exposes its network's search, so ``resign_below`` reads its
    value: the same search plays just below that value and resigns just above it."""
    import torch

    from boardzoo.agents.alphazero import checkpoint
    from boardzoo.agents.alphazero.agent import ShippedAlphaZero
    from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig
    from boardzoo.envs.go import Go

    torch.manual_seed(0)
    go5 = Go(board_size=5, komi=7.5)
    path = tmp_path / "go5.pt"
    checkpoint.save_checkpoint(path, go5, AlphaZeroNet.for_game(go5, NetworkConfig(1, 8)),
                               step=1)
    monkeypatch.setattr(ShippedAlphaZero, "_checkpoint_for", staticmethod(lambda game: path))
    spec = "alphazero:simulations=8"
    playing = GoGtpEngine(agent=spec, board_size=5, seed=0, resign_below=-1.0)
    assert re.fullmatch(r"= ([A-E][1-5]|pass)\n\n", playing.handle("genmove b"))
    value = playing.agent.last_search.value
    assert -1.0 < value < 1.0
    resigning = GoGtpEngine(agent=spec, board_size=5, seed=0, resign_below=value + 1e-6)
    assert resigning.handle("genmove b") == "= resign\n\n"


def test_resign_below_is_refused_for_an_agent_that_does_not_search():
    with pytest.raises(InvalidOptionError, match=r"^resign_below: agent 'random' does not "
                       r"search, so it has no value to resign by; the searching agents "
                       r"\(alphabeta, mcts, alphazero\) can$"):
        GoGtpEngine(agent="random", board_size=9, resign_below=-0.5)
