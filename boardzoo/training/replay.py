"""The replay buffer: the training positions of the most recent games, rebuilt from their
records (moves + sparse policy targets), with symmetry augmentation when sampling.

Each position is ``(planes [H, W, C] from the side to move's view, legal mask [A],
target policy pi [A], target value z)`` with ``z`` the final return of the side to move.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from boardzoo.envs.core import Game
from boardzoo.envs.symmetry import symmetries
from boardzoo.errors import CheckpointError, excerpt

__all__ = ["ReplayBuffer", "positions_of"]


def positions_of(game: Game, record: dict[str, Any]):
    """The training positions of one game record, as a list of (planes, mask, pi, z).
    A record whose moves are not legal or whose targets do not fit is a CheckpointError."""
    by_ply = {t["ply"]: t for t in record.get("targets", [])}
    returns = np.asarray(record["returns"], dtype=np.float32)
    state = game.initial_state()
    out = []
    try:
        for ply, move in enumerate([*record["moves"], None]):
            target = by_ply.get(ply)
            if target is not None:
                mask = game.legal_mask(state)
                pi = np.zeros(game.num_actions, np.float32)
                pi[np.asarray(target["actions"], np.int64)] = target["probs"]
                if not mask[pi > 0].all():
                    raise ValueError(f"ply {ply}: policy target on an illegal action")
                seat = game.to_play(state)
                out.append((game.observe(state, seat), mask, pi, float(returns[seat])))
            if move is not None:
                state = game.step(state, int(move))
    except (ValueError, KeyError, IndexError, TypeError) as err:
        raise CheckpointError(
            f"game record {excerpt(record.get('id'))} is inconsistent: {err}") from None
    return out


class ReplayBuffer:
    """The last ``window`` positions (oldest dropped first), sampled uniformly; optionally
    with anchored positions that make up a fixed share of every batch (:meth:`anchor`)."""

    def __init__(self, game: Game, window: int):
        self.game = game
        self.window = window
        self._positions: deque = deque(maxlen=window)
        self._anchors: list = []
        self._anchor_share = 0.0
        self._symmetries = symmetries(game)
        self.games = 0

    def __len__(self) -> int:
        return len(self._positions) + len(self._anchors)

    def add_game(self, record: dict[str, Any]) -> int:
        """Add a game's positions; returns how many it had."""
        positions = positions_of(self.game, record)
        self._positions.extend(positions)
        self.games += 1
        return len(positions)

    def add_positions(self, positions: list) -> None:
        """Add ready-made positions (planes, mask, pi, z), e.g. labelled ones."""
        self._positions.extend(positions)

    def anchor(self, positions: list, share: float) -> None:
        """Keep ``positions`` (e.g. solver labels) apart from the window, never pushed out:
        ``round(share * batch_size)`` of every batch are drawn from them, the rest from the
        window (all of it from them while the window is empty)."""
        if not 0 < share < 1 or not positions:
            raise ValueError(f"anchor: needs positions and a share in (0, 1), got {excerpt(share)}")
        self._anchors = list(positions)
        self._anchor_share = share

    def sample(self, batch_size: int, rng: np.random.Generator, augment: bool = True):
        """A batch ``(planes [B, H, W, C], masks [B, A], pi [B, A], z [B])``; each position
        under a random symmetry of the game when ``augment``."""
        rows_of = list(zip(*self._draw(batch_size, rng), strict=True))
        planes, masks, pis = np.stack(rows_of[0]), np.stack(rows_of[1]), np.stack(rows_of[2])
        zs = rows_of[3]
        if augment and len(self._symmetries) > 1:
            which = rng.integers(len(self._symmetries), size=batch_size)
            for k, sym in enumerate(self._symmetries[1:], start=1):
                rows = which == k
                if rows.any():
                    planes[rows] = sym.planes(planes[rows])
                    masks[rows] = sym.policy(masks[rows])
                    pis[rows] = sym.policy(pis[rows])
        return planes, masks, pis, np.asarray(zs, np.float32)

    def _draw(self, batch_size: int, rng: np.random.Generator) -> list:
        """``batch_size`` positions drawn uniformly with replacement: the anchors' share from
        the anchors, the rest from the window."""
        if not self._positions and not self._anchors:
            raise ValueError("sample: the replay buffer is empty")
        if not self._anchors:
            anchored = 0
        elif not self._positions:
            anchored = batch_size
        else:
            anchored = round(self._anchor_share * batch_size)
        rows = []
        if anchored:
            rows += [self._anchors[int(i)] for i in rng.integers(len(self._anchors), size=anchored)]
        if anchored < batch_size:
            picks = rng.integers(len(self._positions), size=batch_size - anchored)
            rows += [self._positions[int(i)] for i in picks]
        return rows
