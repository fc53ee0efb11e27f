"""A monotonic wall clock that compiled (numba) code can read, for time-limited searches.

Numba has no ``time`` module; this calls libc's ``clock_gettime(CLOCK_MONOTONIC)`` through
ctypes, which numba compiles to a direct call (~50 ns). The same function works in plain
Python, so searches behave the same under ``NUMBA_DISABLE_JIT=1``. Functions that call it
cannot be cached by numba (a ctypes pointer is a dynamic global).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys

import numpy as np
from numba import njit

__all__ = ["monotonic"]

_CLOCK_MONOTONIC = 1 if sys.platform.startswith("linux") else 6  # 6 on macOS
_libc = ctypes.CDLL(ctypes.util.find_library("c"))
_clock_gettime = _libc.clock_gettime
_clock_gettime.restype = ctypes.c_int
_clock_gettime.argtypes = [ctypes.c_int, ctypes.c_void_p]


@njit
def monotonic() -> float:
    """Seconds on a monotonic clock (the same clock as ``time.monotonic()`` on Linux)."""
    timespec = np.zeros(2, np.int64)
    _clock_gettime(_CLOCK_MONOTONIC, timespec.ctypes.data)
    return timespec[0] + timespec[1] * 1e-9
