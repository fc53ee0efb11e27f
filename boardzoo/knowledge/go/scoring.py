"""The final score of a Go game as every front-end reports it (the arena, ``boardzoo play``,
the browser page, GTP's ``final_score`` and ``final_status_list``).

Area scoring, komi to White, from Black's view (positive: Black ahead), two ways:

- on the board as it stands (Tromp-Taylor: every stone is alive; what the rules of
  :mod:`boardzoo.envs.go` score);
- with the dead stones removed, as players agree on them: a chain is dead when the mean
  ownership of its points over :data:`OWNERSHIP_PLAYOUTS` heuristic playouts from the board
  (:func:`boardzoo.knowledge.go.ownership_estimate_kernel`), from its own colour's view, is
  below :data:`DEAD_BELOW`. The playouts are seeded with :data:`SCORING_SEED`, so a board
  always gets the same score wherever it is scored.

The result is written as Go players write it: ``B+3.5``, ``W+0.5``, ``0`` (a draw), and
``B+R`` / ``W+R`` for a resignation, ``B+T`` / ``W+T`` for a loss on time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from boardzoo.envs.core import TO_PLAY
from boardzoo.envs.go import Go
from boardzoo.envs.go_board import ownership_kernel
from boardzoo.knowledge.go.evaluation import ownership_estimate_kernel
from boardzoo.rng import make_rng

__all__ = ["DEAD_BELOW", "OWNERSHIP_PLAYOUTS", "SCORING_SEED", "FinalScore", "chains",
           "dead_chains", "final_score", "final_text", "liberties", "ownership", "result_text",
           "score_report", "winner_text"]

OWNERSHIP_PLAYOUTS = 400
"""Playouts behind one dead-stone estimate (about 0.1 s on 19x19)."""
DEAD_BELOW = -0.2
"""A chain is dead when its points' mean ownership from its colour's view is below this."""
SCORING_SEED = 0
"""The playouts' seed: the same board gets the same dead stones and score everywhere."""


class FinalScore(NamedTuple):
    """A Go board scored (module docstring), from Black's view, komi included: ``board``
    as it stands (Tromp-Taylor), ``agreed`` with the ``dead`` chains removed (each a sorted
    tuple of actions)."""

    board: float
    agreed: float
    dead: tuple[tuple[int, ...], ...]

    @property
    def text(self) -> str:
        """The agreed score as Go players write it, e.g. ``B+3.5``."""
        return result_text(self.agreed)

    @property
    def dead_stones(self) -> list[int]:
        """Every dead stone's action, in action order."""
        return sorted(a for chain in self.dead for a in chain)


def result_text(score: float) -> str:
    """``score`` (Black's view) as Go players write a result: ``B+3.5``, ``W+2``, ``0``."""
    if score == 0:
        return "0"
    return f"{'B' if score > 0 else 'W'}+{abs(score):g}"


def winner_text(winner: int, how: str) -> str:
    """A result decided otherwise than by the score: ``winner`` (0 Black, 1 White) and
    ``how`` ("R": the other resigned, "T": the other lost on time), e.g. ``W+R``."""
    return f"{'BW'[winner]}+{how}"


def final_score(game: Go, state: np.ndarray, playouts: int = OWNERSHIP_PLAYOUTS) -> FinalScore:
    """The board of ``state`` scored both ways (module docstring)."""
    dead = dead_chains(game, state, playouts)
    cells = game.cells(state).ravel().copy()
    for chain in dead:
        cells[list(chain)] = 0
    agreed = game.score(game.board_position(cells, int(state[TO_PLAY])))
    return FinalScore(game.score(state), agreed, tuple(dead))


def score_report(game: Go, state: np.ndarray) -> str:
    """The finished game's result and its score in words, e.g. ``B+3.5 (area scoring, komi
    7.5: Black 45, White 41.5; dead stones removed: C3 D3)``, and the score on the board as
    it stands where the dead stones change it."""
    score = final_score(game, state)
    cells = game.cells(state).ravel().copy()
    cells[score.dead_stones] = 0
    board = game.board_position(cells, int(state[TO_PLAY]))
    owner = np.zeros(game.size * game.size)
    ownership_kernel(board, owner)
    black, white = int(np.sum(owner > 0)), int(np.sum(owner < 0)) + game.komi
    dead = " ".join(game.action_to_str(a) for a in score.dead_stones) or "none"
    text = (f"{score.text} (area scoring, komi {game.komi:g}: Black {black:g}, White "
            f"{white:g}; dead stones removed: {dead})")
    if score.dead:
        text += f"; on the board as it stands (every stone alive): {result_text(score.board)}"
    return text


def final_text(game: Go, state: np.ndarray) -> str:
    """A finished game's result as every front-end writes it: the agreed score's text."""
    return final_score(game, state).text


def dead_chains(game: Go, state: np.ndarray,
                playouts: int = OWNERSHIP_PLAYOUTS) -> list[tuple[int, ...]]:
    """The chains whose mean ownership from their own colour's view is below DEAD_BELOW."""
    owner = ownership(game, state, playouts)
    cells = game.cells(state).ravel()
    dead = []
    for chain in chains(cells, game.size):
        sign = 1.0 if cells[chain[0]] == 1 else -1.0
        if sign * float(owner[list(chain)].mean()) < DEAD_BELOW:
            dead.append(chain)
    return dead


def ownership(game: Go, state: np.ndarray, playouts: int = OWNERSHIP_PLAYOUTS) -> np.ndarray:
    """Mean final owner of every point (``[N*N]``, action order; +1 Black, -1 White) over
    ``playouts`` seeded heuristic playouts from the board of ``state`` (its history left
    out, so that a finished game plays on)."""
    board = game.board_position(game.cells(state).ravel(), int(state[TO_PLAY]))
    out = np.zeros(game.size * game.size)
    ownership_estimate_kernel(board, make_rng(SCORING_SEED), playouts, out)
    return out


def chains(cells: np.ndarray, size: int) -> list[tuple[int, ...]]:
    """The chains of stones of ``cells`` (``[N*N]``: 0 empty, 1 Black, 2 White), each a
    sorted tuple of actions, in the order of their first stone."""
    seen = np.zeros(cells.shape[0], dtype=bool)
    found = []
    for start in np.flatnonzero(cells):
        if seen[start]:
            continue
        chain, stack = [], [int(start)]
        seen[start] = True
        while stack:
            a = stack.pop()
            chain.append(a)
            for b in neighbours(a, size):
                if cells[b] == cells[start] and not seen[b]:
                    seen[b] = True
                    stack.append(b)
        found.append(tuple(sorted(chain)))
    return found


def liberties(cells: np.ndarray, size: int, chain: tuple[int, ...]) -> list[int]:
    """The empty points next to ``chain``, in action order."""
    return sorted({b for a in chain for b in neighbours(a, size) if cells[b] == 0})


def neighbours(action: int, size: int) -> Iterator[int]:
    """The points next to ``action`` on a ``size`` board."""
    row, col = divmod(action, size)
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < size and 0 <= c < size:
            yield r * size + c
