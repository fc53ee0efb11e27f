"""Damaged snapshots for the restore fuzz test, and the child process that restores them.

The parent test (``test_snapshots.py``) draws *cases* with hypothesis: a base snapshot
(by index into :func:`base_snapshots`, which every process rebuilds identically from fixed
seeds) and a few mutations of its state array or bookkeeping. A child process
(``python -m tests.snapshot_fuzz CASES RESULTS``) restores each damaged snapshot and plays
the game on with random legal moves; it writes the index of the case it is about to try to
``RESULTS.progress`` first, so a child killed by a signal names the case that killed it.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np

#: small option sets of every game, so a child restores many snapshots in a few seconds
FUZZ_GAMES = [
    ("tictactoe", {}),
    ("nim", {"heaps": (3, 4, 5)}),
    ("nim", {"max_take": None, "misere": True}),
    ("connect_four", {}),
    ("othello", {"board_size": 6}),
    ("go", {"board_size": 5}),
    ("go", {"board_size": 4, "ko": "simple", "suicide": True}),
    ("gomoku", {"board_size": 9}),
]
BASES_PER_GAME = 6
DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint64", "float64", "bool")


def base_snapshots() -> list:
    """Valid snapshots of every FUZZ_GAMES entry: random games stopped at random plies
    (the end included), the same in every process."""
    from boardzoo.envs import make_env

    bases = []
    for number, (name, options) in enumerate(FUZZ_GAMES):
        env = make_env(name, **options)
        rng = np.random.default_rng(number)
        for _ in range(BASES_PER_GAME):
            env.reset()
            stop = int(rng.integers(0, 60))
            for _ in range(stop):
                if env.terminations[env.agent_selection]:
                    break
                env.step(int(rng.choice(np.flatnonzero(env.legal_mask()))))
            bases.append(env.clone_state())
    return bases


def extremes(dtype: np.dtype) -> list:
    if dtype == np.bool_:
        return [False, True]
    info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else np.finfo(dtype)
    return [info.min, info.max, -1, 0, 1, 2, 3, 9, 255, 1 << 20]


def mutate(snapshot, mutations):
    """A copy of ``snapshot`` with ``mutations`` applied, each one of
    ("flip", byte, xor), ("set", slot, extreme index), ("length", delta), ("dtype", name),
    ("selection",), ("terminations",)."""
    state = snapshot.state.copy()
    fields = snapshot._asdict()
    for kind, *args in mutations:
        if kind == "flip" and state.nbytes:
            raw = bytearray(state.tobytes())
            raw[args[0] % len(raw)] ^= args[1]
            state = np.frombuffer(bytes(raw), dtype=state.dtype).copy()
        elif kind == "set" and state.size:
            values = extremes(state.dtype)
            with np.errstate(over="ignore"):
                state[args[0] % state.size] = np.array(values[args[1] % len(values)]).astype(
                    state.dtype
                )
        elif kind == "length":
            delta = args[0]
            state = state[:delta] if delta < 0 else np.concatenate([state, state[:delta] * 0])
        elif kind == "dtype":
            with np.errstate(over="ignore", invalid="ignore"):
                state = state.astype(args[0])
        elif kind == "selection":
            other = {"player_0": "player_1", "player_1": "player_0"}
            fields["agent_selection"] = other.get(fields["agent_selection"], "player_0")
        elif kind == "terminations":
            fields["terminations"] = {a: not t for a, t in fields["terminations"].items()}
    fields["state"] = state
    return type(snapshot)(**fields)


def play_on(env, rng, max_steps: int = 3000) -> None:
    """Random legal moves (and the dead steps) to the end, observing at every step."""
    for _ in range(max_steps):
        if not env.agents:
            return
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    raise RuntimeError(f"the game did not end within {max_steps} steps")


def run_cases(cases_path: Path, results_path: Path) -> None:
    from boardzoo.envs import make_env
    from boardzoo.errors import IncompatibleSnapshotError

    cases = pickle.loads(cases_path.read_bytes())
    bases = base_snapshots()
    envs = {i: make_env(name, **opts) for i, (name, opts) in enumerate(FUZZ_GAMES)}
    progress = results_path.with_suffix(".progress")
    results = []
    rng = np.random.default_rng(0)
    for index, (base, mutations) in enumerate(cases):
        with progress.open("w") as fh:
            fh.write(str(index))
        env = envs[base // BASES_PER_GAME]
        try:
            env.restore_state(mutate(bases[base], mutations))
        except IncompatibleSnapshotError:
            results.append("rejected")
            continue
        except Exception as err:  # the test reports any other failure with its case
            results.append(f"{type(err).__name__}: {err}")
            continue
        try:
            play_on(env, rng)
            results.append("played")
        except Exception as err:
            results.append(f"restored, then {type(err).__name__}: {err}")
    results_path.write_bytes(pickle.dumps(results))


if __name__ == "__main__":
    run_cases(Path(sys.argv[1]), Path(sys.argv[2]))
