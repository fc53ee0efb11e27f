"""The pettingzoo.classic drop-ins against PettingZoo's own envs: the learner's AEC loop
(``env()`` with its wrapper chain, reset, ``last``, a random legal action, ``step``) in plies
per CPU-second, the two envs timed in turn in one process.

The random legal action is drawn as PettingZoo's own ``performance_benchmark`` draws it,
``random.choice`` over the mask's list (about 1.5 µs); the row with the env rows' draw,
``Generator.choice`` (about 6 µs more, nearly as much as the rest of boardzoo's tic-tac-toe
ply), is measured in the same repetitions. Both sides of a row draw the same way.
"""

from __future__ import annotations

import importlib
import random
import time

import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_samples, paired
from boardzoo.bench.envs import aec_work, generator_draw, list_draw, pettingzoo_env
from boardzoo.classic import DROP_INS

#: the issue's target: at least 5x PettingZoo's plies per CPU-second
TARGET = 5.0


def bench_classic(game: str, settings: Settings) -> list[Row]:
    name = DROP_INS[game]  # with PettingZoo's defaults: Go is 19x19
    ours = importlib.import_module(f"boardzoo.classic.{name}").env()
    theirs = pettingzoo_env(name)
    draws = {"random.choice": list_draw(random.Random(0)),
             "Generator.choice": generator_draw(np.random.default_rng(0))}
    work = [aec_work(env, draw) for draw in draws.values() for env in (ours, theirs)]
    samples = interleaved_samples(work, settings, clock=time.process_time)
    where = " 19x19" if game == "go" else ""
    rows = []
    for (label, _), mine, pz in zip(draws.items(), samples[::2], samples[1::2], strict=True):
        m = paired(mine, pz)
        target, note = (TARGET, "PettingZoo's performance_benchmark draw") if (
            label == "random.choice") else (None, "the env rows' draw")
        rows.append(Row(f"{name}{where}", f"AEC loop, env(), {label}", "plies/CPU-s", m.ours,
                        m.theirs, f"PettingZoo {name}", target, note=note, spread=m.spread))
    return rows


BENCHMARKS = [Benchmark(bench_classic, "pettingzoo.classic drop-ins", games=tuple(DROP_INS))]
