"""Chess as compiled bitboard kernels: the state layout, attacks, legal move generation, moves
played in place with Zobrist keys and the repetition window, the end of the game, the
AlphaZero/PettingZoo action layout, observations, playouts and perft.

:mod:`boardzoo.envs.chess` (FEN, UCI and SAN text, the Game and its env) is written over
these kernels; search knowledge reads the same layout.

State layout (``uint64``, length :data:`STATE_SIZE`; a clone is a copy of the array, the
repetition history included)::

    slot   name              contents
    0      TO_PLAY           seat to move: 0 white (player_0), 1 black (player_1)
    1      OUTCOME           ONGOING, P0_WINS (white), P1_WINS (black), DRAW
    2      PLY               2 * (FEN fullmove number - 1) + (1 if black is to move)
    3..8   PIECES + p        bitboard of the pieces of type p of both colours:
                             p = PAWN 0, KNIGHT 1, BISHOP 2, ROOK 3, QUEEN 4, KING 5
    9, 10  COLOURS + c       bitboard of colour c's pieces: c = WHITE 0, BLACK 1 (= seat)
    11     CASTLING          rights: 1 white O-O, 2 white O-O-O, 4 black O-O, 8 black O-O-O
                             (always "clean": king and rook are on their home squares)
    12     EP                en passant target square (the square the capturing pawn moves
                             to), only when an en passant capture is legal (as python-chess's
                             FEN and repetition key); NO_SQUARE (64) otherwise
    13     HALFMOVE          halfmoves since the last capture or pawn move (FEN's clock)
    14     KEY               Zobrist key of the position: pieces, side to move, castling
                             rights, the en passant file when EP is set (ZOBRIST_* below)
    15     REPS              positions in the repetition window: those since the last capture
                             or pawn move, or since the position was set (this one included),
                             1..WINDOW
    16     WINDOW_CASTLING   castling rights at the window's first position
    17     WINDOW_EP         EP at the window's first position
    18..   KEYS + i          KEY of the window's i-th position, i < REPS, oldest first
                             (KEYS + REPS - 1 holds the current KEY); WINDOW slots
    ..     MOVES + i         the move played from the window's i-th position, i < REPS - 1;
                             WINDOW - 1 slots

Only slots inside the window (i < REPS) are meaningful; the others may hold stale values.
Squares are numbered as python-chess numbers them: a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ...,
h8 = 63 (``rank * 8 + file``); bit s of a bitboard is square s.

A *move* (inside the kernels) is ``from + 64 * to + 4096 * promotion`` with absolute squares
and promotion 0 (none) or the piece type KNIGHT..QUEEN; castling is the king's two-square
move (UCI ``e1g1``), en passant the pawn's diagonal move onto EP. An *action* is PettingZoo
chess_v6's: ``(file * 8 + rank) * 73 + plane`` with the from-square seen from the mover's
side (black's ranks flipped) and planes 0..55 queen-direction moves, 56..63 knight moves,
64..72 underpromotions (:func:`action_of_move`, :func:`move_of_action`).

The game ends, in this order, by checkmate, stalemate, insufficient material, the third
occurrence of a position, or 100 halfmoves without capture or pawn move (python-chess's
``is_checkmate``, ``is_stalemate``, ``is_insufficient_material``, ``is_repetition(3)`` and
``is_fifty_moves``); a checkmate on the 100th halfmove stands.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit

from boardzoo.envs.bitboard import popcount
from boardzoo.envs.core import DRAW, ONGOING, OUTCOME, P0_WINS, P1_WINS, PLY, TO_PLAY
from boardzoo.rng import below, splitmix64

# ------------------------------------------------------------------------- state layout
PIECES, COLOURS, CASTLING, EP, HALFMOVE, KEY, REPS = 3, 9, 11, 12, 13, 14, 15
WINDOW_CASTLING, WINDOW_EP, KEYS = 16, 17, 18
WINDOW = 101  # positions in a window at most: the game ends at 100 halfmoves
MOVES = KEYS + WINDOW
STATE_SIZE = MOVES + WINDOW - 1

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 0, 1, 2, 3, 4, 5
WHITE, BLACK = 0, 1
NO_SQUARE = 64
WHITE_OO, WHITE_OOO, BLACK_OO, BLACK_OOO = 1, 2, 4, 8
NUM_ACTIONS = 8 * 8 * 73
NUM_PLANES = 21
MAX_MOVES = 256  # legal moves in a position: at most 218

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
DARK_SQUARES = np.uint64(0xAA55AA55AA55AA55)


# ------------------------------------------------------------------------------ tables
def _on_board(f: int, r: int) -> bool:
    return 0 <= f < 8 and 0 <= r < 8


def _step_table(steps: list[tuple[int, int]]) -> np.ndarray:
    table = np.zeros(64, dtype=np.uint64)
    for sq in range(64):
        f, r = sq % 8, sq // 8
        table[sq] = sum(1 << ((r + dr) * 8 + f + df) for df, dr in steps
                        if _on_board(f + df, r + dr))
    return table


#: the eight directions (file step, rank step): N, NE, E, SE, S, SW, W, NW; N, NE, E and NW
#: run to higher square numbers
DIRECTIONS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))


def _rays() -> np.ndarray:
    rays = np.zeros((8, 64), dtype=np.uint64)
    for d, (df, dr) in enumerate(DIRECTIONS):
        for sq in range(64):
            f, r, bits = sq % 8 + df, sq // 8 + dr, 0
            while _on_board(f, r):
                bits |= 1 << (r * 8 + f)
                f, r = f + df, r + dr
            rays[d, sq] = bits
    return rays


def _lines() -> tuple[np.ndarray, np.ndarray]:
    """BETWEEN[a, b]: squares strictly between two squares on a line; LINE[a, b]: the whole
    line through both (0 when they share no rank, file or diagonal)."""
    between = np.zeros((64, 64), dtype=np.uint64)
    line = np.zeros((64, 64), dtype=np.uint64)
    rays = _rays()
    for a in range(64):
        for d in range(8):
            opposite = (d + 4) % 8
            ray = int(rays[d, a])
            for b in range(64):
                if ray >> b & 1:
                    between[a, b] = ray & ~int(rays[d, b]) & ~(1 << b)
                    line[a, b] = ray | int(rays[opposite, a]) | (1 << a)
    return between, line


KNIGHT_ATTACKS = _step_table([(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1),
                              (-1, 2)])
KING_ATTACKS = _step_table([(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0),
                            (-1, 1)])
PAWN_ATTACKS = np.stack([_step_table([(-1, 1), (1, 1)]), _step_table([(-1, -1), (1, -1)])])
RAYS = _rays()
BETWEEN, LINE = _lines()
#: CASTLING_KEPT[square]: the rights that survive a move from or to ``square``
CASTLING_KEPT = np.full(64, 15, dtype=np.uint64)
CASTLING_KEPT[4] = 15 & ~(WHITE_OO | WHITE_OOO)
CASTLING_KEPT[7] = 15 & ~WHITE_OO
CASTLING_KEPT[0] = 15 & ~WHITE_OOO
CASTLING_KEPT[60] = 15 & ~(BLACK_OO | BLACK_OOO)
CASTLING_KEPT[63] = 15 & ~BLACK_OO
CASTLING_KEPT[56] = 15 & ~BLACK_OOO


def _zobrist(count: int, seed: int) -> np.ndarray:
    return np.array([splitmix64(seed, k + 1) for k in range(count)], dtype=np.uint64)


_Z = _zobrist(2 * 6 * 64 + 1 + 16 + 8, seed=20261207)
#: ZOBRIST_PIECE[colour, piece type, square]
ZOBRIST_PIECE = _Z[: 2 * 6 * 64].reshape(2, 6, 64)
ZOBRIST_BLACK = _Z[2 * 6 * 64]  # xored in when black is to move
ZOBRIST_CASTLING = _Z[2 * 6 * 64 + 1 : 2 * 6 * 64 + 17]  # by the 4-bit rights
ZOBRIST_CASTLING[0] = 0
ZOBRIST_EP = _Z[2 * 6 * 64 + 17 :]  # by the en passant square's file


def _action_tables() -> tuple[np.ndarray, np.ndarray]:
    """TO_OF[plane, from] -> to (mover's view squares, -1 off the board) and PLANE_OF[from,
    to] -> the queen or knight plane of a plain move (-1 for none): chess_v6's layout."""
    to_of = np.full((73, 64), -1, dtype=np.int64)
    plane_of = np.full((64, 64), -1, dtype=np.int64)
    queen_dirs = [(x, y) for x in (-1, 0, 1) for y in (-1, 0, 1) if (x, y) != (0, 0)]
    knight_dirs = [(x, y) for x in range(-2, 3) for y in range(-2, 3) if abs(x) + abs(y) == 3]
    steps = [(m * x, m * y) for m in range(1, 8) for x, y in queen_dirs] + knight_dirs
    steps += [(dx, 1) for dx in (-1, 0, 1) for _ in range(3)]
    for plane, (dx, dy) in enumerate(steps):
        for sq in range(64):
            f, r = sq % 8 + dx, sq // 8 + dy
            if _on_board(f, r):
                to_of[plane, sq] = r * 8 + f
                if plane < 64:
                    plane_of[sq, r * 8 + f] = plane
    return to_of, plane_of


