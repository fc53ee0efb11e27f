"""PGN export of chess games, read back by python-chess (the oracle)."""

from __future__ import annotations

import io
import random

import pytest

from boardzoo.envs.chess import Chess, fen
from boardzoo.envs.pgn import write_pgn

chess_pgn = pytest.importorskip("chess.pgn")


@pytest.mark.parametrize("start", [None, "r3k2r/1P6/8/8/8/8/6p1/R3K2R b KQkq - 3 20"])
def test_random_games_read_back_by_python_chess(start):
    """Random games (promotions, castling, checks) from the start and from a position with
    black to move: python-chess replays the SAN to the same final position and result."""
    game = Chess()
    rng = random.Random(7)
    for _ in range(5):
        first = game.initial_state() if start is None else game.parse_position(start)
        state, moves = first.copy(), []
        while not game.is_terminal(state) and len(moves) < 400:
            moves.append(rng.choice(list(game.legal_actions(state))))
            state = game.step(state, moves[-1])
        text = write_pgn(first, moves, game.returns(state).tolist(), {"White": "boardzoo"})
        read = chess_pgn.read_game(io.StringIO(text))
        assert not read.errors
        assert read.board().fen() == fen(first)
        assert read.end().board().fen() == fen(state)
        assert read.headers["White"] == "boardzoo"
        board = read.end().board()
        if board.is_checkmate():
            expected = "0-1" if board.turn else "1-0"
        elif (board.is_stalemate() or board.is_insufficient_material()
              or board.is_repetition(3) or board.is_fifty_moves()):
            expected = "1/2-1/2"
        else:
            expected = "*"
        assert read.headers["Result"] == expected
        assert all(len(line) <= 79 for line in text.splitlines())
