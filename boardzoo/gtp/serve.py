"""``boardzoo gtp``'s input and output: GTP command lines from stdin, each answered on stdout by
a :class:`~boardzoo.gtp.engine.GoGtpEngine`, which ponders between them when it may."""

from __future__ import annotations

import queue
import sys
import threading
import time
from typing import IO

from boardzoo.gtp.engine import GoGtpEngine

__all__ = ["MAX_LINE", "serve"]

#: the longest input line read (a 19x19 setup command is about 1,500 characters); a longer
#: one is skipped to its end without being held in memory, and answered with a failure
MAX_LINE = 100_000
_TOO_LONG = f"? input line longer than {MAX_LINE:,} characters; ignored\n\n"


class _CommandLines:
    """Input lines read by a thread, each queued with the time it arrived (``time.monotonic``;
    None at the end of input); ``waiting`` is set while one waits to be handled, so that a
    ponder can stop as soon as a command comes. A line longer than :data:`MAX_LINE` is
    queued as None text (see :func:`serve`)."""

    def __init__(self, stream: IO[str]):
        self._queue: queue.Queue[tuple[str | None, float] | None] = queue.Queue()
        self.waiting = threading.Event()
        threading.Thread(target=self._read, args=(stream,), daemon=True,
                         name="boardzoo-gtp-stdin").start()

    def _read(self, stream: IO[str]) -> None:
        while line := stream.readline(MAX_LINE + 1):
            text: str | None = line
            if len(line) > MAX_LINE:
                text = None
                while line and not line.endswith("\n"):  # skip the rest of the line
                    line = stream.readline(MAX_LINE)
            self._queue.put((text, time.monotonic()))
            self.waiting.set()
        self._queue.put(None)
        self.waiting.set()

    def next(self) -> tuple[str | None, float] | None:
        """The next line (None text: too long) and its arrival time (blocks until there is
        one), None at the end."""
        item = self._queue.get()
        if self._queue.empty():
            self.waiting.clear()
            if not self._queue.empty():  # a line came in between
                self.waiting.set()
        return item


def serve(engine: GoGtpEngine, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> None:
    """Answer GTP commands from ``stdin`` on ``stdout`` until ``quit`` or end of input; with
    ``engine.ponders``, ponder after each genmove until the next line arrives."""
    lines = _CommandLines(stdin or sys.stdin)
    stdout = stdout or sys.stdout
    while not engine.finished:
        engine.ponder(lines.waiting)
        item = lines.next()
        if item is None:
            break
        line, received = item
        reply = _TOO_LONG if line is None else engine.handle(line, received)
        if reply is not None:
            stdout.write(reply)
            stdout.flush()
