"""The board as a picture, for every game: laid out once as shapes, drawn as SVG text
(notebooks, docs) and as an anti-aliased RGB image (``render_mode="rgb_array"``).

A picture shows the board with its coordinates, the pieces, the last move (a red dot; the
pieces it captured, flipped or took away ringed) and, under the board, the side to move or
the result. Games whose pieces carry letters (chess) are drawn on a chequered board, and their
last move's square is ringed, not dotted, so that the letter stays readable. Games describe
their board through ``Game.cells``, ``Game.coordinate_labels`` and their colour attributes;
nothing here knows a particular game.

>>> from boardzoo.envs import make_game
>>> game = make_game("tictactoe")
>>> before = game.parse_position("X...O....")
>>> picture = draw_board(game, game.step(before, 8), last_move=(before, 8))
>>> picture.svg().startswith("<svg"), picture.to_array().shape
(True, (200, 168, 3))
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from html import escape
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from boardzoo.envs.core import DRAW, ONGOING, P0_WINS, Game

__all__ = ["BoardPicture", "draw_board", "last_move_cells"]

RGB = tuple[int, int, int]

CELL = 40  # pixels per cell of the RGB image (user units of the SVG)
MARGIN = 24  # room for the coordinate labels
STATUS = 32  # the band under the board: side to move, last move, result
SUPERSAMPLE = 4  # the RGB image is drawn this many times larger, then reduced (anti-aliasing)
PAGE: RGB = (250, 248, 244)
INK: RGB = (60, 56, 50)
LABEL: RGB = (122, 116, 106)
LIGHT_SQUARE: RGB = (240, 217, 181)  # a chequered board's light squares (the page's too)
MARK: RGB = (229, 57, 53)
WHITE: RGB = (255, 255, 255)
MARKS = {"X": (47, 58, 143), "O": (184, 50, 42)}  # tic-tac-toe draws letters, not discs
FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"


class Rect(NamedTuple):
    x: float
    y: float
    width: float
    height: float
    fill: RGB
    radius: float = 0.0


class Line(NamedTuple):
    x1: float
    y1: float
    x2: float
    y2: float
    colour: RGB
    width: float


class Circle(NamedTuple):
    cx: float
    cy: float
    r: float
    fill: RGB | None
    stroke: RGB | None = None
    width: float = 0.0
    dashed: bool = False


class Text(NamedTuple):
    """Text at (x, y): centred on it, or starting or ending there (``anchor``)."""

    x: float
    y: float
    text: str
    size: float
    colour: RGB
    bold: bool = False
    anchor: str = "middle"  # "start" | "middle" | "end", as SVG's text-anchor


Shape = Rect | Line | Circle | Text


class BoardPicture(NamedTuple):
    """A laid-out board: its size in pixels and its shapes, back to front. Notebooks show
    it (``_repr_svg_``); ``svg()`` is the SVG text, ``to_image()`` a PIL image and
    ``to_array()`` the uint8 ``(height, width, 3)`` array of ``render_mode="rgb_array"``."""

    width: int
    height: int
    shapes: tuple[Shape, ...]

    def svg(self) -> str:
        body = "".join(_svg(shape) for shape in self.shapes)
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" viewBox="0 0 {self.width} {self.height}">{body}</svg>'
        )

    def _repr_svg_(self) -> str:
        return self.svg()

    def to_image(self, scale: float = 1) -> Image.Image:
        """The picture as a PIL image ``scale`` times its size, drawn for that size (sharp,
        where enlarging the image would blur it): on a canvas SUPERSAMPLE times the picture's
        size, and at least twice the result's, then reduced."""
        k = max(SUPERSAMPLE, 2 * scale)
        big = Image.new("RGB", (round(self.width * k), round(self.height * k)), PAGE)
        draw = ImageDraw.Draw(big)
        for shape in self.shapes:
            _paint(draw, shape, k)
        size = (max(1, round(self.width * scale)), max(1, round(self.height * scale)))
        return big.resize(size, Image.Resampling.LANCZOS)

    def to_array(self) -> np.ndarray:
        return np.asarray(self.to_image(), dtype=np.uint8).copy()


