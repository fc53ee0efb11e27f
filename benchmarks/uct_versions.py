"""Pure UCT speed of several boardzoo versions side by side, with OpenSpiel's C++ MCTSBot,
in one run: ``boardzoo bench``'s MCTS rows (1000 simulations from the start, c = sqrt(2),
one random rollout, no solver, no tree reuse) for checkouts of other commits.

    git worktree add /tmp/wt-old d15bc53
    python -m benchmarks.uct_versions --games connect_four,go,othello --reps 5 \\
        old=/tmp/wt-old:/tmp/bzcache-old new=.:/tmp/bzcache-new

Each version (NAME=CHECKOUT:CACHE_DIR, its own compile cache) and OpenSpiel run in their
own long-lived process; the driver asks them in turn, ``--seconds`` of CPU time each, so
the load of the machine hits all alike. Prints each repetition and, per game, the medians
(simulations per CPU-second), their ratios to OpenSpiel and to the first version.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
import time
from typing import Any

OPENSPIEL = "openspiel"


def _search(kind: str, game: str) -> Any:
    """One 1000-simulation search per call: boardzoo's (``kind`` "boardzoo") or OpenSpiel's."""
    from boardzoo.bench.envs import REFERENCES

    ref = REFERENCES[game]
    if kind == OPENSPIEL:
        import pyspiel

        spiel_game = pyspiel.load_game(ref.openspiel, ref.openspiel_options)
        bot = pyspiel.MCTSBot(spiel_game, pyspiel.RandomRolloutEvaluator(1, 0), math.sqrt(2),
                              1000, 1000, False, 0, False)
        state = spiel_game.new_initial_state()
        return lambda: bot.step(state)
    from boardzoo.agents import MCTSAgent
    from boardzoo.envs import make_env

    env = make_env(game, **ref.options)
    env.reset()
    agent = MCTSAgent(simulations=1000, c=math.sqrt(2), selection="uct", rollout="random",
                      solver=False, reuse_tree=False, seed=0)
    return lambda: agent.search(env)


def serve(kind: str) -> None:
    """Worker: answer each "GAME SECONDS" line with simulations per CPU-second."""
    searches: dict[str, Any] = {}
    print("ready", flush=True)
    for line in sys.stdin:
        game, seconds = line.split()
        if game not in searches:
            searches[game] = _search(kind, game)
            searches[game]()
        start, sims = time.process_time(), 0
        while time.process_time() - start < float(seconds):
            searches[game]()
            sims += 1000
        print(f"{sims / (time.process_time() - start):.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+", help="NAME=CHECKOUT:CACHE_DIR")
    parser.add_argument("--games", default="connect_four,go,othello")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    workers = {}
    for spec in [*args.versions, f"{OPENSPIEL}=.:"]:
        name, _, place = spec.partition("=")
        checkout, _, cache = place.partition(":")
        env = {**os.environ, "PYTHONPATH": os.path.abspath(checkout), "OMP_NUM_THREADS": "1"}
        if cache:
            env["BOARDZOO_CACHE_DIR"] = cache
        kind = OPENSPIEL if name == OPENSPIEL else "boardzoo"
        worker = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve", kind],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                  env=env)
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"
        workers[name] = worker

    def ask(name: str, game: str, seconds: float) -> float:
        worker = workers[name]
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(f"{game} {seconds}\n")
        worker.stdin.flush()
        return float(worker.stdout.readline())

    games = args.games.split(",")
    for game in games:
        for name in workers:
            ask(name, game, 0.05)  # load or compile, and warm up
    rates: dict[str, dict[str, list[float]]] = {g: {n: [] for n in workers} for g in games}
    for rep in range(args.reps):
        for game in games:
            for name in workers:
                rates[game][name].append(ask(name, game, args.seconds))
            print(rep, game, {n: round(r[-1]) for n, r in rates[game].items()}, flush=True)
    first = next(iter(workers))
    for game in games:
        median = {n: statistics.median(r) for n, r in rates[game].items()}
        print(f"{game}: sims per CPU-second {({n: round(v) for n, v in median.items()})}; "
              f"x OpenSpiel {({n: round(v / median[OPENSPIEL], 2) for n, v in median.items()})}"
              f"; x {first} {({n: round(v / median[first], 3) for n, v in median.items()})}")
    for worker in workers.values():
        assert worker.stdin is not None
        worker.stdin.close()
        worker.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        main()
