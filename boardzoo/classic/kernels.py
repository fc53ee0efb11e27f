"""Compiled pieces of the ``pettingzoo.classic`` drop-ins' observations.

A drop-in with a compiled observation writes the selected agent's planes and masks in one
call of its own ``observation_kernel(state, seat, planes, legal, mask)`` (cached: it names
its game's kernels as globals, which numba can cache and closures over them it cannot)::

    observe_kernel(state, seat, planes)
    legal_mask_kernel(final_position(state), legal)
    mask[:] = legal
"""

from __future__ import annotations

from numba import njit

from boardzoo.envs.core import ONGOING, OUTCOME

__all__ = ["final_position"]


@njit(cache=True)
def final_position(state):
    """The position whose legal moves PettingZoo's classic envs list for the selected
    agent: ``state`` itself while the game runs; after the end a copy with the outcome
    cleared (they keep listing the final position's moves)."""
    if state[OUTCOME] == ONGOING:
        return state
    final = state.copy()
    final[OUTCOME] = ONGOING
    return final
