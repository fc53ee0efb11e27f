"""Tic-tac-toe against exhaustive ground truth (tests/data/tictactoe) and OpenSpiel."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from boardzoo.envs.tictactoe import TicTacToe
from boardzoo.errors import IllegalActionError, InvalidPositionError

DATA = Path(__file__).parent / "data" / "tictactoe" / "ttt_all_positions.tsv"
GAME = TicTacToe()
STATUS = {0: "ongoing", 1: "win_X", 2: "win_O", 3: "draw"}


def _table() -> dict[str, tuple[str, str]]:
    rows = [line.split("\t") for line in DATA.read_text().splitlines() if not line.startswith("#")]
    return {board: (to_move, status) for board, to_move, status, *_ in rows}


def _enumerate_games():
    """Every game from the empty board: (positions seen, result of each finished game)."""
    positions, results = set(), Counter()

    def walk(state, depth):
        positions.add(GAME.position(state))
        if GAME.is_terminal(state):
            results[(GAME.outcome(state), depth)] += 1
            return
        for action in GAME.legal_actions(state):
            walk(GAME.step(state, action), depth + 1)

    walk(GAME.initial_state(), 0)
    return positions, results


@pytest.fixture(scope="module")
def enumeration():
    return _enumerate_games()


def test_reachable_positions_match_ground_truth(enumeration):
    positions, _ = enumeration
    table = _table()
    assert len(positions) == 5478 == len(table)
    assert positions == set(table)
    terminal = [p for p in positions if GAME.is_terminal(GAME.parse_position(p))]
    assert len(terminal) == 958


def test_game_counts_and_results(enumeration):
    _, results = enumeration
    by_outcome = Counter()
    by_length = Counter()
    for (outcome, length), n in results.items():
        by_outcome[outcome] += n
        by_length[length] += n
    assert sum(results.values()) == 255_168
    assert (by_outcome[1], by_outcome[2], by_outcome[3]) == (131_184, 77_904, 46_080)
    assert [by_length[n] for n in range(5, 10)] == [1_440, 5_328, 47_952, 72_576, 127_872]


def test_every_listed_position_parses_with_its_status_and_side():
    for board, (to_move, status) in _table().items():
        state = GAME.parse_position(board)
        assert STATUS[GAME.outcome(state)] == status
        if status == "ongoing":
            assert "XO"[GAME.to_play(state)] == to_move


def test_every_unreachable_board_is_rejected():
    reachable = set(_table())
    rejected = 0
    for cells in itertools.product(".XO", repeat=9):
        board = "".join(cells)
        if board in reachable:
            continue
        with pytest.raises(InvalidPositionError, match="unreachable"):
            GAME.parse_position(board)
        rejected += 1
    assert rejected == 3**9 - 5478


@pytest.mark.parametrize("text", ["", "XXOO", "X.........", "X..O..Z..", 12])
def test_malformed_positions_say_what_is_expected(text):
    with pytest.raises(InvalidPositionError, match="9 characters"):
        GAME.parse_position(text if isinstance(text, str) else str(text))


def test_move_notation():
    assert [GAME.action_to_str(a) for a in (0, 2, 4, 6, 8)] == ["a1", "c1", "b2", "a3", "c3"]
    assert all(GAME.str_to_action(GAME.action_to_str(a)) == a for a in range(9))
    assert GAME.str_to_action("4") == 4 and GAME.str_to_action(" B2 ") == 4
    with pytest.raises(IllegalActionError, match="a1..c3"):
        GAME.str_to_action("d4")


def test_same_games_as_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    from tests.openspiel_diff import assert_same_as_openspiel

    plies = assert_same_as_openspiel(GAME, pyspiel.load_game("tic_tac_toe"), lambda a: a, 1000)
    assert plies > 7000
