"""Othello against perft counts and the FFO suite (tests/data/othello), hand-drawn positions,
a naive reference move generator, and OpenSpiel as an oracle."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from boardzoo.envs import othello
from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import DRAW, ONGOING, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.envs.othello import (
    BLACK,
    WHITE,
    Othello,
    disc_counts,
    final_disc_difference,
    flips,
    legal_moves,
    perft,
    position_key,
)
from boardzoo.errors import IllegalActionError, InvalidOptionError, InvalidPositionError
from boardzoo.rng import choose_true, make_rng

DATA = Path(__file__).parent / "data" / "othello"
OBF_FILES = ["fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf", "fforum-60-79.obf"]
GAME = Othello()
DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


def _position(picture: str, side: str) -> str:
    """Position text from a board drawn one row per line ("X", "O", "-"; "o" and "*" are
    drawn as an "O" and an empty square, for discs expected to flip and the move to play)."""
    board = "".join(picture.split()).replace("o", "O").replace("*", "-")
    return f"{board} {side}"


def _bitboards(picture: str) -> tuple[int, int, list[int]]:
    """(X bitboard, O bitboard, squares marked "*") of a drawn board ("o" counts as O)."""
    cells = "".join(picture.split())
    x = sum(1 << i for i, ch in enumerate(cells) if ch == "X")
    o = sum(1 << i for i, ch in enumerate(cells) if ch in "Oo")
    return x, o, [i for i, ch in enumerate(cells) if ch == "*"]


def _marked(picture: str, mark: str) -> int:
    cells = "".join(picture.split())
    return sum(1 << i for i, ch in enumerate(cells) if ch == mark)


def _u64(bits: int) -> np.uint64:
    return np.uint64(bits)


# ----------------------------------------------------------------------------------- perft
def _perft_table() -> dict[int, int]:
    table = json.loads((DATA / "perft.json").read_text())["perft_pass_is_ply_finished_game_is_leaf"]
    return {int(depth): count for depth, count in table["values"].items()}


def test_perft_to_depth_9_in_bik_convention():
    start = GAME.initial_state()
    expected = _perft_table()
    counts = {d: int(perft(start[BLACK], start[WHITE], d, 8)) for d in range(1, 10)}
    assert counts == {d: expected[d] for d in range(1, 10)}
    assert counts[9] == 3_005_288


def _api_perft(game: Othello, state: np.ndarray, depth: int) -> int:
    """Bik perft through the public Game API (legal_actions / step), not the bitboard helpers."""
    if depth == 0 or game.is_terminal(state):
        return 1
    return sum(_api_perft(game, game.step(state, a), depth - 1) for a in game.legal_actions(state))


def test_perft_through_the_game_api_matches():
    assert _api_perft(GAME, GAME.initial_state(), 5) == _perft_table()[5]


def plain_python_results() -> dict:
    """Results the test below computes both compiled and under NUMBA_DISABLE_JIT=1."""
    out = {}
    for size in (4, 6, 8):
        game = Othello(size)
        start = game.initial_state()
        state = start.copy()
        outcome = game.kernels.playout(state, make_rng(size))
        out[size] = {
            "perft": [int(perft(start[BLACK], start[WHITE], d, size)) for d in range(1, 5)],
            "playout": [int(outcome), state.tolist()],
            "key": int(position_key(start[BLACK], start[WHITE])),
            "mask": game.legal_mask(game.step(start, game.legal_actions(start)[0])).tolist(),
        }
    return out


def test_kernels_without_jit_match_compiled():
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]);"
        "from test_othello import plain_python_results;"
        "print(json.dumps(plain_python_results()))"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code, str(Path(__file__).parent)],
        env=env, capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1],
    )
    compiled = json.loads(json.dumps(plain_python_results()))
    assert json.loads(out.stdout) == compiled
    assert compiled["8"]["perft"] == [4, 12, 56, 244]


# ------------------------------------------------------------------------------ FFO suite
def _obf_lines() -> list[str]:
    texts = [(DATA / name).read_text() for name in OBF_FILES]
    return [line for text in texts for line in text.splitlines() if line.strip()]


def test_ffo_legal_moves_match_the_suite():
    entries = json.loads((DATA / "ffo_endgame_suite.json").read_text())
    suite = {(p["board"], p["to_move"]): p for p in entries}
    lines = _obf_lines()
    assert len(lines) == len(suite) == 79
    for line in lines:
        state = GAME.parse_position(line)
        board, side = line.split(";")[0].split()
        entry = suite[(board, "black" if side == "X" else "white")]
        legal = {GAME.action_to_str(a).upper() for a in GAME.legal_actions(state)}
        assert legal == set(entry["move_scores"]), f"FFO #{entry['ffo']}"
        assert GAME.position(state) == f"{board} {side}"
        assert int(state[TO_PLAY]) == "XO".index(side)
        assert GAME.outcome(state) == ONGOING


# ---------------------------------------------------------------------- hand-drawn boards
ALL_DIRECTIONS_8 = """
    --------
    --------
    --X--X--
    X-oOo---
    -oooO---
    Xo*oooX-
    -ooo----
    X-X-X---
