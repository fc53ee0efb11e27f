"""A monotonic wall clock that compiled (numba) code can read, for time-limited searches.

Numba has no ``time`` module; :func:`monotonic` calls libc's
``clock_gettime(CLOCK_MONOTONIC)`` as an external C function (a direct call, ~50 ns), which
numba can cache on disk. Under ``NUMBA_DISABLE_JIT=1`` the same function reads the same clock
through ctypes, so searches behave the same in plain Python.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import numpy as np
from numba import config, njit, types

__all__ = ["monotonic"]

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
