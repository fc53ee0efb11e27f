"""The board as the page draws it: cells, which cell each legal move is played by clicking,
the last move, the pieces it captured or flipped, and the counts.

The click map is derived from the rules alone (no per-game code): an action's *target* is the
one cell it fills (a stone placed, a disc dropped, a square claimed); when it fills none, the
cell its move text names (Go's suicide, whose stone is removed at once), else the first piece
it removes in reading order (Nim: clicking a stone takes it and every stone to its right).
Actions with no target (Go's and Othello's pass) are buttons. In games whose actions are the
board's columns (Connect Four), a click anywhere in a column plays it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.envs.core import PLY, Game

__all__ = ["action_targets", "board_view", "changed_cells", "game_view"]


def action_targets(game: Game, state: np.ndarray) -> dict[int, int | None]:
    """Legal action -> the row-major index of the cell it is played by, or None (a pass)."""
    before = game.cells(state).ravel()
    named = _cell_names(game)
    targets: dict[int, int | None] = {}
    for action in game.legal_actions(state):
        after = game.cells(game.step(state, action)).ravel()
        filled = np.flatnonzero((before == 0) & (after != 0))
        emptied = np.flatnonzero((before != 0) & (after == 0))
        if filled.size == 1:
            targets[action] = int(filled[0])
        elif filled.size == 0 and game.action_to_str(action) in named:
            targets[action] = named[game.action_to_str(action)]  # Go's suicide: placed, gone
        elif filled.size == 0 and emptied.size:
            targets[action] = int(emptied[0])
        else:
            targets[action] = None
    return targets


def _cell_names(game: Game) -> dict[str, int]:
    """Coordinate name (column label, then row label: "c3") -> row-major cell index."""
    row_labels, col_labels = game.coordinate_labels()
    return {f"{col}{row}": r * len(col_labels) + c
            for r, row in enumerate(row_labels) for c, col in enumerate(col_labels)}


def changed_cells(game: Game, before: np.ndarray, after: np.ndarray) -> list[int]:
    """Cells that held a piece before a move and hold another or none after it (captures,
    flips, Nim's removals), row-major indices."""
    old, new = game.cells(before).ravel(), game.cells(after).ravel()
    return np.flatnonzero((old != 0) & (old != new)).tolist()


def _click_map(game: Game, targets: dict[int, int | None], cols: int) -> dict[int, int]:
    """Cell -> action for every clickable cell."""
    clicks = {cell: action for action, cell in targets.items() if cell is not None}
    if game.num_actions == cols:  # the actions are the columns: any cell of one plays it
        rows = game.cells(game.initial_state()).shape[0]
        for action, cell in targets.items():
            if cell is not None:
                for row in range(rows):
                    clicks.setdefault(row * cols + cell % cols, action)
    return clicks


def board_view(game: Game, state: np.ndarray) -> dict[str, Any]:
    """The position as JSON: cells (rows of 0 empty / 1 player_0 / 2 player_1), labels, the
    click map, the buttons (moves without a cell), side to move and result."""
    cells = game.cells(state)
    rows, cols = cells.shape
    targets = action_targets(game, state)
    row_labels, col_labels = game.coordinate_labels()
    outcome = game.outcome(state)
    return {
        "cells": cells.tolist(),
        "rows": rows,
        "cols": cols,
        "row_labels": row_labels,
        "col_labels": col_labels,
        "targets": {str(a): cell for a, cell in targets.items() if cell is not None},
        "clicks": {str(cell): action for cell, action in _click_map(game, targets, cols).items()},
        "buttons": [{"action": a, "label": game.action_to_str(a)}
                    for a, cell in targets.items() if cell is None],
        "legal": {str(a): game.action_to_str(a) for a in targets},
        "to_play": game.to_play(state),
        "outcome": ["ongoing", "player_0", "player_1", "draw"][outcome],
        "ply": int(state[PLY]),
        "counts": [int((cells == 1).sum()), int((cells == 2).sum())],
        "position": game.position(state),
    }


def game_view(game: Game) -> dict[str, Any]:
    """How to draw the game: its name, options, colours and piece symbols."""
    return {
        "name": game.name,
        "options": {k: v for k, v in game.options.items()},
        "intersections": bool(game.pieces_on_intersections),
        "board_rgb": list(game.board_rgb),
        "piece_rgb": [list(c) for c in game.piece_rgb],
        "symbols": list(game.piece_symbols),
        "num_actions": game.num_actions,
    }
