"""AlphaZero speed on Connect Four with the issue's network (64 channels, 4 residual blocks,
one torch thread per process, an untrained network: speed does not depend on the weights).

* one search of one game (``AlphaZeroAgent.search``, 800 simulations, fresh tree, cache
  cleared) with 16 leaves per network call (virtual loss), against the same search with
  one leaf per call (unbatched) measured in the same run;
* self-play on 2 cores (two processes, 32 games in lockstep each, playout-cap randomisation
  off, 100 simulations per move), against one process playing one game at a time (batch 1).

Both run the network on the default runtime (ONNX Runtime where installed). Two rows compare
the runtimes, ONNX Runtime against torch eager, one thread each, in one run: the search
above with the shipped Connect Four network (simulations per CPU-second, and whether both
chose the same move), and one self-play process of 32 games.

On Othello, the shipped 6x6 network's batch of 16 leaves as loaded (its subnormal weights
zeroed, :func:`~boardzoo.agents.alphazero.network.zero_subnormals`) against the same
weights as saved (subnormals kept): the one case where the weights do set the speed.

For scale: OpenSpiel's AlphaZero (JAX) was measured at ~78 network-guided simulations/s on
Connect Four with this network size on the reference machine (not rerun here).
"""

from __future__ import annotations

import copy
import dataclasses
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates, paired

GAME = "connect_four"
SEARCH_SIMULATIONS = 800
SELFPLAY: dict[str, Any] = dict(minutes=None, iterations=1, simulations=100, full_search_prob=1.0,
                                 temperature_moves=8, dirichlet_epsilon=0.25)


def _net(shipped: bool = False):
    """The game and the network: untrained, or with ``shipped`` the shipped Connect Four
    network (the same size)."""
    import torch

    from boardzoo.agents.alphazero import AlphaZeroNet, NetworkConfig
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint
    from boardzoo.envs import make_game

    torch.set_num_threads(1)
    if shipped:
        checkpoint = load_checkpoint(resolve_checkpoint(GAME))
        return checkpoint.game, checkpoint.net
    torch.manual_seed(0)
    game = make_game(GAME)
    return game, AlphaZeroNet.for_game(game, NetworkConfig(blocks=4, channels=64)).eval()


def search_run(batch_size: int, inference: str = "auto", shipped: bool = False,
               clock: Callable[[], float] = time.perf_counter,
               ) -> Callable[[], tuple[float, ...]]:
    """One fresh 800-simulation search per call from the start (cache cleared; warmed up once
    here): simulations/s (per second of ``clock``: wall time, or ``time.process_time`` for
    CPU seconds), evaluations/s, leaves per call, the network's share of the wall time, cache
    hit rate, and the move chosen."""
    from boardzoo.agents.alphazero import AlphaZeroAgent
    from boardzoo.envs import make_env

    game, net = _net(shipped)
    env = make_env(GAME)
    env.reset()
    agent = AlphaZeroAgent(net, game, simulations=SEARCH_SIMULATIONS, batch_size=batch_size,
                           reuse_tree=False, inference=inference, seed=0)
    agent.search(env)

    def once() -> tuple[float, ...]:
        agent.clear_cache()
        before = dataclasses.replace(agent.statistics)
        start, wall_start = clock(), time.perf_counter()
        result = agent.search(env)
        seconds, wall = clock() - start, time.perf_counter() - wall_start
        stats = agent.statistics.since(before)
        return (result.nodes / seconds, stats.evaluations / seconds,
                stats.evaluations / max(stats.calls, 1), stats.network_seconds / wall,
                stats.cache_hits / max(stats.cache_hits + stats.evaluations, 1),
                result.action)

    return once


def _medians(runs: list[tuple[float, ...]]) -> dict[str, float]:
    return dict(zip(("sims", "evals", "batch", "network_share", "hit_rate"),
                    (statistics.median(r[k] for r in runs) for k in range(5)), strict=True))


def _selfplay_worker(seed: int, parallel: int, games: int, inference: str = "auto",
                     ) -> tuple[int, int, float, float]:
    from boardzoo.training import TrainConfig
    from boardzoo.training.agents import training_agent
    from boardzoo.training.selfplay import GameTask, play_games

    game, net = _net()
    config = TrainConfig(**SELFPLAY, parallel_games=parallel, inference=inference)
    warm = training_agent(net, game, config, config.seed, self_play=True)
    play_games(warm, config, [GameTask("warm", seed)])  # compile
    agent = training_agent(net, game, config, config.seed, self_play=True)
    tasks = [GameTask(f"{seed}-{k}", seed * 1000 + k) for k in range(games)]
    start = time.perf_counter()
    play_games(agent, config, tasks)
    seconds = time.perf_counter() - start
    stats = agent.statistics
    return stats.simulations, stats.evaluations, seconds, stats.network_seconds


def selfplay_rate(processes: int, parallel: int, games: int, inference: str = "auto",
                  ) -> tuple[float, float, float]:
    """(simulations/s, network evaluations/s, network share) over ``processes`` processes."""
    with ProcessPoolExecutor(processes, mp_context=get_context("spawn")) as pool:
        results = list(pool.map(_selfplay_worker, range(processes), [parallel] * processes,
                                [games] * processes, [inference] * processes))
    wall = max(r[2] for r in results)
    sims, evals = sum(r[0] for r in results), sum(r[1] for r in results)
    return sims / wall, evals / wall, sum(r[3] for r in results) / sum(r[2] for r in results)


