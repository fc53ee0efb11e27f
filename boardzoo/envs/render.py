"""Renders shared by every game: a text board with coordinates, and a pygame window showing
the picture of :mod:`boardzoo.envs.drawing` (which also makes the RGB image).

Games describe their board through ``Game.cells`` (0 empty, 1/2 a piece of player_0/1),
``Game.coordinate_labels`` and a few style attributes; nothing here knows a particular game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from boardzoo.envs.core import DRAW, ONGOING, P0_WINS

if TYPE_CHECKING:
    from boardzoo.envs.core import Game


def status_line(game: Game, state: np.ndarray) -> str:
    """ "player_0 (X) to move", "player_1 (O) wins" (Go: "Black (X) to move") or "draw"."""
    outcome = game.outcome(state)
    if outcome == ONGOING:
        seat = game.to_play(state)
        return f"{game.seat_names[seat]} ({game.piece_symbols[seat + 1]}) to move"
    if outcome == DRAW:
        return "draw"
    seat = 0 if outcome == P0_WINS else 1
    return f"{game.seat_names[seat]} ({game.piece_symbols[seat + 1]}) wins"


def render_ansi(game: Game, state: np.ndarray) -> str:
    """The board as text with row and column labels, then a status line."""
    symbols = game.symbols(state)
    row_labels, col_labels = game.coordinate_labels()
    pad = max(len(label) for label in row_labels)
    width = max(len(label) for label in col_labels)
    lines = [" " * (pad + 1) + " ".join(label.ljust(width) for label in col_labels)]
    for label, row in zip(row_labels, symbols, strict=True):
        pieces = " ".join(str(symbol).ljust(width) for symbol in row)
        lines.append(f"{label.rjust(pad)} {pieces}")
    lines.append(status_line(game, state))
    return "\n".join(lines) + "\n"


class HumanWindow:
    """A pygame window showing the rgb render; pygame-ce is imported only when one opens."""

    def __init__(self, title: str):
        try:
            import pygame
        except ImportError as err:  # pragma: no cover - depends on the installation
            raise ImportError(
                'render_mode="human" needs pygame-ce: pip install "boardzoo[human]"'
            ) from err
        self._pygame = pygame
        pygame.init()
        pygame.display.set_caption(title)
        self._screen: Any = None  # the window's surface, once the first frame sizes it

    def show(self, frame: np.ndarray) -> None:
        pygame = self._pygame
        if self._screen is None:
            self._screen = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
        surface = pygame.surfarray.make_surface(frame.swapaxes(0, 1))
        self._screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()

    def close(self) -> None:
        self._pygame.display.quit()