TO_OF, PLANE_OF = _action_tables()


# --------------------------------------------------------------------------- bit helpers
if numba.config.DISABLE_JIT:
    def lsb(bits):
        """Index of the lowest set bit of a non-zero bitboard."""
        return (int(bits) & -int(bits)).bit_length() - 1

    def msb(bits):
        """Index of the highest set bit of a non-zero bitboard."""
        return int(bits).bit_length() - 1
else:
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

    @njit(cache=True, inline="always")
    def lsb(bits):
        """Index of the lowest set bit of a non-zero bitboard."""
        return np.int64(trailing_zeros(bits))

    @njit(cache=True, inline="always")
    def msb(bits):
        """Index of the highest set bit of a non-zero bitboard."""
        return np.int64(63 - leading_zeros(bits))


@njit(cache=True, inline="always")
def bit(square):
    return _ONE << np.uint64(square)


# ------------------------------------------------------------------------------ attacks
@njit(cache=True, inline="always")
def _ray(d, sq, occ):
    """The squares from ``sq`` along direction ``d`` up to the first blocker in ``occ``
    (included): the nearest blocker is the lowest set bit on a ray that runs to higher
    square numbers (N, NE, E, NW), the highest on the others."""
    ray = RAYS[d, sq]
    blockers = ray & occ
    if blockers:
        ray ^= RAYS[d, lsb(blockers) if d <= 2 or d == 7 else msb(blockers)]
    return ray


