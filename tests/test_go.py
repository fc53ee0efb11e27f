"""Go rules: GNU Go's recorded answers, hand-drawn positions, a slow reference engine, the env.

The live GNU Go differential tests are in test_go_gnugo.py.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from boardzoo.envs import go, go_board
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import DRAW, P0_WINS, P1_WINS
from boardzoo.envs.go import Go, area_score, ownership_kernel, playout_score_kernel
from boardzoo.envs.sgf import SgfRecord, write_sgf
from boardzoo.errors import IllegalActionError, InvalidOptionError, InvalidPositionError
from boardzoo.rng import make_rng

DATA = json.loads((Path(__file__).parent / "data" / "go" / "rules_cases.json").read_text())
LONG = 10_000  # max_moves for the stored GNU Go move lists, which run past 3*N*N


# ---------------------------------------------------------------------------- helpers
def sgf_of_gtp_moves(size: int, komi: float, moves: list[str]) -> str:
    """SGF text of GTP ``play`` arguments such as "b A2" / "w pass" (colours need not
    alternate: each SGF move is played by its own colour)."""
    game = Go(size)
    record = []
    for move in moves:
        colour, vertex = move.split()
        record.append((colour.upper(), game._point(game.str_to_action(vertex))))
    return write_sgf(SgfRecord(size, komi, (), (), tuple(record), None), game=1)


def sgf_of_diagram(diagram: str, to_play: str = "B", komi: float = 7.5) -> str:
    """SGF setup of an ASCII board ("X" black, "O" white, "." empty; top row first)."""
    rows = diagram.split()
    black = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X")
    white = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O")
    return write_sgf(SgfRecord(len(rows), komi, black, white, (), to_play), game=1)


def diagram(game: Go, state: np.ndarray) -> str:
    return "\n".join("".join(".XO"[c] for c in row) for row in game.cells(state))


def options_for(flags: list[str]) -> dict:
    """Env options matching GNU Go's rule flags."""
    ko = "simple"
    for flag, rule in (
        ("--no-ko", "none"),
        ("--positional-superko", "positional"),
        ("--situational-superko", "situational"),
    ):
        if flag in flags:
            ko = rule
    suicide = "--allow-suicide" in flags or "--allow-all-suicide" in flags
    return {"ko": ko, "suicide": suicide, "max_moves": LONG}


def play_all(game: Go, state: np.ndarray, vertices: str) -> np.ndarray:
    """Play space-separated GTP vertices for alternating sides, checking each is legal."""
    for vertex in vertices.split():
        state = game.step(state, game.str_to_action(vertex))
    return state


def is_legal(game: Go, state: np.ndarray, vertex: str) -> bool:
    return bool(game.legal_mask(state)[game.str_to_action(vertex)])


# ----------------------------------------------------------- GNU Go's recorded answers
RULE_CASES = {case["name"]: case for case in DATA["cases"]}
OUT_OF_SCOPE = {
    "final_status_list": "dead/seki status is an engine's judgement; the env never removes "
    "dead stones (Tromp-Taylor)",
}
DEAD_OR_TERRITORY = {
    "eyeless_group_with_two_liberties_is_dead_not_seki": "dead stones on the board: GNU Go "
    "removes them before scoring, Tromp-Taylor area scoring does not",
    "eyeless_group_dead_territory_scoring": "territory (Japanese) scoring is not the env's rule",
    "seki_japanese_scoring": "territory (Japanese) scoring is not the env's rule",
    "dead_stone_in_territory": "a dead stone on the board: GNU Go removes it, the env does not",
}


