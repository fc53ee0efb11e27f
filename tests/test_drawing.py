"""Boards as pictures: every game's env, snapshot and state draws as valid SVG and as an
anti-aliased RGB image of the same size, with the coordinates, the last move marked on the
cell it was played (worked out by hand below) and the side to move."""

from __future__ import annotations

import pickle
from xml.etree import ElementTree

import numpy as np
import pytest

from boardzoo.envs import make_env, make_game
from boardzoo.envs.drawing import CELL, MARGIN, MARK, draw_board
from boardzoo.errors import IncompatibleSnapshotError

SVG = "{http://www.w3.org/2000/svg}"
RED = "rgb({},{},{})".format(*MARK)

# game, options, moves, the last move's cell (row, column), the other cells it changed
CASES = [
    ("tictactoe", {}, ["b2", "a1", "c3"], (2, 2), []),
    ("nim", {"heaps": (3, 5)}, ["2:2"], (1, 3), [(1, 4)]),  # heap 2 loses its stones 4 and 5
    ("connect_four", {}, [3, 3, 4], (5, 4), []),  # column 5 (0-based 4) from the bottom row
    ("othello", {}, ["d3"], (2, 3), [(3, 3)]),  # d3 flips d4
    ("go", {"board_size": 9}, ["D4", "E5"], (4, 4), []),  # E5: column E, fifth row from below
    ("gomoku", {"board_size": 15}, ["H8", "J9"], (6, 8), []),  # no column I
]
IDS = [case[0] for case in CASES]


def _parse(svg_text):
    root = ElementTree.fromstring(svg_text)
    assert root.tag == f"{SVG}svg"
    return root


def _centre(row, col):
    return MARGIN + (col + 0.5) * CELL, MARGIN + (row + 0.5) * CELL


def _marks(root):
    """(cx, cy) of the filled red dots and of the dashed red rings."""
    dots, rings = [], []
    for circle in root.iter(f"{SVG}circle"):
        at = (float(circle.get("cx")), float(circle.get("cy")))
        if circle.get("fill") == RED:
            dots.append(at)
        elif circle.get("stroke") == RED and circle.get("stroke-dasharray"):
            rings.append(at)
    return dots, rings


@pytest.mark.parametrize(("name", "options", "moves", "last", "changed"), CASES, ids=IDS)
def test_the_picture_marks_the_last_move_where_it_was_played(name, options, moves, last, changed):
    env = make_env(name, render_mode="rgb_array", **options)
    env.reset(options={"moves": moves})
    root = _parse(env._repr_svg_())
    dots, rings = _marks(root)
    assert dots == [_centre(*last)]
    assert sorted(rings) == sorted(_centre(*cell) for cell in changed)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    row_labels, col_labels = env.game.coordinate_labels()
    assert set(row_labels) | set(col_labels) <= set(texts)
    last_move = moves[-1] if isinstance(moves[-1], int) else env.str_to_action(moves[-1])
    assert "to move" in texts and f"last {env.action_to_str(last_move)}" in texts


@pytest.mark.parametrize(("name", "options", "moves", "last", "changed"), CASES, ids=IDS)
def test_the_rgb_array_is_the_same_picture_anti_aliased(name, options, moves, last, changed):
    env = make_env(name, render_mode="rgb_array", **options)
    env.reset(options={"moves": moves})
    frame = env.render()
    root = _parse(env._repr_svg_())
    assert frame.dtype == np.uint8
    assert frame.shape == (int(root.get("height")), int(root.get("width")), 3)
    # not flat, and smoothed: edges blend into many intermediate colours
    assert frame.std() > 20
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 200
    x, y = (round(v) for v in _centre(*last))
    assert np.abs(frame[y, x].astype(int) - MARK).max() < 40  # the red dot is there


def test_the_side_to_move_and_the_result_are_shown():
    env = make_env("tictactoe")
    env.reset(options={"position": "XX.OO...."})
    texts = [t.text for t in _parse(env._repr_svg_()).iter(f"{SVG}text")]
    assert "to move" in texts and not any(t.startswith("last") for t in texts)
    env.step(2)
    root = _parse(env._repr_svg_())
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "wins" in texts and "last c1" in texts
    # the winner's mark is drawn next to "wins": an X among the texts beyond the board's three
    assert texts.count("X") == 4


