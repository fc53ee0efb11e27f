"""benchmarks.chess_ladder: the book, the results file (appended, resumed, a torn last line
ignored), the table's arithmetic, and a smoke game against Stockfish (skipped without it)."""

from __future__ import annotations

import chess
import chess.engine
import pytest

from benchmarks import chess_ladder
from benchmarks.chess_ladder import (
    BOOK,
    Game,
    append_game,
    level_score,
    levels,
    load_games,
    performance,
    play_game,
)
from boardzoo.agents import AlphaBetaAgent

STOCKFISH = chess_ladder.find_stockfish()


def test_book_lines_are_legal_and_distinct():
    fens = set()
    for _, line in BOOK:
        board = chess.Board()
        for text in line.split():
            board.push_uci(text)  # raises on an illegal move
        fens.add(board.board_fen())
    assert len(fens) == len(BOOK)


def test_results_append_resume_and_skip_a_torn_line(tmp_path):
    path = tmp_path / "ladder.jsonl"
    games = [Game(1350, 0, "white", 1.0, "checkmate", ["e2e4"]),
             Game(1350, 0, "black", 0.5, "stalemate", [])]
    for game in games:
        append_game(path, game)
    with open(path, "a") as out:
        out.write('{"level": 1350, "open')  # a run killed while writing
    assert load_games(path) == games
    score = level_score(load_games(path), 1350)
    assert (score.games, score.points, score.score) == (2, 1.5, 0.75)
    assert score.low < 0.75 < score.high


def test_ladder_levels_and_performance():
    assert list(levels(None))[:6] == [1350, 1500, 1750, 2000, 2250, 2500]
    assert list(levels([1600])) == [1600]
    assert performance(1500, 0.5) == 1500
    assert performance(1500, 0.76) == pytest.approx(1500 + 200, abs=1)


@pytest.mark.skipif(STOCKFISH is None, reason="Stockfish not installed (apt-get install stockfish)")
def test_smoke_game_against_stockfish():
    engine = chess.engine.SimpleEngine.popen_uci([STOCKFISH])
    try:
        engine.configure({"Threads": 1, "Hash": 16})
        game = play_game(AlphaBetaAgent(time_limit=0.05, seed=0), engine, 1350, 0, "black",
                         0.05, max_plies=6)
    finally:
        engine.quit()
    board = chess.Board()
    for text in BOOK[0][1].split() + game.moves:
        board.push_uci(text)  # every move legal by python-chess's rules
    assert len(game.moves) == 6 and game.score == 0.5 and game.end == "adjudicated"
