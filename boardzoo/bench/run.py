"""``boardzoo bench``: run every benchmark, print a table of ratios, optionally save JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from boardzoo.bench import alphazero, envs, labels, mcts, rl
from boardzoo.bench.common import Row
from boardzoo.errors import UnknownGameError
from boardzoo.files import atomic_write_text

SUITES = [*envs.BENCHMARKS, *rl.BENCHMARKS, *mcts.BENCHMARKS, *alphazero.BENCHMARKS,
          *labels.BENCHMARKS]


def collect(game: str | None, repeats: int, console: Console) -> list[Row]:
    if game is not None and game not in envs.REFERENCES:
        raise UnknownGameError(f"no benchmarks for {game!r}; games: {', '.join(envs.REFERENCES)}")
    rows = []
    for name in [game] if game else list(envs.REFERENCES):
        for bench in SUITES:
            with console.status(f"{name}: {bench.__name__}"):
                rows.extend(bench(name, repeats))
    return rows


def print_table(rows: list[Row], console: Console) -> None:
    table = Table(title="boardzoo bench (one thread; ratios measured in the same run)")
    for column in (
        "game",
        "figure",
        "boardzoo",
        "reference",
        "ratio",
        "target",
        "reference is",
        "note",
    ):
        table.add_column(
            column, justify="left" if column in ("game", "figure", "reference is") else "right"
        )
    for row in rows:
        ratio = "-" if row.ratio is None else f"{row.ratio:.1f}x"
        ok = (
            ""
            if row.target is None or row.ratio is None
            else (" ok" if row.ratio >= row.target else " BELOW")
        )
        table.add_row(
            row.game,
            row.figure,
            f"{_figure(row.ours)} {row.unit}",
            "-" if row.reference is None else _figure(row.reference),
            ratio,
            "-" if row.target is None else f">= {row.target:g}x{ok}",
            row.reference_name,
            row.note,
        )
    console.print(table)


def _figure(value: float) -> str:
    """Large figures with thousands separators, small ones (seconds) to three digits."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def main(game: str | None = None, repeats: int = 3, out: str | None = None) -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    console = Console(width=max(Console().width, 130))
    rows = collect(game, repeats, console)
    print_table(rows, console)
    if out:
        atomic_write_text(out, json.dumps([{**asdict(r), "ratio": r.ratio} for r in rows],
                                          indent=2))
    return 0
