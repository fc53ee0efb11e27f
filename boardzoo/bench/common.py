"""Timing helpers and the result row every benchmark returns."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Row:
    """One figure: ours against a reference, with the target ratio. ``lower_is_better``
    (times): the ratio is the reference over ours, so above 1 is still better."""

    game: str
    figure: str
    unit: str
    ours: float
    reference: float | None
    reference_name: str
    target: float | None = None
    note: str = ""
    lower_is_better: bool = False

    @property
    def ratio(self) -> float | None:
        if self.reference is None:
            return None
        if self.lower_is_better:
            return self.reference / self.ours if self.ours > 0 else None
        return self.ours / self.reference


def rate(work: Callable[[], int], repeats: int, min_seconds: float = 0.3) -> float:
    """Median over ``repeats`` of (units done / seconds); ``work()`` returns the units it did
    and is called until ``min_seconds`` pass in each repetition."""
    rates = []
    for _ in range(repeats):
        units, start = 0, time.perf_counter()
        while True:
            units += work()
            elapsed = time.perf_counter() - start
            if elapsed >= min_seconds:
                break
        rates.append(units / elapsed)
    return statistics.median(rates)


def interleaved_rates(
    ours: Callable[[], int], theirs: Callable[[], int], repeats: int, min_seconds: float = 0.3
) -> tuple[float, float]:
    """Median rates of two workloads measured alternately, so machine noise hits both."""
    a, b = [], []
    for _ in range(repeats):
        a.append(rate(ours, 1, min_seconds))
        b.append(rate(theirs, 1, min_seconds))
    return statistics.median(a), statistics.median(b)


def shipped_checkpoint(name: str) -> tuple[Any, Path] | None:
    """(the loaded checkpoint, its file) of the shipped AlphaZero network ``name``, torch on
    one thread as every benchmark runs it; None without torch (the figure is skipped)."""
    try:
        import torch
    except ImportError:
        return None
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint

    torch.set_num_threads(1)
    path = resolve_checkpoint(name)
    return load_checkpoint(path), path
