"""What every benchmark shares: its settings, its result rows, and the timing helpers.

Every workload runs once untimed before it is measured (compilation, JIT and first calls
are never counted), and ours and the reference are measured alternately, so the noise of a
shared machine hits both.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Settings:
    """How much a run measures: ``repeats`` alternating repetitions per figure (their
    median is reported), each timing at least ``seconds``; ``quick``: ``boardzoo bench
    --quick``, which leaves out or reduces the heaviest benchmarks."""

    repeats: int = 3
    seconds: float = 0.3
    quick: bool = False


#: the "game" of a benchmark run once per run (of every game), not per game
EVERY_GAME = "every game"
FULL = Settings()
QUICK = Settings(repeats=1, seconds=0.1, quick=True)


@dataclass
class Row:
    """One figure: ours against a reference, with the target ratio. ``lower_is_better``
    (times): the ratio is the reference over ours, so above 1 is still better. ``spread``:
    the lowest and highest ratio of single repetitions, when there were several."""

    game: str
    figure: str
    unit: str
    ours: float
    reference: float | None
    reference_name: str
    target: float | None = None
    note: str = ""
    lower_is_better: bool = False
    spread: tuple[float, float] | None = None

    @property
    def ratio(self) -> float | None:
        if self.reference is None:
            return None
        if self.lower_is_better:
            return self.reference / self.ours if self.ours > 0 else None
        return self.ours / self.reference if self.reference > 0 else None


class Benchmark(NamedTuple):
    """A benchmark: ``run(game, settings)`` measures it on one game and returns its rows.
    ``games``: the games it applies to (None: each game; :data:`EVERY_GAME`: once, when
    every game is benchmarked). Under ``--quick``: ``in_quick`` False leaves it out,
    ``quick_games`` (when given) are the only games it runs on, and ``quick_drops`` says
    what ``--quick`` leaves out of it (default: its title, when left out)."""

    run: Callable[[str, Settings], list[Row]]
    title: str
    games: tuple[str, ...] | None = None
    in_quick: bool = True
    quick_games: tuple[str, ...] | None = None
    quick_drops: str = ""


class Paired(NamedTuple):
    """Medians of ours and the reference over alternating repetitions, and the spread of
    their ratio (None after one repetition)."""

    ours: float
    theirs: float
    spread: tuple[float, float] | None


def paired(ours: list[float], theirs: list[float]) -> Paired:
    """The medians of two rates measured in turn, and the range of their paired ratios."""
    ratios = [a / b for a, b in zip(ours, theirs, strict=True) if b > 0]
    spread = (min(ratios), max(ratios)) if len(ratios) > 1 else None
    return Paired(statistics.median(ours), statistics.median(theirs), spread)


def timed_rate(work: Callable[[], int], seconds: float,
               clock: Callable[[], float] = time.perf_counter) -> float:
    """Units per second of ``work()`` (which returns the units it did), called until at
    least ``seconds`` have passed. Not warmed up: see :func:`rate`. ``clock``: wall time, or
    ``time.process_time`` for this process's CPU seconds (all its threads), which other
    load on the machine does not inflate."""
    units, start = 0, clock()
    while True:
        units += work()
        elapsed = clock() - start
        if elapsed >= seconds:
            return units / elapsed


def rate(work: Callable[[], int], settings: Settings) -> float:
    """Median units per second of ``work()`` over ``settings.repeats`` timings, after one
    untimed call (the warm-up)."""
    work()
    return statistics.median(timed_rate(work, settings.seconds) for _ in range(settings.repeats))


def interleaved_rates(ours: Callable[[], int], theirs: Callable[[], int],
                      settings: Settings, seconds: float | None = None) -> Paired:
    """Rates of two workloads, each warmed up once, then timed alternately
    ``settings.repeats`` times (each timing at least ``seconds``, default the settings')."""
    a, b = interleaved_samples([ours, theirs], settings, seconds=seconds)
    return paired(a, b)


def interleaved_samples(workloads: list[Callable[[], int]], settings: Settings,
                        clock: Callable[[], float] = time.perf_counter,
                        seconds: float | None = None) -> list[list[float]]:
    """The rate of every workload (each warmed up once) in each of ``settings.repeats``
    repetitions, the workloads taking turns within a repetition so machine noise hits them
    all, each timing at least ``seconds`` (default the settings'): one list of rates per
    workload."""
    window = settings.seconds if seconds is None else seconds
    for work in workloads:
        work()
    samples: list[list[float]] = [[] for _ in workloads]
    for _ in range(settings.repeats):
        for work, rates in zip(workloads, samples, strict=True):
            rates.append(timed_rate(work, window, clock))
    return samples