@njit(cache=True, inline="always")
def rook_attacks(sq, occ):
    """Squares a rook on ``sq`` attacks with ``occ`` occupied (the first blocker included)."""
    return _ray(0, sq, occ) | _ray(2, sq, occ) | _ray(4, sq, occ) | _ray(6, sq, occ)


@njit(cache=True, inline="always")
def bishop_attacks(sq, occ):
    """Squares a bishop on ``sq`` attacks with ``occ`` occupied."""
    return _ray(1, sq, occ) | _ray(7, sq, occ) | _ray(3, sq, occ) | _ray(5, sq, occ)


@njit(cache=True, inline="always")
def attackers(state, sq, occ, by, colour):
    """The pieces among ``by`` (squares of ``colour``'s pieces) that attack ``sq`` with
    ``occ`` occupied."""
    diagonal = (state[PIECES + BISHOP] | state[PIECES + QUEEN]) & by
    straight = (state[PIECES + ROOK] | state[PIECES + QUEEN]) & by
    return ((PAWN_ATTACKS[1 - colour, sq] & state[PIECES + PAWN] & by)
            | (KNIGHT_ATTACKS[sq] & state[PIECES + KNIGHT] & by)
            | (KING_ATTACKS[sq] & state[PIECES + KING] & by)
            | (bishop_attacks(sq, occ) & diagonal)
            | (rook_attacks(sq, occ) & straight))


@njit(cache=True)
def attacked_by(state, sq, colour):
    """Whether ``colour``'s pieces attack square ``sq`` in the state's position."""
    by = state[COLOURS + colour]
    occ = state[COLOURS] | state[COLOURS + 1]
    return attackers(state, sq, occ, by, colour) != _ZERO


@njit(cache=True)
def king_square(state, colour):
    return lsb(state[PIECES + KING] & state[COLOURS + colour])


@njit(cache=True)
def in_check(state):
    """Whether the side to move is in check."""
    us = np.int64(state[TO_PLAY])
    return attacked_by(state, king_square(state, us), 1 - us)


@njit(cache=True)
def piece_on(state, sq):
    """The piece type on ``sq``, or -1 for an empty square."""
    b = bit(sq)
    for p in range(6):
        if state[PIECES + p] & b:
            return p
    return -1


