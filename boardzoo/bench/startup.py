"""Start-up: what a user waits for in a fresh process, before the first move or step.

Each figure is a new Python process that imports boardzoo, makes the env and plays one move
(MCTS and alpha-beta at ``time_limit=0.1``, AlphaZero with a shipped network at 50
simulations) or builds the compiled vector env of 64 games and takes its first step. With
the compile cache filled (a process run before, or ``boardzoo compile``) it compiles
nothing; the reference is the same process with an empty cache, where everything compiles
first. Targets: ``import boardzoo`` within 1 s, the first MCTS or alpha-beta move within
1 s of it, AlphaZero's within 2 s (torch's import included).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from boardzoo.bench.common import Row

__all__ = ["bench_startup", "first_move_seconds"]

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
kind, game, spec = sys.argv[1:4]
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
    env.reset(seed=0)
    made = time.perf_counter()
    make_agent(spec, seed=0).act(env)
done = time.perf_counter()
print(json.dumps({"import": imported - started, "ready": made - imported,
                  "first": done - made, "compiled": compiled}))
"""

AGENTS = {"mcts": "mcts:time_limit=0.1", "alphabeta": "alphabeta:time_limit=0.1"}
SHIPPED_NETWORKS = ("tictactoe", "connect_four")
TARGET_SECONDS = {"mcts": 1.0, "alphabeta": 1.0, "alphazero": 2.0, "vector": 1.0}


def first_move_seconds(kind: str, game: str, spec: str, cache: Path) -> dict:
    """One fresh process's timings (see :data:`SCRIPT`) with the compile cache ``cache``."""
    env = {**os.environ, "BOARDZOO_CACHE_DIR": str(cache), "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", SCRIPT, kind, game, spec], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def _total(run: dict) -> float:
    return run["import"] + run["ready"] + run["first"]


def _cases(game: str) -> list[tuple[str, str]]:
    cases = [(kind, spec) for kind, spec in AGENTS.items()]
    if game in SHIPPED_NETWORKS:
        cases.append(("alphazero", f"alphazero:checkpoint={game},simulations=50"))
    return [*cases, ("vector", "")]


def bench_startup(game: str, repeats: int, cold: bool = True) -> list[Row]:
    """Fresh processes for every agent kind (and the vector env) on ``game``: the median of
    ``repeats`` with a filled cache, against one with an empty cache (``cold``)."""
    from boardzoo.numba_cache import cache_dir

    rows = []
    for kind, spec in _cases(game):
        first_move_seconds(kind, game, spec, cache_dir())  # fills the cache where needed
        runs = [first_move_seconds(kind, game, spec, cache_dir()) for _ in range(repeats)]
        reference = None
        if cold:
            with tempfile.TemporaryDirectory() as empty:
                reference = _total(first_move_seconds(kind, game, spec, Path(empty)))
        seconds = statistics.median(_total(run) for run in runs)
        imports = statistics.median(run["import"] for run in runs)
        compiled = max(len(run["compiled"]) for run in runs)
        target = TARGET_SECONDS[kind]
        verdict = "ok" if seconds - imports <= target and imports <= 1.0 else "OVER"
        what = "first step, 64 envs" if kind == "vector" else f"first move, {kind}"
        rows.append(Row(
            game, f"fresh process to {what}", "s", seconds, reference,
            "the same with an empty cache", None,
            f"import {imports:.2f} s, then {seconds - imports:.2f} s (target {target:g} s: "
            f"{verdict}); {compiled} functions compiled with the cache filled",
            lower_is_better=True))
    return rows


BENCHMARKS = [bench_startup]
