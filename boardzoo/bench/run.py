"""``boardzoo bench``: run the benchmarks with a progress line, print each row as it is
measured, the table at the end and a warning for each row that fell more than 10% below the
last release's ratio (:mod:`boardzoo.bench.guard`), optionally save JSON."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, replace
from typing import NamedTuple

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from boardzoo.bench import (
    alphabeta,
    alphazero,
    batched,
    classic,
    envs,
    labels,
    mcts,
    rl,
    startup,
    two_player,
)
from boardzoo.bench.common import EVERY_GAME, FULL, QUICK, Benchmark, Row, Settings
from boardzoo.bench.guard import regressions, release_ratios
from boardzoo.errors import InvalidOptionError, UnknownGameError
from boardzoo.files import atomic_write_text

#: the benchmarks by module (``boardzoo bench --only startup,batched``), in run order
SUITES: dict[str, list[Benchmark]] = {
    "envs": envs.BENCHMARKS, "rl": rl.BENCHMARKS, "two_player": two_player.BENCHMARKS,
    "mcts": mcts.BENCHMARKS, "alphabeta": alphabeta.BENCHMARKS,
    "alphazero": alphazero.BENCHMARKS, "labels": labels.BENCHMARKS,
    "batched": batched.BENCHMARKS, "startup": startup.BENCHMARKS,
    "classic": classic.BENCHMARKS,
}


def plan(game: str | None, settings: Settings, only: list[str] | None = None,
         ) -> tuple[list[tuple[str, Benchmark]], list[str]]:
    """The (game, benchmark) pairs a run measures, in order, and what ``--quick`` leaves
    out of it; ``only``: these suites (None: all)."""
    names = [game] if game else list(envs.REFERENCES)
    if game is not None and game not in envs.REFERENCES:
        raise UnknownGameError(f"no benchmarks for {game!r}; games: {', '.join(envs.REFERENCES)}")
    unknown = sorted(set(only or ()) - set(SUITES))
    if unknown:
        raise InvalidOptionError(f"--only {','.join(unknown)}: no such benchmarks; "
                                 f"use {', '.join(SUITES)}")
    if game is None:
        names.append(EVERY_GAME)
    chosen = [bench for suite in (only or SUITES) for bench in SUITES[suite]]
    pairs, left_out = [], []
    for name in names:
        for bench in chosen:
            if not _applies(bench, name):
                continue
            if settings.quick and bench.quick_drops:
                left_out.append(bench.quick_drops)
            if not settings.quick or (bench.in_quick and name in (bench.quick_games or [name])):
                pairs.append((name, bench))
            elif not bench.quick_drops:
                left_out.append(bench.title)
    return pairs, list(dict.fromkeys(left_out))


def _applies(bench: Benchmark, game: str) -> bool:
    return game in bench.games if bench.games is not None else game != EVERY_GAME


class Collected(NamedTuple):
    """A run's rows, and a line for each benchmark that failed (the run goes on)."""

    rows: list[Row]
    failures: list[str]


def collect(pairs: list[tuple[str, Benchmark]], settings: Settings,
            console: Console) -> Collected:
    """The rows of the (game, benchmark) ``pairs`` (see :func:`plan`), each printed as one
    line as soon as it is measured, under a progress line (the game and benchmark, how many
    of how many, the time so far)."""
    rows: list[Row] = []
    failures: list[str] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("", total=len(pairs))
        for name, bench in pairs:
            progress.update(task, description=f"{name}: {bench.title}")
            try:
                measured = bench.run(name, settings)
            except Exception as err:  # reported at the end; the other rows still run
                failures.append(f"{name}: {bench.title} failed: {err}")
                progress.console.print(failures[-1], style="red", markup=False)
                measured = []
            for row in measured:
                progress.console.print(_line(row), markup=False)
                rows.append(row)
            progress.advance(task)
    return Collected(rows, failures)


def _line(row: Row) -> str:
    """One row as a line of text (printed as the run goes)."""
    against = "" if row.reference is None else (
        f" vs {_figure(row.reference)} ({row.reference_name}): {_ratio(row)}{_verdict(row)}")
    return f"{row.game:>14}  {row.figure}: {_figure(row.ours)} {row.unit}{against}"


def print_table(rows: list[Row], console: Console, caption: str | None = None) -> None:
    table = Table(title="boardzoo bench (one thread; ratios measured in the same run)",
                  caption=caption)
    for column in ("game", "figure", "boardzoo", "reference", "ratio (range)", "target",
                   "reference is", "note"):
        table.add_column(
            column, justify="left" if column in ("game", "figure", "reference is") else "right"
        )
    for row in rows:
        table.add_row(
            row.game,
            row.figure,
            f"{_figure(row.ours)} {row.unit}",
            "-" if row.reference is None else _figure(row.reference),
            _ratio(row),
            "-" if row.target is None else f">= {row.target:g}x{_verdict(row)}",
            row.reference_name,
            row.note,
        )
    console.print(table)


def _ratio(row: Row) -> str:
    if row.ratio is None:
        return "-"
    spread = "" if row.spread is None else f" ({row.spread[0]:.1f}-{row.spread[1]:.1f})"
    return f"{row.ratio:.1f}x{spread}"


def _verdict(row: Row) -> str:
    if row.target is None or row.ratio is None:
        return ""
    return " ok" if row.ratio >= row.target else " BELOW"


def _figure(value: float) -> str:
    """Large figures with thousands separators, small ones (seconds) to three digits."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def main(game: str | None = None, quick: bool = False, repeats: int | None = None,
         out: str | None = None, only: list[str] | None = None) -> int:
    """Run the benchmarks of ``game`` (None: all); ``quick``: the short run; ``repeats``
    overrides the repetitions per figure; ``out``: also write the rows as JSON there;
    ``only``: these suites (:data:`SUITES`)."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    settings = QUICK if quick else FULL
    if repeats is not None:
        settings = replace(settings, repeats=repeats)
    pairs, left_out = plan(game, settings, only)
    console = Console(width=max(Console().width, 130))
    start = time.perf_counter()
    rows, failures = collect(pairs, settings, console)
    minutes = (time.perf_counter() - start) / 60
    times = "1 repetition" if settings.repeats == 1 else f"{settings.repeats} repetitions"
    caption = f"{'--quick, ' if quick else ''}{times} per figure, {minutes:.1f} min"
    if left_out:
        caption += f"; left out by --quick: {'; '.join(left_out)}"
    print_table(rows, console, caption)
    for warning in regressions(rows, release_ratios()):
        console.print(warning, style="bold yellow", markup=False)
    for failure in failures:
        console.print(failure, style="red", markup=False)
    if out:
        atomic_write_text(out, json.dumps([{**asdict(r), "ratio": r.ratio} for r in rows],
                                          indent=2))
    return 1 if failures else 0