@pytest.mark.parametrize("name", sorted(RULE_CASES))
def test_rules_case_matches_gnugo(name):
    case = RULE_CASES[name]
    env = go.env(board_size=case["size"], komi=case["komi"], **options_for(case["gnugo_flags"]))
    env.reset(options={"position": sgf_of_gtp_moves(case["size"], case["komi"], case["setup"])})
    game = env.unwrapped.game
    checked = 0
    for query in case["queries"]:
        command, *args = query["cmd"].split()
        expected = query["expected"].split(maxsplit=1)
        answer = expected[1] if len(expected) > 1 else ""
        raw = env.unwrapped
        if command in ("is_legal", "play"):
            colour, vertex = args
            assert "bw"[raw.state_array[0]] == colour[0]
            legal = is_legal(game, raw.state_array, vertex)
            assert legal == (answer == "1" if command == "is_legal" else query["expected"] == "= ")
            if command == "play" and legal:
                env.step(game.str_to_action(vertex))
        elif command == "list_stones":
            colour = 1 if args[0] == "black" else 2
            cells = game.cells(raw.state_array)
            mine = {game.action_to_str(int(a)) for a in np.flatnonzero(cells.ravel() == colour)}
            assert mine == set(answer.split())
        elif command == "captures":
            black, white = go.captures(raw.state_array)
            assert (black if args[0] == "black" else white) == int(answer)
        elif command == "final_score":
            if name in DEAD_OR_TERRITORY:
                continue  # out of scope, see DEAD_OR_TERRITORY
            winner, margin = answer[0], float(answer[2:])
            assert game.score(raw.state_array) == (margin if winner == "B" else -margin)
        else:
            assert command in OUT_OF_SCOPE
            continue
        checked += 1
    assert checked or name in DEAD_OR_TERRITORY


def test_seki_chinese_score_is_gnugos_w_plus_4():
    """The one stored score without dead stones: seki points stay neutral in area scoring."""
    case = RULE_CASES["seki_chinese_scoring"]
    game = Go(case["size"], komi=0, ko="simple")
    state = game.parse_position(sgf_of_gtp_moves(6, 0, case["setup"]))
    assert game.score(state) == -4.0
    owners = np.zeros(36)
    ownership_kernel(state, owners)
    assert owners.reshape(6, 6)[0, 4] == 0 and owners.reshape(6, 6)[1, 4] == 0  # E6, E5 dame


RANDOM_CASES = [
    ("random_superko", {"ko": "simple"}, {"ko": "positional"}),
    ("random_situational", {"ko": "positional"}, {"ko": "situational"}),
    ("random_suicide", {"ko": "simple", "suicide": True}, {"ko": "simple", "suicide": False}),
]


@pytest.mark.parametrize(
    "key, index, rules_a, rules_b",
    [(key, i, a, b) for key, a, b in RANDOM_CASES for i in range(len(DATA[key]))],
)
def test_random_positions_where_rules_differ(key, index, rules_a, rules_b):
    """GNU Go's legal sets differ between two rule settings exactly at the stored moves."""
    case = DATA[key][index]
    text = sgf_of_gtp_moves(case["size"], 0, case["moves"])
    legal = []
    for rules in (rules_a, rules_b):
        game = Go(case["size"], komi=0, max_moves=LONG, **rules)
        state = game.parse_position(text)
        assert "bw"[state[0]] == case["to_move"][0]
        legal.append({game.action_to_str(a) for a in game.legal_actions(state)} - {"pass"})
    assert sorted(legal[0] - legal[1]) == sorted(case["legal_only_under_A"])
    assert sorted(legal[1] - legal[0]) == sorted(case["legal_only_under_B"])


# ------------------------------------------------------------------ hand-drawn positions
def test_capturing_a_multi_stone_group_frees_its_points():
    game = Go(5, ko="simple")
    state = game.parse_position(
        sgf_of_diagram(
            """
            .OOO.
            .XXXO
            .OOO.
            .....
            .....""",
            to_play="W",
        )
    )
    assert not game.is_terminal(state)
    state = game.step(state, game.str_to_action("A4"))  # fills the last liberty
    assert diagram(game, state).splitlines()[1] == "O...O"
    assert go.captures(state) == (0, 3)
    for vertex in ("B4", "C4", "D4"):
        assert is_legal(game, state, vertex)  # black may play back: they have liberties


def test_snapback_retakes_more_than_one_stone_so_it_is_not_ko():
    game = Go(5, ko="simple")
    state = game.parse_position(
        sgf_of_diagram(
            """
            .....
            .....
            OOOO.
            XXXO.
            ..XO.""",
            to_play="W",
        )
    )
    state = play_all(game, state, "B1 A1")  # throw-in, and Black captures it
    assert go.captures(state) == (1, 0)
    assert is_legal(game, state, "B1")  # retaking 5 stones is no ko
    state = play_all(game, state, "B1")
    assert go.captures(state) == (1, 5)
    assert not (game.cells(state) == 1).any()


