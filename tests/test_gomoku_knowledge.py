"""Gomoku knowledge: position keys, the win/block playout policy, the threat evaluation and
exact values (boardzoo.knowledge.gomoku)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from boardzoo.envs.core import DRAW, TO_PLAY
from boardzoo.envs.gomoku import CELLS, Gomoku
from boardzoo.envs.sgf import SgfRecord, write_sgf
from boardzoo.knowledge import gomoku as knowledge
from boardzoo.rng import make_rng

SEEDS = 200


# ---------------------------------------------------------------------------- helpers
def position(diagram: str, **options) -> tuple[Gomoku, np.ndarray]:
    """(game, state) of an ASCII board ("X" black, "O" white, "." empty; top row first)."""
    rows = diagram.split()
    black = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X")
    white = tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O")
    game = Gomoku(len(rows), **options)
    record = SgfRecord(len(rows), None, black, white, (), None)
    return game, game.parse_position(write_sgf(record, game=4))


def swapped(state: np.ndarray) -> np.ndarray:
    """The same board with the colours of all stones and the side to move swapped."""
    out = state.copy()
    cells = out[CELLS : CELLS + int(state[3]) ** 2]
    cells[:] = np.where(cells == 0, 0, 3 - cells)
    out[TO_PLAY] = 1 - state[TO_PLAY]
    return out


def first_moves(playout, game: Gomoku, state: np.ndarray, seeds: int = SEEDS) -> list[int]:
    trace = np.empty(game.num_actions, np.int64)
    firsts = []
    for seed in range(seeds):
        assert playout(state.copy(), make_rng(seed), trace) >= 1
        firsts.append(int(trace[0]))
    return firsts


def share(moves: list[int], action: int) -> float:
    return moves.count(action) / len(moves)


def random_states(game: Gomoku, games: int, seed: int = 0):
    """Every non-terminal state of ``games`` uniformly random games."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        while not game.outcome(state):
            yield state
            state = game.step(state, int(rng.choice(np.flatnonzero(game.legal_mask(state)))))


# Black to play wins on (4, 5).
WIN_NOW = """
    .........
    .........
    .........
    .........
    OXXXX....
    .........
    ....O....
    ...O.O...
    .........
    """
# Black to play must block White's four on (4, 5).
BLOCK = """
    .........
    .X.......
    .........
    ...X.....
    XOOOO....
    .........
    .....X...
    .........
    .........
    """
# Both sides have a four; Black, to play, wins on (0, 5) rather than block on (4, 5).
BOTH_FOURS = """
    OXXXX....
    .........
    .........
    .........
    XOOOO....
    .........
    .........
    .........
    .........
    """
# Black's (4, 4) makes six in a row: a win in free-style, not with exact_five.
OVERLINE = """
    .........
    .........
    .........
    .........
    XXXX.X...
    .........
    .........
    .........
    O.O.O.O.O
    """
# Black to play has an open three; White's stones are scattered.
OPEN_THREE = """
    .........
    .........
    .........
    .........
    ...XXX...
    .........
    O.......O
    .........
    O........
    """


# ------------------------------------------------------------------------------- keys
def test_keys_merge_transpositions_and_separate_boards_and_sides():
    game = Gomoku(9)
    a, b = game.replay([40, 41, 30, 31, 50]), game.replay([30, 31, 50, 41, 40])
    assert knowledge.key_kernel(a) == knowledge.key_kernel(b)
    assert not np.array_equal(a, b)  # the move lists differ
    assert knowledge.key_kernel(a) != knowledge.key_kernel(game.replay([40, 41, 30, 31, 51]))
    other_side = a.copy()
    other_side[TO_PLAY] = 0
    assert knowledge.key_kernel(other_side) != knowledge.key_kernel(a)
    assert knowledge.key_kernel(game.initial_state()) != 0


def test_keys_differ_across_the_positions_of_random_games():
    game = Gomoku(9)
    seen: dict[int, tuple] = {}
    for state in random_states(game, 30):
        identity = (game.cells(state).tobytes(), int(state[TO_PLAY]))
        assert seen.setdefault(int(knowledge.key_kernel(state)), identity) == identity
    assert len(seen) > 1000


# ---------------------------------------------------------------------------- playouts
@pytest.mark.parametrize("size,win_length,exact", [(9, 5, False), (7, 4, True), (15, 5, True),
                                                   (3, 3, False)])
def test_heuristic_playouts_are_legal_to_the_end(size, win_length, exact):
    game = Gomoku(size, win_length, exact)
    trace = np.empty(game.num_actions, np.int64)
    starts = [game.initial_state(), game.replay([size * size // 2, 0])]
    for seed in range(10):
        for start in starts:
            played = start.copy()
            plies = knowledge.heuristic_playout_trace_kernel(played, make_rng(seed), trace)
            state = start
            for action in trace[:plies]:
                assert game.legal_mask(state)[action]
                state = game.step(state, int(action))
            assert np.array_equal(state, played)
            assert game.outcome(played) != 0


def test_heuristic_playout_kernel_plays_the_traced_game():
    game, state = position(OPEN_THREE)
    plain, traced = state.copy(), state.copy()
    outcome = knowledge.heuristic_playout_kernel(plain, make_rng(3))
    knowledge.heuristic_playout_trace_kernel(traced, make_rng(3), np.empty(0, np.int64))
    assert outcome == game.outcome(plain) != 0
    assert np.array_equal(plain, traced)


@pytest.mark.parametrize("diagram,move", [(WIN_NOW, 4 * 9 + 5), (BLOCK, 4 * 9 + 5),
                                          (BOTH_FOURS, 5)])
def test_takes_an_immediate_win_else_blocks_one(diagram, move):
    game, state = position(diagram)
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, game, state), move) == 1
    assert share(first_moves(game.kernels.playout_trace, game, state), move) < 0.1


def test_an_overline_is_no_win_with_exact_five():
    six = 4 * 9 + 4
    free, state = position(OVERLINE)
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, free, state), six) == 1
    exact, state = position(OVERLINE, exact_five=True)
    assert share(first_moves(knowledge.heuristic_playout_trace_kernel, exact, state), six) < 0.1


