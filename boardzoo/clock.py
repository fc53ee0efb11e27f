"""A monotonic wall clock that compiled (numba) code can read, for time-limited searches, and
the watch that tells a running compiled search to stop.

Numba has no ``time`` module; :func:`monotonic` calls libc's
``clock_gettime(CLOCK_MONOTONIC)`` as an external C function (a direct call, ~50 ns), which
numba can cache on disk. Under ``NUMBA_DISABLE_JIT=1`` the same function reads the same clock
through ctypes, so searches behave the same in plain Python.

A compiled search compiled with ``nogil=True`` can be stopped from outside while it runs:
:func:`watch_stop` sets a slot of one of its arrays as soon as a ``stop`` event is set, and
the search reads that slot as it goes.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import config, njit, types

__all__ = ["STOP_POLL", "monotonic", "watch_stop"]

#: how often (seconds) :func:`watch_stop` looks at its ``stop`` event
STOP_POLL = 0.02

_CLOCK_MONOTONIC = 1 if sys.platform.startswith("linux") else 6  # 6 on macOS

if config.DISABLE_JIT:
    _clock_gettime = ctypes.CDLL(ctypes.util.find_library("c")).clock_gettime
    _clock_gettime.restype = ctypes.c_int
    _clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]
else:
    _clock_gettime = types.ExternalFunction(
        "clock_gettime", types.int32(types.int32, types.voidptr)
    )


@njit(cache=True)
def monotonic() -> float:
    """Seconds on a monotonic clock (the same clock as ``time.monotonic()`` on Linux)."""
    timespec = np.zeros(2, np.int64)
    _clock_gettime(_CLOCK_MONOTONIC, timespec.ctypes)
    return timespec[0] + timespec[1] * 1e-9


@contextmanager
def watch_stop(stop: Any, flags: np.ndarray, slot: int) -> Iterator[None]:
    """While the block runs, a thread sets ``flags[slot] = 1`` once ``stop`` (a
    ``threading.Event``, or anything with its ``wait``) is set; the compiled search in the
    block reads that slot and stops (it must run without the GIL: ``nogil=True``). Without
    a ``stop``, no thread."""
    if stop is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if stop.wait(STOP_POLL):
                flags[slot] = 1
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
