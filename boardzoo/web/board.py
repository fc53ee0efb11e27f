"""The board as the page draws it: cells, which cell each legal move is played by clicking,
the last move, the pieces it captured or flipped, the counts, a winning line and a score.

The click map is derived from the rules alone (no per-game code): an action's *target* is the
one cell it fills (a stone placed, a disc dropped, a square claimed); when it fills none, the
cell its move text names (Go's suicide, whose stone is removed at once), else the first piece
it removes in reading order (Nim: clicking a stone takes it and every stone to its right).
Actions with no target (Go's and Othello's pass) are buttons. In games whose actions are the
board's columns (Connect Four), a click anywhere in a column plays it. A move whose text names
two cells and maybe a suffix (chess's UCI ``e2e4``, ``e7e8q``) is a *step*: played by
clicking its from-cell, then its to-cell, then (where several moves share both: promotions)
choosing the suffix; its target is the to-cell.

The winning line is read off the board the same way: when a move that only placed one piece
wins the game, the longest straight run of the winner's pieces through it (of exactly
``win_length`` where the game has that option), as in tic-tac-toe, Connect Four and Gomoku.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from boardzoo.envs.core import PLY, Game

__all__ = ["action_targets", "board_view", "changed_cells", "game_view", "result_detail",
           "step_cells", "winning_line"]

_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
MIN_LINE = 3  # a shorter run is never shown as a winning line


def action_targets(game: Game, state: np.ndarray) -> dict[int, int | None]:
    """Legal action -> the row-major index of the cell it is played by, or None (a pass)."""
    return _effects(game, state)[0]


def step_cells(game: Game, state: np.ndarray, action: int) -> tuple[int, int, str] | None:
    """(from-cell, to-cell, suffix) of a step (see the module docstring: chess's ``e7e8q`` is
    (52, 60, "q") seen from the top-left), or None for a move of another kind."""
    named = _cell_names(game)
    text = game.move_to_str(state, action)
    for split in range(2, len(text) - 1):
        first, rest = text[:split], text[split:]
        if first not in named:
            continue
        for end in range(len(rest), 1, -1):
            if rest[:end] in named:
                return named[first], named[rest[:end]], rest[end:]
    return None


def _effects(game: Game, state: np.ndarray) -> tuple[dict[int, int | None],
                                                       dict[int, list[int]]]:
    """(legal action -> its target cell or None, as :func:`action_targets`; action -> the
    cells it empties, for the actions that only take pieces away, as in Nim)."""
    before = game.cells(state).ravel()
    named = _cell_names(game)
    targets: dict[int, int | None] = {}
    removes: dict[int, list[int]] = {}
    for action in game.legal_actions(state):
        text = game.move_to_str(state, action)
        step = step_cells(game, state, action)
        if step is not None:
            targets[action] = step[1]
            continue
        after = game.cells(game.step(state, action)).ravel()
        filled = np.flatnonzero((before == 0) & (after != 0))
        emptied = np.flatnonzero((before != 0) & (after == 0))
        if filled.size == 1:
            targets[action] = int(filled[0])
        elif filled.size == 0 and text in named:
            targets[action] = named[text]  # Go's suicide: placed, gone
        elif filled.size == 0 and emptied.size:
            targets[action] = int(emptied[0])
            removes[action] = emptied.tolist()
        else:
            targets[action] = None
    return targets, removes


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


def _click_map(game: Game, targets: dict[int, int | None], cols: int,
               steps: dict[int, tuple[int, int, str]]) -> dict[int, int]:
    """Cell -> action for every cell a single click plays (steps take two)."""
    clicks = {cell: action for action, cell in targets.items()
              if cell is not None and action not in steps}
    if game.num_actions == cols:  # the actions are the columns: any cell of one plays it
        rows = game.cells(game.initial_state()).shape[0]
        for action, cell in targets.items():
            if cell is not None:
                for row in range(rows):
                    clicks.setdefault(row * cols + cell % cols, action)
    return clicks


def board_view(game: Game, state: np.ndarray) -> dict[str, Any]:
    """The position as JSON: cells (rows of 0 empty / 1 player_0 / 2 player_1), each piece's
    letter where pieces differ (chess's FEN letters), labels, the click map, the steps
    (action -> from-cell, to-cell, suffix), the cells each removing move takes (Nim), the
    buttons (moves without a cell), the king in check (chess), side to move and result."""
    cells = game.cells(state)
    rows, cols = cells.shape
    targets, removes = _effects(game, state)
    steps = {a: step for a in targets if (step := step_cells(game, state, a)) is not None}
    checked = getattr(game, "checked_king", None)
    row_labels, col_labels = game.coordinate_labels()
    outcome = game.outcome(state)
    return {
        "cells": cells.tolist(),
        "rows": rows,
        "cols": cols,
        "row_labels": row_labels,
        "col_labels": col_labels,
        "targets": {str(a): cell for a, cell in targets.items() if cell is not None},
        "letters": game.symbols(state).tolist() if game.lettered_pieces else None,
        "clicks": {str(cell): action
                   for cell, action in _click_map(game, targets, cols, steps).items()},
        "steps": {str(a): list(step) for a, step in steps.items()},
        "removes": {str(a): cells for a, cells in removes.items()},
        "buttons": [{"action": a, "label": game.move_label(state, a)}
                    for a, cell in targets.items() if cell is None],
        "legal": {str(a): game.move_label(state, a) for a in targets},
        "check": None if checked is None else checked(state),
        "to_play": game.to_play(state),
        "outcome": ["ongoing", "player_0", "player_1", "draw"][outcome],
        "ply": int(state[PLY]),
        "counts": [int((cells == 1).sum()), int((cells == 2).sum())],
        "position": game.position(state),
    }


def game_view(game: Game) -> dict[str, Any]:
    """How to draw the game: its name, options, colours and piece symbols; and whether it
    has an exact solver (alpha-beta and MCTS try it first, and the page says so meanwhile)."""
    return {
        "name": game.name,
        "options": {k: v for k, v in game.options.items()},
        "intersections": bool(game.pieces_on_intersections),
        "board_rgb": list(game.board_rgb),
        "piece_rgb": [list(c) for c in game.piece_rgb],
        "symbols": list(game.piece_symbols),
        "num_actions": game.num_actions,
        "exact_solver": getattr(game.knowledge, "solve", None) is not None,
    }


def winning_line(game: Game, before: np.ndarray, after: np.ndarray,
                 cell: int | None) -> list[int]:
    """The cells (row-major) of the line that the move from ``before`` to ``after``, played
    on ``cell``, won the game with; [] for any other move (see the module docstring)."""
    if cell is None or game.is_terminal(before) or not game.is_terminal(after):
        return []
    mover = game.to_play(before)
    if game.returns(after)[mover] <= 0 or changed_cells(game, before, after):
        return []
    cells = game.cells(after)
    rows, cols = cells.shape
    row, col = divmod(cell, cols)
    runs = [_run(cells, row, col, dr, dc) for dr, dc in _DIRECTIONS]
    wanted = game.options.get("win_length")
    exact = [run for run in runs if len(run) == wanted]
    line = max(exact or runs, key=len)
    return sorted(r * cols + c for r, c in line) if len(line) >= MIN_LINE else []


def _run(cells: np.ndarray, row: int, col: int, dr: int, dc: int) -> list[tuple[int, int]]:
    """The straight run of ``cells[row, col]``'s piece through (row, col) along (dr, dc)."""
    piece, (rows, cols) = cells[row, col], cells.shape
    run = [(row, col)]
    for sign in (1, -1):
        r, c = row + sign * dr, col + sign * dc
        while 0 <= r < rows and 0 <= c < cols and cells[r, c] == piece:
            run.append((r, c))
            r, c = r + sign * dr, c + sign * dc
    return run


def result_detail(game: Game, state: np.ndarray) -> str | None:
    """The score of a finished game where its rules keep one (Go's area score, komi
    included: "B+3.5", "W+9.5", "0"), how it ended where its rules name ways (chess: "by
    checkmate", "by insufficient material"), else None."""
    reason = getattr(game, "end_reason", None)
    if reason is not None:
        return f"by {reason(state).replace('_', ' ')}"
    score = getattr(game, "score", None)
    if score is None:
        return None
    from boardzoo.knowledge.go.scoring import result_text

    return result_text(score(state))