# ----------------------------------------------------------------------- move generation
@njit(cache=True, inline="always")
def _push(moves, n, frm, to, promo):
    moves[n] = frm + 64 * to + 4096 * promo
    return n + 1


@njit(cache=True, inline="always")
def _push_targets(moves, n, frm, targets):
    while targets:
        to = lsb(targets)
        targets &= targets - _ONE
        n = _push(moves, n, frm, to, 0)
    return n


@njit(cache=True, inline="always")
def _push_pawn(moves, n, frm, to):
    """A pawn move, as four promotions when it reaches the last rank."""
    if to >= 56 or to < 8:
        for promo in (QUEEN, ROOK, BISHOP, KNIGHT):
            n = _push(moves, n, frm, to, promo)
        return n
    return _push(moves, n, frm, to, 0)


@njit(cache=True)
def en_passant_is_legal(state, frm, ep):
    """Whether the side to move's pawn on ``frm`` may take en passant onto ``ep``: its king
    is not attacked once both pawns have left their squares."""
    us = np.int64(state[TO_PLAY])
    taken = ep - 8 if us == WHITE else ep + 8
    occ = (state[COLOURS] | state[COLOURS + 1]) ^ bit(frm) ^ bit(taken) ^ bit(ep)
    them = state[COLOURS + 1 - us] ^ bit(taken)
    return attackers(state, king_square(state, us), occ, them, 1 - us) == _ZERO


@njit(cache=True)
def _pinned(state, ksq, own, opp, occ):
    """The side to move's pieces pinned to its king on ``ksq``."""
    snipers = ((rook_attacks(ksq, _ZERO) & (state[PIECES + ROOK] | state[PIECES + QUEEN]))
               | (bishop_attacks(ksq, _ZERO) & (state[PIECES + BISHOP] | state[PIECES + QUEEN])))
    snipers &= opp
    pinned = _ZERO
    while snipers:
        s = lsb(snipers)
        snipers &= snipers - _ONE
        between = BETWEEN[ksq, s] & occ
        if between and not (between & (between - _ONE)) and between & own:
            pinned |= between
    return pinned


@njit(cache=True)
def _king_moves(state, moves, n, us, ksq, own, occ):
    """The king's steps to squares the opponent does not attack, and castling."""
    them = state[COLOURS + 1 - us]
    without_king = occ ^ bit(ksq)
    targets = KING_ATTACKS[ksq] & ~own
    while targets:
        to = lsb(targets)
        targets &= targets - _ONE
        if attackers(state, to, without_king, them, 1 - us) == _ZERO:
            n = _push(moves, n, ksq, to, 0)
    rights = state[CASTLING] >> np.uint64(2 * us)
    home = 56 * us
    if rights & np.uint64(3) and attackers(state, ksq, occ, them, 1 - us) == _ZERO:
        if rights & _ONE and not (occ & BETWEEN[home + 4, home + 7]) \
                and attackers(state, home + 5, occ, them, 1 - us) == _ZERO \
                and attackers(state, home + 6, occ, them, 1 - us) == _ZERO:
            n = _push(moves, n, ksq, home + 6, 0)
        if rights & np.uint64(2) and not (occ & BETWEEN[home + 4, home]) \
                and attackers(state, home + 3, occ, them, 1 - us) == _ZERO \
                and attackers(state, home + 2, occ, them, 1 - us) == _ZERO:
            n = _push(moves, n, ksq, home + 2, 0)
    return n


@njit(cache=True)
def _pawn_moves(state, moves, n, us, ksq, own, opp, occ, pinned, mask):
    """Pawn pushes, captures, promotions and en passant; ``mask`` the squares that answer a
    check (all squares when there is none)."""
    pawns = state[PIECES + PAWN] & own
    forward = 8 if us == WHITE else -8
    start_rank = 1 if us == WHITE else 6
    ep = np.int64(state[EP])
    while pawns:
        frm = lsb(pawns)
        pawns &= pawns - _ONE
        allowed = mask & LINE[ksq, frm] if pinned & bit(frm) else mask
        one = frm + forward
        if not occ & bit(one):
            if allowed & bit(one):
                n = _push_pawn(moves, n, frm, one)
            two = one + forward
            if frm // 8 == start_rank and not occ & bit(two) and allowed & bit(two):
                n = _push(moves, n, frm, two, 0)
        captures = PAWN_ATTACKS[us, frm] & opp & allowed
        while captures:
            to = lsb(captures)
            captures &= captures - _ONE
            n = _push_pawn(moves, n, frm, to)
        if ep != NO_SQUARE and PAWN_ATTACKS[us, frm] & bit(ep) \
                and en_passant_is_legal(state, frm, ep):
            n = _push(moves, n, frm, ep, 0)
    return n