SUICIDE_CORNER = """
.X...
X....
.....
.....
.....
"""
SUICIDE_PAIR = """
O.X..
XX...
.....
.....
.....
"""


@pytest.mark.parametrize("ko", ["none", "simple"])
def test_single_stone_suicide(ko):
    forbid, allow = (Go(5, ko=ko, suicide=s) for s in (False, True))
    text = sgf_of_diagram(SUICIDE_CORNER, to_play="W")
    assert not is_legal(forbid, forbid.parse_position(text), "A5")
    state = allow.parse_position(text)
    after = allow.step(state, allow.str_to_action("A5"))
    assert diagram(allow, after) == diagram(allow, state)  # the stone removed itself
    assert go.captures(after) == (1, 0)


def test_multi_stone_suicide_removes_the_whole_chain():
    forbid, allow = Go(5, ko="simple"), Go(5, ko="simple", suicide=True)
    text = sgf_of_diagram(SUICIDE_PAIR, to_play="W")
    assert not is_legal(forbid, forbid.parse_position(text), "B5")
    after = play_all(allow, allow.parse_position(text), "B5")
    assert diagram(allow, after).splitlines()[0] == "..X.."
    assert go.captures(after) == (2, 0)


def test_single_stone_suicide_is_a_repetition_under_positional_superko():
    """Tromp-Taylor: a single-stone suicide recreates the position, so positional superko
    forbids it; a multi-stone suicide changes the board and stays legal. (GNU Go's superko
    check misses this: see test_go_gnugo.py.)"""
    game = Go(5, ko="positional", suicide=True)
    assert not is_legal(game, game.parse_position(sgf_of_diagram(SUICIDE_CORNER, "W")), "A5")
    assert is_legal(game, game.parse_position(sgf_of_diagram(SUICIDE_PAIR, "W")), "B5")
    situational = Go(5, ko="situational", suicide=True)  # same board, other side to move
    assert is_legal(
        situational, situational.parse_position(sgf_of_diagram(SUICIDE_CORNER, "W")), "A5"
    )


# Three kos, each with the ko stone inside: ko 1 (top left, White's stone on B8), ko 2 (top
# right, Black's stone on H8), ko 3 (bottom left, White's stone on B4). Every capture is a
# single stone taking a single stone.
TRIPLE_KO = """
.XO...XO.
XO.O.X.XO
.XO...XO.
.........
.XO......
XO.O.....
.XO......
.........
.........
"""
TRIPLE_KO_CYCLE = "C8 G8 C4 B8 H8 B4"  # B takes 1, W takes 2, B takes 3, W 1, B 2, W 3


@pytest.mark.parametrize(
    "ko, last_move_legal",
    [("none", True), ("simple", True), ("positional", False), ("situational", False)],
)
def test_triple_ko_cycle(ko, last_move_legal):
    """Six ko captures return to the starting board with Black to move: only superko stops it."""
    game = Go(9, ko=ko)
    start = game.parse_position(sgf_of_diagram(TRIPLE_KO, "B"))
    *first, last = TRIPLE_KO_CYCLE.split()
    state = play_all(game, start, " ".join(first))
    assert go.captures(state) == (3, 2)
    assert is_legal(game, state, last) == last_move_legal
    if last_move_legal:
        assert diagram(game, play_all(game, state, last)) == diagram(game, start)


@pytest.mark.parametrize(
    "ko, legal", [("none", True), ("simple", True), ("positional", False), ("situational", True)]
)
def test_double_ko_with_a_pass_repeats_the_board_with_the_other_side_to_move(ko, legal):
    """B takes ko 1, W takes ko 2, B passes, W retakes ko 1, B retakes ko 2: the starting
    board again, but with White to move, so only positional superko forbids it."""
    game = Go(9, ko=ko)
    start = game.parse_position(sgf_of_diagram(TRIPLE_KO, "B"))  # ko 3 stays idle
    state = play_all(game, start, "C8 G8 pass B8")
    assert is_legal(game, state, "H8") == legal


