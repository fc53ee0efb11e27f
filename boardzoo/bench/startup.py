"""Start-up: what a user waits for in a fresh process, before the first move or step.

Each figure is a new Python process that imports boardzoo, makes the env and plays one move
(MCTS and alpha-beta at ``time_limit=0.1``, AlphaZero with a shipped network at 50
simulations) or builds the compiled vector env of 64 games and takes its first step; and
``boardzoo play``'s first reply to a move typed on its standard input. A process run first
(the warm-up) fills the compile cache where needed, so the timed ones compile nothing; the
first moves' reference is the same process with an empty cache, where everything compiles
first.
Targets: ``import boardzoo`` within 1 s, the first MCTS or alpha-beta move within 1 s of
it (0.6 s in an endgame that the game's exact solver answers: Othello's), AlphaZero's
within 2 s (torch's import included), the vector env's first step within 1 s,
``boardzoo play``'s first reply within 2 s of the command.

Once per run, ``boardzoo compile`` of every game with an empty cache: what a new
installation compiles once.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from boardzoo.bench.common import EVERY_GAME, Benchmark, Row, Settings
from boardzoo.bench.envs import label

__all__ = ["bench_compile_all", "bench_first_move", "bench_play", "first_move_seconds",
           "play_reply_seconds"]

#: a fresh process's script: its timings and how many functions it compiled, as JSON
SCRIPT = r"""
import json, sys, time
started = time.perf_counter()
from numba.core import event
compiled = []
class Count(event.Listener):
    def on_start(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
event.register("numba:compile", Count())
import boardzoo, boardzoo.agents
imported = time.perf_counter()
kind, game, spec, position = sys.argv[1:5]
if kind == "vector":
    import gymnasium as gym, numpy as np
    env = gym.make_vec(boardzoo.envs.gym_id(game), num_envs=64,
                       vectorization_mode="vector_entry_point")
    env.reset(seed=0)
    made = time.perf_counter()
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.unwrapped.action_masks()]))
else:
    from boardzoo.envs import make_env
    from boardzoo.agents import make_agent
    env = make_env(game)
    env.reset(seed=0, options={"position": position} if position else None)
    made = time.perf_counter()
    make_agent(spec, seed=0).act(env)
done = time.perf_counter()
print(json.dumps({"import": imported - started, "ready": made - imported,
                  "first": done - made, "cpu": time.process_time(), "compiled": compiled}))