"""

ALL_DIRECTIONS_6 = """
    X-X-X-
    -ooo--
    Xo*ooX
    -ooo--
    X-o-o-
    --X--X
"""


def test_a_move_flips_in_all_eight_directions_through_the_env():
    env = othello.env()
    env.reset(options={"position": _position(ALL_DIRECTIONS_8, "X")})
    env.step(env.str_to_action("c6"))
    after = ALL_DIRECTIONS_8.replace("o", "X").replace("*", "X")
    assert env.position() == _position(after, "O")


@pytest.mark.parametrize(
    "picture, size", [(ALL_DIRECTIONS_8, 8), (ALL_DIRECTIONS_6, 6)], ids=["8x8", "6x6"]
)
def test_flips_kernel_in_all_eight_directions(picture, size):
    x, o, (move,) = _bitboards(picture)
    flipped = int(flips(_u64(x), _u64(o), move, size))
    assert flipped == _marked(picture, "o")
    assert popcount(_u64(flipped)) == (12 if size == 8 else 11)
    assert int(legal_moves(_u64(x), _u64(o), size)) >> move & 1


# Discs on the last column next to discs on the first: a generator that lets runs wrap
# around an edge finds moves for both sides here; the rules give neither any.
EDGES_8 = """
    -------O
    X------O
    X------O
    X------O
    X------O
    X------O
    X------O
    X-------
"""

EDGES_6 = """
    -----O
    X----O
    X----O
    X----O
    X----O
    X-----
"""


@pytest.mark.parametrize("picture, size", [(EDGES_8, 8), (EDGES_6, 6)], ids=["8x8", "6x6"])
def test_runs_do_not_wrap_around_the_edges(picture, size):
    x, o, _ = _bitboards(picture)
    assert legal_moves(_u64(x), _u64(o), size) == 0
    assert legal_moves(_u64(o), _u64(x), size) == 0
    for square in range(size * size):
        assert flips(_u64(x), _u64(o), square, size) == 0
        assert flips(_u64(o), _u64(x), square, size) == 0


# Reachable boards where the starred square would flip across the row end if runs wrapped.
WRAP_8 = """
    --------
    --------
    -----O--
    ---OX*OO
    XXXXO---
    --------
    --------
    --------
"""

WRAP_6 = """
    ------
    ----O-
    --OX*O
    XXXO--
    ------
    ------
"""


@pytest.mark.parametrize(
    "picture, size, square", [(WRAP_8, 8, "f4"), (WRAP_6, 6, "e3")], ids=["8x8", "6x6"]
)
def test_no_wrap_around_in_reachable_positions(picture, size, square):
    game = Othello(size)
    state = game.parse_position(_position(picture, "X"))
    assert game.str_to_action(square) not in game.legal_actions(state)
    assert game.legal_actions(state)  # black still has other moves


def _naive_flips(cells: np.ndarray, player: int, row: int, col: int) -> set[int]:
    """Flipped squares of a placement, by walking each direction inside the board."""
    n = cells.shape[0]
    if cells[row, col]:
        return set()
    flipped: set[int] = set()
    for dr, dc in DIRECTIONS:
        run, r, c = [], row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and cells[r, c] == 3 - player:
            run.append(r * n + c)
            r, c = r + dr, c + dc
        if 0 <= r < n and 0 <= c < n and cells[r, c] == player:
            flipped.update(run)
    return flipped


@pytest.mark.parametrize("size", [4, 6, 8])
def test_kernels_match_a_naive_reference_on_random_boards(size):
    rng = np.random.default_rng(size)
    for _ in range(150):
        cells = rng.choice(3, size=(size, size), p=rng.dirichlet([1, 1, 1]))
        bits = [sum(1 << i for i, v in enumerate(cells.ravel()) if v == k) for k in (1, 2)]
        player, opponent = _u64(bits[0]), _u64(bits[1])
        moves = 0
        for square in range(size * size):
            expected = _naive_flips(cells, 1, square // size, square % size)
            got = int(flips(player, opponent, square, size))
            if not cells.ravel()[square]:
                assert got == sum(1 << s for s in expected)
            moves |= bool(expected) << square
        assert int(legal_moves(player, opponent, size)) == moves


FORCED_PASS = """
    --------
    --------
    ---X----
    ---XX---
    ---XX---
    ----XXX-
    ----O---
    ---OOO--