def bench_alphazero_search(game: str, settings: Settings) -> list[Row]:
    """One search with 16 leaves per network call against one leaf per call, in turn."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return []
    batched_search, single_search = search_run(16), search_run(1)
    batched_runs, single_runs = [], []
    for _ in range(settings.repeats):
        batched_runs.append(batched_search())
        single_runs.append(single_search())
    m = paired([r[0] for r in batched_runs], [r[0] for r in single_runs])
    batched, single = _medians(batched_runs), _medians(single_runs)
    return [Row(
        "connect_four", "AlphaZero act, 800 sims", "sims/s", m.ours, m.theirs,
        "same search, 1 leaf per call", None,
        f"target >= 1,000 sims/s; {batched['evals']:,.0f} evals/s, batch "
        f"{batched['batch']:.1f}, cache hits {batched['hit_rate']:.0%}, network "
        f"{batched['network_share']:.0%} of the time (unbatched: "
        f"{single['evals']:,.0f} evals/s)", spread=m.spread)]


def bench_selfplay(game: str, settings: Settings) -> list[Row]:
    """Self-play in two processes of 32 games against one process of one game."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return []
    sp_sims, sp_evals, sp_share = selfplay_rate(2, 32, 32)
    ref_sims, _, _ = selfplay_rate(1, 1, 4)
    return [Row(
        "connect_four", "AlphaZero self-play, 2 procs", "sims/s", sp_sims, ref_sims,
        "1 process, 1 game at a time", None,
        f"target >= 3,000 sims/s; {sp_evals:,.0f} evals/s, 32 games per batch, "
        f"network {sp_share:.0%} of the time")]


def bench_inference(game: str, settings: Settings) -> list[Row]:
    """ONNX Runtime against torch eager, one thread each: one search with the shipped
    network in turn, and one self-play process of 32 games each."""
    try:
        import onnxruntime  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        return []
    onnx_search = search_run(16, "onnxruntime", shipped=True, clock=time.process_time)
    torch_search = search_run(16, "torch", shipped=True, clock=time.process_time)
    onnx_runs, torch_runs = [], []
    for _ in range(settings.repeats):
        onnx_runs.append(onnx_search())
        torch_runs.append(torch_search())
    m = paired([r[0] for r in onnx_runs], [r[0] for r in torch_runs])
    moves = {int(r[5]) for r in onnx_runs + torch_runs}
    same = f"the same move ({moves.pop()})" if len(moves) == 1 else f"moves {sorted(moves)}"
    onnx_share = _medians(onnx_runs)["network_share"]
    torch_share = _medians(torch_runs)["network_share"]
    onnx_play, _, onnx_play_share = selfplay_rate(1, 32, 32, "onnxruntime")
    torch_play, _, torch_play_share = selfplay_rate(1, 32, 32, "torch")
    return [
        Row("connect_four", "AlphaZero act, 800 sims, ONNX Runtime", "sims/CPU-s", m.ours,
            m.theirs, "same search, torch eager", None,
            f"target >= 1.3x; shipped network, 16 leaves a call, 1 thread; {same}; network "
            f"{onnx_share:.0%} of the time ({torch_share:.0%} under torch)", spread=m.spread),
        Row("connect_four", "AlphaZero self-play, ONNX Runtime", "sims/s", onnx_play,
            torch_play, "same self-play, torch eager", None,
            f"1 process, 32 games a batch, 100 sims a move; network {onnx_play_share:.0%} of "
            f"the time ({torch_play_share:.0%} under torch)"),
    ]


def bench_subnormal_weights(game: str, settings: Settings) -> list[Row]:
    """Othello: the shipped 6x6 network's batch of 16 as loaded against its weights as saved."""
    try:
        import torch
    except ImportError:
        return []
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint
    from boardzoo.envs import make_env
    from boardzoo.torch_files import safe_torch_load

    torch.set_num_threads(1)
    path = resolve_checkpoint("othello_6x6")
    loaded = load_checkpoint(path)
    as_saved = copy.deepcopy(loaded.net)
    as_saved.load_state_dict(safe_torch_load(path)["weights"])
    env = make_env("othello", board_size=6)
    rng = np.random.default_rng(0)
    observations = []
    for seed in range(16):  # positions after 8 random moves
        env.reset(seed=seed)
        for _ in range(8):
            env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
        observations.append(env.last()[0]["observation"])
    planes = torch.from_numpy(np.stack(observations).astype(np.float32))

    def forward(net: Any) -> Callable[[], int]:
        def one_batch() -> int:
            net(planes)
            return 1  # batches done
        return one_batch

    with torch.inference_mode():
        m = interleaved_rates(forward(loaded.net), forward(as_saved), settings)
    return [Row(
        "othello", "AlphaZero 6x6 network, batch 16", "batches/s", m.ours, m.theirs,
        "its weights as saved (subnormals kept)", None,
        f"{1000 / m.ours:.1f} ms a batch as loaded, {1000 / m.theirs:.1f} ms as saved",
        spread=m.spread,
    )]


BENCHMARKS = [
    Benchmark(bench_alphazero_search, "AlphaZero search", (GAME,), in_quick=False),
    Benchmark(bench_selfplay, "AlphaZero self-play processes", (GAME,), in_quick=False),
    Benchmark(bench_inference, "AlphaZero on ONNX Runtime", (GAME,), in_quick=False),
    Benchmark(bench_subnormal_weights, "AlphaZero 6x6 network", ("othello",)),
]
