"""restore_state accepts every snapshot clone_state can make and refuses everything else.

A damaged or foreign state array must raise IncompatibleSnapshotError before any compiled
kernel sees it: the fuzz test restores hypothesis-drawn damaged snapshots of every game in
child processes (a segfault would kill the child, not the test run) and plays on; the
hand-built cases change one thing with the header intact, so a check of the header or a
checksum alone would not refuse them.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from boardzoo.envs import connect_four, go, go_board, gomoku, make_env, nim, othello
from boardzoo.envs.core import OUTCOME, PLY, TO_PLAY
from boardzoo.errors import IncompatibleSnapshotError
from boardzoo.testing import random_trajectory
from tests.snapshot_fuzz import (
    BASES_PER_GAME,
    DTYPES,
    FUZZ_GAMES,
    ChildCrashed,
    mutate,
    play_on,
    random_cases,
    run_in_child,
)

ROOT = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- fuzzing
MUTATION = st.one_of(
    st.tuples(st.just("flip"), st.integers(0, 10_000), st.integers(1, 255)),
    st.tuples(st.just("set"), st.one_of(st.integers(0, 20), st.integers(0, 10_000)),
              st.integers(0, 9)),
    st.tuples(st.just("length"), st.sampled_from([-3, -2, -1, 1, 2, 3])),
    st.tuples(st.just("dtype"), st.sampled_from(DTYPES)),
    st.tuples(st.just("selection")),
    st.tuples(st.just("terminations")),
    st.tuples(st.just("relabel"), st.integers(0, len(FUZZ_GAMES) - 1)),
)
CASE = st.tuples(
    st.integers(0, len(FUZZ_GAMES) * BASES_PER_GAME - 1), st.lists(MUTATION, min_size=1, max_size=3)
)


def _check_results(cases, results) -> None:
    odd = [(case, result) for case, result in zip(cases, results, strict=True) if result not in
           ("rejected", "played")]
    assert not odd, odd[:5]
    assert "rejected" in results  # the damage is mostly refused ...


# no shrinking: each example costs a child process, and the child names the failing case
@settings(
    max_examples=2,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(cases=st.lists(CASE, min_size=150, max_size=150))
def test_damaged_snapshots_are_refused_or_play_on_in_a_child(cases):
    try:
        _check_results(cases, run_in_child(cases, timeout=300))
    except ChildCrashed as crash:
        pytest.fail(str(crash))


def test_three_thousand_random_damaged_snapshots_are_refused_or_play_on():
    """Byte flips, extreme values, other lengths and dtypes, bookkeeping and relabelled
    games over every game's snapshots (``python -m benchmarks.snapshot_fuzz`` runs more)."""
    cases = random_cases(seed=0, count=3000)
    try:
        results = run_in_child(cases, timeout=600)
    except ChildCrashed as crash:
        pytest.fail(str(crash))
    _check_results(cases, results)
    assert results.count("played") > 100  # ... and harmless changes still restore


