"""A small reader and writer for the SGF subset boardzoo uses for Go and Gomoku positions.

SGF (Smart Game Format, FF[4]) stores a game as a tree of nodes, each a list of properties
``IDENT[value][value]...``. boardzoo reads:

* ``SZ`` board size (square boards, 1..25; default 19), ``KM`` komi, ``GM`` game number
  (checked only when the caller asks for one: 1 = Go, 4 = Gomoku);
* ``AB``/``AW`` setup stones (single points or compressed rectangles ``"aa:cc"``) and ``PL``
  (side to play) in the nodes before the first move;
* ``B``/``W`` moves, one per node; ``B[]`` is a pass, and so is ``B[tt]`` on boards up to 19x19.

Coordinates are two lowercase letters, column then row, ``"aa"`` the top-left point; boardzoo
points are ``(row, col)`` with row 0 at the top. Only the *main line* of the game tree is read:
at every branch the first variation is followed and the others are skipped (after a syntax
check), as are further game trees of a collection. Unknown properties (comments, player
names, dates, ...) are ignored. Setup (``AB``, ``AW``, ``AE``) after the first move, ``AE``
anywhere, and rectangular boards are outside the subset and are rejected.

>>> record = parse_sgf("(;GM[4]SZ[15]AB[hh];W[ih]C[a comment \\\\] with a bracket];B[])")
>>> record.size, record.black_setup, record.moves
(15, ((7, 7),), (('W', (7, 8)), ('B', None)))
>>> write_sgf(record, game=4)
'(;GM[4]FF[4]SZ[15]AB[hh];W[ih];B[])'
"""

from __future__ import annotations

from typing import NamedTuple

from boardzoo.errors import InvalidPositionError, excerpt
from boardzoo.options import parse_int

__all__ = ["SgfRecord", "parse_sgf", "write_sgf", "point_to_sgf", "sgf_to_point"]

Point = tuple[int, int]
_MAX_SIZE = 25
_SETUP = ("AB", "AW", "AE")


class SgfRecord(NamedTuple):
    """The main line of an SGF game: board, setup stones and moves (points are (row, col))."""

    size: int  # SZ (19 if absent)
    komi: float | None  # KM, None if absent
    black_setup: tuple[Point, ...]  # AB points, row 0 at the top
    white_setup: tuple[Point, ...]  # AW points
    moves: tuple[tuple[str, Point | None], ...]  # ("B" | "W", point) in order; None = pass
    to_play: str | None  # PL "B" / "W" if present


# ------------------------------------------------------------------------ coordinates
def point_to_sgf(point: Point | None, size: int) -> str:
    """SGF coordinates (column letter, row letter) of a (row, col) point; "" for a pass."""
    if point is None:
        return ""
    row, col = point
    if not (0 <= row < size and 0 <= col < size):
        raise InvalidPositionError(f"point {point} is off the {size}x{size} board")
    return chr(ord("a") + col) + chr(ord("a") + row)


def sgf_to_point(text: str, size: int) -> Point | None:
    """The (row, col) point of SGF coordinates; None for a pass ("" or, up to 19x19, "tt")."""
    if text == "" or (text == "tt" and size <= 19):
        return None
    if len(text) != 2 or not all("a" <= ch <= "z" for ch in text):
        raise InvalidPositionError(
            f"SGF point {excerpt(text)} is malformed: use two lowercase letters, column then row "
            '("aa" is the top-left point)'
        )
    col, row = ord(text[0]) - ord("a"), ord(text[1]) - ord("a")
    if row >= size or col >= size:
        raise InvalidPositionError(f"SGF point {excerpt(text)} is off the {size}x{size} board")
    return row, col


def _point_list(values: list[str], size: int, ident: str) -> list[Point]:
    """The points of a list of point values, expanding compressed rectangles "aa:cc"."""
    points = []
    for value in values:
        corners = [sgf_to_point(part.strip(), size) for part in value.split(":", 1)]
        first, last = corners[0], corners[-1]
        if first is None or last is None:
            raise InvalidPositionError(f"SGF {ident}[{value}] names no point (a pass)")
        (r0, c0), (r1, c1) = first, last
        points += [
            (r, c)
            for r in range(min(r0, r1), max(r0, r1) + 1)
            for c in range(min(c0, c1), max(c0, c1) + 1)
        ]
    return points


# --------------------------------------------------------------------------- reading
def _read_values(text: str, i: int, ident: str) -> tuple[list[str], int]:
    """The bracketed values of property ``ident`` starting at ``text[i]`` and the index after."""
    values = []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text) or text[i] != "[":
            break
        chars, i = [], i + 1
        while i < len(text) and text[i] != "]":
            if text[i] == "\\":  # an escape: the next character is taken as it is
                i += 1
            chars.append(text[i : i + 1])
            i += 1
        if i >= len(text):
            raise InvalidPositionError(f"SGF is malformed: unbalanced brackets, {ident}[ unclosed")
        values.append("".join(chars))
        i += 1
    if not values:
        raise InvalidPositionError(f"SGF is malformed: property {ident} has no [value]")
    return values, i


def _syntax_error(text: str, i: int, what: str) -> InvalidPositionError:
    return InvalidPositionError(
        f"SGF is malformed at offset {i} ({text[i : i + 12]!r}...): {what}; "
        "expected a game tree such as (;GM[1]SZ[9]AB[cc];W[dd];B[])"
    )


#: which token may precede each structural token (None: the start of the text)
_ALLOWED_AFTER = {"(": (None, ")", ";", "prop"), ")": (";", "prop", ")"), ";": ("(", ";", "prop")}


