"""Self-play throughput against workers on both backends (the learner paused): positions per
second with 1 and 2 workers, local processes and Ray actors, the same per-worker batch
(``parallel_games`` games in lockstep), measured in steady state after warm-up rounds that
reach every worker; start-up (processes or actors, the network copy, kernel compilation)
reported apart.

Run: ``python -m benchmarks.selfplay_scaling [--game G] [--rounds N] [--workers 1 2]``.
Each configuration runs ``--repeats`` times, interleaved, and the median is shown, with the
ratios the Ray issue asks for: 2 workers against 1 on each backend, Ray against local.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from functools import partial
from typing import Any

from rich.console import Console
from rich.table import Table

from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig
from boardzoo.envs import make_game
from boardzoo.executor import make_executor
from boardzoo.training.config import TrainConfig
from boardzoo.training.selfplay import GameTask, SelfPlayWorker

BACKENDS = ("local", "ray")


def measure(backend: str, workers: int, game: str, config: TrainConfig,
            rounds: int) -> dict[str, float]:
    """Start-up seconds (executor, workers, weights, warm-up chunks until every worker has
    played one) and steady-state positions/s over ``rounds`` chunks per worker."""
    rules = make_game(game)
    net = AlphaZeroNet.for_game(rules, NetworkConfig(config.blocks, config.channels))
    weights = {k: v.detach() for k, v in net.state_dict().items()}
    start = time.perf_counter()
    with make_executor(backend, workers, start_method="spawn") as executor:
        pool = executor.worker_pool(partial(_Reporting, partial(SelfPlayWorker, game, config)))
        try:
            pool.share("load", weights, 0)
            _warm_up(pool, config, workers)
            startup = time.perf_counter() - start
            start = time.perf_counter()
            positions, _ = _play(pool, _chunks(config, rounds * workers, offset=1000))
            seconds = time.perf_counter() - start
        finally:
            pool.close()
    return {"startup": startup, "positions/s": positions / seconds}


class _Reporting:
    """A self-play worker that also says which process played each chunk."""

    def __init__(self, factory: Any):
        self.worker = factory()

    def load(self, *args: Any) -> None:
        self.worker.load(*args)

    def play(self, tasks: list[GameTask]) -> tuple[int, list[dict[str, Any]]]:
        return os.getpid(), self.worker.play(tasks)


def _warm_up(pool: Any, config: TrainConfig, workers: int, most: int = 20) -> None:
    """Rounds of one chunk per worker until every worker process has played (a process
    pool may hand the first chunks to the worker that started first, leaving another to
    import and compile inside the measured time)."""
    seen: set[int] = set()
    for round_ in range(most):
        seen |= _play(pool, _chunks(config, workers, offset=workers * round_))[1]
        if len(seen) == workers:
            return
    raise RuntimeError(f"only {len(seen)} of {workers} workers played in {most} rounds")


def _chunks(config: TrainConfig, count: int, offset: int) -> list[list[GameTask]]:
    size = config.parallel_games
    return [[GameTask(f"{c}-{k}", 1000 * c + k) for k in range(size)]
            for c in range(offset, offset + count)]


def _play(pool: Any, chunks: list[list[GameTask]]) -> tuple[int, set[int]]:
    """Positions (moves) played in every chunk, and the processes that played them."""
    positions, pids = 0, set()
    for pid, records in pool.map_unordered("play", chunks):
        positions += sum(len(record["moves"]) for record in records)
        pids.add(pid)
    return positions, pids


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="connect_four")
    parser.add_argument("--rounds", type=int, default=6, help="chunks per worker, measured")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--parallel-games", type=int, default=16)
    parser.add_argument("--simulations", type=int, default=32)
    args = parser.parse_args(argv)
    config = TrainConfig(blocks=2, channels=32, parallel_games=args.parallel_games,
                         simulations=args.simulations, fast_simulations=args.simulations // 4,
                         resign_threshold=None)
    runs: dict[tuple[str, int], list[dict[str, float]]] = {}
    for _ in range(args.repeats):  # interleaved: a busy spell hits every configuration
        for backend in BACKENDS:
            for workers in args.workers:
                result = measure(backend, workers, args.game, config, args.rounds)
                runs.setdefault((backend, workers), []).append(result)
    median = {key: {field: statistics.median(r[field] for r in results)
                    for field in results[0]} for key, results in runs.items()}
    table = Table(title=f"{args.game} self-play, {args.parallel_games} games per worker batch, "
                        f"{args.simulations} simulations (median of {args.repeats})")
    for column in ("backend", "workers", "positions/s", "vs 1 worker", "ray vs local",
                   "start-up s"):
        table.add_column(column, justify="right")
    for (backend, workers), row in median.items():
        one = median[(backend, args.workers[0])]["positions/s"]
        local = median[("local", workers)]["positions/s"]
        table.add_row(backend, str(workers), f"{row['positions/s']:.0f}",
                      f"{row['positions/s'] / one:.2f}x", f"{row['positions/s'] / local:.2f}",
                      f"{row['startup']:.1f}")
    Console().print(table)


if __name__ == "__main__":
    main()
