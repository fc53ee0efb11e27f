"""The batched search against mctx in simulations per CPU-second (JAX's threads included),
one tree and 64 trees, interleaved in one process: ``PYTHONPATH=<checkout> python
benchmarks/batched_cpu.py REPS LABEL GAME``. Run it once per checkout to compare versions;
each process measures its own mctx reference."""

import statistics
import sys
import time

from boardzoo.bench.batched import SIMULATIONS, boardzoo_search, mctx_search


def rate(run, searches: int, trees: int) -> float:
    start = time.process_time()
    for _ in range(searches):
        run()
    return searches * trees * SIMULATIONS / (time.process_time() - start)


def main(reps: int, label: str, game: str) -> None:
    for trees in (1, 64):
        ours, _ = boardzoo_search(game, trees)
        theirs = mctx_search(game, trees)
        for _ in range(2):  # compiled and warm
            ours(), theirs()
        searches = 20 if trees == 1 else 2
        rates = [(rate(ours, searches, trees), rate(theirs, searches, trees))
                 for _ in range(reps)]
        mine = statistics.median(r[0] for r in rates)
        mctx = statistics.median(r[1] for r in rates)
        print(f"{label} {game} B={trees} ours {mine:.0f} mctx {mctx:.0f} "
              f"ratio-of-medians {mine / mctx:.2f} "
              f"per-rep {[round(a / b, 2) for a, b in rates]}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