def test_simple_ko_forbids_only_the_immediate_recapture():
    simple, none = Go(9, ko="simple"), Go(9, ko="none")
    state = play_all(simple, simple.parse_position(sgf_of_diagram(TRIPLE_KO, "B")), "C8")
    assert not is_legal(simple, state, "B8")
    assert is_legal(simple, play_all(simple, state, "J1 J2"), "B8")
    assert is_legal(
        none, play_all(none, none.parse_position(sgf_of_diagram(TRIPLE_KO)), "C8"), "B8"
    )


def test_max_moves_ends_and_scores_the_game():
    game = Go(5, komi=0.5, ko="simple", max_moves=3)
    state = play_all(game, game.initial_state(), "C3 pass")
    assert not game.is_terminal(state)
    state = play_all(game, state, "A1")
    assert game.is_terminal(state)
    assert game.score(state) == 24.5  # every point touches only black stones
    assert game.outcome(state) == P0_WINS
    assert not game.legal_mask(state).any()


@pytest.mark.parametrize("komi, outcome", [(0, DRAW), (0.5, P1_WINS), (-0.5, P0_WINS)])
def test_draw_only_with_integer_komi(komi, outcome):
    game = Go(4, komi=komi)
    state = play_all(game, game.initial_state(), "pass pass")
    assert game.score(state) == -komi  # the empty board is neutral
    assert game.outcome(state) == outcome


def test_two_by_two_board():
    game = Go(2, komi=0)
    state = play_all(game, game.initial_state(), "A1 B2")
    assert diagram(game, state) == ".O\nX."
    assert game.legal_actions(state) == [0, 3, 4]  # A2, B1, pass
    state = play_all(game, state, "A2")  # both chains now share the last liberty B1
    assert diagram(game, state) == "XO\nX."
    state = play_all(game, state, "B1")  # captures the black pair
    assert diagram(game, state) == ".O\n.O"
    assert game.score(state) == -4.0


@pytest.mark.parametrize("size, count", [(2, 57), (3, 12_675)])
def test_every_legal_position_is_reachable(size, count):
    """Boards reachable with ko="none" (passes allowed) = Tromp's legal-position count."""
    game = Go(size, ko="none")
    seen = {(b"\x00" * size * size, 0)}
    frontier = [(np.zeros((size, size), np.int8), 0)]
    while frontier:
        cells, to_play = frontier.pop()
        state = game.parse_position(_setup_text(size, cells, to_play))
        for action in game.legal_actions(state)[:-1]:
            board = game.cells(game.step(state, action))
            for side in (0, 1):  # a pass hands the move over
                key = (board.tobytes(), side)
                if key not in seen:
                    seen.add(key)
                    frontier.append((board, side))
    assert len({board for board, _ in seen}) == count


def _setup_text(size: int, cells: np.ndarray, to_play: int) -> str:
    black = tuple(map(tuple, np.argwhere(cells == 1).tolist()))
    white = tuple(map(tuple, np.argwhere(cells == 2).tolist()))
    return write_sgf(SgfRecord(size, None, black, white, (), "BW"[to_play]), game=1)


def test_nineteen_by_nineteen_playout_and_coordinates():
    game = Go(19)
    assert game.action_to_str(0) == "A19"
    assert game.action_to_str(360) == "T1"
    assert game.str_to_action("t1") == 360
    state = game.initial_state()
    game.kernels.playout(state, make_rng(3))
    assert game.is_terminal(state)
    assert np.array_equal(game.parse_position(game.position(state)), state)


