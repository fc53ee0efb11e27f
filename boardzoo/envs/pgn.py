"""PGN (Portable Game Notation) for chess records: the seven tag roster, ``SetUp``/``FEN``
for a game that starts away from the start position, and the moves in SAN with move numbers.

The arena's and the page's records are exported through :func:`write_pgn`; python-chess's
``chess.pgn.read_game`` and chess GUIs read what it writes.

>>> from boardzoo.envs.chess import Chess
>>> game = Chess()
>>> start = game.initial_state()
>>> print(write_pgn(start, [2421, 2421], [0.0, 0.0], {"White": "me"}))  # doctest: +ELLIPSIS
[Event "?"]
...
[White "me"]
[Black "?"]
[Result "*"]
<BLANKLINE>
1. e4 e5 *
<BLANKLINE>
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence

import numpy as np

from boardzoo.envs import chess_moves as cm
from boardzoo.envs.chess import START_FEN, fen, san
from boardzoo.envs.core import ONGOING, OUTCOME, PLY

__all__ = ["pgn_result", "write_pgn"]

_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_LINE = 79  # PGN export format: lines of at most 79 characters


def pgn_result(returns: Sequence[float], finished: bool) -> str:
    """PGN's result of a game with per-seat ``returns`` (white's first): "1-0", "0-1",
    "1/2-1/2", or "*" for a game still running."""
    if not finished:
        return "*"
    if returns[0] == returns[1]:
        return "1/2-1/2"
    return "1-0" if returns[0] > returns[1] else "0-1"


def write_pgn(start: np.ndarray, moves: Sequence[int], returns: Sequence[float],
              tags: Mapping[str, str] | None = None, finished: bool | None = None) -> str:
    """The game of ``moves`` (actions, each legal in turn) from the chess state ``start`` as
    PGN text. ``finished`` defaults to whether the last position ends the game by the rules
    (pass True for a game lost on time or by resignation); tags fill the roster ("?" where
    absent) and may add others."""
    state = start.copy()
    words = []
    for action in moves:
        number, black = divmod(int(state[PLY]), 2)
        if not black:
            words.append(f"{number + 1}.")
        elif not words:
            words.append(f"{number + 1}...")
        words.append(san(state, int(action)))
        cm.apply_kernel(state, int(action))
    if finished is None:
        finished = int(state[OUTCOME]) != ONGOING
    result = pgn_result(returns, finished)
    words.append(result)
    header = {name: "?" for name in _ROSTER} | dict(tags or {}) | {"Result": result}
    first = fen(start)
    if first != START_FEN:
        header |= {"SetUp": "1", "FEN": first}
    lines = [f'[{name} "{_escaped(str(value))}"]' for name, value in header.items()]
    return "\n".join(lines) + "\n\n" + textwrap.fill(" ".join(words), _LINE) + "\n"


def _escaped(value: str) -> str:
    """A tag value with PGN's escapes (backslash and quote) and no line breaks."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
