"""GNU Go as a live oracle: legal move sets after every move, and the winner at the end.

One GNU Go process per rule set and board size plays along (``clear_board`` between games).
GNU Go keeps 500 moves of history for superko, so games here stop at 500 plies.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from boardzoo.envs import go, go_board
from boardzoo.envs.go import Go, area_score
from boardzoo.gtp import GtpEngine, GtpError, find_gnugo
from boardzoo.rng import make_rng

GNUGO = find_gnugo()
needs_gnugo = pytest.mark.skipif(
    GNUGO is None, reason="GNU Go not found on PATH or at /usr/games/gnugo (apt-get install gnugo)"
)

KO_FLAGS = {
    "positional": "--positional-superko",
    "situational": "--situational-superko",
    "simple": "--simple-ko",
    "none": "--no-ko",
}
GNUGO_HISTORY = 500
KOMI = 7.5


class Oracle:
    """A GNU Go process with matching rules that follows a game move by move."""

    def __init__(self, size: int, ko: str, suicide: bool):
        flags = ["--mode", "gtp", "--chinese-rules", KO_FLAGS[ko]]
        flags += ["--allow-all-suicide"] if suicide else []
        self.engine = GtpEngine([GNUGO, *flags], timeout=60)
        self.engine.send(f"boardsize {size}")
        self.engine.send(f"komi {KOMI}")
        self.game = Go(size, komi=KOMI, ko=ko, suicide=suicide, max_moves=min(3 * size**2, 500))

    def check_game(self, actions: list[int] | None, rng: np.random.Generator) -> np.ndarray:
        """Play ``actions`` (or uniformly random legal ones) in both; after every move the
        legal sets must agree. Returns the final state."""
        game = self.game
        self.engine.send("clear_board")
        state = game.initial_state()
        while not game.is_terminal(state):
            action = actions[int(state[go.PLY])] if actions else _random_action(game, state, rng)
            colour = "bw"[state[go.TO_PLAY]]
            self.engine.send(f"play {colour} {game.action_to_str(action)}")  # GtpError if illegal
            state = game.step(state, action)
            if not game.is_terminal(state):
                ours = {game.action_to_str(a) for a in game.legal_actions(state)} - {"pass"}
                theirs = set(self.engine.send(f"all_legal {'bw'[state[go.TO_PLAY]]}").split())
                assert ours == theirs, (
                    f"after {game.position(state)}: only ours {sorted(ours - theirs)}, "
                    f"only GNU Go's {sorted(theirs - ours)}"
                )
        return state

    def final_winner(self) -> str | None:
        """GNU Go's winner under Chinese rules ("B"/"W"), or None if it sees dead stones."""
        if self.engine.send("final_status_list dead"):
            return None
        return self.engine.send("final_score")[0]


def _random_action(game: Go, state: np.ndarray, rng: np.random.Generator) -> int:
    """Uniform among the legal points (crowded boards: ko and superko happen), with an
    occasional pass that never ends the game by itself."""
    legal = game.legal_actions(state)
    if len(legal) == 1 or (state[go_board.PASSES] == 0 and rng.random() < 0.02):
        return legal[-1]
    return int(rng.choice(legal[:-1]))


