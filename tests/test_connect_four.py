"""Connect Four: rules by hand, Pascal Pons' solved positions, OpenSpiel as an oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardzoo.envs import connect_four
from boardzoo.envs.bitboard import popcount
from boardzoo.envs.connect_four import (
    CURRENT,
    MASK,
    ConnectFour,
    playout_kernel,
    position_key,
    winning_columns,
)
from boardzoo.envs.core import DRAW, ONGOING, P0_WINS, P1_WINS, PLY
from boardzoo.errors import IllegalActionError, InvalidOptionError, InvalidPositionError
from boardzoo.rng import make_rng

DATA = Path(__file__).parent / "data" / "connect4"
PONS_SETS = ["Test_L1_R1", "Test_L1_R2", "Test_L1_R3", "Test_L2_R1", "Test_L2_R2", "Test_L3_R1"]
GENERATED = ["generated_public_200.txt", "generated_public_200_moves.txt"]
GAME = ConnectFour()


def read_lines(name: str) -> list[list[str]]:
    """The whitespace-separated fields of each non-empty line of a data file."""
    return [line.split() for line in (DATA / name).read_text().splitlines() if line.strip()]


def picture(text: str) -> np.ndarray:
    """Cells (row 0 at the top) from an ASCII board of ".", "X" (player_0) and "O"."""
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[".XO".index(ch) for ch in row] for row in rows], dtype=np.int8)


def wins_now(game: ConnectFour, state: np.ndarray) -> int:
    """Columns (bit c = column c) where the side to move wins at once, via the helper."""
    return winning_columns(state[CURRENT], state[MASK], game.rows, game.columns)


def wins_now_by_play(game: ConnectFour, state: np.ndarray) -> int:
    """The same set found by playing every legal column with ``step``."""
    mover_wins = P0_WINS if game.to_play(state) == 0 else P1_WINS
    found = 0
    for column in game.legal_actions(state):
        if game.outcome(game.step(state, column)) == mover_wins:
            found |= 1 << column
    return found


# ------------------------------------------------------------------------ rules by hand
def test_vertical_four():
    state = GAME.parse_position("4545454")
    assert GAME.outcome(state) == P0_WINS
    np.testing.assert_array_equal(GAME.cells(state), picture("""
        . . . . . . .
        . . . . . . .
        . . . X . . .
        . . . X O . .
        . . . X O . .
        . . . X O . .
    """))


def test_horizontal_four_for_the_second_player():
    assert GAME.outcome(GAME.parse_position("7112233")) == ONGOING
    state = GAME.parse_position("71122334")
    assert GAME.outcome(state) == P1_WINS
    np.testing.assert_array_equal(GAME.cells(state), picture("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        X X X . . . .
        O O O O . . X
    """))


@pytest.mark.parametrize(
    "sequence, board",
    [
        ("12234334464", """
            . . . . . . .
            . . . . . . .
            . . . X . . .
            . . X X . . .
            . X O O . . .
            X O O X . O .
        """),
        ("76654554424", """
            . . . . . . .
            . . . . . . .
            . . . X . . .
            . . . X X . .
            . . . O O X .
            . O . X O O X
        """),
    ],
    ids=["rising", "falling"],
)
def test_diagonal_fours(sequence, board):
    before = GAME.parse_position(sequence[:-1])
    assert GAME.outcome(before) == ONGOING
    assert wins_now(GAME, before) == 1 << (int(sequence[-1]) - 1)
    state = GAME.parse_position(sequence)
    assert GAME.outcome(state) == P0_WINS
    np.testing.assert_array_equal(GAME.cells(state), picture(board))
    np.testing.assert_array_equal(GAME.returns(state), [1.0, -1.0])


def test_full_board_draw():
    sequence = "667461761634375173525634211144757533452222"
    state = GAME.parse_position(sequence[:-1])
    assert GAME.outcome(state) == ONGOING and GAME.legal_actions(state) == [1]
    state = GAME.step(state, 1)
    assert GAME.outcome(state) == DRAW
    assert GAME.legal_actions(state) == []
    np.testing.assert_array_equal(GAME.returns(state), [0.0, 0.0])
    np.testing.assert_array_equal(GAME.cells(state), picture("""
        O O O X O O X
        X X X O O O X
        O O X X O O X
        O X O O X X O
        X X X O X O X
        O O X O X X X
    """))


