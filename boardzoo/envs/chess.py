"""Chess with every rule, as python-chess plays it.

=================  =============================================================
Actions            4,672 = 8 x 8 x 73, AlphaZero's layout indexed exactly as PettingZoo's
                   chess_v6: ``(file * 8 + rank) * 73 + plane`` with the from-square seen
                   from the mover's side (black's ranks counted from rank 8); planes 0..55
                   queen-direction moves (``distance - 1) * 8 + direction``, directions
                   ordered (file step, rank step) = (-1,-1), (-1,0), (-1,1), (0,-1), (0,1),
                   (1,-1), (1,0), (1,1)), 56..63 knight moves, 64..72 underpromotions
                   (``3 * (file step + 1)`` + knight 0, bishop 1, rook 2); a pawn reaching
                   the last rank by a queen plane promotes to a queen. ``e2e4`` is 2421, and
                   so is black's ``e7e5``.
Move notation      UCI: ``e2e4``, ``e7e8q``, castling as the king's move ``e1g1``.
                   An action names a move only with the side to move known:
                   ``game.move_to_str(state, action)`` / ``game.str_to_move(state, text)``
                   (which also reads SAN: ``Nf3``, ``exd5``, ``O-O``, ``e8=Q+``);
                   ``action_to_str`` / ``str_to_action`` read an action as white's move.
                   :func:`san` writes SAN.
Players            player_0 is white and moves first; player_1 is black.
Observation        float32 (8, 8, 21) from the observer's side: row 0 the far rank (rank 8
                   for white, rank 1 for black), column 0 the a-file. Planes 0-5 the
                   observer's pawns, knights, bishops, rooks, queens, king; 6-11 the
                   opponent's; 12 ones if the observer plays black; 13 ones if the observer
                   is to move (zeros at the end); 14, 15 the observer's castling rights
                   (king's side, queen's side), 16, 17 the opponent's; 18 ones if this
                   position occurred before (its second occurrence: a third ends the game);
                   19 the fifty-move counter, halfmoves / 100, on every square; 20 a one on
                   the square a pawn may capture onto en passant
Rewards            +1 / -1 for checkmate; 0 for a draw
Ending             checkmate, stalemate, and draws exactly when python-chess's
                   ``is_insufficient_material()``, ``is_repetition(3)`` (the current
                   position's third occurrence, with the same side to move, castling rights
                   and legal en passant captures) or ``is_fifty_moves()`` (100 halfmoves
                   without a capture or pawn move) says so; a checkmate on the 100th
                   halfmove stands. Nothing else ends a game (no move limit).
Options            none
Position text      FEN, e.g. the start "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -
                   0 1", optionally followed by `` moves `` and UCI moves (as UCI's
                   ``position fen ... moves ...``; "startpos" stands for the start FEN).
                   ``position()`` writes the FEN of the position after the last capture or
                   pawn move and the moves since, which decide repetitions, or the plain
                   FEN when there are none. FEN's en passant field is written only when an
                   en passant capture is legal, and castling rights only where king and rook
                   stand on their squares (as python-chess writes them). The halfmove clock
                   and fullmove number default to 0 and 1.
Coordinates        files a-h from the left, ranks 8-1 from the top
Speed              perft(5) from the start (4,865,609 leaves) in about 0.04 CPU-s; the
                   AEC random loop about 47x PettingZoo's ``chess_v6``; alpha-beta's nodes
                   per second beside Stockfish's single-thread figure on the same positions
                   (``boardzoo bench chess``)
Strength           ``AlphaBetaAgent(time_limit=0.5)`` against Stockfish 15.1 with
                   ``UCI_LimitStrength``, 0.5 s a move, 20 paired games a level:
                   ``UCI_Elo`` 1750 82.5% [61, 93], 2000 45% [26, 66]; the first
                   version's search scored 1350 97.5% [80, 99.7], 1500 87.5% [67, 96]
                   (95% intervals; ``benchmarks/chess_ladder.py``)
Version history    v0: first release
=================  =============================================================

State: ``uint64``, one self-contained array (repetition history included); its layout and
the kernels are in :mod:`boardzoo.envs.chess_moves`.

>>> game = Chess()
>>> state = game.initial_state()
>>> game.str_to_move(state, "e4"), game.move_to_str(state, 2421)
(2421, 'e2e4')
>>> state = game.step(state, 2421)
>>> game.move_to_str(state, 2421), san(state, 2421)
('e7e5', 'e5')
"""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from boardzoo.envs import chess_moves as cm
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, PLY, TO_PLAY, DeclaredKnowledge, Game
from boardzoo.envs.kernels import Kernels
from boardzoo.errors import IllegalActionError, InvalidPositionError, excerpt
from boardzoo.options import strict_keywords

