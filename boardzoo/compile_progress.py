"""Compile progress: while numba compiles boardzoo's code (once per installation, seconds
to a minute for a game's search), a line says what compiles and how far, and front-ends
can show the same lines their own way.

A *unit* is one thing a user waits for: a game's MCTS search, its alpha-beta search, its
vector env... Code that knows its units names them (:func:`unit`); ``boardzoo compile``
numbers them too (``compiling go: the MCTS search (2/7)...``). Any other compile of one of
boardzoo's functions is a unit of its own, named after the function. A unit whose code is
all loaded from the compile cache says nothing.

Each unit that compiles calls every listener twice, with a :class:`CompileStep`: when it
starts compiling (``seconds`` None) and when it is done. By default one line per call goes
to stderr (no logging, no warnings), so scripts, ``boardzoo play``, ``arena`` and the GTP
engine (whose protocol is on stdout) show it as is. A front-end adds its own listener:

    from boardzoo import compile_progress
    compile_progress.add_listener(lambda step: print("info string", step.text()))

(a UCI engine), or sends ``step.text()`` to its page; :func:`listening` adds one for a
``with`` block. :func:`install` (run by ``import boardzoo``) registers the numba event
listener that drives it.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from numba.core import event

__all__ = ["CompileStep", "add_listener", "install", "listening", "quiet", "remove_listener",
           "unit"]


@dataclass(frozen=True)
class CompileStep:
    """One unit starting to compile (``seconds`` None) or done (the seconds it took).
    ``index``/``total``: its place among the units of a planned run (0/0 outside one)."""

    game: str | None
    what: str
    index: int = 0
    total: int = 0
    seconds: float | None = None

    def text(self) -> str:
        """``compiling go: the MCTS search (2/7)...`` or ``compiled go: the MCTS search (2/7)
        in 12.3 s``."""
        subject = f"{self.game}: {self.what}" if self.game else self.what
        where = f" ({self.index}/{self.total})" if self.total else ""
        if self.seconds is not None:
            return f"compiled {subject}{where} in {self.seconds:.1f} s"
        return f"compiling {subject}{where}..."


Listener = Callable[[CompileStep], None]


def stderr_line(step: CompileStep) -> None:
    """The default listener: ``boardzoo: <step.text()>`` on stderr."""
    print(f"boardzoo: {step.text()}", file=sys.stderr, flush=True)


_listeners: list[Listener] = [stderr_line]


def add_listener(listener: Listener) -> None:
    """Call ``listener`` with every later :class:`CompileStep` (from the compiling thread)."""
    _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    """Stop calling ``listener`` (added with :func:`add_listener`)."""
    _listeners.remove(listener)


@contextlib.contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """:func:`add_listener` for a ``with`` block."""
    add_listener(listener)
    try:
        yield
    finally:
        remove_listener(listener)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """No stderr lines in a ``with`` block (a front-end that shows the steps itself)."""
    present = stderr_line in _listeners
    if present:
        _listeners.remove(stderr_line)
    try:
        yield
    finally:
        if present:
            _listeners.insert(0, stderr_line)


class _Unit:
    """A named unit being run: whether (and since when) it compiles."""

    def __init__(self, game: str | None, what: str, index: int, total: int) -> None:
        self.step = CompileStep(game, what, index, total)
        self.started: float | None = None

    def start(self) -> None:
        if self.started is None:
            self.started = time.perf_counter()
            _tell(self.step)

    def finish(self) -> None:
        if self.started is not None:
            seconds = time.perf_counter() - self.started
            _tell(CompileStep(**{**self.step.__dict__, "seconds": seconds}))


_local = threading.local()  # .units: the named units this thread is in, innermost last


@contextlib.contextmanager
def unit(game: str | None, what: str, index: int = 0, total: int = 0) -> Iterator[None]:
    """Name what compiles in a ``with`` block: ``what`` (e.g. "the MCTS search") of
    ``game``, unit ``index`` of ``total`` in a planned run. Inside another unit it adds
    nothing (the outer one is what the user waits for)."""
    units = _units()
    if units:
        yield
        return
    current = _Unit(game, what, index, total)
    units.append(current)
    try:
        yield
    finally:
        units.pop()
        current.finish()


def _units() -> list[_Unit]:
    if not hasattr(_local, "units"):
        _local.units = []
    return _local.units


def _tell(step: CompileStep) -> None:
    for listener in list(_listeners):
        listener(step)


class _Progress(event.Listener):
    """numba's compile events: the outermost compile of a boardzoo function starts (or
    joins) a unit. Numba compiles under one process-wide lock, so one depth counter
    serves every thread."""

    def __init__(self) -> None:
        self.depth = 0
        self.lone: _Unit | None = None

    def on_start(self, ev: Any) -> None:
        self.depth += 1
        if self.depth > 1:
            return
        units = _units()
        if units:
            units[-1].start()
            return
        name = _boardzoo_name(ev.data["dispatcher"])
        if name is not None:
            self.lone = _Unit(None, name, 0, 0)
            self.lone.start()

    def on_end(self, ev: Any) -> None:
        self.depth -= 1
        if self.depth == 0 and self.lone is not None:
            self.lone.finish()
            self.lone = None


def _boardzoo_name(dispatcher: Any) -> str | None:
    """``envs.go.apply_kernel`` for a boardzoo function; None for anyone else's."""
    py_func: Any = getattr(dispatcher, "py_func", None)
    module = getattr(py_func, "__module__", "") or ""
    if not module.startswith("boardzoo."):
        return None
    return f"{module.removeprefix('boardzoo.')}.{py_func.__qualname__}"


_PROGRESS = _Progress()
_installed: list[bool] = []


def install() -> None:
    """Report compile progress as the module docstring says (once)."""
    if not _installed:
        event.register("numba:compile", _PROGRESS)
        _installed.append(True)