def test_fuzz_mutations_that_keep_the_state_are_restored_and_played():
    """... and a mutation that changes nothing (a dtype cast to the same type, a flip of a
    flip) leaves a snapshot that must still restore: the check refuses damage, not snapshots."""
    from tests.snapshot_fuzz import base_snapshots

    rng = np.random.default_rng(1)
    for index, snapshot in enumerate(base_snapshots()):
        name, options = FUZZ_GAMES[index // BASES_PER_GAME]
        same = mutate(snapshot, [("dtype", snapshot.state.dtype.name), ("flip", 7, 3),
                                 ("flip", 7, 3)])
        env = make_env(name, **options)
        env.restore_state(same)
        assert env.position() == _position_of(name, options, snapshot)
        play_on(env, rng)


def _position_of(name, options, snapshot):
    env = make_env(name, **options)
    env.restore_state(snapshot)
    return env.position()


# ---------------------------------------------------------- the reported reproductions
def test_nim_heaps_at_the_dtype_maximum_are_refused_not_a_segfault():
    env = nim.env(heaps=(3, 4, 5))
    env.reset()
    snap = env.clone_state()
    state = snap.state.copy()
    state[3:] = np.iinfo(state.dtype).max
    with pytest.raises(IncompatibleSnapshotError, match="snapshot state rejected"):
        env.restore_state(snap._replace(state=state))


def test_an_unknown_outcome_code_is_refused():
    env = make_env("connect_four")
    env.reset()
    snap = env.clone_state()
    state = snap.state.copy()
    state[OUTCOME] = 9
    with pytest.raises(IncompatibleSnapshotError, match="outcome=9"):
        env.restore_state(snap._replace(state=state))


def test_gomoku_with_a_wrong_size_slot_is_refused():
    env = gomoku.env(board_size=9)
    env.reset(options={"moves": ["E5", "E6"]})
    snap = env.clone_state()
    state = snap.state.copy()
    state[gomoku.SIZE] = 25
    with pytest.raises(IncompatibleSnapshotError):
        env.restore_state(snap._replace(state=state))


def test_a_snapshot_whose_state_is_none_is_refused_not_taken_as_sealed():
    env = make_env("tictactoe")
    env.reset()
    with pytest.raises(IncompatibleSnapshotError, match="must be a numpy array, got NoneType"):
        env.restore_state(env.clone_state()._replace(state=None))


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float64"])
def test_a_state_of_another_dtype_or_length_is_refused(dtype):
    env = make_env("tictactoe")
    env.reset()
    snap = env.clone_state()
    with pytest.raises(IncompatibleSnapshotError, match="int8 of shape"):
        env.restore_state(snap._replace(state=snap.state.astype(dtype)))
    with pytest.raises(IncompatibleSnapshotError, match=r"shape \(11,\)"):
        env.restore_state(snap._replace(state=snap.state[:-1]))


def test_go_default_max_moves_and_its_value_are_one_game():
    a, b = go.env(board_size=7), go.env(board_size=7, max_moves=3 * 7 * 7)
    a.reset(options={"moves": ["D4", "C3"]})
    b.restore_state(a.clone_state())
    assert b.position() == a.position()
    with pytest.raises(IncompatibleSnapshotError, match="max_moves"):
        go.env(board_size=7, max_moves=100).restore_state(a.clone_state())


# ------------------------------------------------- hand-built states with a correct header
def _with(env, change):
    snap = env.clone_state()
    state = snap.state.copy()
    change(state)
    return snap._replace(state=state)


def _c4_bits_without_the_moves(state):
    state[connect_four.MASK] |= np.uint64(1)  # a stone in column 1 that no move put there


def _othello_overlap(state):
    state[othello.WHITE] |= state[othello.BLACK]


def _othello_disc_off_the_board(state):
    state[othello.BLACK] |= np.uint64(1) << np.uint64(40)  # 6x6 uses bits 0..35


def _go_stone_out_of_nowhere(state):
    grid = state[go.GRID:].reshape(-1)
    grid[go_board.to_point(state, 0)] = go.BLACK


def _go_bad_root(state):
    slots = go_board.num_slots(int(state[go.SIZE]))
    state[go.GRID + go.ROOT * slots + go_board.to_point(state, 12)] = 10**9


def _gomoku_three_blacks(state):
    state[gomoku.CELLS : gomoku.CELLS + 3] = 1


INVALID = [
    ("tictactoe: cell value 3", "tictactoe", {}, [], lambda s: s.__setitem__(5, 3)),
    ("tictactoe: two X, no O", "tictactoe", {}, [], lambda s: s.__setitem__(slice(3, 5), 1)),
    ("tictactoe: wrong side to move", "tictactoe", {}, [4], lambda s: s.__setitem__(TO_PLAY, 0)),
    ("tictactoe: a win not recorded", "tictactoe", {}, [0, 3, 1, 4, 2][:4],
     lambda s: s.__setitem__(5, 1)),
    ("nim: heap above the start", "nim", {"heaps": (3, 4, 5)}, [], lambda s: s.__setitem__(-1, 6)),
    ("nim: negative heap", "nim", {"heaps": (3, 4, 5)}, [], lambda s: s.__setitem__(-1, -1)),
    ("nim: other take limit", "nim", {"heaps": (3, 4, 5)}, [],
     lambda s: s.__setitem__(nim.TAKE_LIMIT, 5)),
    ("nim: misere flag flipped", "nim", {}, [], lambda s: s.__setitem__(nim.MISERE, 1)),
    ("nim: empty heaps but ongoing", "nim", {"heaps": (2,)}, [1],
     lambda s: s.__setitem__(OUTCOME, 0)),
    ("nim: more plies than stones", "nim", {"heaps": (3, 4, 5)}, [],
     lambda s: s.__setitem__(PLY, 99)),
    ("connect_four: mask without moves", "connect_four", {}, [3, 3], _c4_bits_without_the_moves),
    ("connect_four: move list past ply", "connect_four", {}, [3],
     lambda s: s.__setitem__(connect_four.MOVES + 1, 2)),
    ("connect_four: other board size slot", "connect_four", {}, [],
     lambda s: s.__setitem__(connect_four.ROWS, 7)),
    ("othello: overlapping discs", "othello", {"board_size": 6}, [], _othello_overlap),
    ("othello: disc off the board", "othello", {"board_size": 6}, [], _othello_disc_off_the_board),
    ("othello: too few plies", "othello", {"board_size": 6}, [8, 9],
     lambda s: s.__setitem__(PLY, 1)),
    ("othello: finished but ongoing", "othello", {"board_size": 4}, [],
     lambda s: s.__setitem__(OUTCOME, 3)),
    ("go: stone not from setup or moves", "go", {"board_size": 5}, [12], _go_stone_out_of_nowhere),
    ("go: chain root out of range", "go", {"board_size": 5}, [12], _go_bad_root),
    ("go: history entry past ply", "go", {"board_size": 5}, [12],
     lambda s: s.__setitem__(go_board.history_start(s) + 1, 7)),
    ("go: komi slot changed", "go", {"board_size": 5}, [], lambda s: s.__setitem__(go.KOMI2, 0)),
    ("gomoku: three blacks, no white", "gomoku", {"board_size": 9}, [], _gomoku_three_blacks),
    ("gomoku: win length slot", "gomoku", {"board_size": 9}, [],
     lambda s: s.__setitem__(gomoku.WIN_LENGTH, 9)),
]


@pytest.mark.parametrize("why, name, options, moves, change", INVALID, ids=[c[0] for c in INVALID])
def test_hand_built_invalid_states_are_refused(why, name, options, moves, change):
    env = make_env(name, **options)
    env.reset(options={"moves": moves})
    damaged = _with(env, change)
    assert damaged.state[TO_PLAY] in (0, 1) and damaged.state[OUTCOME] in (0, 1, 2, 3)
    before = env.position()
    with pytest.raises(IncompatibleSnapshotError):
        env.restore_state(damaged)
    assert env.position() == before  # a refused snapshot leaves the env as it was


def test_inconsistent_bookkeeping_is_refused():
    env = make_env("connect_four")
    env.reset(options={"moves": [3]})
    snap = env.clone_state()
    for bad in (
        snap._replace(agent_selection="player_0"),  # player_1 is to move
        snap._replace(terminations={"player_0": False}),
        snap._replace(agents=("player_2",)),
        snap._replace(rewards={"player_0": 5.0, "player_1": 0.0}),
    ):
        with pytest.raises(IncompatibleSnapshotError, match="bookkeeping"):
            env.restore_state(bad)


# ------------------------------------------------------------------- valid snapshots
CHILD_SNAPSHOTS = """
import pickle, sys
import numpy as np
from boardzoo.envs import make_env
from tests.snapshot_fuzz import FUZZ_GAMES
out = []
for number, (name, options) in enumerate(FUZZ_GAMES):
    env = make_env(name, **options, illegal_action="lose" if number % 2 else "raise")
    rng = np.random.default_rng(100 + number)
    for game in range(4):
        env.reset()
        while env.agents:  # every ply, the end and the dead steps included
            out.append((number, env.clone_state(), env.position()))
            obs, _, done, _, _ = env.last()
            if done:
                env.step(None)
            elif number % 2 and game == 3 and rng.random() < 0.2:
                env.step(len(obs["action_mask"]))  # out of range: a forfeit under "lose"
            else:
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
sys.stdout.buffer.write(pickle.dumps(out))
"""


def test_snapshots_pickled_in_another_process_restore_and_play_on():
    child = subprocess.run(
        [sys.executable, "-c", CHILD_SNAPSHOTS], cwd=ROOT, capture_output=True, timeout=300
    )
    assert child.returncode == 0, child.stderr.decode()[-2000:]
    snapshots = pickle.loads(child.stdout)
    assert len(snapshots) > 300
    rng = np.random.default_rng(2)
    for number, snapshot, position in snapshots:
        name, options = FUZZ_GAMES[number]
        env = make_env(name, **options, illegal_action="lose" if number % 2 else "raise")
        env.restore_state(snapshot)
        assert env.position() == position
        play_on(env, rng)


def _go_env_after(moves: int):
    env = make_env("go", board_size=9)
    env.reset(seed=0)
    random_trajectory(env, seed=0, plies=moves)
    return env


def test_this_processs_own_snapshots_restore_without_revalidation(monkeypatch):
    """clone_state's arrays are immutable (numpy refuses to make them writeable), so they
    hold a valid state for as long as they live and restore unchecked; the same snapshot
    pickled (a new array) is checked in full."""
    env = _go_env_after(20)
    snapshot = env.clone_state()
    assert env.clone_state().state is snapshot.state  # one sealed copy per position
    with pytest.raises(ValueError):
        snapshot.state.flags.writeable = True
    position = env.position()
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert env.position() != position  # the env moved on: the snapshot is as it was

    def refuse(state):
        raise AssertionError("validated")

    monkeypatch.setattr(type(env.unwrapped.game), "validate_state", lambda self, s: refuse(s))
    other = make_env("go", board_size=9)
    other.restore_state(snapshot)
    assert other.position() == position
    with pytest.raises(AssertionError, match="validated"):
        other.restore_state(pickle.loads(pickle.dumps(snapshot)))


def test_a_restored_array_changed_by_its_holder_does_not_change_the_env():
    env = _go_env_after(12)
    own = env.clone_state()
    snapshot = own._replace(state=own.state.copy())  # a writeable array, the holder's own
    position = env.position()
    other = make_env("go", board_size=9)
    other.restore_state(snapshot)
    snapshot.state[go_board.GRID:] = 0
    assert other.position() == position
    assert other.clone_state().state is not snapshot.state
