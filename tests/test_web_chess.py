"""Chess on the page, checked against python-chess: every legal move is a step (from-cell,
to-cell, promotion letter) for either side, the king in check is marked, the move list is
SAN and the record downloads as PGN that python-chess reads back."""

from __future__ import annotations

import io
import random

import pytest

from boardzoo.envs.chess import Chess
from boardzoo.web.session import GameSession

chess = pytest.importorskip("chess")
chess_pgn = pytest.importorskip("chess.pgn")


def cell(square: int) -> int:
    """python-chess's square (a1 = 0) as the page's row-major cell (a8 = 0)."""
    return (7 - square // 8) * 8 + square % 8


def expected_steps(board) -> set[tuple[int, int, str]]:
    return {(cell(m.from_square), cell(m.to_square),
             chess.piece_symbol(m.promotion) if m.promotion else "") for m in board.legal_moves}


@pytest.mark.parametrize("start", [None, "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1"])
def test_random_games_on_the_page_agree_with_python_chess(start):
    rng = random.Random(3)
    session = GameSession(Chess(), "random", start=start)
    board = chess.Board() if start is None else chess.Board(start)
    for _ in range(60):
        view = session.view()["board"]
        steps = {action: tuple(step) for action, step in view["steps"].items()}
        assert set(steps.values()) == expected_steps(board)
        assert view["clicks"] == {} and view["buttons"] == []
        assert view["check"] == (cell(board.king(board.turn)) if board.is_check() else None)
        assert view["letters"] == [list(row) for row in str(board).replace(" ", "").split()]
        if session.over():
            break
        action, (frm, to, promotion) = rng.choice(sorted(steps.items()))
        san = board.san(next(m for m in board.legal_moves if cell(m.from_square) == frm
                             and cell(m.to_square) == to
                             and (chess.piece_symbol(m.promotion) if m.promotion else "")
                             == promotion))
        assert view["legal"][action] == san
        board.push_san(san)
        session.play(int(action))
        last = session.view()["last_move"]
        assert (last["from"], last["cell"], last["move"]) == (frm, to, san)
    read = chess_pgn.read_game(io.StringIO(session.pgn()))
    assert not read.errors and read.end().board().fen() == board.fen()
    assert session.view()["moves"] == [node.san() for node in read.mainline()]


def test_other_games_have_no_pgn_and_no_steps():
    from boardzoo.envs import make_game

    session = GameSession(make_game("tictactoe"), "random")
    assert session.pgn() is None and session.view()["board"]["steps"] == {}


@pytest.mark.parametrize("start, moves, words", [
    (None, ["f2f3", "e7e5", "g2g4", "d8h4"], "by checkmate"),
    ("k7/8/1Q6/8/8/8/8/7K w - - 0 1", ["b6c7"], "by stalemate"),
    ("7k/8/8/8/8/8/1b6/K7 w - - 0 1", [], "by insufficient material"),
])
def test_the_result_says_how_the_game_ended(start, moves, words):
    board = chess.Board() if start is None else chess.Board(start)
    game = Chess()
    session = GameSession(game, "random", start=start)
    for move in moves:
        session.play(game.str_to_move(session.state, move))
        board.push_uci(move)
    assert board.is_game_over(claim_draw=True)
    assert session.result()["detail"] == words
    assert session.result()["winner"] == {"1-0": 0, "0-1": 1, "1/2-1/2": None}[
        board.result(claim_draw=True)]


def test_the_analysis_writes_moves_and_lines_in_san_as_the_move_list_does():
    """The agents write chess moves in UCI (the engine's notation); the page's analysis shows
    them in SAN like its move list, each line's moves as python-chess writes them in turn."""
    from boardzoo.agents import AlphaBetaAgent
    from boardzoo.envs import make_env
    from boardzoo.web.search_view import analysis_json

    fen = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    env = make_env("chess")
    env.reset(options={"position": fen})
    analysis = AlphaBetaAgent(depth=3).analyse(env)
    data = analysis_json(env, analysis)
    assert data["move"] == "Qxf7#" and analysis.move == "h5f7"
    for line, texts in [(data["pv"], analysis.pv)] + [
            (m["pv"], stat.pv) for m, stat in zip(data["moves"], analysis.moves, strict=True)]:
        board = chess.Board(fen)
        for label, text in zip(line, texts, strict=True):
            move = chess.Move.from_uci(text)
            assert label == board.san(move)
            board.push(move)
    assert [m["move"] for m in data["moves"]] == [
        chess.Board(fen).san(chess.Move.from_uci(stat.move)) for stat in analysis.moves]
