"""Renders shared by every game: a text board with coordinates, an RGB image, a pygame window.

Games describe their board through ``Game.cells`` (0 empty, 1/2 a piece of player_0/1),
``Game.coordinate_labels`` and a few style attributes; nothing here knows a particular game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, ImageDraw

from boardzoo.envs.core import DRAW, ONGOING, P0_WINS

if TYPE_CHECKING:
    from boardzoo.envs.core import Game

CELL = 40
MARGIN = 24


def status_line(game: Game, state: np.ndarray) -> str:
    """ "player_0 (X) to move", "player_1 (O) wins" or "draw"."""
    outcome = game.outcome(state)
    if outcome == ONGOING:
        seat = game.to_play(state)
        return f"player_{seat} ({game.piece_symbols[seat + 1]}) to move"
    if outcome == DRAW:
        return "draw"
    seat = 0 if outcome == P0_WINS else 1
    return f"player_{seat} ({game.piece_symbols[seat + 1]}) wins"


def render_ansi(game: Game, state: np.ndarray) -> str:
    """The board as text with row and column labels, then a status line."""
    cells = game.cells(state)
    row_labels, col_labels = game.coordinate_labels()
    pad = max(len(label) for label in row_labels)
    width = max(len(label) for label in col_labels)
    lines = [" " * (pad + 1) + " ".join(label.ljust(width) for label in col_labels)]
    for label, row in zip(row_labels, cells, strict=True):
        pieces = " ".join(game.piece_symbols[int(c)].ljust(width) for c in row)
        lines.append(f"{label.rjust(pad)} {pieces}")
    lines.append(status_line(game, state))
    return "\n".join(lines) + "\n"


def render_rgb(game: Game, state: np.ndarray) -> np.ndarray:
    """The board as a uint8 RGB image (H, W, 3), with coordinates in the margin."""
    cells = game.cells(state)
    rows, cols = cells.shape
    size = (2 * MARGIN + cols * CELL, 2 * MARGIN + rows * CELL)
    image = Image.new("RGB", size, game.board_rgb)
    draw = ImageDraw.Draw(image)
    on_points = game.pieces_on_intersections
    _draw_grid(draw, rows, cols, on_points)
    _draw_labels(draw, game.coordinate_labels())
    for r in range(rows):
        for c in range(cols):
            if cells[r, c]:
                x0, y0 = MARGIN + c * CELL + 4, MARGIN + r * CELL + 4
                fill = game.piece_rgb[int(cells[r, c]) - 1]
                draw.ellipse((x0, y0, x0 + CELL - 8, y0 + CELL - 8), fill=fill, outline=(0, 0, 0))
    return np.asarray(image, dtype=np.uint8).copy()


def _draw_grid(draw: ImageDraw.ImageDraw, rows: int, cols: int, on_points: bool) -> None:
    """Cell borders, or (Go) lines through the cell centres."""
    offset = CELL // 2 if on_points else 0
    last_r = rows - 1 if on_points else rows
    last_c = cols - 1 if on_points else cols
    for r in range(last_r + 1):
        y = MARGIN + offset + r * CELL
        draw.line((MARGIN + offset, y, MARGIN + offset + last_c * CELL, y), fill=(0, 0, 0))
    for c in range(last_c + 1):
        x = MARGIN + offset + c * CELL
        draw.line((x, MARGIN + offset, x, MARGIN + offset + last_r * CELL), fill=(0, 0, 0))


def _draw_labels(draw: ImageDraw.ImageDraw, labels: tuple[list[str], list[str]]) -> None:
    row_labels, col_labels = labels
    for r, text in enumerate(row_labels):
        draw.text((4, MARGIN + r * CELL + CELL // 2 - 5), text, fill=(0, 0, 0))
    for c, text in enumerate(col_labels):
        draw.text((MARGIN + c * CELL + CELL // 2 - 3, 6), text, fill=(0, 0, 0))


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
        self._screen = None

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
