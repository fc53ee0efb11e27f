"""Damaged snapshots for the restore fuzz test, and the child process that restores them.

A *case* is a base snapshot (by index into :func:`base_snapshots`, which every process
rebuilds identically from fixed seeds) and a few mutations of its state array or
bookkeeping, or of the game it claims to be (a relabelled ``game_key``, restored into that
other game's env with the sealed array itself). The tests draw cases with hypothesis and
with :func:`random_cases`; a child process (``python -m tests.snapshot_fuzz CASES
RESULTS``, through :func:`run_in_child`) restores each damaged snapshot and plays the game
on with random legal moves; it writes the index of the case it is about to try to
``RESULTS.progress`` first, so a child killed by a signal names the case that killed it.
``python -m benchmarks.snapshot_fuzz`` runs many more.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
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


def mutate(snapshot, mutations, games=None):
    """A copy of ``snapshot`` with ``mutations`` applied, each one of
    ("flip", byte, xor), ("set", slot, extreme index), ("length", delta), ("dtype", name),
    ("selection",), ("terminations",), ("relabel", game number): the game_key of
    ``games[number]`` (the envs or games of :data:`FUZZ_GAMES`, by number). A state no
    mutation touches stays the snapshot's own (sealed) array."""
    state = snapshot.state
    fields = snapshot._asdict()
    for kind, *args in mutations:
        if kind == "flip" and state.nbytes:
            raw = bytearray(state.tobytes())
            raw[args[0] % len(raw)] ^= args[1]
            state = np.frombuffer(bytes(raw), dtype=state.dtype).copy()
        elif kind == "set" and state.size:
            values = extremes(state.dtype)
            state = state.copy()
            with np.errstate(over="ignore"):
                state[args[0] % state.size] = np.array(values[args[1] % len(values)]).astype(
                    state.dtype
                )
        elif kind == "relabel" and games is not None:
            fields["game_key"] = games[args[0] % len(games)].unwrapped.game.key
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


def target_game(base: int, mutations) -> int:
    """The FUZZ_GAMES number whose env a case is restored into: the last relabel's, else its
    base snapshot's."""
    relabels = [args[0] % len(FUZZ_GAMES) for kind, *args in mutations if kind == "relabel"]
    return relabels[-1] if relabels else base // BASES_PER_GAME


def random_cases(seed: int, count: int, max_mutations: int = 3) -> list:
    """``count`` cases drawn with numpy from ``seed`` (the same on any machine): a base
    snapshot and 1..``max_mutations`` mutations of every kind :func:`mutate` knows."""
    rng = np.random.default_rng(seed)

    def mutation() -> tuple:
        kind = int(rng.integers(7))
        if kind == 0:
            return ("flip", int(rng.integers(10_000)), int(rng.integers(1, 256)))
        if kind == 1:
            return ("set", int(rng.integers(10_000)), int(rng.integers(10)))
        if kind == 2:
            return ("length", int(rng.choice([-3, -2, -1, 1, 2, 3])))
        if kind == 3:
            return ("dtype", str(rng.choice(DTYPES)))
        if kind == 4:
            return ("relabel", int(rng.integers(len(FUZZ_GAMES))))
        return ("selection",) if kind == 5 else ("terminations",)

    bases = len(FUZZ_GAMES) * BASES_PER_GAME
    return [(int(rng.integers(bases)), [mutation() for _ in range(int(
        rng.integers(1, max_mutations + 1)))]) for _ in range(count)]


class ChildCrashed(RuntimeError):
    """The child process died (a segfault, say) on the case it names."""


def run_in_child(cases: list, timeout: float = 600) -> list[str]:
    """Each case's result from a child process ("rejected", "played", or what went wrong);
    ChildCrashed naming the case if the child dies."""
    with tempfile.TemporaryDirectory(prefix="snapshot-fuzz-") as folder:
        cases_path, results_path = Path(folder) / "cases.pkl", Path(folder) / "results.pkl"
        cases_path.write_bytes(pickle.dumps(cases))
        child = subprocess.run(
            [sys.executable, "-m", "tests.snapshot_fuzz", str(cases_path), str(results_path)],
            cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True,
            timeout=timeout)
        if child.returncode != 0:
            progress = results_path.with_suffix(".progress")
            crashed = int(progress.read_text() or -1) if progress.exists() else -1
            base, mutations = cases[crashed] if crashed >= 0 else (None, None)
            game = FUZZ_GAMES[base // BASES_PER_GAME] if base is not None else None
            raise ChildCrashed(f"child exited with {child.returncode} on case {crashed} "
                               f"({game}, mutations {mutations}):\n{child.stderr[-2000:]}")
        return pickle.loads(results_path.read_bytes())


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
        env = envs[target_game(base, mutations)]
        try:
            env.restore_state(mutate(bases[base], mutations, envs))
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