"""

#: every game's ``boardzoo compile`` in one process: seconds per game, as JSON
COMPILE_SCRIPT = r"""
import json
from boardzoo.compiling import compile_games
from boardzoo.envs import GAMES
times = {}
compile_games(list(GAMES), times.__setitem__)
print(json.dumps(times))
"""

SPECS = {
    "mcts": "mcts:time_limit=0.1",
    "alphabeta": "alphabeta:time_limit=0.1",
    "alphazero": "alphazero:checkpoint={game},simulations=50",
    "vector": "",
    "endgame": "alphabeta:time_limit=1",
}
#: per game, an endgame within its exact solver's reach (Othello: FFO #1, 14 empties), where
#: the ``endgame`` figure's first move is the solver's
ENDGAMES = {
    "othello": "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X",
}
SHIPPED_NETWORKS = ("tictactoe", "connect_four")
TARGET_SECONDS = {"mcts": 1.0, "alphabeta": 1.0, "alphazero": 2.0, "vector": 1.0, "play": 2.0,
                  "endgame": 0.6}
IMPORT_TARGET = 1.0
COMPILE_AIM = 120.0


def _child_env(cache: Path | None) -> dict[str, str]:
    """The environment of a fresh process: one thread; ``cache`` the compile cache folder
    (``BOARDZOO_CACHE_DIR``; None: the user's own)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1"}
    if cache is not None:
        env["BOARDZOO_CACHE_DIR"] = str(cache)
    return env


def _last_json_line(run: subprocess.CompletedProcess, what: str) -> dict:
    if run.returncode != 0:
        lines = run.stderr.strip().splitlines() or ["(nothing on stderr)"]
        raise RuntimeError(f"{what}: the fresh process failed (exit status {run.returncode}"
                           f"{_signal_name(run.returncode)}): {lines[-1]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def _signal_name(returncode: int) -> str:
    """", killed by SIGSEGV" for a child killed by a signal (a negative return code)."""
    return f", killed by {signal.Signals(-returncode).name}" if returncode < 0 else ""


def first_move_seconds(kind: str, game: str, spec: str, cache: Path | None = None,
                       position: str = "") -> dict:
    """One fresh process's timings (see :data:`SCRIPT`) with the compile cache ``cache``
    (None: the user's own), from ``position`` (the game's notation; "": the start)."""
    run = subprocess.run([sys.executable, "-c", SCRIPT, kind, game, spec, position],
                         check=False, env=_child_env(cache), capture_output=True, text=True)
    return _last_json_line(run, f"{kind} on {game}")


def play_reply_seconds(game: str, spec: str, cache: Path | None = None) -> float:
    """Seconds from starting ``boardzoo play GAME --opponent SPEC`` to the opponent's reply
    to the first move, typed on its standard input at once."""
    from boardzoo.envs import make_env

    env = make_env(game)
    env.reset(seed=0)
    move = env.action_to_str(int(env.legal_mask().nonzero()[0][0]))
    command = [sys.executable, "-m", "boardzoo.cli", "play", game, "--opponent", spec,
               "--seat", "0", "--seed", "0"]
    start = time.perf_counter()
    with subprocess.Popen(command, env=_child_env(cache), stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(f"{move}\nquit\n")
        child.stdin.flush()
        for line in child.stdout:
            if " plays " in line:
                seconds = time.perf_counter() - start
                break
        else:
            child.wait()
            assert child.stderr is not None
            lines = child.stderr.read().strip().splitlines() or ["(nothing on stderr)"]
            raise RuntimeError(f"boardzoo play {game}: no reply to {move!r}: {lines[-1]}")
        child.communicate()
    return seconds


def _total(run: dict) -> float:
    return run["import"] + run["ready"] + run["first"]


def _verdict(seconds: float, target: float) -> str:
    return f"target {target:g} s: {'ok' if seconds <= target else 'OVER'}"


def bench_first_move(kind: str, game: str, settings: Settings) -> list[Row]:
    """Fresh processes to the first move of agent ``kind`` (or the vector env's first
    step): the median of ``settings.repeats`` after a warm-up process, with the user's
    cache, against one with an empty cache."""
    spec = SPECS[kind].format(game=game)
    position = ENDGAMES[game] if kind == "endgame" else ""
    first_move_seconds(kind, game, spec, None, position)  # the warm-up: fills the cache
    runs = [first_move_seconds(kind, game, spec, None, position)
            for _ in range(settings.repeats)]
    reference = None
    if not settings.quick:
        with tempfile.TemporaryDirectory() as empty:
            reference = _total(first_move_seconds(kind, game, spec, Path(empty), position))
    seconds = statistics.median(_total(run) for run in runs)
    imports = statistics.median(run["import"] for run in runs)
    cpu = statistics.median(run["cpu"] for run in runs)
    compiled = max(len(run["compiled"]) for run in runs)
    what = {"vector": "first step, 64 envs",
            "endgame": "first alpha-beta move in an endgame (the solver's)"}.get(
        kind, f"first move, {kind}")
    return [Row(
        label(game), f"fresh process to {what}", "s", seconds, reference,
        "the same with an empty cache" if reference else "-", None,
        f"import {imports:.2f} s ({_verdict(imports, IMPORT_TARGET)}), then "
        f"{seconds - imports:.2f} s ({_verdict(seconds - imports, TARGET_SECONDS[kind])}); "
        f"{cpu:.2f} s of CPU in all; {compiled} functions compiled with the cache filled",
        lower_is_better=True)]


def bench_play(game: str, settings: Settings) -> list[Row]:
    """``boardzoo play``'s first reply (MCTS at 0.1 s) in a fresh process, after a warm-up
    process (with an empty cache it compiles what the first MCTS move's reference does)."""
    spec = SPECS["mcts"]
    play_reply_seconds(game, spec)  # the warm-up
    seconds = statistics.median(play_reply_seconds(game, spec) for _ in range(settings.repeats))
    return [Row(
        label(game), "boardzoo play, first reply", "s", seconds, None, "-", None,
        f"command to the reply to the first move, {spec} "
        f"({_verdict(seconds, TARGET_SECONDS['play'])})")]


def _compile_all(cache: Path) -> tuple[float, dict[str, float]]:
    """The seconds of one process compiling every game into ``cache``, and per game."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", COMPILE_SCRIPT], check=False,
                         env=_child_env(cache), capture_output=True, text=True)
    per_game = _last_json_line(run, "boardzoo compile")
    return time.perf_counter() - start, per_game


def bench_compile_all(game: str, settings: Settings) -> list[Row]:
    """``boardzoo compile`` of every game in one fresh process with an empty cache, then
    the same again with the cache it filled."""
    with tempfile.TemporaryDirectory() as empty:
        cold, per_game = _compile_all(Path(empty))
        try:
            again = f"then {_compile_all(Path(empty))[0]:.1f} s with the cache filled"
        except RuntimeError as err:
            again = f"then with the cache filled: {err}"
    games = ", ".join(f"{name} {seconds:.0f}" for name, seconds in per_game.items())
    return [Row(
        game, "boardzoo compile, empty cache", "s", cold, None, "-", None,
        f"aim under {COMPILE_AIM:.0f} s: {'ok' if cold <= COMPILE_AIM else 'OVER'}; {again}; "
        f"seconds per game cold: {games}", lower_is_better=True)]


def _startup(run: Callable[[str, Settings], list[Row]], title: str,
             games: tuple[str, ...] | None = None, in_quick: bool = False) -> Benchmark:
    """A start-up benchmark: under ``--quick`` only the first MCTS move on Connect Four,
    without its empty-cache reference."""
    return Benchmark(run, title, games, in_quick, quick_games=("connect_four",),
                     quick_drops="start-up rows other than Connect Four's first MCTS move, "
                     "and the empty-cache references")


BENCHMARKS = [
    _startup(partial(bench_first_move, "mcts"), "fresh process to the first MCTS move",
             in_quick=True),
    _startup(partial(bench_first_move, "alphabeta"), "fresh process to the first alpha-beta move"),
    _startup(partial(bench_first_move, "endgame"),
             "fresh process to the first alpha-beta move in an endgame", tuple(ENDGAMES)),
    _startup(partial(bench_first_move, "alphazero"), "fresh process to the first AlphaZero move",
             SHIPPED_NETWORKS),
    _startup(partial(bench_first_move, "vector"), "fresh process to the vector env's first step"),
    _startup(bench_play, "boardzoo play's first reply"),
    Benchmark(bench_compile_all, "boardzoo compile of every game, empty cache", (EVERY_GAME,),
              in_quick=False),
]