def test_random_moves_stay_near_the_stones():
    """90% of the non-forced moves go next to a stone: from a lone centre stone on 15x15 the
    reply lands on one of its 8 neighbours about 90% of the time (1 - 0.1 * 216/224)."""
    game = Gomoku(15)
    state = game.replay([112])
    moves = first_moves(knowledge.heuristic_playout_trace_kernel, game, state, 1000)
    near = sum(abs(m // 15 - 7) <= 1 and abs(m % 15 - 7) <= 1 for m in moves) / len(moves)
    assert 0.85 < near < 0.95


# -------------------------------------------------------------------------- evaluation
def test_evaluation_is_inside_the_open_interval():
    for options in ({"board_size": 9}, {"board_size": 7, "win_length": 4, "exact_five": True}):
        game = Gomoku(**options)
        values = [knowledge.evaluate_kernel(s) for s in random_states(game, 5)]
        assert all(-1 < v < 1 for v in values)
    assert knowledge.evaluate_kernel(Gomoku(15).initial_state()) == 0


def test_evaluation_is_unchanged_by_swapping_colours_and_the_side_to_move():
    game = Gomoku(9)
    for state in list(random_states(game, 3, seed=1))[::3]:
        assert knowledge.evaluate_kernel(swapped(state)) == pytest.approx(
            knowledge.evaluate_kernel(state))


def test_open_three_for_the_side_to_move_is_good_and_its_mirror_bad():
    game, good = position(OPEN_THREE)
    bad = swapped(good)
    bad[TO_PLAY] = good[TO_PLAY]  # White has the open three, Black to move
    assert knowledge.evaluate_kernel(good) > 0.3 > -0.3 > knowledge.evaluate_kernel(bad)
    _, closed = position("""
        .........
        .........
        .........
        .........
        ..OXXX...
        .........
        O........
        .........
        O........
        """)
    assert knowledge.evaluate_kernel(good) > knowledge.evaluate_kernel(closed)


def test_forced_results_one_move_deep():
    _, win_now = position(WIN_NOW)
    assert knowledge.evaluate_kernel(win_now) == knowledge.FORCED
    _, must_block = position(BLOCK)
    assert -knowledge.FORCED < knowledge.evaluate_kernel(must_block) < 0
    _, lost = position("""
        .........
        .X.......
        .........
        ...X.....
        X..OOOO..
        .........
        .....X...
        .........
        .........
        """)
    assert knowledge.evaluate_kernel(lost) == -knowledge.FORCED  # an open four


def test_evaluation_knows_the_win_length_and_exact_five():
    open_three = """
        .......
        .X.....
        .......
        ..OOO..
        .X.....
        ....X..
        .......
        """
    assert knowledge.evaluate_kernel(position(open_three, win_length=4)[1]) == -knowledge.FORCED
    assert knowledge.evaluate_kernel(position(open_three)[1]) > -knowledge.FORCED
    assert knowledge.evaluate_kernel(position(OVERLINE)[1]) == knowledge.FORCED
    assert knowledge.evaluate_kernel(position(OVERLINE, exact_five=True)[1]) < knowledge.FORCED


# ------------------------------------------------------------------------ exact values
def test_exact_value_is_the_result_for_the_side_to_move():
    game = Gomoku(9)
    for seed in range(10):
        state = game.initial_state()
        game.kernels.playout(state, make_rng(seed))
        assert knowledge.exact_value(state) == game.returns(state)[int(state[TO_PLAY])]
    tiny = Gomoku(3, win_length=3)
    draw = tiny.replay([0, 1, 2, 4, 3, 5, 7, 6, 8])
    assert tiny.outcome(draw) == DRAW and knowledge.exact_value(draw) == 0


# ----------------------------------------------------------------------- pure Python
def test_numba_disabled_gives_the_same_results():
    script = (
        "import numpy as np\n"
        "from boardzoo.envs.gomoku import Gomoku\n"
        "from boardzoo.knowledge import gomoku as k\n"
        "from boardzoo.rng import make_rng\n"
        "for exact in (False, True):\n"
        "    g = Gomoku(9, exact_five=exact)\n"
        "    s = g.replay([40, 41, 31, 49, 22])\n"
        "    print(int(k.key_kernel(s)), repr(float(k.evaluate_kernel(s))))\n"
        "    t = np.empty(81, np.int64)\n"
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
def test_heuristic_rollouts_are_not_weaker_on_9x9():
    """MCTS with 1000 simulations: heuristic playouts against uniform ones, 40 games on 9x9
    (measured: 0.76 [0.67, 0.83] over 100 games)."""
    from boardzoo.agents import MCTSAgent
    from boardzoo.arena import play_match

    result = play_match(
        "gomoku",
        MCTSAgent(simulations=1000, rollout="heuristic", seed=1),
        MCTSAgent(simulations=1000, seed=2),
        games=40, seed=0, opening_plies=2, game_options={"board_size": 9},
    )
    print(result)
    assert result.score_ci[1] > 0.5