def test_full_column_is_illegal():
    state = GAME.parse_position("444444")
    assert GAME.legal_actions(state) == [0, 1, 2, 4, 5, 6]
    with pytest.raises(IllegalActionError, match=r"action 3 \(column 4\) is full"):
        GAME.step(state, 3)
    with pytest.raises(InvalidPositionError, match="column 4, which is already full"):
        GAME.parse_position("4444444")


def test_state_is_not_mutated_and_header_follows_moves():
    state = GAME.parse_position("44")
    after = GAME.step(state, 2)
    assert GAME.position(state) == "44" and GAME.position(after) == "443"
    assert GAME.to_play(after) == 1 and int(after[PLY]) == 3


def test_observation_and_cells_orientation():
    state = GAME.parse_position("4453")
    expected_x = np.zeros((6, 7))
    expected_x[5, 3] = expected_x[5, 4] = 1
    expected_o = np.zeros((6, 7))
    expected_o[5, 2] = expected_o[4, 3] = 1
    seen_by_first = GAME.observe(state, 0)
    assert seen_by_first.dtype == np.float32 and seen_by_first.shape == (6, 7, 2)
    np.testing.assert_array_equal(seen_by_first[..., 0], expected_x)
    np.testing.assert_array_equal(seen_by_first[..., 1], expected_o)
    np.testing.assert_array_equal(GAME.observe(state, 1), seen_by_first[..., ::-1])
    np.testing.assert_array_equal(GAME.cells(state), expected_x + 2 * expected_o)


def test_move_notation_and_labels():
    assert [GAME.action_to_str(a) for a in range(7)] == list("1234567")
    assert [GAME.str_to_action(str(c)) for c in range(1, 8)] == list(range(7))
    for bad in ["0", "8", "a", "", "4.", "٣"]:
        with pytest.raises(IllegalActionError, match="1..7"):
            GAME.str_to_action(bad)
    assert GAME.coordinate_labels() == (list("654321"), list("1234567"))


# --------------------------------------------------------------------------- positions
@pytest.mark.parametrize(
    "text, reason",
    [
        ("4450", "malformed at '0'"),
        ("448", "malformed at '8'"),
        ("44a", "malformed at 'a'"),
        ("44 5", "malformed at ' '"),
        ("4,4", "malformed at ','"),
        ("45454545", "after player_0 connected four at move 7"),
        ("4444444", "already full"),
    ],
)
def test_parse_position_rejects(text, reason):
    with pytest.raises(InvalidPositionError, match=reason):
        GAME.parse_position(text)


def test_sequence_ending_with_a_win_is_a_terminal_position():
    state = GAME.parse_position("4545454")
    assert GAME.is_terminal(state) and GAME.position(state) == "4545454"
    assert GAME.parse_position("").tolist() == GAME.initial_state().tolist()


def test_more_than_nine_columns_use_commas():
    game = ConnectFour(rows=4, columns=12)
    state = game.parse_position("12,1,10,4")
    assert game.position(state) == "12,1,10,4"
    assert game.cells(state)[3].tolist() == [2, 0, 0, 2, 0, 0, 0, 0, 0, 1, 0, 1]
    assert game.action_to_str(11) == "12" and game.str_to_action("10") == 9
    for bad in ["12,,1", "12,01", "13", "4;5", "4,5,", "1210"]:
        with pytest.raises(InvalidPositionError, match="malformed"):
            game.parse_position(bad)


@pytest.mark.parametrize("name", PONS_SETS + GENERATED)
def test_data_positions_parse_round_trip_and_are_not_over(name):
    for fields in read_lines(name):
        state = GAME.parse_position(fields[0])
        assert GAME.outcome(state) == ONGOING, fields[0]
        assert GAME.position(state) == fields[0]
        assert popcount(state[MASK]) == len(fields[0])