def _main_line(text: str) -> list[dict[str, list[str]]]:
    """The property dicts of the main-line nodes of the first game tree in ``text``."""
    nodes: list[dict[str, list[str]]] = []
    depth, i, prev, on_main_line = 0, 0, None, True
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            break
        ch = text[i]
        if (prev is None and ch != "(") or (prev == "(" and ch != ";"):
            raise _syntax_error(text, i, "a game tree must start with '(;'")
        if ch in "();":
            if (depth == 0 and ch != "(") or prev not in _ALLOWED_AFTER[ch]:
                raise _syntax_error(text, i, f"unexpected {ch!r} (unbalanced parentheses?)")
            depth += {"(": 1, ")": -1, ";": 0}[ch]
            on_main_line = on_main_line and ch != ")"
            if ch == ";" and on_main_line:
                nodes.append({})
            prev, i = ch, i + 1
        elif "A" <= ch <= "Z" and prev in (";", "prop"):
            start = i
            while i < len(text) and "A" <= text[i] <= "Z":
                i += 1
            ident = text[start:i]
            values, i = _read_values(text, i, ident)
            if on_main_line:
                nodes[-1].setdefault(ident, []).extend(values)
            prev = "prop"
        else:
            what = "unbalanced brackets" if ch == "]" else f"unexpected character {ch!r}"
            raise _syntax_error(text, i, what)
    if prev is None or depth != 0:
        raise _syntax_error(text, i, "unbalanced parentheses" if prev else "empty text")
    return nodes


def _single(node: dict[str, list[str]], ident: str) -> str | None:
    """The one value of property ``ident`` in ``node`` (None if absent)."""
    values = node.get(ident)
    if values is None:
        return None
    if len(values) != 1:
        raise InvalidPositionError(f"SGF property {ident} takes one value, got {values}")
    return values[0].strip()


def _size(root: dict[str, list[str]]) -> int:
    text = _single(root, "SZ")
    if text is None:
        return 19
    size = parse_int(text, max_digits=9)
    if size is None:
        raise InvalidPositionError(
            f"SGF SZ[{excerpt(text)}] is not supported: boardzoo needs one number (square "
            "boards)"
        )
    if not 1 <= size <= _MAX_SIZE:
        raise InvalidPositionError(f"SGF SZ[{text}] is out of range: sizes are 1..{_MAX_SIZE}")
    return size


def _komi(root: dict[str, list[str]]) -> float | None:
    text = _single(root, "KM")
    try:
        return None if text is None else float(text)
    except ValueError:
        raise InvalidPositionError(f"SGF KM[{text}] is not a number") from None


def _check_game(root: dict[str, list[str]], game: int | None) -> None:
    text = _single(root, "GM")
    if game is not None and text is not None and text != str(game):
        raise InvalidPositionError(f"SGF GM[{text}] is another game: expected GM[{game}]")


def _move(node: dict[str, list[str]], size: int) -> tuple[str, Point | None] | None:
    """The move of a node, or None for a node without one."""
    colours = [colour for colour in ("B", "W") if colour in node]
    if len(colours) > 1:
        raise InvalidPositionError("SGF node has both a B and a W move; use one move per node")
    if not colours:
        return None
    return colours[0], sgf_to_point(_single(node, colours[0]) or "", size)


def parse_sgf(text: str, game: int | None = None) -> SgfRecord:
    """The main line of SGF ``text`` as an SgfRecord (see the module docstring for the subset).

    ``game`` (1 = Go, 4 = Gomoku), if given, must match a ``GM`` property when there is one.
    Malformed text, points off the board and unsupported features raise InvalidPositionError.
    """
    nodes = _main_line(text)
    root = nodes[0]
    _check_game(root, game)
    size = _size(root)
    setup: dict[str, list[str]] = {}
    moves: list[tuple[str, Point | None]] = []
    for index, node in enumerate(nodes):
        if index and "SZ" in node:
            raise InvalidPositionError("SGF SZ must be in the root node only")
        move = _move(node, size)
        if (moves or move) and any(ident in node for ident in _SETUP):
            raise InvalidPositionError("SGF setup (AB/AW/AE) after the first move is not supported")
        if move is not None:
            moves.append(move)
        elif not moves:
            for ident, values in node.items():
                setup.setdefault(ident, []).extend(values)
    if "AE" in setup:
        raise InvalidPositionError("SGF AE (remove stones) is not supported")
    to_play = _single(setup, "PL")
    if to_play is not None and to_play.upper() not in ("B", "W"):
        raise InvalidPositionError(f"SGF PL[{to_play}] must be B or W")
    return SgfRecord(
        size=size,
        komi=_komi(root),
        black_setup=tuple(_point_list(setup.get("AB", []), size, "AB")),
        white_setup=tuple(_point_list(setup.get("AW", []), size, "AW")),
        moves=tuple(moves),
        to_play=None if to_play is None else to_play.upper(),
    )


# --------------------------------------------------------------------------- writing
def write_sgf(record: SgfRecord, game: int) -> str:
    """SGF text of ``record``: one root node with GM[game] (1 = Go, 4 = Gomoku), FF[4], SZ,
    KM if set, AB/AW, PL if set, then one node per move. ``parse_sgf`` reads it back equal."""
    size = record.size
    root = f"(;GM[{game}]FF[4]SZ[{size}]"
    if record.komi is not None:
        root += f"KM[{float(record.komi)!r}]"
    for ident, points in (("AB", record.black_setup), ("AW", record.white_setup)):
        if points:
            root += ident + "".join(f"[{point_to_sgf(p, size)}]" for p in points)
    if record.to_play is not None:
        root += f"PL[{record.to_play}]"
    moves = "".join(f";{colour}[{point_to_sgf(p, size)}]" for colour, p in record.moves)
    return root + moves + ")"
