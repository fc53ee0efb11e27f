"""A game's compiled kernels: the :class:`Kernels` record a
:class:`~boardzoo.envs.core.Game` lists them in, and :func:`own_opponent_planes`, the usual
two observation planes for a game's ``observe`` kernel (the random playout a game can build
its own from is :func:`boardzoo.envs.core.make_random_playout`)."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

__all__ = ["Kernels", "own_opponent_planes"]


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
