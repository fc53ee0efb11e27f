"""Go knowledge: position keys, the capture/atari playout policy, the area-estimate
evaluation and exact values (boardzoo.knowledge.go)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from boardzoo.envs import go, go_board, go_v0
from boardzoo.envs.core import DRAW
from boardzoo.envs.go import Go
from boardzoo.envs.sgf import SgfRecord, write_sgf
from boardzoo.knowledge import go as knowledge
from boardzoo.rng import make_rng

SEEDS = 200


# ---------------------------------------------------------------------------- helpers
def position(diagram: str, moves: tuple = (), to_play: str | None = None, komi: float = 7.5,
             ko: str = "positional") -> tuple[Go, np.ndarray]:
    """(game, state) of an ASCII board: :func:`sgf_of` parsed by the game."""
    game = Go(len(diagram.split()), komi=komi, ko=ko)
    return game, game.parse_position(sgf_of(diagram, moves, to_play, komi))


def sgf_of(diagram: str, moves: tuple = (), to_play: str | None = None,
           komi: float = 7.5) -> str:
    """SGF of an ASCII board ("X" black, "O" white, "." empty; top row first) set up with
    AB/AW, then ``moves`` (("B" | "W", (row, col) or None), ...) played on it."""
    rows = diagram.split()
    black = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X")
    white = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O")
    return write_sgf(SgfRecord(len(rows), komi, black, white, tuple(moves), to_play), game=1)


def first_moves(playout, game: Go, state: np.ndarray, seeds: int = SEEDS) -> list[int]:
    """The first action of ``seeds`` traced playouts from ``state``."""
    trace = np.empty(3 * game.size**2 + 2, np.int64)
    firsts = []
    for seed in range(seeds):
        assert playout(state.copy(), make_rng(seed), trace) >= 1
        firsts.append(int(trace[0]))
    return firsts


def share(moves: list[int], action: int) -> float:
    return moves.count(action) / len(moves)


def swapped(game: Go, state: np.ndarray, to_play: str) -> np.ndarray:
    """The board of ``state`` with the colours swapped, ``to_play`` to move (no history)."""
    cells = game.cells(state)
    rows = ["".join(".OX"[c] for c in row) for row in cells]
    return position("\n".join(rows), to_play=to_play, komi=game.komi)[1]


def setup_copy(game: Go, state: np.ndarray, to_play: str) -> np.ndarray:
    """The board of ``state`` as a setup (no history), ``to_play`` to move."""
    rows = ["".join(".XO"[c] for c in row) for row in game.cells(state)]
    return position("\n".join(rows), to_play=to_play, komi=game.komi)[1]


def midgame_states(size: int, seeds: range, plies: int) -> list[tuple[Go, np.ndarray]]:
    """States reached by ``plies`` random moves (komi 0), one per seed."""
    game = Go(size, komi=0)
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.initial_state()
        for _ in range(plies):
            legal = np.flatnonzero(game.legal_mask(state)[:-1])
            if game.outcome(state) or legal.size == 0:
                break
            state = game.step(state, int(rng.choice(legal)))
        out.append((game, state))
    return out


CAPTURE_DIAGRAM = """
    .......
    .......
    ...X...
    ..XO...
    ...X...
    .......
    .......
    """
# A white stone just played to (3, 3) has one liberty left, at (3, 4): Black captures.
CAPTURE = position(
    CAPTURE_DIAGRAM.replace("XO", "X."),
    moves=(("W", (3, 3)),),
)
# White's (2, 4) put the black pair (2, 3)-(3, 3) in atari; extending to (1, 3) gives three
# liberties.
SAVE = position(
    """
    .......
    .......
    ..OX...
    ..OXO..
    ...O...
    .......
    .......
    """,
    moves=(("W", (2, 4)),),
)
# White's (3, 4) put the black stone (3, 3) in atari, and the white stone (3, 2) next to it
# is itself in atari: capturing it at (3, 1) saves Black.
CAPTURE_ATTACKER = position(
    """
    .......
    .......
    ..XO...
    ..OX...
    ..X....
    .......
    .......
    """,
    moves=(("W", (3, 4)),),
)
# White's (1, 2) put the black edge stone (0, 2) in atari; extending to (0, 3) leaves the
# pair with one liberty (1, 3), so it is no rescue.
HOPELESS = position(
    """
    .OX.O..
    .......
    .......
    .......
    .......
    .......
    .......
    """,
    moves=(("W", (1, 2)),),
)
# White's (2, 2) just took the black stone (2, 3) in a ko: Black may not retake at once.
KO = position(
    """
    .......
    ..XO...
    .X.XO..
    ..XO...
    .......
    .......
    .......
    """,
    moves=(("W", (2, 2)),),
)


# ------------------------------------------------------------------------------- keys
def test_keys_merge_transpositions_and_separate_boards_and_sides():
    game = Go(7)
    play = lambda moves: game.replay([game.str_to_action(m) for m in moves])  # noqa: E731
    a, b = play(["C3", "E5", "E3"]), play(["E3", "E5", "C3"])
    assert 0 <= int(knowledge.key_kernel(a)) < 2**64
    assert knowledge.key_kernel(a) == knowledge.key_kernel(b)
    assert knowledge.key_kernel(a) != knowledge.key_kernel(play(["C3", "E5", "E4"]))
    white_to_play = setup_copy(game, a, "W")
    assert knowledge.key_kernel(white_to_play) == knowledge.key_kernel(a)
    assert knowledge.key_kernel(setup_copy(game, a, "B")) != knowledge.key_kernel(a)


def test_keys_include_the_ko_ban_and_a_pending_pass_but_not_superko_history():
    game, state = KO
    no_ban = setup_copy(game, state, "B")
    assert knowledge.key_kernel(state) != knowledge.key_kernel(no_ban)
    after_pass = game.step(setup_copy(game, state, "W"), game.num_actions - 1)
    black_to_play = setup_copy(game, state, "B")
    assert np.array_equal(game.cells(after_pass), game.cells(black_to_play))
    assert knowledge.key_kernel(after_pass) != knowledge.key_kernel(black_to_play)
    # the same setup reached with different histories shares a key
    game7 = Go(7)
    long_way = game7.replay([game7.str_to_action(m) for m in ["C3", "pass", "D4", "pass"]])
    short_way = game7.replay([game7.str_to_action(m) for m in ["D4", "pass", "C3"]])
    short_way = game7.step(short_way, game7.num_actions - 1)
    assert knowledge.key_kernel(long_way) == knowledge.key_kernel(short_way)


def test_keys_differ_across_the_positions_of_a_game():
    seen: dict[int, tuple] = {}
    game = Go(7, ko="simple")
    rng = np.random.default_rng(3)
    for _ in range(20):
        state = game.initial_state()
        while not game.outcome(state):
            identity = (game.cells(state).tobytes(), int(state[go.TO_PLAY]),
                        int(state[go_board.KO_POINT]), int(state[go_board.PASSES] > 0))
            key = int(knowledge.key_kernel(state))
            assert seen.setdefault(key, identity) == identity
            state = game.step(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))
    assert len(seen) > 1000


# ---------------------------------------------------------------------------- playouts
@pytest.mark.parametrize("size,ko,suicide", [
    (5, "positional", False), (7, "situational", False), (7, "simple", True), (9, "none", False),
])
def test_heuristic_playouts_are_legal_to_the_end_and_never_fill_own_eyes(size, ko, suicide):
    game = Go(size, ko=ko, suicide=suicide)
    trace = np.empty(game.max_moves, np.int64)
    for seed in range(6):
        start = game.initial_state()
        played = start.copy()
        plies = knowledge.heuristic_playout_trace_kernel(played, make_rng(seed), trace)
        assert plies == played[go.PLY]
        assert played[go_board.PASSES] == 2 or played[go.PLY] == game.max_moves
        state = start
        for action in trace[:plies]:
            assert game.legal_mask(state)[action], game.action_to_str(action)
            if action < size * size:
                grid, colour = go_board.grid(state), int(state[go.TO_PLAY]) + 1
                assert not go_board.is_eye(grid, size + 1, go_board.to_point(state, action), colour)
            state = game.step(state, int(action))
        assert np.array_equal(state, played)


def test_heuristic_playout_kernel_plays_the_traced_game():
    game, state = SAVE
    plain, traced = state.copy(), state.copy()
    outcome = knowledge.heuristic_playout_kernel(plain, make_rng(9))
    knowledge.heuristic_playout_trace_kernel(traced, make_rng(9), np.empty(0, np.int64))
    assert outcome == game.outcome(plain) != 0
    assert np.array_equal(plain, traced)


def test_captures_the_chain_the_last_move_left_in_atari():
    game, state = CAPTURE
    capture = 3 * 7 + 4
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, game, state), capture) == 1
    assert share(first_moves(game.kernels.playout_trace, game, state), capture) < 0.1


def test_saves_a_chain_in_atari_by_extending():
    game, state = SAVE
    extend = 1 * 7 + 3
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, game, state), extend) == 1
    assert share(first_moves(game.kernels.playout_trace, game, state), extend) < 0.1


def test_captures_an_attacker_in_atari_to_save_a_chain():
    game, state = CAPTURE_ATTACKER
    capture = 3 * 7 + 1
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, game, state), capture) == 1


def test_does_not_extend_when_the_chain_stays_in_atari():
    """Extending on (0, 3) is a self-atari: the policy plays it less often than a random
    move would (1 in 42), and at most 5% of the time."""
    game, state = HOPELESS
    extend = 3
    heuristic = share(first_moves(knowledge.heuristic_playout_trace_kernel, game, state, 1000),
                      extend)
    assert heuristic <= 0.05
    assert heuristic < share(first_moves(game.kernels.playout_trace, game, state, 1000), extend)


# White's (2, 2) has two liberties, (2, 3) and (3, 2): the low-liberty step ataris it from
# either (a black stone there keeps two liberties; the black stones have three each).
ATARI_TWO = position(
    """
    .......
    ..X....
    .X.....
    .......
    .......
    .......
    .......
    """,
    moves=(("W", (2, 2)),),
)
# White's (0, 1) left the black pair (0, 0)-(1, 0) with two liberties, (1, 1) and (2, 0), and
# has two itself, (0, 2) and (1, 1): atari it at (0, 2) or (1, 1), or extend the pair at
# (1, 1) (three liberties); (2, 0) is no extension, White's (3, 0) leaves it two.
FIGHT_TWO = position(
    """
    X......
    X......
    .......
    O......
    .......
    .......
    .......
    """,
    moves=(("W", (0, 1)),),
)


@pytest.mark.parametrize(("case", "moves"), [
    (ATARI_TWO, {(2, 3), (3, 2)}),
    (FIGHT_TWO, {(0, 2), (1, 1)}),
])
def test_the_low_liberty_step_plays_the_two_liberty_fight(case, moves):
    game, state = case
    expected = {r * 7 + c for r, c in moves}
    firsts = first_moves(knowledge.low_liberty_playout_trace_kernel, game, state)
    assert set(firsts) == expected


def test_without_the_low_liberty_step_the_two_liberty_atari_is_rarer():
    game, state = ATARI_TWO
    others = first_moves(knowledge.ladder_playout_trace_kernel, game, state)
    assert sum(m in (2 * 7 + 3, 3 * 7 + 2) for m in others) < 0.5 * len(others)


@pytest.mark.parametrize("playout", [
    knowledge.low_liberty_playout_trace_kernel, knowledge.ladder_playout_trace_kernel,
    knowledge.reply_playout_trace_kernel, knowledge.nakade_playout_trace_kernel,
])
def test_the_optional_playout_steps_play_legally_to_the_end_and_never_fill_own_eyes(playout):
    """One zeroed buffer across the playouts, as in a search (the reply playouts keep their
    tables in it, so later playouts play learnt replies)."""
    game = Go(9)
    trace = np.zeros(65536, np.int64)
    for seed in range(6):
        played = game.initial_state()
        plies = playout(played, make_rng(seed), trace)
        assert played[go_board.PASSES] == 2 or played[go.PLY] == game.max_moves
        state = game.initial_state()
        for action in trace[:plies]:
            assert game.legal_mask(state)[action], game.action_to_str(action)
            if action < 81:
                grid, colour = go_board.grid(state), int(state[go.TO_PLAY]) + 1
                assert not go_board.is_eye(grid, 10, go_board.to_point(state, action), colour)
            state = game.step(state, int(action))
        assert np.array_equal(state, played)


def test_never_retakes_a_ko_at_once():
    game, state = KO
    retake = 2 * 7 + 3
    assert not game.legal_mask(state)[retake]
    moves = first_moves(knowledge.heuristic_playout_trace_kernel, game, state)
    assert retake not in moves
    assert all(game.legal_mask(state)[m] for m in moves)


# -------------------------------------------------------------------------- evaluation
def test_evaluation_is_inside_the_open_interval_for_positions_of_real_games():
    for size in (5, 7, 9):
        for game, state in midgame_states(size, range(5), plies=size * size // 2):
            for ply_state in (state, setup_copy(game, state, "W")):
                value = knowledge.evaluate_kernel(ply_state)
                assert -1.0 < value < 1.0


def test_evaluation_is_unchanged_by_swapping_colours_and_the_side_to_move():
    for game, state in midgame_states(7, range(20), plies=20):
        other = "WB"[int(state[go.TO_PLAY])]
        value = knowledge.evaluate_kernel(state)
        assert knowledge.evaluate_kernel(swapped(game, state, other)) == pytest.approx(value)


def test_evaluation_changes_sign_with_the_side_to_move_without_ataris():
    checked = 0
    for game, state in midgame_states(7, range(40), plies=16):
        if game.observe(state, 0)[:, :, 5:7].any():  # a chain in atari: not symmetric
            continue
        black, white = setup_copy(game, state, "B"), setup_copy(game, state, "W")
        assert knowledge.evaluate_kernel(black) == pytest.approx(-knowledge.evaluate_kernel(white))
        checked += 1
    assert checked >= 10


def test_territory_and_ataris_move_the_evaluation_the_right_way():
    walled = """
        ...X.O.
        ...X.O.
        ...X.O.
        ...X.O.
        ...X.O.
        ...X.O.
        ...X.O.
        """
    game, good = position(walled, to_play="B", komi=0)
    bad = swapped(game, good, "B")
    assert knowledge.evaluate_kernel(good) > 0.2 > -0.2 > knowledge.evaluate_kernel(bad)
    # Black to move with a white chain in atari beats White to move with the same chain
    _, black_to_move = position(CAPTURE_DIAGRAM, to_play="B", komi=0)
    _, white_to_move = position(CAPTURE_DIAGRAM, to_play="W", komi=0)
    assert knowledge.evaluate_kernel(black_to_move) > -knowledge.evaluate_kernel(white_to_move)
    # komi counts for White
    _, komi_game = position(walled, to_play="B", komi=9.5)
    assert knowledge.evaluate_kernel(komi_game) < knowledge.evaluate_kernel(good)




def test_alphabeta_with_the_evaluation_captures_a_big_chain_in_atari():
    from boardzoo.agents import AlphaBetaAgent

    game, state = position(
        """
        .......
        .XXXX..
        .OOOOX.
        .XXXX..
        .......
        .......
        .......
        """,
        to_play="B",
        komi=0,
    )
    env = go_v0.env(board_size=7, komi=0)
    env.reset(options={"position": game.position(state)})
    assert AlphaBetaAgent(depth=2, seed=0).act(env) == 2 * 7 + 0  # the chain's last liberty


# ------------------------------------------------------------------------ exact values
def test_exact_value_is_the_result_for_the_side_to_move():
    game = Go(7, komi=0)
    draw = game.replay([game.num_actions - 1, game.num_actions - 1])  # empty board, komi 0
    assert game.outcome(draw) == DRAW and knowledge.exact_value(draw) == 0
    game = Go(7)
    for seed in range(10):
        state = game.initial_state()
        game.kernels.playout(state, make_rng(seed))
        expected = game.returns(state)[int(state[go.TO_PLAY])]
        assert knowledge.exact_value(state) == expected != 0


WALLS = """
..XO.
..XO.
..XO.
..XO.
..XO.
"""  # Black's area 15, White's 10


@pytest.mark.parametrize("komi, outcome, expected", [
    (0.5, 1, 0.98 + 0.02 * 4.5 / 25),  # won by 15 - 10 - 0.5 on 25 points
    (0.5, 2, -0.98 + 0.02 * 4.5 / 25),  # the outcome decides the sign, the margin shades it
    (-30.0, 1, 1.0),  # a margin above N*N (35) counts as N*N
    (5.0, 3, 0.0),  # a draw by 15 - 10 - 5
])
def test_score_playout_value_shades_the_result_by_the_area_margin(komi, outcome, expected):
    _, state = position(WALLS, komi=komi)
    assert knowledge.score_playout_value(state, outcome) == pytest.approx(expected)


def test_score_playout_value_is_black_s_view_and_every_win_outranks_every_loss():
    _, black = position(WALLS, komi=0.5)
    _, white = position(WALLS.replace("X", "o").replace("O", "X").replace("o", "O"), komi=-0.5)
    assert knowledge.score_playout_value(white, 2) == -knowledge.score_playout_value(black, 1)
    _, far_behind = position(WALLS, komi=40.0)  # margin -35: counts as -N*N
    _, far_ahead = position(WALLS, komi=-30.0)
    assert (knowledge.score_playout_value(far_behind, 1) > 0
            > knowledge.score_playout_value(far_ahead, 2))


# ----------------------------------------------------------------------- pure Python
def test_numba_disabled_gives_the_same_results():
    """Under NUMBA_DISABLE_JIT=1 the same source plays the same heuristic playouts and
    gives the same keys and evaluations."""
    script = (
        "import numpy as np\n"
        "from boardzoo.envs.go import Go\n"
        "from boardzoo.knowledge import go as k\n"
        "from boardzoo.rng import make_rng\n"
        "for ko in ('positional', 'simple'):\n"
        "    g = Go(7, ko=ko)\n"
        "    s = g.replay([10, 24, 17])\n"
        "    print(int(k.key_kernel(s)), repr(float(k.evaluate_kernel(s))))\n"
        "    t = np.empty(200, np.int64)\n"
        "    n = k.heuristic_playout_trace_kernel(s, make_rng(4), t)\n"
        "    print(n, t[:n].tolist(), int(k.key_kernel(s)), int(k.exact_value(s)))\n"
    )
    plain = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           check=True, env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    compiled = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True)
    assert plain.stdout == compiled.stdout
    assert plain.stdout.count("\n") == 4


# -------------------------------------------------------------------------- strength
@pytest.mark.slow
def test_heuristic_rollouts_are_not_weaker_on_7x7():
    """MCTS (plain UCT) with 1000 simulations: heuristic playouts against the plain
    eye-respecting ones, 40 games on 7x7 with komi 9 (measured: 0.77 [0.68, 0.84] over 100
    games). Both sides name their rollout, so neither takes Go's default bundle (RAVE...)."""
    from boardzoo.agents import MCTSAgent
    from boardzoo.arena import play_match

    result = play_match(
        "go",
        MCTSAgent(simulations=1000, rollout="heuristic", seed=1),
        MCTSAgent(simulations=1000, rollout="random", seed=2),
        games=40, seed=0, opening_plies=2, game_options={"board_size": 7, "komi": 9},
    )
    print(result)
    assert result.score_ci[1] > 0.5