def draw_board(
    game: Game, state: np.ndarray, last_move: tuple[np.ndarray, int] | None = None
) -> BoardPicture:
    """The picture of ``state``; ``last_move`` is ``(state before it, action)`` when known."""
    cells = game.cells(state)
    rows, cols = cells.shape
    board_w, board_h = cols * CELL, rows * CELL
    width, height = board_w + 2 * MARGIN, board_h + 2 * MARGIN + STATUS
    shapes: list[Shape] = [
        Rect(0, 0, width, height, PAGE),
        Rect(MARGIN, MARGIN, board_w, board_h, game.board_rgb, radius=6),
        *(_squares(rows, cols) if game.lettered_pieces else _grid(game, rows, cols)),
        *_labels(game, rows, cols),
    ]
    letters = game.symbols(state) if game.lettered_pieces else None
    for r, c in zip(*np.nonzero(cells), strict=True):
        shapes.extend(_piece(game, int(cells[r, c]), *_centre(int(r), int(c))))
        if letters is not None:
            shapes.append(_letter(game, int(cells[r, c]), str(letters[r, c]),
                                  *_centre(int(r), int(c))))
    target, changed = last_move_cells(game, *last_move, state) if last_move else (None, [])
    for cell in changed:
        shapes.append(Circle(*_centre(*divmod(cell, cols)), CELL * 0.44, None, MARK, 2, True))
    if target is not None and letters is not None:
        shapes.append(Circle(*_centre(*divmod(target, cols)), CELL * 0.47, None, MARK, 2.5))
    elif target is not None:
        shapes.append(Circle(*_centre(*divmod(target, cols)), CELL * 0.13, MARK, WHITE, 1.5))
    shapes.extend(_status(game, state, last_move, width, height))
    return BoardPicture(width, height, tuple(shapes))


def last_move_cells(
    game: Game, before: np.ndarray, action: int, after: np.ndarray
) -> tuple[int | None, list[int]]:
    """The row-major cell the move ``before -> after`` was played on (the one it filled; if
    none, the cell its text names, e.g. Go's suicide; else the first it emptied, Nim's take),
    None for a pass; and the other cells whose piece it changed (captures, flips, removals)."""
    old, new = game.cells(before).ravel(), game.cells(after).ravel()
    filled = np.flatnonzero((old == 0) & (new != 0))
    emptied = np.flatnonzero((old != 0) & (old != new))
    named = _cell_names(game).get(game.move_to_str(before, action))
    if filled.size == 1:
        target: int | None = int(filled[0])
    elif named is not None:
        target = named
    else:
        target = int(emptied[0]) if emptied.size else None
    return target, [int(c) for c in emptied if c != target]


def _cell_names(game: Game) -> dict[str, int]:
    """Coordinate name (column label, then row label: "c3") -> row-major cell index."""
    row_labels, col_labels = game.coordinate_labels()
    return {f"{col}{row}": r * len(col_labels) + c
            for r, row in enumerate(row_labels) for c, col in enumerate(col_labels)}


def _centre(row: int, col: int) -> tuple[float, float]:
    return MARGIN + (col + 0.5) * CELL, MARGIN + (row + 0.5) * CELL


def _grid(game: Game, rows: int, cols: int) -> Iterator[Line]:
    """Lines through the cell centres (Go, Gomoku) or between the cells."""
    dark = sum(game.board_rgb) < 3 * 128
    colour = (200, 210, 230) if dark else (70, 60, 45)
    points = game.pieces_on_intersections
    half = CELL / 2 if points else 0
    inner_r = range(rows) if points else range(1, rows)
    inner_c = range(cols) if points else range(1, cols)
    width = 1.4 if points else 1.2
    for r in inner_r:
        y = MARGIN + r * CELL + half
        yield Line(MARGIN + half, y, MARGIN + cols * CELL - half, y, colour, width)
    for c in inner_c:
        x = MARGIN + c * CELL + half
        yield Line(x, MARGIN + half, x, MARGIN + rows * CELL - half, colour, width)


def _squares(rows: int, cols: int) -> Iterator[Rect]:
    """The light squares of a chequered board over the board's (dark) colour; the top-left
    square is light, as on a chess board seen from White's side."""
    for r in range(rows):
        for c in range(r % 2, cols, 2):
            yield Rect(MARGIN + c * CELL, MARGIN + r * CELL, CELL, CELL, LIGHT_SQUARE)


def _labels(game: Game, rows: int, cols: int) -> Iterator[Text]:
    row_labels, col_labels = game.coordinate_labels()
    for c, text in enumerate(col_labels):
        yield Text(MARGIN + (c + 0.5) * CELL, MARGIN / 2, text, 12, LABEL)
    for r, text in enumerate(row_labels):
        yield Text(MARGIN / 2, MARGIN + (r + 0.5) * CELL, text, 12, LABEL)


def _piece(game: Game, piece: int, x: float, y: float, scale: float = 1.0) -> list[Shape]:
    """A disc in the seat's colour, or tic-tac-toe's letter."""
    symbol = game.piece_symbols[piece]
    if game.name == "tictactoe":
        return [Text(x, y, symbol, CELL * 0.75 * scale, MARKS.get(symbol, INK), bold=True)]
    colour = game.piece_rgb[piece - 1]
    edge = (0, 0, 0) if sum(colour) < 3 * 128 else (150, 150, 150)
    return [Circle(x, y, CELL * 0.42 * scale, colour, edge, 1.0)]


