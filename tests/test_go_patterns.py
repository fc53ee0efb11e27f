"""MoGo's 3x3 patterns in Go's heuristic playouts: the table against hand-made
neighbourhoods, and the playout's replies next to the last move."""

from __future__ import annotations

import numpy as np

from boardzoo.envs import go_board
from boardzoo.knowledge import go as knowledge
from tests.test_go_knowledge import first_moves, position, share

E, B, W, EDGE = 0, 1, 2, 3


def code(nw, n, ne, w, e, sw, s, se) -> int:
    return sum(value << (2 * k) for k, value in enumerate((nw, n, ne, w, e, sw, s, se)))


def test_table_matches_the_hane_in_every_orientation_and_colour():
    table = knowledge.PATTERN_TABLE
    hane = code(B, W, B, E, E, E, E, E)  # X O X above an empty centre
    assert table[hane]
    assert table[code(E, E, E, E, E, B, W, B)]  # upside down
    assert table[code(B, E, E, W, E, B, E, E)]  # turned to the west side
    assert table[code(W, B, W, E, E, E, E, E)]  # colours swapped
    assert not table[code(E, E, E, E, E, E, E, E)]  # nothing to answer on an empty board
    assert not table[code(B, B, B, E, E, E, E, E)]  # a wall of one colour is no pattern


def test_edge_patterns_match_on_the_edge_in_every_orientation():
    table = knowledge.PATTERN_TABLE
    assert table[code(B, E, E, W, E, EDGE, EDGE, EDGE)]  # chase: X . ? / O . ? / # # #
    assert table[code(EDGE, EDGE, EDGE, E, W, E, E, B)]  # upside down and mirrored
    assert table[code(EDGE, W, B, EDGE, E, EDGE, E, E)]  # on the west edge


def test_the_code_of_a_board_point_reads_its_eight_neighbours():
    game, state = position("""
        .....
        .XOX.
        .....
        .....
        .....
        """)
    g = go_board.grid(state)
    centre = go_board.to_point(state, 2 * 5 + 2)
    assert knowledge.neighbourhood_code(g, 6, centre) == code(B, W, B, E, E, E, E, E)
    corner = go_board.to_point(state, 0)
    assert knowledge.neighbourhood_code(g, 6, corner) == code(EDGE, EDGE, EDGE, EDGE, E,
                                                             EDGE, E, B)


def test_playouts_answer_the_last_move_with_pattern_moves():
    """White has just played between two black stones: both hane points (above and below
    the white stone) match; the pattern playout's first move is next to the last move,
    the playout without patterns' rarely."""
    game, state = position("""
        .......
        .......
        ..X.X..
        .......
        .......
        .......
        .......
        """, moves=(("W", (2, 3)),), to_play=None)
    near = [r * 7 + c for r in (1, 3) for c in (2, 3, 4)]
    with_patterns = first_moves(knowledge.pattern_playout_trace_kernel, game, state)
    without = first_moves(knowledge.heuristic_playout_trace_kernel, game, state)
    assert sum(share(with_patterns, a) for a in near) == 1
    assert share(with_patterns, 3 * 7 + 3) > 0.1 and share(with_patterns, 1 * 7 + 3) > 0.1
    assert sum(share(without, a) for a in near) < 0.3
    assert np.isin(with_patterns, near).all()
