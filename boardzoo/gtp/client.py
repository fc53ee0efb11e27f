"""A minimal client for the Go Text Protocol (GTP 2), to drive engines such as GNU Go.

>>> from boardzoo.gtp import find_gnugo
>>> path = find_gnugo()
>>> if path:  # doctest: +SKIP
...     with GtpEngine([path, "--mode", "gtp", "--chinese-rules"]) as engine:
...         engine.send("boardsize 9")
...         engine.send("play black E5")
...         engine.send("genmove white")   # e.g. 'C3'

Each command gets one reply: ``= result`` (success) or ``? message`` (failure), ended by a
blank line. :meth:`GtpEngine.send` returns the result text (without the ``=``; multi-line
results keep their line breaks) or raises :class:`GtpError` with the engine's message. The
engine runs as a child process; close it with :meth:`GtpEngine.close` or a ``with`` block.
"""

from __future__ import annotations

import queue
import subprocess
import threading
from collections.abc import Sequence
from typing import IO, cast

from boardzoo.errors import excerpt

__all__ = ["GtpEngine", "GtpError"]


class GtpError(RuntimeError):
    """A GTP engine answered ``? message``, did not answer in time, or has exited
    (``engine_exited``: it ended on its own, e.g. crashed, rather than answering)."""

    def __init__(self, command: str, message: str, engine_exited: bool = False):
        super().__init__(f"GTP command {excerpt(command)} failed: {message}")
        self.command = command
        self.message = message
        self.engine_exited = engine_exited


class GtpEngine:
    """A GTP engine running as a child process.

    ``command`` is the engine's command line, e.g. ``["/usr/games/gnugo", "--mode", "gtp"]``.
    ``timeout`` (seconds, None = wait forever) bounds the wait for each reply; when it runs
    out :class:`GtpError` is raised and the engine is stopped, since a late reply would be
    taken as the answer to the next command.
    """

    def __init__(self, command: Sequence[str], timeout: float | None = 30.0):
        self.command = list(command)
        self.timeout = timeout
        try:
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as err:
            raise GtpError("(start)", f"cannot start engine {self.command!r}: {err}") from None
        # the two pipes asked for above (Popen types them as optional)
        self._stdin = cast(IO[str], self._process.stdin)
        self._stdout = cast(IO[str], self._process.stdout)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_lines, daemon=True)
        self._reader.start()

    # ------------------------------------------------------------------------ protocol
    def send(self, command: str) -> str:
        """Send one command and return its result text (no leading ``=``, stripped).

        ``? message`` replies, timeouts and a dead engine raise :class:`GtpError`."""
        command = command.strip()
        if not command or "\n" in command:
            raise GtpError(command, "a GTP command is one non-empty line")
        if self._process.poll() is not None:
            raise GtpError(command, f"the engine has exited (code {self._process.returncode})",
                           engine_exited=True)
        try:
            self._stdin.write(command + "\n")
            self._stdin.flush()
        except (BrokenPipeError, ValueError):
            raise GtpError(command, "the engine has exited", engine_exited=True) from None
        return self._reply(command)

    def _reply(self, command: str) -> str:
        """Read lines up to the blank line that ends a reply and interpret them."""
        lines: list[str] = []
        while True:
            line = self._next_line(command)
            if line.strip() == "":
                if lines:
                    break
                continue  # blank lines before a reply are not part of it
            lines.append(line.rstrip("\r\n"))
        status, first = lines[0][0], lines[0][1:]
        text = "\n".join([first.lstrip("0123456789").strip()] + lines[1:]).strip()
        if status == "=":
            return text
        if status == "?":
            raise GtpError(command, text or "the engine reported an error")
        raise GtpError(command,
                       f"malformed reply {excerpt(lines[0])} (expected '= ...' or '? ...')")

    def _next_line(self, command: str) -> str:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self.close()
            message = f"no reply within {self.timeout} s; the engine was stopped"
            raise GtpError(command, message) from None
        if line is None:
            raise GtpError(command, "the engine exited before answering", engine_exited=True)
        return line

    def _read_lines(self) -> None:
        """Background reader: the engine's output lines, then None at its end."""
        try:
            for line in self._stdout:
                self._lines.put(line)
        except (OSError, ValueError):  # the stream was closed under us
            pass
        self._lines.put(None)

    # ------------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Ask the engine to quit, then stop it if it does not exit promptly."""
        process = self._process
        if process.poll() is None:
            try:
                self._stdin.write("quit\n")
                self._stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                pass
            try:
                process.wait(timeout=2.0)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._reader.join(timeout=1.0)  # the engine has exited: its output is at its end
        for stream in (self._stdin, self._stdout):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self) -> GtpEngine:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_process", None) is not None and self._process.poll() is None:
            self.close()