def _playout_actions(game: Go, seed: int) -> list[int]:
    """The actions of one eye-respecting playout (the compiled kernel's own choices)."""
    state = game.initial_state()
    game.kernels.playout(state, make_rng(seed))
    start = go_board.history_start(state)
    return [int(entry) // 2 for entry in state[start : start + state[go.PLY]]]


@pytest.fixture(scope="module")
def oracles():
    made: dict[tuple, Oracle] = {}

    def get(size: int, ko: str = "positional", suicide: bool = False) -> Oracle:
        if (size, ko, suicide) not in made:
            made[size, ko, suicide] = Oracle(size, ko, suicide)
        return made[size, ko, suicide]

    yield get
    for oracle in made.values():
        oracle.engine.close()


@needs_gnugo
@pytest.mark.parametrize("size, games", [(9, 200), (7, 100), (13, 100)])
def test_playouts_match_gnugo_move_by_move_and_in_the_winner(oracles, size, games):
    """Eye-respecting playouts: GNU Go accepts every move, the legal sets agree after each,
    and when the game ends with two passes the area winner is GNU Go's Chinese-rules winner."""
    oracle = oracles(size)
    compared = 0
    for seed in range(games):
        state = oracle.check_game(_playout_actions(oracle.game, seed), None)
        if state[go_board.PASSES] < 2:
            continue  # stopped by max_moves: GNU Go would not call it finished
        winner = oracle.final_winner()
        if winner is not None:
            assert winner == ("B" if area_score(state) > 0 else "W"), oracle.game.position(state)
            compared += 1
    assert compared >= 0.9 * games


@needs_gnugo
@pytest.mark.parametrize(
    "size, ko, suicide, games",
    [
        (9, "positional", False, 100),
        (9, "simple", False, 100),
        (7, "positional", False, 100),
        (7, "simple", False, 50),
        (5, "situational", False, 100),
        (5, "none", False, 100),
        (5, "simple", True, 100),
        (9, "none", True, 50),
        (13, "positional", False, 30),
    ],
)
def test_random_games_match_gnugo_move_by_move(oracles, size, ko, suicide, games):
    """Uniformly random games fill eyes and recapture a lot, so ko and superko bite."""
    oracle = oracles(size, ko, suicide)
    rng = np.random.default_rng(size * 100 + len(ko))
    for _ in range(games):
        oracle.check_game(None, rng)


@needs_gnugo
def test_gnugo_superko_check_misses_single_stone_suicide(oracles):
    """A known disagreement: with suicide allowed, GNU Go's superko test hashes the board with
    the suicided stone still on it, so it allows a single-stone suicide that recreates the
    position. Tromp-Taylor (and this env) forbid it; that is why the superko differential
    runs have suicide off."""
    oracle = oracles(5, "positional", True)
    engine, game = oracle.engine, oracle.game
    engine.send("clear_board")
    state = game.initial_state()
    for vertex in ("B5", "C3", "A4"):
        engine.send(f"play {'bw'[state[go.TO_PLAY]]} {vertex}")
        state = game.step(state, game.str_to_action(vertex))
    assert engine.send("is_legal white A5") == "1"
    assert not game.legal_mask(state)[game.str_to_action("A5")]


@needs_gnugo
def test_gtp_errors_name_the_command(oracles):
    engine = oracles(5).engine
    engine.send("clear_board")
    engine.send("play black C3")
    with pytest.raises(GtpError, match=r"'play white C3' failed: illegal move"):
        engine.send("play white C3")
    assert engine.send("list_stones black") == "C3"


# A stand-in GTP engine: answers "= <command>" ("= " for "quit"), "? unknown" for "fail", a
# two-line result for "two", and never answers "hang".
FAKE_ENGINE = r"""
import sys
for line in sys.stdin:
    cmd = line.strip()
    if cmd == "hang":
        continue
    if cmd == "fail":
        print("? unknown command", end="\n\n", flush=True)
    elif cmd == "two":
        print("=7 first\nsecond", end="\n\n", flush=True)
    else:
        print("= " + ("" if cmd == "quit" else cmd), end="\n\n", flush=True)
    if cmd == "quit":
        break
"""


def test_gtp_client_parses_replies_and_times_out():
    with GtpEngine([sys.executable, "-c", FAKE_ENGINE], timeout=5) as engine:
        assert engine.send("name") == "name"
        assert engine.send("two") == "first\nsecond"
        with pytest.raises(GtpError, match="unknown command"):
            engine.send("fail")
        engine.timeout = 0.3
        with pytest.raises(GtpError, match="no reply within 0.3 s"):
            engine.send("hang")
        with pytest.raises(GtpError, match="exited"):
            engine.send("name")


def test_gtp_engine_that_cannot_start():
    with pytest.raises(GtpError, match="cannot start"):
        GtpEngine(["/nonexistent/engine"])
