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
import secrets
from pathlib import Path
from typing import Any

__all__ = ["atomic_write_bytes", "atomic_write_text", "save_figure"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temporary(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(err, OSError) and err.filename is None:  # a full disk: say where
            raise OSError(err.errno, err.strerror or str(err), str(path)) from None
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _new_temporary(path: Path) -> tuple[int, Path]:
    """A new file beside ``path``, open for writing, with the permissions any new file gets
    here (0o666 less the umask; ``tempfile.mkstemp`` would make every result owner-only)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        tmp = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """:func:`atomic_write_bytes` of ``text`` in UTF-8."""
    atomic_write_bytes(path, text.encode("utf-8"))


def save_figure(fig: Any, path: str | os.PathLike, dpi: float = 100) -> None:
    """A matplotlib figure, in the format its file name's suffix says (``.png``, ``.svg``,
    ...), written atomically to ``path``; the caller still closes the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format=Path(path).suffix[1:].lower() or None, dpi=dpi)
    atomic_write_bytes(path, buffer.getvalue())
