"""``boardzoo uci`` driven by python-chess's UCI client (``chess.engine``) in a subprocess:
a few moves under move-time and clock limits, analysis limited by depth and by nodes, an
infinite analysis stopped by the client; and bad input answered with one ``info string``."""

from __future__ import annotations

import sys
import threading

import chess
import chess.engine
import pytest

from boardzoo.uci import GoLimits, UciEngine, UciError, parse_go, uci_score

ENGINE = [sys.executable, "-m", "boardzoo.cli", "uci", "--seed", "1"]


@pytest.fixture(scope="module")
def engine():
    process = chess.engine.SimpleEngine.popen_uci(ENGINE, timeout=600)  # compiles at most once
    yield process
    process.quit()


def test_identifies_itself_and_plays_legal_moves_under_time_limits(engine):
    assert engine.id["name"].startswith("boardzoo")
    board = chess.Board()
    for limit in (chess.engine.Limit(time=0.1), chess.engine.Limit(white_clock=5, black_clock=5,
                                                                   white_inc=0.1, black_inc=0.1)):
        for _ in range(2):
            result = engine.play(board, limit)
            assert result.move in board.legal_moves
            board.push(result.move)


def test_analysis_by_depth_reports_each_iteration(engine):
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    info = engine.analyse(board, chess.engine.Limit(depth=3))
    assert info["depth"] == 3 or info["score"].is_mate()
    assert info["pv"][0] == chess.Move.from_uci("h5f7")  # Qxf7 mates
    assert info["score"].white() == chess.engine.Mate(1)
    assert info["nodes"] > 0 and "nps" in info


def test_analysis_by_nodes_stops_after_the_limit_is_reached(engine):
    board = chess.Board()
    info = engine.analyse(board, chess.engine.Limit(nodes=2000))
    assert info["nodes"] >= 2000
    assert info["pv"][0] in board.legal_moves
    # the move played from the position after 1. e4: the engine writes black's moves
    board.push_uci("e2e4")
    info = engine.analyse(board, chess.engine.Limit(nodes=2000))
    line = board.copy()
    for move in info["pv"]:
        assert move in line.legal_moves
        line.push(move)


def test_infinite_analysis_runs_until_stopped(engine):
    board = chess.Board()
    with engine.analysis(board) as analysis:
        for info in analysis:
            if info.get("depth", 0) >= 3:
                break
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves


def run_lines(lines: list[str]) -> list[str]:
    """The engine's output for input ``lines`` (in this process; waits for searches)."""
    out: list[str] = []
    engine = UciEngine(agent="alphabeta:depth=1", write=out.append)
    for line in lines:
        engine.handle(line)
    engine.handle("quit")
    return out


def test_bad_input_is_one_info_string_and_the_engine_goes_on():
    out = run_lines([
        "hello", "position startpos moves e2e5", "position fen not/a/fen w - - 0 1",
        "go depth x", "go wtime", "setoption name Hash value 16", "position startpos moves Nf3",
        "position startpos moves e2e4", "go depth 1",
    ])
    errors = [line for line in out if line.startswith("info string")]
    assert len(errors) == 7
    assert "unknown command 'hello'" in errors[0]
    assert "e2e5" in errors[1] and "not legal" in errors[1]
    assert "Move Overhead" in errors[5]
    after_e4 = chess.Board()
    after_e4.push_uci("e2e4")
    assert out[-1].startswith("bestmove ")
    assert chess.Move.from_uci(out[-1].split()[1]) in after_e4.legal_moves  # black's move


def test_go_words():
    limits = parse_go("wtime 60000 btime 30000 winc 1000 binc 500 movestogo 20".split())
    clock = limits.clock(1, overhead_ms=100)
    assert clock is not None
    assert (clock.remaining, clock.increment, clock.moves_to_go) == (29.9, 0.5, 20)
    assert GoLimits(movetime=500).clock(0, 50).per_move == 0.45
    assert parse_go(["mate", "2"]).depth == 3
    for words in (["depth", "0"], ["nodes"], ["ponder"]):
        with pytest.raises(UciError):
            parse_go(words)


def test_stop_from_another_thread_ends_an_infinite_search():
    out: list[str] = []
    engine = UciEngine(agent="alphabeta", write=out.append)
    engine.handle("position startpos")
    engine.handle("go infinite")
    timer = threading.Timer(1.0, engine.handle, args=("stop",))
    timer.start()
    timer.join()
    engine.handle("isready")
    assert out[-2].startswith("bestmove ") and out[-1] == "readyok"
    assert any(line.startswith("info depth") for line in out)


def test_score_text():
    from boardzoo.analysis import HEURISTIC, Analysis

    def analysis(value: float, proven: str | None, pv: tuple[str, ...]) -> Analysis:
        return Analysis(0, "e2e4", value, HEURISTIC, False, 1, 1, 0.1, pv, proven=proven)

    assert uci_score(analysis(1.0, "win", ("a", "b", "c"))) == "mate 2"
    assert uci_score(analysis(-1.0, "loss", ("a", "b"))) == "mate -1"
    assert uci_score(analysis(0.0, None, ())) == "cp 0"
    assert uci_score(analysis(0.5, None, ())).startswith("cp 3")  # 600 atanh(0.5) = 330


def test_end_of_input_lets_a_limited_search_answer():
    import io

    from boardzoo.uci import serve

    out: list[str] = []
    engine = UciEngine(agent="alphabeta", write=out.append)
    serve(engine, io.StringIO("position startpos\ngo depth 2\n"))
    assert engine.finished and out[-1].startswith("bestmove ")
    assert [line.split()[2] for line in out if line.startswith("info depth")] == ["1", "2"]


def test_code_compiling_while_the_engine_runs_is_shown_as_info_strings():
    import io

    from numba import njit

    from boardzoo import compile_progress
    from boardzoo.uci import serve

    out: list[str] = []
    engine = UciEngine(agent="alphabeta:depth=1", write=out.append)

    class Input(io.StringIO):
        def readline(self, *args):  # a first-use compile happens while the engine serves
            with compile_progress.quiet(), compile_progress.unit("chess", "a search"):
                njit(lambda x: x + 1)(1)
            return super().readline(*args)

    serve(engine, Input("isready\nquit\n"))
    shown = [line for line in out if line.startswith("info string compil")]
    assert shown[0] == "info string compiling chess: a search..."
    assert shown[1].startswith("info string compiled chess: a search in ")
    assert "readyok" in out
