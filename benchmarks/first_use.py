"""A fresh process's first move: ``python -m benchmarks.first_use GAME SPEC`` imports
boardzoo, makes GAME's env and plays one move of agent SPEC (``mcts``, ``alphabeta``...),
printing the seconds and CPU seconds of the import and the move and the functions numba
compiled. With an empty ``BOARDZOO_CACHE_DIR`` it measures a new installation (seeded from
a wheel's compiled cache where one is installed)."""

from __future__ import annotations

import json
import sys
import time

from numba.core import event

compiled: list[str] = []


class _Count(event.Listener):
    def on_start(self, ev) -> None:
        compiled.append(ev.data["dispatcher"].py_func.__qualname__)

    def on_end(self, ev) -> None:
        pass


def main() -> None:
    event.register("numba:compile", _Count())
    wall, cpu = time.perf_counter(), time.process_time()
    from boardzoo.agents import make_agent
    from boardzoo.envs import make_env

    imported, imported_cpu = time.perf_counter(), time.process_time()
    game, spec = sys.argv[1], sys.argv[2]
    env = make_env(game)
    env.reset(seed=0)
    move = make_agent(spec, seed=0).act(env)
    print(json.dumps({
        "game": game, "spec": spec, "move": int(move), "compiled": compiled,
        "import": round(imported - wall, 2), "import_cpu": round(imported_cpu - cpu, 2),
        "first_move": round(time.perf_counter() - imported, 2),
        "first_move_cpu": round(time.process_time() - imported_cpu, 2),
    }))


if __name__ == "__main__":
    main()
