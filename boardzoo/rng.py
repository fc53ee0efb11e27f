"""A tiny explicit random-number generator for compiled kernels.

Numba's ``np.random`` keeps hidden global state per thread; boardzoo's kernels instead take
their generator as an argument: a ``np.uint64`` array of shape ``[1]`` holding an xorshift64
state. The same source runs compiled and under ``NUMBA_DISABLE_JIT=1`` and gives the same
numbers in both, so a seed reproduces a playout exactly. The draws are inlined into their
callers (``inline="always"``: a compiled call that passes an array costs two atomic
reference-count updates, see :mod:`boardzoo.envs.go_board`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_MASK64 = (1 << 64) - 1
_GOLDEN_GAMMA = 0x9E3779B97F4A7C15  # splitmix64's increment


def make_rng(seed: int | np.random.Generator | None = None) -> np.ndarray:
    """A fresh kernel generator (``np.uint64`` array of shape ``[1]``) from a seed or Generator.

    ``None`` draws the seed from the operating system. The seed is scrambled with splitmix64
    so that nearby seeds give unrelated streams and the state is never zero.
    """
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, 2**63))
    elif seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
    return np.array([splitmix64(int(seed)) or 1], dtype=np.uint64)


def splitmix64(seed: int, index: int = 1) -> int:
    """The ``index``-th output (1, 2, ...) of Vigna's splitmix64 generator started at ``seed``:
    a 64-bit Python int. Scrambles seeds (:func:`make_rng`) and makes fixed key tables (the
    Zobrist keys of :mod:`boardzoo.envs.go_board`)."""
    z = (seed + index * _GOLDEN_GAMMA) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


@njit(cache=True, inline="always")
def next_u64(rng: np.ndarray) -> np.uint64:
    """Advance the xorshift64 state in place and return the new 64-bit value."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return x


@njit(cache=True)
def scramble(x: np.uint64) -> np.uint64:
    """A bijective mix of a 64-bit word: three xorshift rounds (no multiplications, so plain
    Python gives the same value without overflow warnings). For hashing position keys."""
    for _ in range(3):
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
    return x


@njit(cache=True, inline="always")
def below(rng: np.ndarray, n: int) -> np.int64:
    """A uniform integer in ``[0, n)`` (``n >= 1``; the modulo bias is below 2**-40)."""
    return np.int64(next_u64(rng) % np.uint64(n))


@njit(cache=True, inline="always")
def uniform(rng: np.ndarray) -> float:
    """A uniform float in ``[0, 1)`` with 53 random bits."""
    return np.float64(next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def choose_true(rng: np.ndarray, mask: np.ndarray, count: int) -> int:
    """The index of a uniformly chosen True entry of ``mask``, which has ``count`` of them."""
    k = below(rng, count)
    for i in range(mask.shape[0]):
        if mask[i]:
            if k == 0:
                return i
            k -= 1
    return -1