__all__ = ["START_FEN", "Chess", "end_reason", "fen", "san", "env", "raw_env"]

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
FILES = "abcdefgh"
LETTERS = "pnbrqk"  # by piece type: PAWN 0 .. KING 5
_CASTLING_TEXT = (("K", cm.WHITE_OO, 4, 7), ("Q", cm.WHITE_OOO, 4, 0),
                  ("k", cm.BLACK_OO, 60, 63), ("q", cm.BLACK_OOO, 60, 56))
_MAX_FULLMOVE = 100_000


def square_name(square: int) -> str:
    return FILES[square % 8] + str(square // 8 + 1)


def _parse_square(text: str) -> int | None:
    if len(text) == 2 and text[0] in FILES and text[1] in "12345678":
        return (int(text[1]) - 1) * 8 + FILES.index(text[0])
    return None


def _bits(state: np.ndarray, slot: int) -> int:
    return int(state[slot])


# ------------------------------------------------------------------------------ FEN
def fen(state: np.ndarray) -> str:
    """The FEN of the state's position (no move history)."""
    rows = []
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for file in range(8):
            letter = _letter(state, rank * 8 + file)
            if letter == ".":
                empty += 1
                continue
            row += (str(empty) if empty else "") + letter
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    rights = int(state[cm.CASTLING])
    castling = "".join(t for t, flag, _, _ in _CASTLING_TEXT if rights & flag) or "-"
    ep = int(state[cm.EP])
    ply = int(state[PLY])
    return (f"{'/'.join(rows)} {'wb'[int(state[TO_PLAY])]} {castling} "
            f"{'-' if ep == cm.NO_SQUARE else square_name(ep)} {int(state[cm.HALFMOVE])} "
            f"{ply // 2 + 1}")


def _letter(state: np.ndarray, square: int) -> str:
    """FEN's letter of the piece on ``square`` (upper case white), "." for none."""
    piece = int(cm.piece_on(state, square))
    if piece < 0:
        return "."
    white = _bits(state, cm.COLOURS) >> square & 1
    return LETTERS[piece].upper() if white else LETTERS[piece]


def parse_fen(text: str) -> np.ndarray:
    """A state (a fresh repetition window) from FEN; InvalidPositionError saying what is
    wrong with malformed or impossible text."""
    fields = text.split()
    if not 4 <= len(fields) <= 6:
        _bad_fen(text, f"it has {len(fields)} fields; FEN has 6 (placement, side to move, "
                       "castling, en passant, halfmove clock, fullmove number; the last two "
                       "may be left out)")
    state = np.zeros(cm.STATE_SIZE, dtype=np.uint64)
    _place_pieces(state, fields[0], text)
    if fields[1] not in ("w", "b"):
        _bad_fen(text, f"the side to move is {fields[1]!r}, not 'w' or 'b'")
    side = "wb".index(fields[1])
    clocks = [_clock(text, value, name, low) for value, name, low in
              zip(fields[4:], ("halfmove clock", "fullmove number"), (0, 1), strict=False)]
    halfmove = clocks[0] if clocks else 0
    fullmove = clocks[1] if len(clocks) > 1 else 1
    state[TO_PLAY] = side
    state[PLY] = 2 * (fullmove - 1) + side
    state[cm.HALFMOVE] = halfmove
    state[cm.CASTLING] = _castling(state, fields[2], text)
    _check_placement(state, text)
    state[cm.EP] = _en_passant(state, fields[3], text)
    _start_window(state)
    return state


def _bad_fen(text: str, problem: str) -> NoReturn:
    raise InvalidPositionError(f"FEN {excerpt(text)} is not a chess position: {problem}")


def _place_pieces(state: np.ndarray, placement: str, text: str) -> None:
    ranks = placement.split("/")
    if len(ranks) != 8:
        _bad_fen(text, f"its placement has {len(ranks)} ranks, not 8 separated by '/'")
    for index, row in enumerate(ranks):
        rank, file = 7 - index, 0
        for ch in row:
            if ch in "12345678":
                file += int(ch)
            elif ch.lower() in LETTERS and file < 8:
                square = rank * 8 + file
                state[cm.PIECES + LETTERS.index(ch.lower())] |= np.uint64(1 << square)
                state[cm.COLOURS + (0 if ch.isupper() else 1)] |= np.uint64(1 << square)
                file += 1
            elif ch.lower() not in LETTERS:
                _bad_fen(text, f"rank {rank + 1} has {ch!r}; pieces are PNBRQK (white) and "
                               "pnbrqk (black), empty squares digits 1-8")
            else:
                file += 1
        if file != 8:
            _bad_fen(text, f"rank {rank + 1} ({row!r}) covers {file} squares, not 8")


def _clock(text: str, value: str, name: str, low: int) -> int:
    if not value.isdigit() or not low <= int(value) <= _MAX_FULLMOVE:
        _bad_fen(text, f"the {name} is {value!r}, not a whole number in {low}..{_MAX_FULLMOVE}")
    return int(value)


def _castling(state: np.ndarray, field: str, text: str) -> int:
    """The castling rights the field grants where king and rook are on their squares."""
    if field != "-" and (set(field) - set("KQkq") or len(set(field)) != len(field)):
        _bad_fen(text, f"castling is {field!r}; it is '-' or some of K, Q, k, q")
    rights = 0
    for letter, flag, king, rook in _CASTLING_TEXT:
        colour = 0 if letter.isupper() else 1
        own = _bits(state, cm.COLOURS + colour)
        kings = own & _bits(state, cm.PIECES + cm.KING)
        rooks = own & _bits(state, cm.PIECES + cm.ROOK)
        if letter in field and kings >> king & 1 and rooks >> rook & 1:
            rights |= flag
    return rights


def _check_placement(state: np.ndarray, text: str) -> None:
    kings = _bits(state, cm.PIECES + cm.KING)
    for colour, name in enumerate(("white", "black")):
        count = bin(kings & _bits(state, cm.COLOURS + colour)).count("1")
        if count != 1:
            _bad_fen(text, f"{name} has {count} kings, not one")
    if _bits(state, cm.PIECES + cm.PAWN) & 0xFF000000000000FF:
        _bad_fen(text, "a pawn stands on the first or last rank")
    mover = int(state[TO_PLAY])
    if cm.attacked_by(state, cm.king_square(state, 1 - mover), mover):
        _bad_fen(text, "the side not to move is in check")


def _en_passant(state: np.ndarray, field: str, text: str) -> int:
    """EP as the kernels keep it: the square when a capture onto it is legal, else none."""
    if field == "-":
        return cm.NO_SQUARE
    square = _parse_square(field)
    mover = int(state[TO_PLAY])
    if square is None or square // 8 != (5 if mover == 0 else 2):
        _bad_fen(text, f"the en passant square is {field!r}; it is '-' or a square on rank "
                       f"{6 if mover == 0 else 3} ({'white' if mover == 0 else 'black'} to move)")
    pusher = square - 8 if mover == 0 else square + 8
    their_pawns = _bits(state, cm.PIECES + cm.PAWN) & _bits(state, cm.COLOURS + 1 - mover)
    occupied = _bits(state, cm.COLOURS) | _bits(state, cm.COLOURS + 1)
    behind = square + 8 if mover == 0 else square - 8
    if not their_pawns >> pusher & 1 or occupied >> square & 1 or occupied >> behind & 1:
        return cm.NO_SQUARE
    capturers = int(cm.PAWN_ATTACKS[1 - mover, square]) & _bits(state, cm.PIECES + cm.PAWN) \
        & _bits(state, cm.COLOURS + mover)
    for frm in range(64):
        if capturers >> frm & 1 and cm.en_passant_is_legal(state, frm, square):
            return square
    return cm.NO_SQUARE


def _key(state: np.ndarray) -> np.uint64:
    """The Zobrist key of a position (:mod:`boardzoo.envs.chess_moves`), computed afresh."""
    key = 0
    for colour in range(2):
        for piece in range(6):
            bits = _bits(state, cm.PIECES + piece) & _bits(state, cm.COLOURS + colour)
            for square in range(64):
                if bits >> square & 1:
                    key ^= int(cm.ZOBRIST_PIECE[colour, piece, square])
    if state[TO_PLAY]:
        key ^= int(cm.ZOBRIST_BLACK)
    key ^= int(cm.ZOBRIST_CASTLING[int(state[cm.CASTLING])])
    if int(state[cm.EP]) != cm.NO_SQUARE:
        key ^= int(cm.ZOBRIST_EP[int(state[cm.EP]) % 8])
    return np.uint64(key)


def _start_window(state: np.ndarray) -> None:
    """A fresh repetition window at the state's position, and its result."""
    state[cm.KEY] = _key(state)
    state[cm.REPS] = 1
    state[cm.KEYS] = state[cm.KEY]
    state[cm.WINDOW_CASTLING] = state[cm.CASTLING]
    state[cm.WINDOW_EP] = state[cm.EP]
    cm.settle(state, len(_moves(state)))


def _moves(state: np.ndarray) -> list[int]:
    """The side to move's legal moves (kernel encoding), ignoring the game's end."""
    moves = np.empty(cm.MAX_MOVES, np.int64)
    return moves[: cm.generate_moves(state, moves)].tolist()


def window_start(state: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """The position after the last capture or pawn move (or where the game was set up) and
    the moves played since: the moves are undone (none of them captures or moves a pawn)."""
    reps = int(state[cm.REPS])
    moves = [int(m) for m in state[cm.MOVES : cm.MOVES + reps - 1]]
    start = state.copy()
    for move in reversed(moves):
        frm, to = move % 64, move // 64 % 64
        colour = 0 if _bits(start, cm.COLOURS) >> to & 1 else 1
        piece = int(cm.piece_on(start, to))
        _shift(start, colour, piece, to, frm)
        if piece == cm.KING and abs(to - frm) == 2:
            rook_from, rook_to = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
            _shift(start, colour, cm.ROOK, rook_to, rook_from)
    back = np.uint64(reps - 1)
    start[TO_PLAY] ^= np.uint64((reps - 1) % 2)
    start[PLY] -= back
    start[cm.HALFMOVE] -= back
    start[cm.CASTLING] = state[cm.WINDOW_CASTLING]
    start[cm.EP] = state[cm.WINDOW_EP]
    return start, moves


def _shift(state: np.ndarray, colour: int, piece: int, frm: int, to: int) -> None:
    change = np.uint64((1 << frm) | (1 << to))
    state[cm.PIECES + piece] ^= change
    state[cm.COLOURS + colour] ^= change


# ------------------------------------------------------------------------------ moves
def uci(move: int) -> str:
    """UCI text of a kernel move."""
    promo = move // 4096
    return square_name(move % 64) + square_name(move // 64 % 64) + ("" if not promo else
                                                                  LETTERS[promo])


def _uci_move(text: str) -> int | None:
    """A kernel move from UCI text, or None when it is not UCI."""
    frm, to = _parse_square(text[:2]), _parse_square(text[2:4])
    if frm is None or to is None or len(text) not in (4, 5) or frm == to:
        return None
    promo = 0
    if len(text) == 5:
        if text[4] not in "nbrq":
            return None
        promo = LETTERS.index(text[4])
    return frm + 64 * to + 4096 * promo


def san(state: np.ndarray, action: int) -> str:
    """Standard algebraic notation of the legal ``action`` in ``state`` (``Nbd7``, ``exd6``,
    ``O-O``, ``e8=Q``), with ``+`` for check and ``#`` for checkmate, as python-chess writes
    it."""
    move = int(cm.move_of_action(state, action))
    after = state.copy()
    cm.apply_kernel(after, action)
    suffix = ""
    if cm.in_check(after):
        suffix = "#" if not _moves(after) else "+"
    return _san_body(state, move, _moves(state)) + suffix


def _san_body(state: np.ndarray, move: int, legal: list[int]) -> str:
    frm, to, promo = move % 64, move // 64 % 64, move // 4096
    piece = int(cm.piece_on(state, frm))
    if piece == cm.KING and abs(to - frm) == 2:
        return "O-O" if to > frm else "O-O-O"
    occupied = _bits(state, cm.COLOURS) | _bits(state, cm.COLOURS + 1)
    capture = bool(occupied >> to & 1) or (piece == cm.PAWN and frm % 8 != to % 8)
    target = square_name(to) + (f"={LETTERS[promo].upper()}" if promo else "")
    if piece == cm.PAWN:
        return (FILES[frm % 8] + "x" if capture else "") + target
    rivals = [m % 64 for m in legal if m // 64 % 64 == to and m % 64 != frm
              and int(cm.piece_on(state, m % 64)) == piece]
    hint = ""
    if rivals:
        if all(r % 8 != frm % 8 for r in rivals):
            hint = FILES[frm % 8]
        elif all(r // 8 != frm // 8 for r in rivals):
            hint = str(frm // 8 + 1)
        else:
            hint = square_name(frm)
    return LETTERS[piece].upper() + hint + ("x" if capture else "") + target


def end_reason(state: np.ndarray) -> str | None:
    """Why the game ended: "checkmate", "stalemate", "insufficient_material",
    "threefold_repetition" or "fifty_moves" (the first that applies, in this order); None
    while it runs."""
    if int(state[OUTCOME]) == ONGOING:
        return None
    if int(state[OUTCOME]) != DRAW:
        return "checkmate"
    if not _moves(state):
        return "stalemate"
    if cm.insufficient_material(state):
        return "insufficient_material"
    if cm.repetitions(state) >= 3:
        return "threefold_repetition"
    return "fifty_moves"


# ------------------------------------------------------------------------------ the game
class Chess(Game):
    """The rules of chess (see the module docstring)."""

    name = "chess"
    kernels = Kernels(legal_mask=cm.legal_mask_kernel, apply=cm.apply_kernel,
                      playout=cm.playout_kernel, playout_trace=cm.playout_trace_kernel,
                      observe=cm.observe_kernel)
    knowledge = DeclaredKnowledge("boardzoo.knowledge.chess:KNOWLEDGE")
    piece_symbols = (".", "W", "B")
    lettered_pieces = True
    board_rgb = (181, 136, 99)
    piece_rgb = ((245, 245, 240), (30, 30, 30))
    position_format = ('FEN, e.g. "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", '
                       'or "startpos", optionally followed by " moves " and UCI moves '
                       '("e2e4 e7e5")')

    def __init__(self) -> None:
        super().__init__(num_actions=cm.NUM_ACTIONS, planes_shape=(8, 8, cm.NUM_PLANES))

    def initial_state(self) -> np.ndarray:
        return parse_fen(START_FEN)

    def cells(self, state: np.ndarray) -> np.ndarray:
        white, black = _bits(state, cm.COLOURS), _bits(state, cm.COLOURS + 1)
        grid = np.zeros((8, 8), dtype=np.int8)
        for square in range(64):
            row, col = 7 - square // 8, square % 8
            grid[row, col] = 1 if white >> square & 1 else 2 if black >> square & 1 else 0
        return grid

    def symbols(self, state: np.ndarray) -> np.ndarray:
        """FEN letters of the pieces (white upper case), "." for empty, laid out as cells."""
        grid = np.full((8, 8), ".", dtype="<U1")
        for square in range(64):
            grid[7 - square // 8, square % 8] = _letter(state, square)
        return grid

    def coordinate_labels(self) -> tuple[list[str], list[str]]:
        return [str(r) for r in range(8, 0, -1)], list(FILES)

    def action_to_str(self, action: int) -> str:
        """The action as white's move in UCI (``move_to_str`` for the side to move)."""
        return self.move_to_str(self._white_to_move, action)

    def str_to_action(self, text: str) -> int:
        """UCI text read as white's move (``str_to_move`` for the side to move)."""
        return self._action(self._white_to_move, text, uci_only=True)

    def move_to_str(self, state: np.ndarray, action: int) -> str:
        action = self.action_index(action)
        move = int(cm.move_of_action(state, action))
        if move < 0:
            return f"action{action}"  # a plane that leaves the board: never legal
        return uci(move)

    def str_to_move(self, state: np.ndarray, text: str) -> int:
        return self._action(state, text, uci_only=False)

    def move_label(self, state: np.ndarray, action: int) -> str:
        """SAN (``Nf3``, ``O-O``, ``e8=Q+``)."""
        return san(state, self.action_index(action))

    def end_reason(self, state: np.ndarray) -> str | None:
        """Why the game ended (see the module's :func:`end_reason`); None while it runs."""
        return end_reason(state)

    def checked_king(self, state: np.ndarray) -> int | None:
        """The cell (row-major, rank 8 at the top, as :meth:`cells`) of the side to move's
        king when it is in check, else None."""
        if not cm.in_check(state):
            return None
        square = int(cm.king_square(state, int(state[TO_PLAY])))
        return (7 - square // 8) * 8 + square % 8

    def _action(self, state: np.ndarray, text: str, uci_only: bool) -> int:
        move = _uci_move(text.strip().lower()) if isinstance(text, str) else None
        if move is not None:
            return self._action_of(state, move, text)
        if isinstance(text, str) and not uci_only:
            wanted = text.strip().rstrip("+#!?").replace("0", "O")
            for action in self.legal_actions(state):
                if san(state, action).rstrip("+#") == wanted:
                    return action
        san_too = "" if uci_only else " or a legal SAN move (Nf3, exd5, O-O)"
        raise IllegalActionError(
            f"{excerpt(text)} is not a chess move here: use UCI (from and to square, and the "
            f"piece a pawn promotes to: e2e4, e7e8q){san_too}"
        )

    def _action_of(self, state: np.ndarray, move: int, text: str) -> int:
        """The action of a kernel move by the side to move (a move no action encodes, as a
        knight's move to the far side, is an error)."""
        seat = int(state[TO_PLAY])
        frm, to = move % 64 ^ 56 * seat, move // 64 % 64 ^ 56 * seat
        promo = move // 4096
        if promo and not (frm // 8 == 6 and to // 8 == 7 and abs(to % 8 - frm % 8) <= 1):
            raise IllegalActionError(
                f"{excerpt(text)} promotes from a square no pawn promotes from")
        if not promo and cm.PLANE_OF[frm, to] < 0:
            raise IllegalActionError(f"{excerpt(text)} is no queen or knight move: never legal")
        return int(cm.action_of_move(move, seat))

    @property
    def _white_to_move(self) -> np.ndarray:
        return self._template

    def illegal_reason(self, state: np.ndarray, action: int) -> str:
        text = self.move_to_str(state, action)
        side = "white" if int(state[TO_PLAY]) == 0 else "black"
        return f"{text} (action {action}) is not legal for {side} here"

    def position(self, state: np.ndarray) -> str:
        if int(state[cm.REPS]) == 1:
            return fen(state)
        start, moves = window_start(state)
        return f"{fen(start)} moves {' '.join(uci(m) for m in moves)}"

    def parse_position(self, text: str) -> np.ndarray:
        if not isinstance(text, str):
            raise InvalidPositionError(
                f"a chess position is text ({self.position_format}), got {excerpt(text)}")
        head, _, tail = text.partition(" moves ")
        head = head.strip()
        state = parse_fen(START_FEN if head == "startpos" else head)
        for number, word in enumerate(tail.split(), start=1):
            move = _uci_move(word.lower())
            if state[OUTCOME] != ONGOING or move is None or move not in _moves(state):
                why = "the game is over" if state[OUTCOME] != ONGOING else "it is not legal"
                raise InvalidPositionError(
                    f"move {number} {word!r} of {excerpt(text)} cannot be played: {why} in "
                    f"{fen(state)}")
            cm.play_move(state, move)
            cm.settle(state, len(_moves(state)))
        return state

    def check_state(self, state: np.ndarray) -> None:
        """The position text's round trip rebuilds the state (the window's slots past REPS
        hold nothing)."""
        try:
            reps = int(state[cm.REPS])
            rebuilt = self.parse_position(self.position(state)) if 1 <= reps <= cm.WINDOW \
                else None
        except InvalidPositionError as err:
            raise InvalidPositionError(f"its position is not one of {self!r}: {err}") from None
        except (IndexError, KeyError, ValueError, OverflowError, TypeError):
            raise InvalidPositionError(f"it does not decode as a position of {self!r}") from None
        used = np.r_[0 : cm.KEYS, cm.KEYS : cm.KEYS + reps, cm.MOVES : cm.MOVES + reps - 1]
        if rebuilt is None or not np.array_equal(rebuilt[used], state[used]):
            raise InvalidPositionError(
                f"its slots disagree with the position they describe, {self.position(state)!r}"
                if rebuilt is not None else f"its repetition window holds {reps} positions, "
                f"not 1..{cm.WINDOW}")


@strict_keywords("chess_v0.env()")
def env(render_mode: str | None = None, illegal_action: str = "terminate") -> BoardGameEnv:
    """Chess as a PettingZoo AEC env (player_0 plays white and moves first)."""
    return BoardGameEnv(Chess(), render_mode=render_mode, illegal_action=illegal_action)


raw_env = env
