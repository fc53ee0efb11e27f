"""Chess against oracles nobody here wrote: the published perft counts
(chessprogramming.org, "Perft Results"), python-chess (legal moves, FEN, SAN, every way a
game ends) and PettingZoo's chess_v6 (the action layout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest
from pettingzoo.classic.chess import chess_utils

from boardzoo.envs import chess_moves as cm
from boardzoo.envs import make_env
from boardzoo.envs.chess import START_FEN, Chess, end_reason, fen, san
from boardzoo.envs.core import DRAW, P0_WINS, P1_WINS
from boardzoo.errors import IllegalActionError, InvalidPositionError
from boardzoo.rng import make_rng

GAME = Chess()
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"

#: (FEN, depth, leaves) from chessprogramming.org's "Perft Results" (positions 1-6)
PERFT = [
    (START_FEN, 5, 4_865_609),
    (KIWIPETE, 4, 4_085_603),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674_624),
    ("r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422_333),
    ("r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4, 422_333),
    ("rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2_103_487),
    ("r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3_894_594),
]


@pytest.mark.parametrize("text, depth, leaves", PERFT, ids=lambda x: str(x)[:12])
def test_perft_counts_are_the_published_ones(text, depth, leaves):
    assert cm.perft(GAME.parse_position(text), depth) == leaves


@pytest.mark.slow
def test_perft_6_from_the_start():
    assert cm.perft(GAME.initial_state(), 6) == 119_060_324


def _python_chess_end(board: chess.Board) -> str | None:
    """The first of python-chess's predicates that ends a chess_v0 game, in end_reason's
    order."""
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_repetition(3):
        return "threefold_repetition"
    if board.is_fifty_moves():
        return "fifty_moves"
    return None


def _random_game_against_python_chess(seed: int, thorough: bool) -> str:
    """One seeded random game played by both: the legal moves at every ply, the end, its
    kind and ply, the result, and (``thorough``) chess_v6's actions, FEN and SAN at every
    ply; returns the kind of end."""
    rng = np.random.default_rng(seed)
    state, board = GAME.initial_state(), chess.Board()
    while True:
        actions = GAME.legal_actions(state)
        kind = _python_chess_end(board)
        assert end_reason(state) == kind, (board.fen(), end_reason(state), kind)
        if kind is not None:
            assert actions == []
            break
        assert {GAME.move_to_str(state, a) for a in actions} == {m.uci() for m in board.legal_moves}
        if thorough:
            assert set(actions) == set(chess_utils.legal_moves(board)), board.fen()
            assert fen(state) == board.fen()
        action = int(rng.choice(actions))
        move = chess.Move.from_uci(GAME.move_to_str(state, action))
        if thorough:
            assert san(state, action) == board.san(move)
        board.push(move)
        state = GAME.step(state, action)
    assert fen(state) == board.fen()
    assert len(board.move_stack) == int(state[cm.PLY])
    result = {"1-0": P0_WINS, "0-1": P1_WINS, "1/2-1/2": DRAW}[board.result(claim_draw=True)]
    assert GAME.outcome(state) == result
    return kind


def test_random_games_play_as_python_chess():
    kinds = {_random_game_against_python_chess(seed, thorough=True) for seed in range(40)}
    assert {"checkmate", "insufficient_material", "fifty_moves"} <= kinds


@pytest.mark.slow
def test_a_thousand_random_games_play_as_python_chess():
    kinds = [_random_game_against_python_chess(seed, thorough=False)
             for seed in range(1000, 2000)]
    assert set(kinds) == {"checkmate", "stalemate", "insufficient_material",
                          "threefold_repetition", "fifty_moves"}


def test_actions_are_chess_v6s():
    state = GAME.initial_state()
    assert GAME.str_to_move(state, "e2e4") == 2421
    state = GAME.step(state, 2421)
    assert GAME.move_to_str(state, 2421) == "e7e5"  # black's ranks are flipped
    promoting = GAME.parse_position("n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    board = chess.Board("n3k3/1P6/8/8/8/8/8/4K3 w - - 0 1")
    assert set(GAME.legal_actions(promoting)) == set(chess_utils.legal_moves(board))
    moves = {GAME.move_to_str(promoting, a) for a in GAME.legal_actions(promoting)}
    assert {"b7b8q", "b7b8r", "b7b8b", "b7b8n", "b7a8q", "b7a8n"} <= moves


def test_castling_en_passant_and_checks_follow_the_rules():
    # castling through an attacked square (f1, by the bishop on c4) is refused, O-O-O is fine
    state = GAME.parse_position("r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1")
    moves = {GAME.move_to_str(state, a) for a in GAME.legal_actions(state)}
    assert "e1g1" not in moves and "e1c1" in moves
    # no castling out of check
    checked = GAME.parse_position("r3k2r/8/8/8/8/8/4r3/R3K2R w KQkq - 0 1")
    assert not {"e1g1", "e1c1"} & {GAME.move_to_str(checked, a)
                                   for a in GAME.legal_actions(checked)}
    # an en passant capture that would expose the king along the rank is illegal, so the
    # FEN does not record it (as python-chess writes it)
    pinned = "8/8/8/KPp4r/8/8/8/7k w - c6 0 2"
    assert fen(GAME.parse_position(pinned)) == chess.Board(pinned).fen()
    assert "b5c6" not in {GAME.move_to_str(GAME.parse_position(pinned), a)
                          for a in GAME.legal_actions(GAME.parse_position(pinned))}
    state = GAME.replay(["e2e4", "a7a6", "e4e5", "d7d5"])
    assert fen(state).split()[3] == "d6"
    assert san(state, GAME.str_to_move(state, "e5d6")) == "exd6"


def test_threefold_repetition_is_kept_in_the_state_and_its_text():
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"]
    env = make_env("chess")
    env.reset(options={"moves": shuffle + shuffle[:3]})
    text = env.position()
    assert text.startswith(START_FEN + " moves g1f3")
    snapshot = env.clone_state()
    env.step(env.str_to_action("f6g8"))  # the start position, a third time
    assert all(env.terminations.values()) and env.rewards == {"player_0": 0, "player_1": 0}
    board = chess.Board()
    for move in shuffle * 2:
        board.push_uci(move)
    assert board.is_repetition(3)
    env.restore_state(snapshot)
    env.reset(options={"position": text})
    env.step(env.str_to_action("Ng8"))
    assert all(env.terminations.values())


def test_checkmate_on_the_hundredth_halfmove_stands():
    state = GAME.parse_position("7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    state = GAME.step(state, GAME.str_to_move(state, "Ra8#"))
    assert GAME.outcome(state) == P0_WINS and end_reason(state) == "checkmate"
    state = GAME.parse_position("7k/8/6K1/8/8/8/8/R7 w - - 99 80")
    state = GAME.step(state, GAME.str_to_move(state, "Rb1"))
    assert end_reason(state) == "fifty_moves"


@pytest.mark.parametrize("text, problem", [
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1", "7 ranks"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQQBNR w KQkq - 0 1", "white has 0 kings"),
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e5 0 1", "en passant"),
    ("4k3/8/8/8/8/8/8/4K2r b - - 0 1", "not to move is in check"),
    ("startpos moves e2e5", "move 1 'e2e5'"),
])
def test_bad_positions_say_what_is_wrong(text, problem):
    with pytest.raises(InvalidPositionError, match=problem) as caught:
        GAME.parse_position(text)
    assert "\n" not in str(caught.value)


def test_moves_read_as_uci_or_san_and_bad_text_says_what_is_allowed():
    state = GAME.initial_state()
    assert GAME.str_to_move(state, "Nf3") == GAME.str_to_move(state, "g1f3")
    with pytest.raises(IllegalActionError, match="UCI"):
        GAME.str_to_move(state, "Ke9")
    env = make_env("chess", illegal_action="raise")
    env.reset()
    with pytest.raises(IllegalActionError, match="e2e5 .* not legal for white"):
        env.step(GAME.str_to_action("e2e5"))


def test_positions_round_trip_along_random_games():
    rng = np.random.default_rng(5)
    state = GAME.initial_state()
    for _ in range(120):
        if GAME.is_terminal(state):
            break
        text = GAME.position(state)
        parsed = GAME.parse_position(text)
        assert GAME.position(parsed) == text
        GAME.validate_state(state)
        assert chess.Board(fen(state)).fen() == fen(state)
        state = GAME.step(state, int(rng.choice(GAME.legal_actions(state))))


def test_states_that_disagree_with_their_position_are_refused():
    state = GAME.replay(["g1f3", "g8f6"])
    GAME.validate_state(state)
    for slot, value, says in [(cm.REPS, 0, "repetition window"), (cm.KEY, 12345, "disagree"),
                              (cm.KEYS, 1, "disagree"), (cm.EP, 20, "disagree")]:
        broken = state.copy()
        broken[slot] = value
        with pytest.raises(InvalidPositionError, match=says):
            GAME.validate_state(broken)


def test_observations_are_from_the_observers_side():
    state = GAME.initial_state()
    white, black = GAME.observe(state, 0), GAME.observe(state, 1)
    assert white.shape == black.shape == (8, 8, cm.NUM_PLANES)
    assert white[6, :, 0].all() and black[6, :, 0].all()  # own pawns on the second row up
    assert white[7, 4, 5] == 1 and black[7, 4, 5] == 1  # own king on e1 / e8
    assert white[:, :, 13].all() and not black[:, :, 13].any()
    assert white[:, :, 14:18].all() and not white[:, :, 12].any() and black[:, :, 12].all()


def test_renders_label_files_and_ranks():
    env = make_env("chess", render_mode="ansi")
    env.reset()
    text = env.render()
    assert text.splitlines()[0].split() == list("abcdefgh")
    assert text.splitlines()[1].split() == ["8", *"rnbqkbnr"]
    assert env._repr_svg_().count(">K</text>") == 2  # each king's letter on its disc


def plain_python_results() -> dict:
    """Results the test below computes both compiled and under NUMBA_DISABLE_JIT=1."""
    state = GAME.initial_state()
    cm.playout_kernel(state, make_rng(3))
    return {"perft": cm.perft(GAME.parse_position(KIWIPETE), 2), "playout": GAME.position(state)}


def test_kernels_without_jit_match_compiled():
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from test_chess import plain_python_results; "
            "print(json.dumps(plain_python_results()))")
    out = subprocess.run([sys.executable, "-W", "error", "-c", code, str(Path(__file__).parent)],
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, capture_output=True,
                         text=True, check=True, cwd=Path(__file__).parents[1])
    assert json.loads(out.stdout) == plain_python_results()


def test_search_lines_are_written_move_by_move_from_the_side_to_move():
    from boardzoo.agents import AlphaBetaAgent, MCTSAgent

    env = make_env("chess")
    env.reset(options={"moves": ["e2e4"]})  # black to move: its actions are rank-flipped
    for agent in (AlphaBetaAgent(depth=3, seed=0), MCTSAgent(simulations=30, seed=0)):
        agent.search(env)
        analysis = agent.last_analysis
        board = chess.Board()
        board.push_uci("e2e4")
        assert analysis.move == analysis.pv[0] and len(analysis.pv) >= 2
        for move in analysis.pv:  # every move legal where it is played, as python-chess says
            board.push_uci(move)
        for stat in analysis.moves:
            assert chess.Move.from_uci(stat.move) in chess.Board(fen(env.unwrapped.state_array)
                                                                 ).legal_moves
