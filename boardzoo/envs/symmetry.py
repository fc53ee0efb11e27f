"""Board symmetries: maps of observation planes and of actions that leave the rules unchanged.

A game declares which group it has in ``Game.symmetry``:

* ``"dihedral"``: the 8 rotations and reflections of a square board (tic-tac-toe, Othello,
  Go, Gomoku); actions are ``row * N + col``, with an optional pass after the board cells
  that maps to itself;
* ``"mirror"``: the left-right reflection (Connect Four: the action is the column);
* ``"none"``: only the identity (Nim).

A :class:`Symmetry` transforms planes ``(..., H, W, C)`` and carries ``action_map``: the action
``a`` of the original position is ``action_map[a]`` in the transformed one, so a policy
``p`` becomes ``p_t[action_map] = p``. AlphaZero's training uses them for augmentation and its
agent optionally averages the network over them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from boardzoo.envs.core import Game

__all__ = ["KINDS", "Symmetry", "symmetries"]

KINDS = ("dihedral", "mirror", "none")


class Symmetry(NamedTuple):
    """``rotations`` quarter turns (counter-clockwise, as ``np.rot90``) after an optional
    left-right ``flip``; ``action_map[a]`` is the image of action ``a``."""

    name: str
    flip: bool
    rotations: int
    action_map: np.ndarray

    def planes(self, planes: np.ndarray) -> np.ndarray:
        """The transformed planes; ``planes`` has shape ``(..., H, W, C)`` (not modified)."""
        out = np.flip(planes, axis=-2) if self.flip else planes
        return np.ascontiguousarray(np.rot90(out, self.rotations, axes=(-3, -2)))

    def policy(self, policy: np.ndarray) -> np.ndarray:
        """A policy (or mask) over actions, shape ``(..., A)``, moved to the transformed board."""
        out = np.empty_like(policy)
        out[..., self.action_map] = policy
        return out


def symmetries(game: Game) -> list[Symmetry]:
    """The symmetries of ``game`` (identity first), from its ``symmetry`` declaration."""
    kind = getattr(game, "symmetry", "none")
    rows, cols = game.planes_shape[:2]
    identity = Symmetry("identity", False, 0, np.arange(game.num_actions))
    if kind == "none":
        return [identity]
    if kind == "mirror":
        if game.num_actions != cols:
            raise ValueError(f"{game.name}: a 'mirror' game's actions must be its {cols} columns")
        return [identity, Symmetry("mirror", True, 0, np.arange(cols)[::-1].copy())]
    if kind != "dihedral":
        raise ValueError(f"{game.name}: unknown symmetry {kind!r}; use one of {KINDS}")
    if rows != cols or game.num_actions not in (rows * cols, rows * cols + 1):
        raise ValueError(f"{game.name}: 'dihedral' needs a square board with cell actions")
    cells = np.arange(rows * cols).reshape(rows, cols, 1)
    out = []
    for flip in (False, True):
        for rotations in range(4):
            name = ("flip+" if flip else "") + f"rot{90 * rotations}"
            probe = Symmetry(name, flip, rotations, np.empty(0, np.int64))
            moved = probe.planes(cells)[..., 0]  # moved[r, c] = the cell that lands on (r, c)
            action_map = np.arange(game.num_actions)
            action_map[moved.ravel()] = np.arange(rows * cols)
            out.append(probe._replace(action_map=action_map))
    out[0] = out[0]._replace(name="identity")
    return out