def test_a_pass_is_named_but_not_marked_on_the_board():
    env = make_env("go", board_size=9)
    env.reset(options={"moves": ["D4", "pass"]})
    root = _parse(env._repr_svg_())
    assert _marks(root) == ([], [])
    assert "last pass" in [t.text for t in root.iter(f"{SVG}text")]


def test_the_first_position_has_no_last_move():
    for name in ("connect_four", "go"):
        env = make_env(name)
        env.reset()
        assert _marks(_parse(env._repr_svg_())) == ([], [])


@pytest.mark.parametrize(("name", "options", "moves", "last", "changed"), CASES, ids=IDS)
def test_a_snapshot_draws_as_the_env_did_also_after_pickling(name, options, moves, last, changed):
    env = make_env(name, **options)
    env.reset(options={"moves": moves})
    snapshot = env.clone_state()
    again = pickle.loads(pickle.dumps(snapshot))
    assert snapshot._repr_svg_() == again._repr_svg_() == env._repr_svg_()
    other = make_env(name, **options)
    other.restore_state(again)
    assert other._repr_svg_() == env._repr_svg_()


def test_a_state_draws_with_the_pure_functions():
    game = make_game("connect_four")
    before = game.parse_position("4453")
    picture = draw_board(game, game.step(before, 3), last_move=(before, 3))
    assert _marks(_parse(picture.svg()))[0] == [_centre(3, 3)]  # the fourth stone in column 4
    assert picture.to_array().shape == (picture.height, picture.width, 3)


def test_a_last_move_that_does_not_lead_to_the_state_is_refused():
    env = make_env("connect_four")
    env.reset(options={"moves": [3, 3]})
    snapshot = pickle.loads(pickle.dumps(env.clone_state()))
    before, _action = snapshot.last_move
    with pytest.raises(IncompatibleSnapshotError, match="does not lead there"):
        make_env("connect_four").restore_state(snapshot._replace(last_move=(before, 4)))
    with pytest.raises(IncompatibleSnapshotError, match="last_move"):
        make_env("connect_four").restore_state(snapshot._replace(last_move=(before, 9)))
    with pytest.raises(IncompatibleSnapshotError, match="last_move must be"):
        make_env("connect_four").restore_state(snapshot._replace(last_move="3"))


def test_steps_after_a_snapshot_leave_its_last_move_alone():
    env = make_env("tictactoe")
    env.reset(options={"moves": ["a1"]})
    snapshot = env.clone_state()
    svg = snapshot._repr_svg_()
    env.step(4)
    assert snapshot._repr_svg_() == svg != env._repr_svg_()


def test_chess_is_drawn_on_a_chequered_board_with_the_last_move_ringed_around_its_letter():
    """After 1. e4 e5 2. Nf3 Nc6 3. Bb5: 32 light squares, a8 and h1 light, a1 dark (as on
    every chess board); b5 ringed in red around the bishop's letter, f1 (emptied) dashed."""
    env = make_env("chess", render_mode="rgb_array")
    env.reset(options={"moves": ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]})
    root = _parse(env._repr_svg_())
    light = "rgb(240,217,181)"
    squares = {(float(r.get("x")), float(r.get("y"))) for r in root.iter(f"{SVG}rect")
               if r.get("fill") == light and float(r.get("width")) == CELL}
    corner = {name: (MARGIN + col * CELL, MARGIN + row * CELL)
              for name, row, col in [("a8", 0, 0), ("h1", 7, 7), ("a1", 7, 0)]}
    assert len(squares) == 32 and corner["a8"] in squares and corner["h1"] in squares
    assert corner["a1"] not in squares
    dots, dashed = _marks(root)
    assert dots == [] and dashed == [_centre(7, 5)]  # no dot over a letter; f1 emptied
    solid = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(f"{SVG}circle")
             if c.get("stroke") == RED and not c.get("stroke-dasharray")]
    assert solid == [_centre(3, 1)]  # b5
    letters = {(float(t.get("x")), float(t.get("y"))): t.text for t in root.iter(f"{SVG}text")}
    assert letters[_centre(3, 1)] == "B"
    frame = env.render()
    x, y = (round(v) for v in _centre(3, 1))
    assert np.abs(frame[y, x].astype(int) - MARK).max() > 100  # the letter, not a red dot
