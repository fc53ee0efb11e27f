"""Writes the board pictures the docs show (docs/images/board-<game>.svg), drawn by
boardzoo.envs.drawing: ``python docs/make_pictures.py``. tests/test_docs.py checks that the
committed files are what this writes."""

from __future__ import annotations

from pathlib import Path

from boardzoo.envs import make_env

IMAGES = Path(__file__).resolve().parent / "images"
# each game a few moves in, so the picture shows pieces and the last move
POSITIONS = {
    "tictactoe": ({}, ["b2", "a1", "c3"]),
    "nim": ({"heaps": (3, 4, 5)}, ["3:2"]),
    "connect_four": ({}, [3]),
    "othello": ({}, ["d3", "c5"]),
    "go": ({"board_size": 9}, ["E5", "C4", "G3", "F6"]),
    "gomoku": ({"board_size": 9}, ["E5", "D4", "F5"]),
    "chess": ({}, ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]),
}


def pictures() -> dict[str, str]:
    """File name -> SVG text."""
    out = {}
    for name, (options, moves) in POSITIONS.items():
        env = make_env(name, **options)
        env.reset(options={"moves": moves})
        out[f"board-{name}.svg"] = env.picture().svg() + "\n"
    return out


if __name__ == "__main__":
    for file, svg in pictures().items():
        (IMAGES / file).write_text(svg, encoding="utf-8")
        print("wrote", IMAGES / file)