"""


def test_forced_pass():
    env = othello.env()
    env.reset(options={"position": _position(FORCED_PASS, "X")})
    obs, _, termination, _, _ = env.last()
    assert not termination and env.agent_selection == "player_0"
    assert np.flatnonzero(obs["action_mask"]).tolist() == [64]
    assert not obs["observation"][..., 2].any()
    assert env.action_to_str(64) == "pass" and env.str_to_action("PASS") == 64
    env.step(64)
    assert env.agent_selection == "player_1"
    assert "e3" in [GAME.action_to_str(a) for a in np.flatnonzero(env.legal_mask())]
    assert not env.legal_mask()[64]


def test_pass_is_illegal_when_a_placement_exists():
    with pytest.raises(IllegalActionError, match="pass"):
        GAME.step(GAME.initial_state(), 64)


BEFORE_THE_END = """
    OOOOOOOX
    XOOOOOXO
    -OOXXXOO
    OOXXXXOO
    OOXXOXOO
    OOXXXOOO
    O-OOOOOO
    -OOOOOOO
"""


def test_game_ends_at_once_when_neither_side_can_move():
    state = GAME.parse_position(_position(BEFORE_THE_END, "O"))
    state = GAME.step(state, GAME.str_to_action("a3"))
    assert GAME.outcome(state) == P1_WINS and GAME.legal_actions(state) == []
    black, white = disc_counts(state)
    assert (black, white) == (15, 47)  # two squares stay empty and go to the winner
    assert GAME.final_disc_difference(state, 1) == 47 - 15 + 2
    assert GAME.final_disc_difference(state, 0) == -34
    np.testing.assert_array_equal(GAME.returns(state), [-1.0, 1.0])
    assert GAME.parse_position(GAME.position(state))[1] == P1_WINS


def test_wipe_out_after_nine_plies():
    env = othello.env()
    env.reset(options={"moves": "d3 c3 b3 d2 e1 d6 d7 e3 f4".split()})
    state = env.unwrapped.state_array
    assert GAME.outcome(state) == P0_WINS and int(state[PLY]) == 9
    assert disc_counts(state) == (13, 0)
    assert GAME.final_disc_difference(state, 0) == 64
    assert GAME.final_disc_difference(state, 1) == -64
    assert env.terminations == {"player_0": True, "player_1": True}
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_final_disc_difference_follows_the_ffo_convention():
    assert final_disc_difference(_u64(0b111), _u64(0b11000), 8) == 3 - 2 + 59
    assert final_disc_difference(_u64(0b11000), _u64(0b111), 8) == -60
    assert final_disc_difference(_u64(0b11), _u64(0b1100), 6) == 0
    full = _u64((1 << 36) - 1)
    assert final_disc_difference(full & _u64(0xFFFFF), full & ~_u64(0xFFFFF), 6) == 20 - 16


# ----------------------------------------------------------------------- text and options
def test_start_positions_and_their_text():
    assert GAME.position(GAME.initial_state()) == (
        "---------------------------OX------XO--------------------------- X"
    )
    small = Othello(4)
    assert small.position(small.initial_state()) == "-----OX--XO----- X"
    six = Othello(6)
    assert [six.action_to_str(a) for a in six.legal_actions(six.initial_state())] == [
        "c2", "b3", "e4", "d5",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "---------------------------OX------XO--------------------------- X",
        "---------------------------ox......xo........................... x",
        "---------------------------OX------XO--------------------------- X;  d3:+0; c4:+0;",
    ],
)
def test_lenient_position_text_parses_to_the_canonical_form(text):
    assert GAME.position(GAME.parse_position(text)) == GAME.position(GAME.initial_state())


def test_positions_round_trip_along_random_games():
    rng = make_rng(7)
    for size in (4, 6, 8):
        game = Othello(size)
        for _ in range(20):
            state = game.initial_state()
            while not game.is_terminal(state):
                text = game.position(state)
                assert game.position(game.parse_position(text)) == text
                legal = game.legal_mask(state)
                state = game.step(state, choose_true(rng, legal, int(legal.sum())))
            parsed = game.parse_position(game.position(state))
            assert game.outcome(parsed) == game.outcome(state)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("---------------------------OX------XO---------------------------", "two fields"),
        ("---------------------------OX------XO-------------------------- X", "63 characters"),
        ("---------------------------OX------XO--------------------------Q X", "characters"),
        ("---------------------------OX------XO--------------------------- B", "side to move"),
        ("---------------------------O-------XO--------------------------- X", "centre"),
        ("X--------------------------OX------XO--------------------------- X", "connected"),
        ("---------------------------XO------OX--------------------------- X", "four discs"),
        ("---------------------------OX------XO--------------------------- O", "four discs"),
    ],
)
def test_bad_positions_are_rejected_with_the_reason(text, reason):
    with pytest.raises(InvalidPositionError, match=reason):
        GAME.parse_position(text)


def test_move_notation():
    assert [GAME.str_to_action(m) for m in ("a1", "H1", "a8", "h8", "pass")] == [0, 7, 56, 63, 64]
    assert all(GAME.str_to_action(GAME.action_to_str(a)) == a for a in range(65))
    assert Othello(6).str_to_action("f6") == 35
    for bad in ("i1", "a9", "g1", "a0", "", "d"):
        with pytest.raises(IllegalActionError):
            Othello(6).str_to_action(bad)
    with pytest.raises(IllegalActionError):
        GAME.action_to_str(65)


@pytest.mark.parametrize("size", [0, 3, 5, 7, 10, 16, True, 8.0, "8", None])
def test_board_size_must_be_4_6_or_8(size):
    with pytest.raises(InvalidOptionError, match="board_size"):
        othello.env(board_size=size)


def test_observation_planes_from_each_seat():
    env = othello.env(board_size=6)
    env.reset()
    env.step(env.str_to_action("c2"))
    black = env.observe("player_0")["observation"]
    white = env.observe("player_1")["observation"]
    assert black.shape == (6, 6, 3) and black.dtype == np.float32
    np.testing.assert_array_equal(black[..., 0], white[..., 1])
    np.testing.assert_array_equal(black[..., 1], white[..., 0])
    assert black[..., 0].sum() == 4 and black[..., 1].sum() == 1
    assert not black[..., 2].any()
    legal = np.flatnonzero(env.observe("player_1")["action_mask"][:36])
    assert np.flatnonzero(white[..., 2].ravel()).tolist() == legal.tolist()


# ------------------------------------------------------------------- playouts and hashing
@pytest.mark.parametrize("size", [4, 6, 8])
def test_playouts_end_in_finished_games(size):
    game = Othello(size)
    rng = make_rng(size)
    results = set()
    for _ in range(200):
        state = game.initial_state()
        outcome = game.kernels.playout(state, rng)
        black, white = disc_counts(state)
        expected = P0_WINS if black > white else P1_WINS if white > black else DRAW
        assert outcome == expected == game.outcome(state)
        assert legal_moves(state[BLACK], state[WHITE], size) == 0
        assert legal_moves(state[WHITE], state[BLACK], size) == 0
        assert int(state[PLY]) >= black + white - 4
        results.add(outcome)
    assert results >= {P0_WINS, P1_WINS}


def test_playout_from_a_pass_position_is_reproducible():
    start = GAME.parse_position(_position(FORCED_PASS, "X"))
    first, second = start.copy(), start.copy()
    GAME.kernels.playout(first, make_rng(3))
    GAME.kernels.playout(second, make_rng(3))
    np.testing.assert_array_equal(first, second)
    assert GAME.is_terminal(first) and int(first[PLY]) > int(start[PLY])


def test_position_keys_tell_apart_the_positions_six_plies_deep():
    positions = set()
    frontier = [GAME.initial_state()]
    for _ in range(6):
        frontier = [GAME.step(s, a) for s in frontier for a in GAME.legal_actions(s)]
        for s in frontier:
            seat = int(s[TO_PLAY])
            positions.add((int(s[BLACK + seat]), int(s[WHITE - seat])))
    keys = {int(position_key(_u64(p), _u64(o))) for p, o in positions}
    assert len(keys) == len(positions) > 3000
    p, o = positions.pop()
    assert position_key(_u64(p), _u64(o)) != position_key(_u64(o), _u64(p))


# -------------------------------------------------------------------------------- OpenSpiel
def test_matches_openspiel_on_1000_random_games():
    pyspiel = pytest.importorskip("pyspiel")
    from tests.openspiel_diff import assert_same_as_openspiel

    # OpenSpiel numbers squares row * 8 + col from a1 (top-left) too, with pass = 64
    plies = assert_same_as_openspiel(GAME, pyspiel.load_game("othello"), int, games=1000, seed=1)
    assert plies > 55_000


def test_observations_match_openspiel():
    pyspiel = pytest.importorskip("pyspiel")
    spiel_game = pyspiel.load_game("othello")
    rng = np.random.default_rng(5)
    for _ in range(20):
        state, spiel = GAME.initial_state(), spiel_game.new_initial_state()
        while not spiel.is_terminal():
            for seat in (0, 1):
                theirs = np.asarray(spiel.observation_tensor(seat)).reshape(3, 8, 8)
                np.testing.assert_array_equal(GAME.observe(state, seat)[..., :2],
                                              np.moveaxis(theirs[1:], 0, -1))
            action = int(rng.choice(GAME.legal_actions(state)))
            state = GAME.step(state, action)
            spiel.apply_action(action)
