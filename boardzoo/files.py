"""Files written whole: a reader sees the old file or the whole new one, never a mix.

The files boardzoo writes whole (checkpoints, a run's state, logs, ratings, plots, labels,
benchmark results; game results go to the SQLite store, transactions) go through here: the
data goes to a temporary file in the same folder, is fsynced, renamed over the target and the
folder fsynced, so a crash or a full disk never leaves half a file in place of a good one.
No torch or matplotlib import: figures are anything with matplotlib's ``savefig``.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["atomic_write_bytes", "atomic_write_text", "save_figure"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))


def save_figure(fig: Any, path: str | os.PathLike, dpi: float = 100) -> None:
    """A matplotlib figure, in the format its file name's suffix says (``.png``, ``.svg``,
    ...), written atomically to ``path``; the caller still closes the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=Path(path).suffix[1:].lower() or None, dpi=dpi)
    atomic_write_bytes(path, buffer.getvalue())
