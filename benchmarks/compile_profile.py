"""Where a cold compile goes: ``boardzoo compile`` of the given games (default: all) with
every numba compile event timed per function and signature, self time apart from nested
compiles. Run it with an empty ``BOARDZOO_CACHE_DIR``:

    BOARDZOO_CACHE_DIR=$(mktemp -d) python -m benchmarks.compile_profile go
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict

from numba.core import event


class _Timer(event.Listener):
    def __init__(self) -> None:
        self.stack: list[list] = []
        self.self_seconds: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])

    def on_start(self, ev) -> None:
        self.stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev) -> None:
        began, nested = self.stack.pop()
        total = time.perf_counter() - began
        if self.stack:
            self.stack[-1][1] += total
        py_func = ev.data["dispatcher"].py_func
        row = self.self_seconds[f"{py_func.__module__}.{py_func.__qualname__}"]
        row[0] += 1
        row[1] += total - nested


def main() -> None:
    timer = _Timer()
    event.register("numba:compile", timer)
    from boardzoo.compiling import compile_games
    from boardzoo.envs import GAMES

    games = sys.argv[1:] or list(GAMES)
    cpu = time.process_time()
    compile_games(games, lambda name, seconds: print(f"{name}: {seconds:.1f} s", flush=True))
    print(f"{time.process_time() - cpu:.1f} s of CPU; self seconds per function (signatures):")
    rows = sorted(timer.self_seconds.items(), key=lambda item: -item[1][1])
    for name, (count, seconds) in rows[:30]:
        print(f"{seconds:8.2f}  x{count:<3d} {name}")


if __name__ == "__main__":
    main()
