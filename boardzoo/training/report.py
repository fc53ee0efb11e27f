"""Where a training run's figures go: the sinks of the loop, apart from the algorithm.

One row of figures per iteration (iteration 0: the supervised warm start), each written to
``log.csv`` (the whole file, atomically: the log of a resumed run goes on from its rows),
``curve.png`` (Elo against each reference and the loss, by training step; redrawn whenever
the strength was measured, so it stays current for a run that is stopped), TensorBoard
(``tensorboard/``, when installed), a progress bar and the caller's ``on_iteration``.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from boardzoo.errors import CheckpointError
from boardzoo.files import atomic_write_text, save_figure
from boardzoo.options import parse_int
from boardzoo.training.config import TrainConfig

__all__ = ["RunReport", "plot_curve", "read_log"]

Row = dict[str, Any]
#: a progress bar's update: (how far, text)
BarUpdate = Callable[[float, str], None]


class RunReport:
    """The sinks of one run in the folder ``out``: :meth:`iteration` takes each finished
    iteration's row (:meth:`warm_start` the warm start's), :meth:`figures` a learner's
    figures between rows (a long warm start), :meth:`close` ends the run's figures."""

    def __init__(self, out: Path, game_name: str, progress: bool = True,
                 on_iteration: Callable[[Row], None] | None = None) -> None:
        self.log_path = out / "log.csv"
        self.curve_path = out / "curve.png"
        self.game_name = game_name
        self.progress = progress
        self.on_iteration = on_iteration
        self.rows = read_log(self.log_path)
        self._writer = _tensorboard(out)
        self._plotted = False  # whether the curve shows the last row's measurements

    def iteration(self, row: Row, measured: bool) -> None:
        """Log a finished iteration's row; the curve is redrawn when it ``measured`` the
        network's strength."""
        self.rows.append(row)
        write_log(self.log_path, self.rows)
        if measured:
            plot_curve(self.rows, self.game_name, self.curve_path)
        self._plotted = measured
        self.figures(row, row["step"])
        if self.on_iteration:
            self.on_iteration(row)

    def warm_start(self, row: Row) -> None:
        """Log the warm start's row (iteration 0; its figures went to :meth:`figures` as it
        trained, where it reported them)."""
        self.rows.append(row)
        write_log(self.log_path, self.rows)

    def figures(self, figures: Row, step: int) -> None:
        """Every number of ``figures`` but the iteration to TensorBoard at ``step``."""
        if self._writer is None:
            return
        for key, value in figures.items():
            if isinstance(value, (int, float)) and key != "iteration":
                self._writer.add_scalar(key, value, step)

    @contextmanager
    def bar(self, total: float, description: str, shown: bool = True) -> Iterator[BarUpdate]:
        """A rich progress bar towards ``total`` (iterations, seconds or steps), with the
        latest figures, while the block runs: ``update(done, text)``; nothing unless
        ``shown`` in a report with ``progress``."""
        if not (self.progress and shown):
            yield lambda done, text: None
            return
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("{task.description}"), BarColumn(),
                       TextColumn("{task.fields[info]}"), TimeRemainingColumn())
        task = bar.add_task(description, total=total, info="")
        with bar:
            yield lambda done, text: bar.update(task, completed=min(done, total), info=text)

    def close(self) -> None:
        """Draw the curve if the last rows are not on it yet; close TensorBoard."""
        if not self._plotted:
            plot_curve(self.rows, self.game_name, self.curve_path)
        if self._writer is not None:
            self._writer.close()


def bar_text(step: int, figures: Row) -> str:
    """A progress bar's text: where training is and its last loss."""
    return f"step {step} loss {figures.get('loss', float('nan')):.3f}"


def budget_bar(config: TrainConfig) -> tuple[float, Callable[[int, float], float]]:
    """The bar of a run's budget: its total (the budget's seconds, or its iterations for a
    run without minutes) and ``done(iteration, seconds)``: how far the run is towards it
    (with both budgets, whichever is nearer its end)."""
    if config.minutes is None:
        return float(config.iterations or 0), lambda iteration, seconds: iteration
    total = config.minutes * 60
    if config.iterations is None:
        return total, lambda iteration, seconds: seconds
    share = total / config.iterations
    return total, lambda iteration, seconds: max(seconds, share * iteration)


# ---------------------------------------------------------------------------- log.csv
def read_log(path: Path) -> list[Row]:
    """The rows of a run's log.csv (none if there is none); CheckpointError if it is not
    one this report writes."""
    if not path.exists():
        return []
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, restval=""))
    except (UnicodeDecodeError, csv.Error, OSError) as err:
        raise CheckpointError(f"the run's log {str(path)!r} is not a readable CSV log "
                              f"({type(err).__name__}); move it away to resume (the log then "
                              "restarts)") from None
    if any(None in row or parse_int(row.get("iteration")) is None for row in rows):
        raise CheckpointError(f"the run's log {str(path)!r} is not a log this training wrote "
                              "(a row without its iteration number, or with more cells than "
                              "columns); move it away to resume (the log then restarts)")
    return [{k: _number(v) for k, v in row.items()} for row in rows]


def _number(text: str) -> Any:
    try:
        return float(text) if "." in text or "e" in text or text == "nan" else int(text)
    except ValueError:
        return text


def write_log(path: Path, rows: list[Row]) -> None:
    columns = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


# --------------------------------------------------------------------------- curve.png
def plot_curve(log: list[Row], game_name: str, path: Path) -> None:
    """Elo against each reference and the loss, by training step."""
    if not log:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    steps = [row["step"] for row in log]
    for key in sorted({k for row in log for k in row if k.startswith("elo vs")}):
        points = [(row["step"], row[key]) for row in log if isinstance(row.get(key), float)
                  and not math.isnan(row[key])]
        if points:
            left.plot(*zip(*points, strict=True), marker="o", label=key)
    left.set(xlabel="training step", ylabel="Elo difference", title=f"{game_name}: strength")
    if left.lines:
        left.legend(fontsize=8)
    else:  # say why the panel is empty rather than leave a blank frame
        left.text(0.5, 0.5, "no strength measurements in this run\n(eval_every = 0)",
                  ha="center", va="center", transform=left.transAxes, color="gray")
    for key in ("loss", "value_loss", "policy_loss"):
        if any(key in row for row in log):
            right.plot(steps, [row.get(key, float("nan")) for row in log], label=key)
    right.set(xlabel="training step", title="loss")
    if right.lines:
        right.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def _tensorboard(out: Path) -> Any:
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))
