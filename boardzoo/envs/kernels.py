"""A game's compiled kernels: the :class:`Kernels` record a
:class:`~boardzoo.envs.core.Game` lists them in, and generic kernels a game can build its own
from (uniformly random playouts, the usual two observation planes)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from boardzoo.envs.core import ONGOING, OUTCOME
from boardzoo.rng import choose_true

__all__ = ["Kernels", "make_random_playout", "own_opponent_planes"]


class Kernels(NamedTuple):
    """A game's compiled kernels, ``game.kernels.apply`` and so on:

    * ``legal_mask(state, out) -> int``: fill the bool array ``out`` (shape
      ``[num_actions]``) with the legal actions and return how many there are (0 at the end);
    * ``apply(state, action)``: play a legal action *in place*, updating the header;
    * ``playout(state, rng) -> int``: play uniformly random legal moves in place to the end
      and return the outcome code (``rng`` from :mod:`boardzoo.rng`).
    """

    legal_mask: Any
    apply: Any
    playout: Any
    #: optional: ``playout_trace(state, rng, trace) -> plies``, a playout (the same policy as
    #: ``playout``) that also writes the actions it played into ``trace``; games where moves
    #: transpose provide it for RAVE
    playout_trace: Any = None
    #: optional: ``observe(state, seat, out)``, the compiled form of
    #: :meth:`~boardzoo.envs.core.Game.observe` filling float32 ``out`` (shape
    #: ``planes_shape``) from ``seat``'s view; vector envs call it for N boards in one
    #: compiled loop
    observe: Any = None


@njit(cache=True)
def own_opponent_planes(cells, seat, rows, cols):
    """float32 planes (rows, cols, 2) from ``seat``'s view of a row-major cell array with
    0 empty, 1 player_0, 2 player_1: plane 0 the seat's own pieces, plane 1 the opponent's."""
    planes = np.zeros((rows, cols, 2), np.float32)
    own = seat + 1
    for i in range(rows * cols):
        if cells[i] != 0:
            planes[i // cols, i % cols, 0 if cells[i] == own else 1] = 1.0
    return planes


def make_random_playout(legal_mask_kernel, apply_kernel, num_actions_kernel):
    """Compiled uniformly random playouts for games with no faster specialised one:
    ``(playout(state, rng) -> outcome, playout_trace(state, rng, trace) -> plies)``.

    The traced version also writes the actions played into ``trace`` (as many as fit) and
    returns how many plies it played (RAVE needs them). ``num_actions_kernel(state)`` sizes
    the legal-mask scratch array. Both are compiled per process (they close over the game's
    kernels, which numba cannot cache).
    """

    @njit
    def playout_trace(state, rng, trace):
        scratch = np.empty(num_actions_kernel(state), np.bool_)  # the kernel fills it all
        plies = 0
        while state[OUTCOME] == ONGOING:
            action = choose_true(rng, scratch, legal_mask_kernel(state, scratch))
            if plies < trace.shape[0]:
                trace[plies] = action
            plies += 1
            apply_kernel(state, action)
        return plies

    @njit
    def playout(state, rng):
        playout_trace(state, rng, np.empty(0, np.int64))
        return state[OUTCOME]

    return playout, playout_trace