@njit(cache=True)
def generate_moves(state, moves):
    """Write the side to move's legal moves into ``moves`` (int64, at least MAX_MOVES long)
    and return how many; the game's end is not looked at."""
    us = np.int64(state[TO_PLAY])
    own = state[COLOURS + us]
    opp = state[COLOURS + 1 - us]
    occ = own | opp
    ksq = lsb(state[PIECES + KING] & own)
    n = _king_moves(state, moves, 0, us, ksq, own, occ)
    checkers = attackers(state, ksq, occ, opp, 1 - us)
    if checkers and checkers & (checkers - _ONE):
        return n  # double check: only the king moves
    mask = ~own
    if checkers:
        mask = checkers | BETWEEN[ksq, lsb(checkers)]
    pinned = _pinned(state, ksq, own, opp, occ)
    n = _pawn_moves(state, moves, n, us, ksq, own, opp, occ, pinned, mask)
    knights = state[PIECES + KNIGHT] & own & ~pinned
    while knights:
        frm = lsb(knights)
        knights &= knights - _ONE
        n = _push_targets(moves, n, frm, KNIGHT_ATTACKS[frm] & mask)
    queens = state[PIECES + QUEEN]
    sliders = (state[PIECES + BISHOP] | state[PIECES + ROOK] | queens) & own
    while sliders:
        frm = lsb(sliders)
        sliders &= sliders - _ONE
        b = bit(frm)
        targets = _ZERO
        if b & (state[PIECES + BISHOP] | queens):
            targets |= bishop_attacks(frm, occ)
        if b & (state[PIECES + ROOK] | queens):
            targets |= rook_attacks(frm, occ)
        targets &= mask
        if pinned & b:
            targets &= LINE[ksq, frm]
        n = _push_targets(moves, n, frm, targets)
    return n


# ------------------------------------------------------------------------- playing moves
@njit(cache=True, inline="always")
def _toggle(state, colour, piece, sq):
    """Put or take ``colour``'s ``piece`` on ``sq``; returns the key's change."""
    b = bit(sq)
    state[PIECES + piece] ^= b
    state[COLOURS + colour] ^= b
    return ZOBRIST_PIECE[colour, piece, sq]


@njit(cache=True)
def _set_en_passant(state, to, us):
    """After ``us``'s double push to ``to`` (the opponent now to move): EP and its key part
    when the opponent has a legal en passant capture."""
    ep = to - 8 if us == WHITE else to + 8
    capturers = PAWN_ATTACKS[us, ep] & state[PIECES + PAWN] & state[COLOURS + 1 - us]
    while capturers:
        frm = lsb(capturers)
        capturers &= capturers - _ONE
        if en_passant_is_legal(state, frm, ep):
            state[EP] = ep
            return ZOBRIST_EP[ep % 8]
    return _ZERO


