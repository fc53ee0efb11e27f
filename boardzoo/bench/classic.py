"""The pettingzoo.classic drop-ins against PettingZoo's own envs: the learner's AEC loop
(``env()`` with its wrapper chain, reset, ``last``, a random legal action, ``step``) in plies
per CPU-second, the two envs timed in turn in one process."""

from __future__ import annotations

import importlib
import time

import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_samples, paired
from boardzoo.bench.envs import aec_work, pettingzoo_env

#: boardzoo's game -> the drop-in's module name (PettingZoo's defaults: Go is 19x19)
DROP_INS = {
    "tictactoe": "tictactoe_v3",
    "connect_four": "connect_four_v3",
    "go": "go_v5",
    "chess": "chess_v6",
}
#: the issue's target: at least 5x PettingZoo's plies per CPU-second
TARGET = 5.0


def bench_classic(game: str, settings: Settings) -> list[Row]:
    name = DROP_INS[game]
    ours = importlib.import_module(f"boardzoo.classic.{name}").env()
    rng = np.random.default_rng(0)
    work = [aec_work(ours, rng), aec_work(pettingzoo_env(name), rng)]
    mine, theirs = interleaved_samples(work, settings, clock=time.process_time)
    m = paired(mine, theirs)
    where = " 19x19" if game == "go" else ""
    return [Row(f"{name}{where}", "AEC loop, env()", "plies/CPU-s", m.ours, m.theirs,
                f"PettingZoo {name}", TARGET, spread=m.spread)]


BENCHMARKS = [Benchmark(bench_classic, "pettingzoo.classic drop-ins", games=tuple(DROP_INS))]