# Eye spaces in White's corner, bordered by White only; White's last move touches them.
# Black to move.
STRAIGHT_THREE = position(
    """
    ....X..
    OOOOX..
    XXXXX..
    .......
    .......
    .......
    .......
    """,
    moves=(("W", (0, 3)),),
)
BULKY_FIVE = position(
    """
    ...OX..
    ...OX..
    OOOXX..
    XXX....
    .......
    .......
    .......
    """,
    moves=(("W", (1, 2)),),
)
SQUARE_FOUR = position(
    """
    ..OX...
    ...X...
    OOOX...
    XXXX...
    .......
    .......
    .......
    """,
    moves=(("W", (1, 2)),),
)
STRAIGHT_FOUR = position(
    """
    ....OX.
    OOO.OX.
    XXXXXX.
    .......
    .......
    .......
    .......
    """,
    moves=(("W", (1, 3)),),
)


@pytest.mark.parametrize(("case", "vital"), [
    (STRAIGHT_THREE, (0, 1)),  # the middle of the three
    (BULKY_FIVE, (0, 1)),  # the square's point next to the fifth
])
def test_the_nakade_step_plays_the_vital_point_of_a_small_eye_space(case, vital):
    game, state = case
    firsts = first_moves(knowledge.nakade_playout_trace_kernel, game, state)
    assert set(firsts) == {vital[0] * 7 + vital[1]}
    others = first_moves(knowledge.ladder_playout_trace_kernel, game, state)
    assert share(others, vital[0] * 7 + vital[1]) < 0.5


@pytest.mark.parametrize("case", [SQUARE_FOUR, STRAIGHT_FOUR])
def test_the_nakade_step_leaves_eye_spaces_without_one_vital_point_alone(case):
    """A square four is dead and a straight four alive whoever moves: no point to play."""
    game, state = case
    assert len(set(first_moves(knowledge.nakade_playout_trace_kernel, game, state))) > 3