@njit(cache=True)
def play_move(state, move):
    """Play the legal ``move`` in place: the pieces, castling rights, en passant, the clocks,
    the key and the repetition window, then the side to move. The result is left alone
    (:func:`settle` decides it); returns True when the move was a capture or pawn move."""
    us = np.int64(state[TO_PLAY])
    them = 1 - us
    frm, to, promo = move % 64, (move // 64) % 64, move // 4096
    piece = piece_on(state, frm)
    taken = piece_on(state, to)
    key = state[KEY] ^ ZOBRIST_BLACK
    if state[EP] != NO_SQUARE:
        key ^= ZOBRIST_EP[state[EP] % np.uint64(8)]
        if piece == PAWN and to == np.int64(state[EP]):
            key ^= _toggle(state, them, PAWN, to - 8 if us == WHITE else to + 8)
            taken = PAWN
    state[EP] = NO_SQUARE
    if taken >= 0 and bit(to) & state[COLOURS + them]:
        key ^= _toggle(state, them, taken, to)
    key ^= _toggle(state, us, piece, frm)
    key ^= _toggle(state, us, promo if promo else piece, to)
    if piece == KING and abs(to - frm) == 2:
        rook_from, rook_to = (frm + 3, frm + 1) if to > frm else (frm - 4, frm - 1)
        key ^= _toggle(state, us, ROOK, rook_from)
        key ^= _toggle(state, us, ROOK, rook_to)
    rights = state[CASTLING] & CASTLING_KEPT[frm] & CASTLING_KEPT[to]
    key ^= ZOBRIST_CASTLING[state[CASTLING]] ^ ZOBRIST_CASTLING[rights]
    state[CASTLING] = rights
    state[TO_PLAY] = them
    state[PLY] += _ONE
    if piece == PAWN and abs(to - frm) == 16:
        key ^= _set_en_passant(state, to, us)
    state[KEY] = key
    zeroing = piece == PAWN or taken >= 0
    _remember(state, key, move, zeroing)
    return zeroing


@njit(cache=True, inline="always")
def _remember(state, key, move, zeroing):
    """The repetition window after a move: a new window after a capture or pawn move."""
    if zeroing:
        state[HALFMOVE] = 0
        state[REPS] = 1
        state[WINDOW_CASTLING] = state[CASTLING]
        state[WINDOW_EP] = state[EP]
    else:
        state[HALFMOVE] += _ONE
        state[MOVES + np.int64(state[REPS]) - 1] = move
        state[REPS] += _ONE
    state[KEYS + np.int64(state[REPS]) - 1] = key


@njit(cache=True)
def repetitions(state):
    """How many times the current position has occurred in the window (this time included)."""
    reps = np.int64(state[REPS])
    key = state[KEY]
    count = 1
    for i in range(reps - 3, -1, -2):  # the same side to move: every other position
        if state[KEYS + i] == key:
            count += 1
    return count


@njit(cache=True)
def insufficient_material(state):
    """python-chess's ``is_insufficient_material()``: neither side can possibly mate."""
    heavy = state[PIECES + PAWN] | state[PIECES + ROOK] | state[PIECES + QUEEN]
    if heavy:
        return False
    return _side_insufficient(state, WHITE) and _side_insufficient(state, BLACK)


@njit(cache=True)
def _side_insufficient(state, colour):
    own = state[COLOURS + colour]
    other = state[COLOURS + 1 - colour]
    if own & state[PIECES + KNIGHT]:
        return popcount(own) <= 2 and not (other & ~state[PIECES + KING] & ~state[PIECES + QUEEN])
    bishops = state[PIECES + BISHOP]
    if own & bishops:
        same_colour = not (bishops & DARK_SQUARES) or not (bishops & ~DARK_SQUARES)
        return same_colour and not state[PIECES + KNIGHT]
    return True


@njit(cache=True)
def settle(state, legal_count):
    """Set OUTCOME for the side to move with ``legal_count`` legal moves: checkmate,
    stalemate, insufficient material, threefold repetition, the fifty-move rule."""
    if legal_count == 0:
        if in_check(state):
            state[OUTCOME] = P1_WINS if state[TO_PLAY] == WHITE else P0_WINS
        else:
            state[OUTCOME] = DRAW
    elif insufficient_material(state) or state[HALFMOVE] >= 100 or repetitions(state) >= 3:
        state[OUTCOME] = DRAW
    else:
        state[OUTCOME] = ONGOING


@njit(cache=True)
def has_legal_move(state):
    """Whether the side to move has a legal move."""
    moves = np.empty(MAX_MOVES, np.int64)
    return generate_moves(state, moves) > 0


# ------------------------------------------------------------------------------ actions
@njit(cache=True)
def action_of_move(move, seat):
    """The chess_v6 action of a move by ``seat`` (module docstring)."""
    flip = 56 * seat
    frm, to, promo = (move % 64) ^ flip, ((move // 64) % 64) ^ flip, move // 4096
    if promo and promo != QUEEN:
        plane = 64 + 3 * (to % 8 - frm % 8 + 1) + (promo - KNIGHT)
    else:
        plane = PLANE_OF[frm, to]
    return ((frm % 8) * 8 + frm // 8) * 73 + plane


@njit(cache=True)
def move_of_action(state, action):
    """The move an action names for the side to move (a queen promotion when a pawn reaches
    the last rank by a queen-direction plane); -1 if the action leaves the board."""
    seat = np.int64(state[TO_PLAY])
    flip = 56 * seat
    cell, plane = action // 73, action % 73
    frm = (cell % 8) * 8 + cell // 8
    to = TO_OF[plane, frm]
    if to < 0:
        return -1
    promo = 0
    if plane >= 64:
        promo = KNIGHT + (plane - 64) % 3
    elif frm // 8 == 6 and to // 8 == 7 and state[PIECES + PAWN] & bit(frm ^ flip) \
            and state[COLOURS + seat] & bit(frm ^ flip):
        promo = QUEEN
    return (frm ^ flip) + 64 * (to ^ flip) + 4096 * promo


# ------------------------------------------------------------------------------ kernels
@njit(cache=True)
def legal_mask_kernel(state, out):
    """Fill bool ``out`` (shape ``[4672]``) with the legal actions; return the count."""
    out[:] = False
    if state[OUTCOME] != ONGOING:
        return 0
    moves = np.empty(MAX_MOVES, np.int64)
    n = generate_moves(state, moves)
    seat = np.int64(state[TO_PLAY])
    for i in range(n):
        out[action_of_move(moves[i], seat)] = True
    return n


@njit(cache=True)
def apply_kernel(state, action):
    """Play the legal ``action`` in place and settle the result."""
    play_move(state, move_of_action(state, action))
    moves = np.empty(MAX_MOVES, np.int64)
    settle(state, generate_moves(state, moves))


@njit(cache=True)
def playout_kernel(state, rng):
    """Uniformly random legal moves in place to the end of the game (by the rules only, so a
    playout may run to a few hundred plies); returns the outcome code."""
    moves = np.empty(MAX_MOVES, np.int64)
    n = generate_moves(state, moves)
    while state[OUTCOME] == ONGOING:
        play_move(state, moves[below(rng, n)])
        n = generate_moves(state, moves)
        settle(state, n)
    return np.int64(state[OUTCOME])


@njit(cache=True)
def playout_trace_kernel(state, rng, trace):
    """A playout as :func:`playout_kernel` that writes the actions it plays into ``trace``
    (as many as fit); returns the plies played."""
    moves = np.empty(MAX_MOVES, np.int64)
    n = generate_moves(state, moves)
    plies = 0
    while state[OUTCOME] == ONGOING:
        move = moves[below(rng, n)]
        if plies < trace.shape[0]:
            trace[plies] = action_of_move(move, np.int64(state[TO_PLAY]))
        plies += 1
        play_move(state, move)
        n = generate_moves(state, moves)
        settle(state, n)
    return plies


@njit(cache=True)
def perft(state, depth):
    """Leaf nodes of the legal move tree ``depth`` plies deep (the game's end by draws is
    not looked at, as in published perft counts); the last ply is counted, not played."""
    moves = np.empty(MAX_MOVES, np.int64)
    n = generate_moves(state, moves)
    if depth <= 1:
        return n if depth == 1 else 1
    total = 0
    child = np.empty_like(state)
    for i in range(n):
        child[:KEYS] = state[:KEYS]  # perft needs no window: the window is never read
        child[REPS] = 1
        play_move(child, moves[i])
        total += perft(child, depth - 1)
    return total


@njit(cache=True)
def observe_kernel(state, seat, out):
    """Fill float32 ``out`` (8, 8, 21) from ``seat``'s view, row 0 the far rank (the
    opponent's home), column 0 the a-file; planes in the spec sheet of
    :mod:`boardzoo.envs.chess`."""
    out[:] = 0.0
    flip = 56 * seat
    for colour in range(2):
        base = 0 if colour == seat else 6
        for p in range(6):
            bits = state[PIECES + p] & state[COLOURS + colour]
            while bits:
                sq = lsb(bits) ^ flip
                bits &= bits - _ONE
                out[7 - sq // 8, sq % 8, base + p] = 1.0
    running = state[OUTCOME] == ONGOING
    out[:, :, 12] = float(seat)
    out[:, :, 13] = 1.0 if running and np.int64(state[TO_PLAY]) == seat else 0.0
    rights = np.int64(state[CASTLING])
    for k in range(4):  # own O-O, own O-O-O, opponent's O-O, opponent's O-O-O
        colour = seat if k < 2 else 1 - seat
        out[:, :, 14 + k] = float((rights >> (2 * colour + k % 2)) & 1)
    out[:, :, 18] = 1.0 if repetitions(state) >= 2 else 0.0
    out[:, :, 19] = min(np.int64(state[HALFMOVE]), 100) / 100.0
    ep = np.int64(state[EP])
    if ep != NO_SQUARE:
        sq = ep ^ flip
        out[7 - sq // 8, sq % 8, 20] = 1.0
