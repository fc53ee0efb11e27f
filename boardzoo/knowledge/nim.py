"""Nim knowledge: a position key and, for normal play, the exact Sprague-Grundy evaluation.

A heap of ``h`` stones from which a move takes 1..K has Grundy value ``h % (K + 1)``
(unlimited takes: K is the largest starting heap, so the value is ``h``); under normal play
the side to move wins exactly when the xor of the heaps' values is non-zero. With one heap
that is the classic rule "lose when h % (K + 1) == 0".
"""

from __future__ import annotations

import numpy as np
from numba import njit

from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.nim import HEAPS, MISERE, NUM_HEAPS, TAKE_LIMIT
from boardzoo.knowledge.base import Knowledge

__all__ = ["KNOWLEDGE", "key_kernel", "evaluate_kernel", "grundy_value"]

#: evaluation of a won / lost normal-play position (exact sign, inside (-1, 1) as required)
CERTAIN = 0.9


@njit(cache=True)
def key_kernel(state):
    """Heap sizes folded into 64 bits (rotate by 7, xor the heap; the top bit for the side
    to move): exact for up to 9 heaps of at most 127 stones, a hash beyond that."""
    key = np.uint64(0)
    for heap in range(np.int64(state[NUM_HEAPS])):
        key = ((key << np.uint64(7)) | (key >> np.uint64(57))) ^ np.uint64(state[HEAPS + heap])
    return key ^ (np.uint64(state[TO_PLAY]) << np.uint64(63))


@njit(cache=True)
def grundy_value(state):
    """The xor of the heaps' Grundy values ``h % (K + 1)`` (normal play)."""
    modulus = np.int64(state[TAKE_LIMIT]) + 1
    total = 0
    for heap in range(np.int64(state[NUM_HEAPS])):
        total ^= np.int64(state[HEAPS + heap]) % modulus
    return total


@njit(cache=True)
def evaluate_kernel(state):
    """Side to move's view: +CERTAIN when it wins with perfect play, -CERTAIN when it loses
    (normal play, exact); 0 under misère play, where the rule differs."""
    if state[MISERE]:
        return 0.0
    return CERTAIN if grundy_value(state) != 0 else -CERTAIN


#: what search knows about this game (declared on the Game as its ``knowledge``)
KNOWLEDGE = Knowledge(key_kernel=key_kernel, evaluate_kernel=evaluate_kernel)