# ------------------------------------------------------ a slow reference implementation
class ReferenceGo:
    """Go rules written the obvious way (flood fills, lists of earlier boards)."""

    def __init__(self, size: int, ko: str, suicide: bool):
        self.n, self.ko, self.suicide = size, ko, suicide
        self.board = (0,) * (size * size)
        self.to_play = 1
        self.boards = [self.board]
        self.situations = [(self.board, 1)]
        self.ko_ban = None  # (point, colour) of a simple-ko ban

    def neighbours(self, p):
        r, c = divmod(p, self.n)
        return [
            rr * self.n + cc
            for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
            if 0 <= rr < self.n and 0 <= cc < self.n
        ]

    def chain(self, board, p):
        stones, todo = {p}, [p]
        while todo:
            for q in self.neighbours(todo.pop()):
                if board[q] == board[p] and q not in stones:
                    stones.add(q)
                    todo.append(q)
        return stones

    def has_liberty(self, board, stones):
        return any(board[q] == 0 for s in stones for q in self.neighbours(s))

    def result(self, p, colour):
        """(board after, captured stones, suicided stones)."""
        board = list(self.board)
        board[p] = colour
        captured = set()
        for q in self.neighbours(p):
            if board[q] == 3 - colour and not self.has_liberty(board, self.chain(board, q)):
                captured |= self.chain(board, q)
        for q in captured:
            board[q] = 0
        own = self.chain(board, p)
        suicided = set() if self.has_liberty(board, own) else own
        for q in suicided:
            board[q] = 0
        return tuple(board), captured, suicided

    def legal(self, p):
        colour = self.to_play
        if self.board[p]:
            return False
        if self.ko != "none" and self.ko_ban == (p, colour):
            return False
        board, _, suicided = self.result(p, colour)
        if suicided and not self.suicide:
            return False
        if self.ko == "positional":
            return board not in self.boards
        if self.ko == "situational":
            return (board, 3 - colour) not in self.situations
        return True

    def play(self, p):
        colour, self.ko_ban = self.to_play, None
        if p is not None:
            board, captured, _ = self.result(p, colour)
            if len(captured) == 1 and self.chain(board, p) == {p}:
                (taken,) = captured
                if [q for q in self.neighbours(p) if board[q] == 0] == [taken]:
                    self.ko_ban = (taken, 3 - colour)
            self.board = board
        self.to_play = 3 - colour
        self.boards.append(self.board)
        self.situations.append((self.board, self.to_play))


@pytest.mark.parametrize("ko", go.KO_RULES)
@pytest.mark.parametrize("suicide", [False, True])
@pytest.mark.parametrize("size", [3, 4, 5])
def test_legal_moves_match_a_reference_implementation(size, ko, suicide):
    """Random games (mostly on crowded boards, where ko and superko bite) agree move by move
    with the flood-fill reference, including suicide under superko, which GNU Go gets wrong."""
    rng = np.random.default_rng(size * 10 + suicide)
    game = Go(size, ko=ko, suicide=suicide, max_moves=8 * size * size)
    for _ in range(20):
        ref, state = ReferenceGo(size, ko, suicide), game.initial_state()
        while not game.is_terminal(state):
            legal = game.legal_mask(state)
            assert legal[:-1].tolist() == [ref.legal(p) for p in range(size * size)]
            moves = np.flatnonzero(legal[:-1])
            pass_now = not len(moves) or (state[go_board.PASSES] == 0 and rng.random() < 0.05)
            action = size * size if pass_now else rng.choice(moves)
            state = game.step(state, int(action))
            ref.play(None if action == size * size else int(action))
            assert game.cells(state).ravel().tolist() == list(ref.board)


# -------------------------------------------------------------------- playout policy
@pytest.mark.parametrize("size", [4, 7, 9])
def test_playout_ends_with_two_passes_and_no_non_eye_move_left(size):
    game = Go(size)
    for seed in range(20):
        state = game.initial_state()
        assert game.kernels.playout(state, make_rng(seed)) == game.outcome(state)
        assert state[go_board.PASSES] == 2 or state[go.PLY] == game.max_moves
        if state[go_board.PASSES] < 2:
            continue
        grid, w = go_board.grid(state), size + 1
        for colour in (1, 2):
            for a in range(size * size):
                p = go_board.to_point(state, a)
                if go_board.is_legal(state, grid, p, colour):
                    assert go_board.is_eye(grid, w, p, colour), game.action_to_str(a)


def test_playout_helpers_agree_with_the_final_state():
    game = Go(9)
    state = game.initial_state()
    score = playout_score_kernel(state, make_rng(11))
    owners = np.zeros(81)
    go.ownership_kernel(state, owners)
    assert score == area_score(state) == owners.sum() - 7.5
    assert game.outcome(state) == (P0_WINS if score > 0 else P1_WINS)


