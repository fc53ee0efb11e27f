"""Helpers shared by the uint64 bitboard games (Connect Four, Othello)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["popcount"]


@njit(cache=True)
def popcount(bits):
    """The number of set bits of a uint64 bitboard (stones or discs on the board), as int64."""
    x = bits - ((bits >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    x = x + (x >> np.uint64(8))
    x = x + (x >> np.uint64(16))
    x = x + (x >> np.uint64(32))
    return np.int64(x & np.uint64(0x7F))