def _letter(game: Game, piece: int, letter: str, x: float, y: float) -> Text:
    """A piece's letter on its disc, in the other seat's colour."""
    return Text(x, y, letter.upper(), CELL * 0.45, game.piece_rgb[2 - piece], bold=True)


def _status(
    game: Game, state: np.ndarray, last_move: tuple[np.ndarray, int] | None, width: int,
    height: int,
) -> list[Shape]:
    """The band under the board: the mover's piece and "to move" (or the winner's piece and
    "wins", or "draw"), and the last move in the game's notation."""
    outcome = game.outcome(state)
    y = height - STATUS / 2 - 2
    if outcome == DRAW:
        seat, text = None, "draw"
    elif outcome == ONGOING:
        seat, text = game.to_play(state), "to move"
    else:
        seat, text = (0 if outcome == P0_WINS else 1), "wins"
    x: float = MARGIN
    shapes: list[Shape] = []
    if seat is not None:
        shapes.extend(_piece(game, seat + 1, x + CELL * 0.2, y, scale=0.45))
        x += CELL * 0.5
    shapes.append(Text(x, y, text, 13, INK, anchor="start"))
    if last_move is not None:
        move = f"last {game.move_to_str(*last_move)}"
        shapes.append(Text(width - MARGIN, y, move, 13, LABEL, anchor="end"))
    return shapes


# ------------------------------------------------------------------------------ SVG
def _colour(rgb: RGB | None) -> str:
    return "none" if rgb is None else f"rgb({rgb[0]},{rgb[1]},{rgb[2]})"


def _svg(shape: Shape) -> str:
    if isinstance(shape, Rect):
        return (f'<rect x="{shape.x:g}" y="{shape.y:g}" width="{shape.width:g}" '
                f'height="{shape.height:g}" rx="{shape.radius:g}" fill="{_colour(shape.fill)}"/>')
    if isinstance(shape, Line):
        return (f'<line x1="{shape.x1:g}" y1="{shape.y1:g}" x2="{shape.x2:g}" y2="{shape.y2:g}" '
                f'stroke="{_colour(shape.colour)}" stroke-width="{shape.width:g}"/>')
    if isinstance(shape, Circle):
        dash = ' stroke-dasharray="5 4"' if shape.dashed else ""
        return (f'<circle cx="{shape.cx:g}" cy="{shape.cy:g}" r="{shape.r:g}" '
                f'fill="{_colour(shape.fill)}" stroke="{_colour(shape.stroke)}" '
                f'stroke-width="{shape.width:g}"{dash}/>')
    weight = ' font-weight="bold"' if shape.bold else ""
    return (f'<text x="{shape.x:g}" y="{shape.y:g}" font-family="{FONT}" '
            f'font-size="{shape.size:g}"{weight} fill="{_colour(shape.colour)}" '
            f'text-anchor="{shape.anchor}" dominant-baseline="central">'
            f"{escape(shape.text)}</text>")


# ------------------------------------------------------------------------------ PIL
@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def _paint(draw: ImageDraw.ImageDraw, shape: Shape, k: float) -> None:
    """Draw ``shape`` at ``k`` times its size (supersampling)."""
    if isinstance(shape, Rect):
        box = (shape.x * k, shape.y * k, (shape.x + shape.width) * k, (shape.y + shape.height) * k)
        draw.rounded_rectangle(box, radius=shape.radius * k, fill=shape.fill)
    elif isinstance(shape, Line):
        draw.line((shape.x1 * k, shape.y1 * k, shape.x2 * k, shape.y2 * k), fill=shape.colour,
                  width=max(1, round(shape.width * k)))
    elif isinstance(shape, Circle):
        box = ((shape.cx - shape.r) * k, (shape.cy - shape.r) * k,
               (shape.cx + shape.r) * k, (shape.cy + shape.r) * k)
        width = max(1, round(shape.width * k)) if shape.stroke else 0
        if shape.dashed:
            for start in range(0, 360, 30):  # 12 dashes
                draw.arc(box, start, start + 18, fill=shape.stroke, width=width)
        else:
            draw.ellipse(box, fill=shape.fill, outline=shape.stroke, width=width)
    else:
        font = _font(round(shape.size * k))
        stroke = max(1, int(k // 2)) if shape.bold else 0
        anchor = {"start": "lm", "middle": "mm", "end": "rm"}[shape.anchor]
        draw.text((shape.x * k, shape.y * k), shape.text, fill=shape.colour, font=font,
                  anchor=anchor, stroke_width=stroke, stroke_fill=shape.colour)