EYE_CASES = [
    ("corner eye", ".X...|XX...", "A5", 1, True),
    ("corner with an enemy diagonal", ".X...|XO...", "A5", 1, False),
    ("edge with an enemy diagonal", ".X.X.|.OX..", "C5", 1, False),
    ("centre with one enemy diagonal", ".....|.OX..|.X.X.|..X..", "C3", 1, True),
    ("centre with two enemy diagonals", ".....|.OX..|.X.X.|..XO.", "C3", 1, False),
    ("an empty neighbour", ".X...|X....|.....", "A4", 1, False),
    ("the other colour's point", ".X...|XX...", "A5", 2, False),
]


@pytest.mark.parametrize("what, rows, vertex, colour, expected", EYE_CASES)
def test_eye_definition(what, rows, vertex, colour, expected):
    rows = rows.split("|")
    game = Go(5)
    state = game.parse_position(sgf_of_diagram("\n".join(rows + ["....."] * (5 - len(rows)))))
    point = go_board.to_point(state, game.str_to_action(vertex))
    assert go_board.is_eye(go_board.grid(state), 6, point, colour) == expected


# ------------------------------------------------------------------------ env and text
def test_pettingzoo_api_test():
    from pettingzoo.test import api_test

    with warnings.catch_warnings():  # its advice for flat observations and dummy reset option
        warnings.simplefilter("ignore")
        api_test(go.env(board_size=5), num_cycles=100)


def test_observation_planes():
    env = go.env(board_size=5, ko="simple")
    env.reset(options={"position": sgf_of_diagram(SUICIDE_CORNER, "B")})
    env.step(env.str_to_action("C3"))  # Black, then White passes: Black to move
    env.step(env.str_to_action("pass"))
    black = env.observe("player_0")["observation"]
    white = env.observe("player_1")["observation"]
    assert black.shape == (5, 5, 10) and black.dtype == np.float32
    assert np.array_equal(black[..., 0], white[..., 1])
    assert np.array_equal(black[..., 1], white[..., 0])
    assert black[..., 0].sum() == 3 and black[..., 2].sum() == 22
    assert black[..., 3].sum() == 0 and black[2, 2, 4] == 1.0  # a pass, and before it C3
    assert black[..., 9].all() and white[..., 9].all()
    assert black[..., 8].all() and not white[..., 8].any()
    assert not black[..., 7].any()  # Black may even fill its own eye at A5


def test_observation_marks_suicide_points_for_the_side_to_move():
    game = Go(5, ko="simple")
    state = game.parse_position(sgf_of_diagram(SUICIDE_CORNER, "W"))
    for seat in (0, 1):
        planes = game.observe(state, seat)
        assert planes[0, 0, 7] == 1.0 and planes[..., 7].sum() == 1


def test_observation_marks_ko_and_atari():
    game = Go(9, ko="simple")
    state = play_all(game, game.parse_position(sgf_of_diagram(TRIPLE_KO, "B")), "C8")
    planes = game.observe(state, 1)  # White to move: B8 is the ko point, A9 suicide
    assert planes[1, 1, 7] == 1.0 and planes[0, 0, 7] == 1.0 and planes[..., 7].sum() == 2
    assert planes[1, 2, 6] == 1.0  # Black's C8 stone is in atari, seen by White
    assert planes[1, 2, 3] == 1.0  # the last move


def test_move_notation():
    game = Go(9)
    assert game.action_to_str(0) == "A9" and game.action_to_str(80) == "J1"
    assert game.action_to_str(81) == "pass"
    assert [game.str_to_action(t) for t in ("d4", " D4 ", "PASS", "j9")] == [48, 48, 81, 8]
    for bad in ("I5", "K1", "A10", "A0", "", "e", "55"):
        with pytest.raises(IllegalActionError, match="GTP vertex"):
            game.str_to_action(bad)


@pytest.mark.parametrize(
    "options, match",
    [
        ({"board_size": 1}, "board_size"),
        ({"board_size": 20}, "board_size"),
        ({"komi": 7.25}, "multiple of 0.5"),
        ({"komi": float("nan")}, "komi"),
        ({"ko": "superko"}, "positional"),
        ({"suicide": "yes"}, "suicide"),
        ({"max_moves": 0}, "max_moves"),
        ({"max_moves": 2.5}, "max_moves"),
    ],
)
def test_options_are_validated(options, match):
    with pytest.raises(InvalidOptionError, match=match):
        Go(**options)


