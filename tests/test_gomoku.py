"""Gomoku: win detection drawn as pictures, the overline rule, draws, SGF positions, and
OpenSpiel's gomoku as an oracle on random games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from boardzoo.envs import gomoku
from boardzoo.envs.core import DRAW, ONGOING, P0_WINS, P1_WINS
from boardzoo.envs.gomoku import CELLS, Gomoku
from boardzoo.errors import IllegalActionError, InvalidOptionError, InvalidPositionError
from boardzoo.rng import make_rng


def play_star(picture: str, **options) -> tuple[Gomoku, np.ndarray]:
    """Draw a board (rows top to bottom: X black, O white, . empty, one * for Black's move),
    put the stones on it and let Black play on the *; returns the game and the new state."""
    rows = textwrap.dedent(picture).split()
    game = Gomoku(board_size=len(rows), **options)
    board = "".join(rows)
    state = game.initial_state()
    for cell, ch in enumerate(board):
        state[CELLS + cell] = "XO".find(ch) + 1
    return game, game.step(state, board.index("*"))


# -------------------------------------------------------------------- win detection
# pictures are 7x7 boards, rows separated by spaces
@pytest.mark.parametrize(
    "picture",
    [
        # horizontal, touching the left and the right edge
        "*XXXX.. ....... ....... ....... ....... ....... .......",
        "....... ....... ....... ..XXXX* ....... ....... .......",
        # vertical, touching the top and the bottom edge
        "X...... X...... X...... X...... *...... ....... .......",
        "....... ....... ......X ......X ......* ......X ......X",
        # diagonal down-right from the top-left corner, and into the bottom-right corner
        "X...... .X..... ..*.... ...X... ....X.. ....... .......",
        "....... ....... ..X.... ...X... ....X.. .....X. ......*",
        # diagonal down-left from the top-right corner, and into the bottom-left corner
        "......* .....X. ....X.. ...X... ..X.... ....... .......",
        "....... ....... ....X.. ...X... ..X.... .*..... X......",
        # filling the middle of a line; opponent stones at both ends do not matter
        "....... ....... ....... OXX*XXO ....... ....... .......",
    ],
)
def test_five_in_a_row_wins_in_every_direction_and_at_the_edges(picture):
    game, state = play_star(picture)
    assert game.outcome(state) == P0_WINS
    assert game.legal_mask(state).sum() == 0
    assert game.returns(state).tolist() == [1.0, -1.0]


@pytest.mark.parametrize(
    "picture",
    [
        # four only
        "XXX*... ....... ....... ....... ....... ....... .......",
        # lines must not wrap around the board edge: five consecutive cell indices (row-major),
        # or steps of N+1 and N-1, that leave the board on one side and come back on the other
        "....XXX *X..... ....... ....... ....... ....... .......",
        ".....X. ......X ....... *...... .X..... ..X.... .......",
        ".X..... X.....* .....X. ....X.. ....... ....... .......",
        # a gap, and a line of five of which only four are black
        "XX*.XX. ....... ....... ....... ....... ....... .......",
        "XX*XO.. ....... ....... ....... ....... ....... .......",
        # five stones in a bent line
        "XX*.... ...XX.. ....... ....... ....... ....... .......",
    ],
)
def test_no_win_without_five_in_one_line(picture):
    game, state = play_star(picture)
    assert game.outcome(state) == ONGOING
    assert game.to_play(state) == 1


OVERLINE = "....... ....... ....... ....... XXX*XX. ....... ......."


def test_overline_wins_in_freestyle():
    game, state = play_star(OVERLINE)
    assert game.outcome(state) == P0_WINS


def test_overline_does_not_win_with_exact_five_and_play_goes_on():
    game, state = play_star(OVERLINE, exact_five=True)
    assert game.outcome(state) == ONGOING
    assert game.to_play(state) == 1
    assert game.legal_mask(state).sum() == 49 - 6


@pytest.mark.parametrize(
    "picture, outcome",
    [
        # exactly five with a white stone next to it
        ("OXXXX*. ....... ....... ....... ....... ....... .......", P0_WINS),
        # six horizontally, but exactly five vertically through the same move: a win
        ("....... ....... XXX*XX. ...X... ...X... ...X... ...X...", P0_WINS),
        # seven in a row: no win
        ("XXX*XXX ....... ....... ....... ....... ....... .......", ONGOING),
    ],
)
def test_exact_five_rule(picture, outcome):
    game, state = play_star(picture, exact_five=True)
    assert game.outcome(state) == outcome


def test_exact_length_with_another_win_length():
    game, state = play_star(".... .... X*XX ....", win_length=4)
    assert game.outcome(state) == P0_WINS
    game, state = play_star("..... ..... X*XXX ..... .....", win_length=4, exact_five=True)
    assert game.outcome(state) == ONGOING
    game, state = play_star("..... ..... X*XXX ..... .....", win_length=4)
    assert game.outcome(state) == P0_WINS


def test_white_wins_with_its_own_line():
    game = Gomoku(board_size=7, win_length=4)
    state = game.replay(["A1", "D4", "B1", "D5", "G7", "D6", "F7", "D7"])
    assert game.outcome(state) == P1_WINS
    assert game.returns(state).tolist() == [-1.0, 1.0]


# ------------------------------------------------------------------------------ draws
def test_full_board_without_a_line_is_a_draw():
    game = Gomoku(board_size=4, win_length=4)
    final = "XXOO OOXX XXOO OOXX".split()  # no four in a row anywhere
    cells = "".join(final)
    blacks = [i for i, ch in enumerate(cells) if ch == "X"]
    whites = [i for i, ch in enumerate(cells) if ch == "O"]
    state = game.initial_state()
    for black, white in zip(blacks, whites, strict=True):
        assert game.outcome(state) == ONGOING
        state = game.step(state, black)
        state = game.step(state, white)
    assert game.outcome(state) == DRAW
    assert game.returns(state).tolist() == [0.0, 0.0]
    assert not game.legal_mask(state).any()
    assert "".join(".XO"[c] for c in game.cells(state).ravel()) == cells


def test_a_win_on_the_last_empty_point_is_a_win_not_a_draw():
    game = Gomoku(board_size=3, win_length=3)
    # X O X / X O O / O X X: no line after X fills the last point
    state = game.replay([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert game.outcome(state) == DRAW
    state = game.replay([0, 1, 4, 2, 5, 3, 6, 7, 8])  # X ends with the 0-4-8 diagonal
    assert game.outcome(state) == P0_WINS


# --------------------------------------------------------------------- options, notation
@pytest.mark.parametrize(
    "options, message",
    [
        ({"board_size": 2}, "board_size"),
        ({"board_size": 26}, "board_size"),
        ({"board_size": 15.0}, "board_size"),
        ({"board_size": True}, "board_size"),
        ({"win_length": 2}, "win_length"),
        ({"board_size": 9, "win_length": 10}, "win_length"),
        ({"exact_five": "yes"}, "exact_five"),
    ],
)
def test_bad_options_are_rejected(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        Gomoku(**options)


def test_move_notation():
    game = Gomoku()
    assert game.action_to_str(0) == "A15"
    assert game.action_to_str(14) == "P15"  # no I column: A..H, J..P
    assert game.action_to_str(224) == "P1"
    assert game.action_to_str(112) == "H8"
    assert game.str_to_action(" h8 ") == 112
    assert game.str_to_action("j8") == 113
    for action in range(game.num_actions):
        assert game.str_to_action(game.action_to_str(action)) == action
    assert Gomoku(board_size=25).str_to_action("Z25") == 24
    labels = game.coordinate_labels()
    assert labels[0][0] == "15" and labels[0][-1] == "1" and "I" not in labels[1]


@pytest.mark.parametrize("text", ["", "I8", "Q1", "A16", "A0", "H", "8H", "H8x", "H²", "pass"])
def test_bad_move_text(text):
    with pytest.raises(IllegalActionError, match="H8"):
        Gomoku().str_to_action(text)


def test_observation_planes_from_each_side():
    game = Gomoku(board_size=5, win_length=4)
    state = game.replay(["A5", "E1"])
    black_view, white_view = game.observe(state, 0), game.observe(state, 1)
    assert black_view.shape == (5, 5, 3) and black_view.dtype == np.float32
    assert black_view[0, 0].tolist() == [1, 0, 0] and black_view[4, 4].tolist() == [0, 1, 1]
    assert white_view[0, 0].tolist() == [0, 1, 0] and white_view[4, 4].tolist() == [1, 0, 1]
    assert black_view[..., 2].sum() == 1
    assert game.observe(game.initial_state(), 0).sum() == 0


# -------------------------------------------------------------------------- positions
def test_position_is_sgf_and_round_trips():
    game = Gomoku()
    state = game.replay(["H8", "J8", "H9"])
    text = game.position(state)
    assert text == "(;GM[4]FF[4]SZ[15];B[hh];W[ih];B[hg])"
    assert np.array_equal(game.parse_position(text), state)


def test_setup_stones_and_side_to_move():
    game = Gomoku(board_size=9)
    state = game.parse_position("(;GM[4]SZ[9]AB[ee][ff]AW[dd];W[gg];B[aa])")
    assert game.to_play(state) == 1  # after W and B, White again
    assert game.cells(state)[4, 4] == 1 and game.cells(state)[3, 3] == 2
    assert game.cells(state)[6, 6] == 2 and game.cells(state)[0, 0] == 1
    assert game.position(state) == "(;GM[4]FF[4]SZ[9]AB[ee][ff]AW[dd];W[gg];B[aa])"
    assert np.array_equal(game.parse_position(game.position(state)), state)
    # as many white as black stones: Black to play; PL may say so
    state = game.parse_position("(;GM[4]SZ[9]AB[ee]AW[dd]PL[B])")
    assert game.to_play(state) == 0 and game.position(state) == "(;GM[4]FF[4]SZ[9]AB[ee]AW[dd])"


def test_real_world_record_with_comments():
    text = """(;FF[4]GM[4]SZ[15]PB[Alice]PW[Bob]RE[B+R]C[opening \\] comment]
              ;B[hh]C[centre];W[ih]
              ;B[hg](;W[ig];B[hf]C[main line])(;W[hi]))"""
    game = Gomoku()
    state = game.parse_position(text)
    assert [game.action_to_str(a) for a in game.moves(state)] == ["H8", "J8", "H9", "J9", "H10"]


def test_setup_with_a_win_is_terminal_and_round_trips():
    game = Gomoku(board_size=9)
    text = "(;GM[4]FF[4]SZ[9]AB[aa][ba][ca][da][ea]AW[ai][bi][ci][di])"
    state = game.parse_position(text)
    assert game.outcome(state) == P0_WINS and game.to_play(state) == 1
    assert game.position(state) == text
    # an overline in the setup is no win with exact_five, so Black may be to play
    text6 = "(;GM[4]SZ[9]AB[aa][ba][ca][da][ea][fa]AW[ai][bi][ci][di][fi][hi])"
    exact = Gomoku(board_size=9, exact_five=True)
    assert exact.outcome(exact.parse_position(text6)) == ONGOING
    with pytest.raises(InvalidPositionError, match="side to play"):  # freestyle: Black won
        game.parse_position(text6)


@pytest.mark.parametrize(
    "size, text, message",
    [
        (15, "(;GM[4]SZ[9];B[ee])", "board_size=15"),
        (15, "(;GM[4];B[ee])", "19 when SZ is absent"),
        (15, "(;GM[1]SZ[15];B[ee])", "GM"),
        (15, "(;GM[4]SZ[15];B[hh];W[])", "pass"),
        (15, "(;GM[4]SZ[15];B[hh];W[tt])", "pass"),
        (15, "(;GM[4]SZ[15];W[hh])", "out of turn"),
        (15, "(;GM[4]SZ[15];B[hh];B[hi])", "out of turn"),
        (15, "(;GM[4]SZ[15];B[hh];W[hh])", "occupied"),
        (15, "(;GM[4]SZ[15];B[hh];W[zz])", "off the"),
        (15, "(;GM[4]SZ[15]AB[aa][bb])", "black 2, white 0"),
        (15, "(;GM[4]SZ[15]AW[aa])", "black 0, white 1"),
        (15, "(;GM[4]SZ[15]AB[aa][aa]AW[bb][cc])", "two stones"),
        (15, "(;GM[4]SZ[15]AB[aa]AW[aa])", "two stones"),
        (15, "(;GM[4]SZ[15]AB[aa]PL[B])", "PL"),
        (
            15,
            "(;GM[4]SZ[15];B[aa];W[ao];B[ba];W[bo];B[ca];W[co];B[da];W[do];B[ea];W[eo])",
            "after the game ended",
        ),
        (9, "(;GM[4]SZ[9]AB[aa][ba][ca][da][ea]AW[ac][bc][dc][ec][ag])", "side to play"),
        (9, "(;GM[4]SZ[9]AB[aa][ba][ca][da][ea]AW[ac][bc][cc][dc][ec])", "both sides"),
        (
            9,
            "(;GM[4]SZ[9]AB[aa][ba][ca][da][ea][ai][bi][ci][di][ei]"
            "AW[ac][bc][dc][ec][ae][be][de][ee][ag])",
            "no single last move",
        ),
        (15, "(;GM[4]SZ[15];B[hh]", "unbalanced"),
        (15, "H8 J8", "\\(;"),
    ],
)
def test_bad_positions_are_rejected(size, text, message):
    with pytest.raises(InvalidPositionError, match=message):
        Gomoku(board_size=size).parse_position(text)


def test_env_starts_from_sgf_and_from_move_strings():
    env = gomoku.env(board_size=9)
    env.reset(options={"position": "(;GM[4]SZ[9];B[ee];W[fe])"})
    assert env.agent_selection == "player_0"
    assert env.unwrapped.position() == "(;GM[4]FF[4]SZ[9];B[ee];W[fe])"
    env.reset(options={"moves": ["E5", "F5"]})
    assert env.unwrapped.position() == "(;GM[4]FF[4]SZ[9];B[ee];W[fe])"


# ------------------------------------------------------------------------------ playouts
@pytest.mark.parametrize("options", [{}, {"board_size": 7, "win_length": 4, "exact_five": True}])
def test_playout_plays_legal_games_and_is_reproducible(options):
    game = Gomoku(**options)
    for seed in range(20):
        state = game.replay([game.num_actions // 2])
        outcome = game.kernels.playout(state, make_rng(seed))
        assert outcome == game.outcome(state) != ONGOING
        # the moves it played form a legal game that ends exactly there
        assert np.array_equal(game.parse_position(game.position(state)), state)
        again = game.replay([game.num_actions // 2])
        game.kernels.playout(again, make_rng(seed))
        assert np.array_equal(again, state)


def test_kernels_give_the_same_results_without_jit():
    script = """
        import json
        from boardzoo.envs.gomoku import Gomoku
        from boardzoo.rng import make_rng
        out = []
        for options in ({}, {"board_size": 9, "win_length": 4, "exact_five": True}):
            game = Gomoku(**options)
            for seed in range(3):
                state = game.initial_state()
                game.kernels.playout(state, make_rng(seed))
                state = game.parse_position(game.position(state))
                mask = game.legal_mask(state)
                out.append([game.position(state), game.outcome(state), int(mask.sum())])
        print(json.dumps(out))
    """
    script = textwrap.dedent(script)
    results = []
    for disable in ("0", "1"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        proc = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=os.path.dirname(os.path.dirname(__file__)),
        )
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1]
    assert len(results[0]) == 6


# ---------------------------------------------------------------------- OpenSpiel oracle
def _compare_random_games(size: int, connect: int, games: int, seed: int) -> int:
    """Random games played in both implementations; every ply compares the legal actions,
    the board, terminal flags and returns. Returns the number of plies compared."""
    pyspiel = pytest.importorskip("pyspiel")
    theirs_game = pyspiel.load_game("gomoku", {"size": size, "connect": connect})
    game = Gomoku(board_size=size, win_length=connect)
    rng = np.random.default_rng(seed)
    plies = 0
    for _ in range(games):
        theirs, ours = theirs_game.new_initial_state(), game.initial_state()
        while True:
            legal = game.legal_actions(ours)
            assert legal == theirs.legal_actions()
            assert game.is_terminal(ours) == theirs.is_terminal()
            assert game.returns(ours).tolist() == theirs.returns()
            board = "".join(".bw"[c] for c in game.cells(ours).ravel())
            assert str(theirs)[1:].replace("\n", "") == board
            if not legal:
                break
            action = int(rng.choice(legal))
            theirs.apply_action(action)
            ours = game.step(ours, action)
            plies += 1
    return plies


def test_matches_openspiel_on_random_15x15_games():
    assert _compare_random_games(size=15, connect=5, games=300, seed=0) > 300 * 50


@pytest.mark.parametrize("size, connect, games", [(7, 4, 200), (3, 3, 200), (10, 6, 50)])
def test_matches_openspiel_on_other_sizes(size, connect, games):
    assert _compare_random_games(size, connect, games, seed=size) > 0


def test_pettingzoo_api():
    from pettingzoo.test import api_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(gomoku.env(board_size=7, win_length=4), num_cycles=100)
