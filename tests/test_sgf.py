"""The SGF subset reader/writer shared by Go and Gomoku."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardzoo.envs import sgf
from boardzoo.envs.sgf import SgfRecord, parse_sgf, point_to_sgf, sgf_to_point, write_sgf
from boardzoo.errors import InvalidPositionError

# a record as a server or editor writes it: header properties, comments with escaped brackets
# and line breaks, a variation, whitespace everywhere, unknown properties
REAL_WORLD = r"""
(;FF[4]GM[1]SZ[19]CA[UTF-8]AP[CGoban:3]ST[2]
RU[Japanese]KM[6.50]PW[White Player]PB[Black Player]WR[3d]BR[2d]
DT[2021-03-04]PC[The KGS Go Server at http://www.gokgs.com/]
HA[2]AB[pd][dp]
C[Welcome! Escaped \] bracket and a \\ backslash
spanning lines.]
;W[qp]WL[1795.2]
;B[oq]BL[1790]C[hmm \[x\]]
  (;W[dd]
   ;B[tt]
   ;W[])
  (;W[dc]C[a variation that is skipped];B[ee])
)
"""


def test_real_world_record_keeps_main_line_and_ignores_the_rest():
    record = parse_sgf(REAL_WORLD)
    assert record == SgfRecord(
        size=19,
        komi=6.5,
        black_setup=((3, 15), (15, 3)),
        white_setup=(),
        moves=(("W", (15, 16)), ("B", (16, 14)), ("W", (3, 3)), ("B", None), ("W", None)),
        to_play=None,
    )


def test_write_format():
    record = SgfRecord(9, 7.5, ((2, 2),), ((6, 6), (0, 8)), (("B", (4, 4)), ("W", None)), "B")
    assert write_sgf(record, game=1) == ("(;GM[1]FF[4]SZ[9]KM[7.5]AB[cc]AW[gg][ia]PL[B];B[ee];W[])")
    bare = SgfRecord(15, None, (), (), (), None)
    assert write_sgf(bare, game=4) == "(;GM[4]FF[4]SZ[15])"


def test_coordinates():
    assert point_to_sgf((0, 0), 19) == "aa"
    assert point_to_sgf((2, 7), 9) == "hc"  # column h, row c
    assert point_to_sgf(None, 9) == ""
    assert sgf_to_point("hc", 9) == (2, 7)
    assert sgf_to_point("", 9) is None
    assert sgf_to_point("tt", 19) is None
    assert sgf_to_point("tt", 25) == (19, 19)  # a real point on big boards
    assert sgf_to_point("yy", 25) == (24, 24)
    with pytest.raises(InvalidPositionError, match="off the"):
        point_to_sgf((9, 0), 9)


def test_compressed_point_lists_and_whitespace_between_values():
    record = parse_sgf("(;SZ[5]AB[ab:bc] [ee]AW[dd:cc])")
    assert record.black_setup == ((1, 0), (1, 1), (2, 0), (2, 1), (4, 4))
    assert record.white_setup == ((2, 2), (2, 3), (3, 2), (3, 3))


def test_setup_in_later_nodes_before_the_first_move_and_defaults():
    record = parse_sgf("(;C[root];AB[aa]PL[w];AW[bb];B[cc])")
    assert record.size == 19 and record.komi is None
    assert record.black_setup == ((0, 0),) and record.white_setup == ((1, 1),)
    assert record.to_play == "W" and record.moves == (("B", (2, 2)),)


def test_collection_reads_the_first_game_only():
    assert parse_sgf("(;SZ[9];B[aa])\n(;SZ[13];W[bb])").moves == (("B", (0, 0)),)


def test_game_number_checked_only_when_asked():
    assert parse_sgf("(;GM[1]SZ[9])").size == 9
    assert parse_sgf("(;SZ[9])", game=4).size == 9  # absent GM is accepted
    with pytest.raises(InvalidPositionError, match="GM"):
        parse_sgf("(;GM[1]SZ[9])", game=4)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("(B[aa])", r"\(;"),
        (";B[aa]", r"\(;"),
        ("((;B[aa]))", r"\(;"),
        ("(;B[aa]", "unbalanced parentheses"),
        ("(;B[aa]))", "unbalanced parentheses"),
        ("(;B[aa)", "unbalanced brackets"),
        ("(;B[aa]])", "unbalanced brackets"),
        ("(;C[x\\])", "unbalanced brackets"),
        ("(;SZ[9];B[jj])", "off the 9x9"),
        ("(;SZ[9]AB[aj])", "off the 9x9"),
        ("(;SZ[9]AB[aa:aj])", "off the 9x9"),
        ("(;B[A1])", "malformed"),
        ("(;SZ[26])", "1..25"),
        ("(;SZ[0])", "1..25"),
        ("(;SZ[9:7])", "square"),
        ("(;SZ[9][9])", "one value"),
        ("(;SZ[²])", "one number"),
        ("(;KM[seven])", "KM"),
        ("(;PL[X])", "PL"),
        ("(;B[aa]W[bb])", "one move per node"),
        ("(;B[aa];AB[bb])", "after the first move"),
        ("(;AE[aa])", "AE"),
        ("(;AB[])", "pass"),
        ("(;B[aa];SZ[9])", "root"),
        ("(;B[aa])x", "unexpected character"),
        ("(;b[aa])", "unexpected character"),
        ("(;B)", "no \\[value\\]"),
        ("(;B[aa];(;W[bb]);B[cc])", r"unexpected ';'"),
    ],
)
def test_malformed_text_is_rejected(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        parse_sgf(text)


_SIZES = st.integers(1, 25)


@st.composite
def records(draw):
    size = draw(_SIZES)
    point = st.tuples(st.integers(0, size - 1), st.integers(0, size - 1))
    move = st.tuples(st.sampled_from("BW"), st.none() | point)
    return SgfRecord(
        size=size,
        komi=draw(st.none() | st.floats(-1000, 1000, allow_nan=False)),
        black_setup=tuple(draw(st.lists(point, max_size=5))),
        white_setup=tuple(draw(st.lists(point, max_size=5))),
        moves=tuple(draw(st.lists(move, max_size=10))),
        to_play=draw(st.none() | st.sampled_from("BW")),
    )


@given(records(), st.sampled_from([1, 4]))
def test_round_trip(record, game):
    assert parse_sgf(write_sgf(record, game), game=game) == record


@given(_SIZES, st.data())
def test_point_round_trip(size, data):
    point = data.draw(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1)))
    assert sgf_to_point(point_to_sgf(point, size), size) == point


def test_doctests():
    assert doctest.testmod(sgf).failed == 0