def test_position_round_trips_with_history_setup_and_side():
    game = Go(9, ko="situational")
    text = "(;GM[1]FF[4]SZ[9]KM[7.5]AB[cc][dd]AW[ee];W[ff];B[];W[gg];W[hh];B[aa])"
    state = game.parse_position(text)
    assert game.position(state) == text
    assert game.to_play(state) == 1
    assert np.array_equal(game.parse_position(game.position(state)), state)
    ended = play_all(game, state, "pass pass")
    assert game.is_terminal(ended)
    assert np.array_equal(game.parse_position(game.position(ended)), ended)
    assert game.position(game.initial_state()) == "(;GM[1]FF[4]SZ[9]KM[7.5])"
    white_first = "(;GM[1]FF[4]SZ[9]KM[7.5]AB[cc]PL[W])"
    assert game.position(game.parse_position(white_first)) == white_first


def test_positions_keep_the_superko_history():
    game = Go(9)
    start = game.parse_position(sgf_of_diagram(TRIPLE_KO, "B"))
    *first, last = TRIPLE_KO_CYCLE.split()
    state = play_all(game, start, " ".join(first))
    rebuilt = game.parse_position(game.position(state))
    assert np.array_equal(rebuilt, state)
    assert not is_legal(game, rebuilt, last)


@pytest.mark.parametrize(
    "text, match",
    [
        ("(;GM[1]SZ[13])", r"board_size=13"),
        ("(;GM[1]SZ[9]KM[6.5])", r"komi=6.5"),
        ("(;GM[1]SZ[9]AB[aa]AW[aa])", "both a black and a white"),
        ("(;GM[1]SZ[9]AB[ab][ba]AW[aa])", "no liberty"),
        ("(;GM[1]SZ[9];B[aa];W[aa])", r"SGF move 2 \(W\[A9\]\) is illegal"),
        ("(;GM[1]SZ[9];B[];W[];B[aa])", "after the end"),
        ("(;GM[1]SZ[9];B[aa", "malformed"),
        ("(;GM[4]SZ[9])", "GM"),
    ],
)
def test_bad_positions_raise(text, match):
    env = go.env()
    with pytest.raises(InvalidPositionError, match=match):
        env.reset(options={"position": text})


def test_clone_and_restore_keep_the_superko_history():
    env = go.env(board_size=9)
    env.reset(options={"position": sgf_of_diagram(TRIPLE_KO, "B")})
    *first, last = TRIPLE_KO_CYCLE.split()
    for vertex in first:
        env.step(env.str_to_action(vertex))
    snapshot = pickle.loads(pickle.dumps(env.unwrapped.clone_state()))
    env.reset()
    other = go.env(board_size=9, illegal_action="raise")
    other.unwrapped.restore_state(snapshot)
    assert not other.unwrapped.legal_mask()[other.str_to_action(last)]
    with pytest.raises(IllegalActionError, match="not legal"):
        other.step(other.str_to_action(last))


def test_renders_use_gtp_coordinates():
    env = go.env(board_size=9, render_mode="ansi")
    env.reset(options={"moves": ["D4", "pass"]})
    text = env.render()
    lines = text.splitlines()
    assert lines[0].split() == list("ABCDEFGHJ")
    assert lines[1].split()[0] == "9" and lines[9].split()[0] == "1"
    assert lines[6].split()[4] == "X"  # D4: row 4, fourth column
    rgb = BoardGameEnv(Go(9), render_mode="rgb_array")
    rgb.reset()
    assert rgb.render().shape[2] == 3
    assert Go.pieces_on_intersections


def test_numba_disabled_gives_the_same_playout():
    """The same source as plain Python (NUMBA_DISABLE_JIT=1) plays the same seeded games."""
    script = (
        "import numpy as np\n"
        "from boardzoo.envs.go import Go\n"
        "from boardzoo.rng import make_rng\n"
        "for ko in ('positional', 'situational', 'simple'):\n"
        "    g = Go(7, ko=ko, suicide=ko == 'simple')\n"
        "    s = g.initial_state(); g.kernels.playout(s, make_rng(5))\n"
        "    print(g.position(s), g.score(s), g.observe(s, 0).sum(), int(g.legal_mask(s).sum()))\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    plain = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    compiled = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert plain.stdout == compiled.stdout
    assert plain.stdout.count("GM[1]") == 3