# ------------------------------------------------------- consistency with solved scores
def forced_win_in_three_plies(game: ConnectFour, state: np.ndarray) -> bool:
    """A move after which the opponent cannot win at once and every reply allows a win."""
    for column in game.legal_actions(state):
        child = game.step(state, column)
        replies = game.legal_actions(child)
        if replies and not wins_now(game, child) and all(
            wins_now(game, game.step(child, reply)) for reply in replies
        ):
            return True
    return False


@pytest.mark.parametrize("name", PONS_SETS + GENERATED[:1])
def test_immediate_and_next_move_wins_match_pons_scores(name):
    """Pons' score is (43 - n) // 2 exactly when the side to move wins at once (these files
    hold none), and (43 - n) // 2 - 1 exactly when it forces a win with its next-but-one
    stone (n <= 39 keeps that score apart from a draw's 0)."""
    forced = 0
    for sequence, score in read_lines(name):
        n, score = len(sequence), int(score)
        state = GAME.parse_position(sequence)
        assert (score == (43 - n) // 2) == (wins_now(GAME, state) != 0), sequence
        assert wins_now(GAME, state) == wins_now_by_play(GAME, state), sequence
        if n <= 39 and not wins_now(GAME, state):
            in_three = forced_win_in_three_plies(GAME, state)
            assert (score == (43 - n) // 2 - 1) == in_three, sequence
            forced += in_three
    assert forced > 0 or name in ("Test_L1_R2", "Test_L1_R3", "Test_L2_R2")


def test_column_scores_match_immediate_wins_and_threats():
    """Per column of generated_public_200_moves.txt: (43 - n) // 2 exactly for a column that
    wins at once; -((42 - n) // 2) exactly for one after which the opponent wins at once."""
    threats = 0
    for sequence, _, _, *scores in read_lines("generated_public_200_moves.txt"):
        n = len(sequence)
        state = GAME.parse_position(sequence)
        legal = GAME.legal_mask(state)
        mover_wins = P0_WINS if GAME.to_play(state) == 0 else P1_WINS
        for column, score in enumerate(scores):
            assert (score == ".") == (not legal[column]), (sequence, column)
            if score == ".":
                continue
            child = GAME.step(state, column)
            immediate = GAME.outcome(child) == mover_wins
            assert (int(score) == (43 - n) // 2) == immediate, (sequence, column)
            assert immediate == bool(wins_now(GAME, state) >> column & 1)
            loses_at_once = wins_now(GAME, child) != 0
            assert (int(score) == -((42 - n) // 2)) == loses_at_once, (sequence, column)
            threats += loses_at_once
    assert threats > 100


# ----------------------------------------------------------------------- sizes, options
@pytest.mark.parametrize("rows, columns", [(5, 4), (4, 5), (7, 8), (4, 12), (15, 4)])
def test_other_board_sizes(rows, columns):
    game = ConnectFour(rows=rows, columns=columns)
    assert game.num_actions == columns and game.planes_shape == (rows, columns, 2)
    state = game.parse_position(("," if columns > 9 else "").join(["1"] * rows))
    assert game.legal_actions(state) == list(range(1, columns))
    state = game.parse_position(("," if columns > 9 else "").join(["4", "1"] * 3 + ["4"]))
    assert game.outcome(state) == P0_WINS
    rng = make_rng(rows * 100 + columns)
    for _ in range(50):
        state = game.initial_state()
        outcome = playout_kernel(state, rng)
        assert outcome == game.outcome(state) != ONGOING
        replayed = game.parse_position(game.position(state))
        np.testing.assert_array_equal(replayed, state)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"rows": 3}, "rows=3"),
        ({"columns": 3}, "columns=3"),
        ({"rows": 7, "columns": 9}, "<= 64"),
        ({"rows": 6.0}, "rows=6.0"),
        ({"columns": True}, "columns=True"),
    ],
)
def test_invalid_options(options, message):
    with pytest.raises(InvalidOptionError, match=message):
        ConnectFour(**options)


def test_env_factory_plays_from_a_position():
    env = connect_four.env(rows=5, columns=4)
    env.reset(seed=0, options={"position": "121212"})
    assert env.unwrapped.position() == "121212"
    env.step(0)
    assert env.terminations["player_0"] and env.rewards == {"player_0": 1, "player_1": -1}
    assert connect_four.raw_env is connect_four.env


# -------------------------------------------------------------------- bitboard helpers
def test_position_key_identifies_positions_and_transpositions():
    """Over every sequence of up to 5 moves, equal keys exactly when the boards are equal."""
    boards_by_key: dict[int, bytes] = {}
    keys_by_board: dict[bytes, int] = {}
    frontier = [GAME.initial_state()]
    for _ in range(5):
        frontier = [GAME.step(s, c) for s in frontier for c in GAME.legal_actions(s)]
        for state in frontier:
            key, board = int(position_key(state[CURRENT], state[MASK])), GAME.cells(state).tobytes()
            assert boards_by_key.setdefault(key, board) == board
            assert keys_by_board.setdefault(board, key) == key
    assert len(boards_by_key) == len(keys_by_board) > 1000


def test_stone_count_and_winning_columns_on_random_positions():
    rng = np.random.default_rng(7)
    for rows, columns in [(6, 7), (7, 8), (4, 12), (5, 4)]:
        game = ConnectFour(rows, columns)
        for _ in range(200):
            state = game.initial_state()
            for _ in range(rng.integers(0, rows * columns)):
                if game.is_terminal(state):
                    break
                state = game.step(state, rng.choice(game.legal_actions(state)))
            assert popcount(state[MASK]) == int(state[PLY]) == bin(int(state[MASK])).count("1")
            if not game.is_terminal(state):
                assert wins_now(game, state) == wins_now_by_play(game, state)
    assert popcount(np.uint64(2**64 - 1)) == 64


# ---------------------------------------------------------------------- OpenSpiel oracle
def openspiel_matches(game: ConnectFour, games: int, seed: int) -> int:
    """Play ``games`` random games in both engines, comparing every ply; returns plies seen.

    OpenSpiel's action is also the 0-based column; its observation tensor has planes
    (player_0, player_1, empty) with row 0 at the *bottom*.
    """
    pyspiel = pytest.importorskip("pyspiel")
    oracle = pyspiel.load_game("connect_four", {"rows": game.rows, "columns": game.columns})
    rng = np.random.default_rng(seed)
    plies = 0
    for _ in range(games):
        ours, theirs = game.initial_state(), oracle.new_initial_state()
        while True:
            assert game.legal_actions(ours) == theirs.legal_actions()
            assert game.is_terminal(ours) == theirs.is_terminal()
            np.testing.assert_array_equal(game.returns(ours), theirs.returns())
            planes = np.array(theirs.observation_tensor(0)).reshape(3, game.rows, game.columns)
            np.testing.assert_array_equal(game.cells(ours), (planes[0] + 2 * planes[1])[::-1])
            if theirs.is_terminal():
                break
            assert game.to_play(ours) == theirs.current_player()
            action = int(rng.choice(theirs.legal_actions()))
            ours = game.step(ours, action)
            theirs.apply_action(action)
            plies += 1
    return plies


def test_differential_against_openspiel():
    assert openspiel_matches(GAME, games=1000, seed=2024) > 15000


@pytest.mark.parametrize("rows, columns", [(5, 4), (7, 8), (4, 12)])
def test_differential_against_openspiel_other_sizes(rows, columns):
    openspiel_matches(ConnectFour(rows, columns), games=150, seed=rows + columns)


# -------------------------------------------------------------- compiled vs plain Python
def playout_results() -> list:
    """Playouts from several starts and sizes with fixed seeds: final states and rng states."""
    results = []
    for rows, columns, start in [(6, 7, ""), (6, 7, "4453"), (5, 4, "12"), (7, 8, ""),
                                 (4, 12, "12,1")]:
        game = ConnectFour(rows, columns)
        for seed in range(5):
            state, rng = game.parse_position(start), make_rng(seed)
            outcome = int(playout_kernel(state, rng))
            results.append([outcome, state.tolist(), int(rng[0]),
                            wins_now(game, game.parse_position(start)),
                            int(position_key(state[CURRENT], state[MASK]))])
    return results


def test_kernels_without_jit_match_compiled():
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from test_connect_four import playout_results;"
        "print(json.dumps(playout_results()))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        env=env, capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1],
    )
    assert json.loads(out.stdout) == playout_results()
