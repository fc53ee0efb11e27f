"""Tic-tac-toe knowledge: an exact position key.

No evaluation is needed: alpha-beta reaches the end of every line within nine plies and
solves every position exactly (values +1 / 0 / -1 from the side to move's view).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.core import HEADER
from boardzoo.knowledge.base import Knowledge

__all__ = ["KNOWLEDGE", "key_kernel"]


@njit(cache=True)
def key_kernel(state):
    """The board in base 3 (cells 0..8 as digits 0 empty, 1 X, 2 O): unique per position;
    the side to move follows from the marks."""
    key = 0
    for cell in range(9):
        key = key * 3 + np.int64(state[HEADER + cell])
    return np.uint64(key)


#: what search knows about this game (declared on the Game as its ``knowledge``)
KNOWLEDGE = Knowledge(key_kernel=key_kernel)
