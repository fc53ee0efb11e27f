"""``boardzoo bench``: run every benchmark, print a table of ratios, optionally save JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict

from rich.console import Console
from rich.table import Table

from boardzoo.bench import alphazero, envs, labels, mcts, rl, two_player
from boardzoo.bench.common import Row
from boardzoo.errors import InvalidOptionError, UnknownGameError
from boardzoo.files import atomic_write_text

SUITE_MODULES = [envs, rl, two_player, mcts, alphazero, labels]
#: suite name (``--only``) -> its benchmarks
SUITES = {module.__name__.rsplit(".", 1)[1]: module.BENCHMARKS for module in SUITE_MODULES}


def collect(
    game: str | None, repeats: int, console: Console, only: str | None = None
) -> list[Row]:
    if game is not None and game not in envs.REFERENCES:
        raise UnknownGameError(f"no benchmarks for {game!r}; games: {', '.join(envs.REFERENCES)}")
    if only is not None and only not in SUITES:
        raise InvalidOptionError(f"--only {only}: no such suite; suites: {', '.join(SUITES)}")
    benches = [b for name, suite in SUITES.items() if only in (None, name) for b in suite]
    rows = []
    for name in [game] if game else list(envs.REFERENCES):
        for bench in benches:
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
            f"{row.ours:,.0f} {row.unit}",
            "-" if row.reference is None else f"{row.reference:,.0f}",
            ratio,
            "-" if row.target is None else f">= {row.target:g}x{ok}",
            row.reference_name,
            row.note,
        )
    console.print(table)


def main(
    game: str | None = None, repeats: int = 3, out: str | None = None, only: str | None = None
) -> int:
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    console = Console(width=max(Console().width, 130))
    rows = collect(game, repeats, console, only)
    print_table(rows, console)
    if out:
        atomic_write_text(out, json.dumps([{**asdict(r), "ratio": r.ratio} for r in rows],
                                          indent=2))
    return 0
