"""Timing helpers and the result row every benchmark returns."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Row:
    """One figure: ours against a reference, with the target ratio from the issue."""

    game: str
    figure: str
    unit: str
    ours: float
    reference: float | None
    reference_name: str
    target: float | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.reference is None:
            return None
        return self.ours / self.reference


def rate(work: Callable[[], int], repeats: int, min_seconds: float = 0.3,
         clock: Callable[[], float] = time.perf_counter) -> float:
    """Median over ``repeats`` of (units done / seconds); ``work()`` returns the units it did
    and is called until ``min_seconds`` pass in each repetition. ``clock``: wall time, or
    ``time.process_time`` for this process's CPU seconds (all its threads), which other
    load on the machine does not inflate."""
    rates = []
    for _ in range(repeats):
        units, start = 0, clock()
        while True:
            units += work()
            elapsed = clock() - start
            if elapsed >= min_seconds:
                break
        rates.append(units / elapsed)
    return statistics.median(rates)


def interleaved_rates(
    ours: Callable[[], int], theirs: Callable[[], int], repeats: int, min_seconds: float = 0.3
) -> tuple[float, float]:
    """Median rates of two workloads measured alternately, so machine noise hits both."""
    a, b = interleaved_samples([ours, theirs], repeats, min_seconds)
    return statistics.median(a), statistics.median(b)


def interleaved_samples(
    workloads: list[Callable[[], int]], repeats: int, min_seconds: float = 0.3,
    clock: Callable[[], float] = time.perf_counter,
) -> list[list[float]]:
    """The rate of every workload in every repetition, the workloads taking turns within
    each repetition (so machine noise hits them all): one list of ``repeats`` rates each."""
    samples: list[list[float]] = [[] for _ in workloads]
    for _ in range(repeats):
        for work, rates in zip(workloads, samples, strict=True):
            rates.append(rate(work, 1, min_seconds, clock))
    return samples
