"""What search knows about chess, over the bitboard state of :mod:`boardzoo.envs.chess_moves`.

* Evaluation: PeSTO's tapered piece-square tables (Ronald Friederich, published on the Chess
  Programming Wiki; :mod:`boardzoo.knowledge.chess_pesto`): middlegame and endgame sums
  blended by the game phase, in centipawns from the side to move's view, squashed into
  (-1, 1) as ``tanh(centipawns / CENTIPAWN_SCALE)`` (:func:`centipawns` is the inverse), so
  that MCTS reads it as an expected result too.
* Transposition key: the rules' own Zobrist key (pieces, side to move, castling rights, the
  en passant file).
* Tactics for alpha-beta (:mod:`boardzoo.agents.alphabeta`): the legal moves as a list (only
  the captures and queen promotions for the quiescence search); captures and promotions are
  tactical, valued most valuable victim first, then least valuable attacker (MVV-LVA), for
  move ordering and the quiescence search, except captures that lose material by the static
  exchange evaluation (searched as quiet moves, left out of the quiescence search); check
  detection (check extensions, no standing pat in check); null moves, never in pawn endings
  (zugzwang); late-move reductions.
* MCTS: the default search is PUCT with the evaluation at the leaves and the evaluation's
  softmax over the children as priors (random playouts say nothing in chess).
* Clocks: the moves left to expect follow the game phase (:func:`moves_left`), not the empty
  squares, which grow as a chess game goes on.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from boardzoo.envs.chess_moves import (
    COLOURS,
    EP,
    KEY,
    KING,
    MAX_MOVES,
    NO_SQUARE,
    PAWN,
    PIECES,
    PLY,
    QUEEN,
    ZOBRIST_BLACK,
    ZOBRIST_EP,
    action_of_move,
    attackers,
    generate_moves,
    in_check,
    lsb,
    move_of_action,
    piece_on,
)
from boardzoo.envs.core import TO_PLAY
from boardzoo.knowledge.base import Knowledge, SearchDefaults
from boardzoo.knowledge.chess_pesto import EG, MAX_PHASE, MG, PHASE

__all__ = ["CENTIPAWN_SCALE", "EXCHANGE_VALUE", "KNOWLEDGE", "centipawns", "centipawns_white",
           "evaluate_kernel", "exchange_value", "moves_kernel", "moves_left", "mvv_lva_kernel",
           "tactical_kernel"]

#: centipawns per unit of ``atanh(value)``: a pawn up is worth about 0.17, a queen up 0.9
CENTIPAWN_SCALE = 600.0
#: the largest centipawn figure reported for a value that rounds to +-1
MAX_CENTIPAWNS = 10_000
#: own moves a clock expects left with every piece on the board (games between strong players
#: last about 40 moves) and with none but kings and pawns (an ending still takes a while)
MOVES_LEFT_OPENING = 35.0
MOVES_LEFT_ENDING = 15.0
_ONE = np.uint64(1)
_BLACK_FLIP = 56  # square ^ 56 mirrors the ranks: black's pieces read White's tables


@njit(cache=True)
def centipawns_white(state):
    """PeSTO's tapered evaluation in centipawns from White's view (float)."""
    mg = 0
    eg = 0
    phase = 0
    for colour in range(2):
        sign = 1 if colour == 0 else -1
        flip = 0 if colour == 0 else _BLACK_FLIP
        own = state[COLOURS + colour]
        for piece in range(6):
            bits = state[PIECES + piece] & own
            while bits:
                square = lsb(bits) ^ flip
                bits &= bits - _ONE
                mg += sign * MG[piece, square]
                eg += sign * EG[piece, square]
                phase += PHASE[piece]
    phase = min(phase, MAX_PHASE)
    return (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE


@njit(cache=True)
def evaluate_kernel(state):
    """The evaluation from the side to move's view, in (-1, 1)."""
    score = centipawns_white(state)
    if state[TO_PLAY] != 0:
        score = -score
    return math.tanh(score / CENTIPAWN_SCALE)


@njit(cache=True)
def key_kernel(state):
    """The rules' Zobrist key of the position."""
    return state[KEY]


#: MVV-LVA's scale: a victim's rank counts this many attackers
_VICTIM_WEIGHT = 8
#: a queen promotion is worth this much in MVV-LVA terms (above capturing a rook, below a
#: queen); underpromotions are quiet
_QUEENING = 5 * _VICTIM_WEIGHT
#: piece values (pawn .. king) for the static exchange evaluation, in centipawns; knights and
#: bishops equal, so that trading one for the other is never "losing"
EXCHANGE_VALUE = np.array([100, 325, 325, 500, 975, 20_000], np.int64)


@njit(cache=True)
def _capture(state, action):
    """(from, to, attacker, victim) of the side to move's ``action`` and its MVV-LVA value:
    ``8 * (victim + 1) - attacker`` for a capture (pawn 0 .. king 5; en passant takes a
    pawn), plus :data:`_QUEENING` for a queen promotion; victim -1 and (attacker unread)
    for a quiet move."""
    move = move_of_action(state, action)
    frm, to = move % 64, (move // 64) % 64
    score = _QUEENING if move // 4096 == QUEEN else 0
    if (state[COLOURS + 1 - np.int64(state[TO_PLAY])] >> np.uint64(to)) & _ONE:
        victim = piece_on(state, to)
    elif (to == np.int64(state[EP]) and (state[PIECES + PAWN] >> np.uint64(frm)) & _ONE):
        victim = PAWN
    else:
        return frm, to, -1, -1, score
    attacker = piece_on(state, frm)
    return frm, to, attacker, victim, score + _VICTIM_WEIGHT * (victim + 1) - attacker


@njit(cache=True)
def mvv_lva_kernel(state, action):
    """> 0 for a capture or a queen promotion by the side to move: ``8 * (victim + 1) -
    attacker`` (pawn 0 .. king 5: the most valuable victim first, then the least valuable
    attacker), plus :data:`_QUEENING` for a promotion; 0 for a quiet move."""
    return _capture(state, action)[4]


@njit(cache=True)
def exchange_value(state, frm, to, victim):
    """The static exchange evaluation of the side to move's capture from ``frm`` on ``to``
    (centipawns, the mover's view): the material won when both sides go on recapturing on
    ``to`` with their least valuable attacker (x-rays through the pieces that moved
    included, pins ignored), each free to stop when going on would lose."""
    gain = np.zeros(34, np.int64)
    gain[0] = EXCHANGE_VALUE[victim]
    on_square = EXCHANGE_VALUE[piece_on(state, frm)]
    occupied = (state[COLOURS] | state[COLOURS + 1]) ^ (_ONE << np.uint64(frm))
    side = 1 - np.int64(state[TO_PLAY])
    depth = 0
    while True:
        depth += 1
        gain[depth] = on_square - gain[depth - 1]  # if the side to recapture does
        found = attackers(state, to, occupied, state[COLOURS + side] & occupied, side)
        if not found:
            break
        piece = 0
        while not found & state[PIECES + piece]:
            piece += 1
        occupied ^= _ONE << np.uint64(lsb(found & state[PIECES + piece]))
        on_square = EXCHANGE_VALUE[piece]
        side = 1 - side
    for d in range(depth - 1, 0, -1):
        gain[d - 1] = -max(-gain[d - 1], gain[d])
    return gain[0]


@njit(cache=True)
def tactical_kernel(state, action):
    """:func:`mvv_lva_kernel`'s value of a capture or queen promotion, except 0 (quiet) for a
    capture by a more valuable piece that loses material by :func:`exchange_value`: such a
    capture is searched among the quiet moves and left out of the quiescence search."""
    frm, to, attacker, victim, score = _capture(state, action)
    if (victim >= 0 and EXCHANGE_VALUE[attacker] > EXCHANGE_VALUE[victim]
            and exchange_value(state, frm, to, victim) < 0):
        return 0
    return score


@njit(cache=True)
def moves_kernel(state, out, tactical_only):
    """Write the side to move's legal actions into ``out`` and return how many; with
    ``tactical_only`` only the captures (en passant included) and queen promotions."""
    moves = np.empty(MAX_MOVES, np.int64)
    seat = np.int64(state[TO_PLAY])
    them, pawns, ep = state[COLOURS + 1 - seat], state[PIECES + PAWN], np.int64(state[EP])
    count = 0
    for i in range(generate_moves(state, moves)):
        move = moves[i]
        frm, to = move % 64, (move // 64) % 64
        if tactical_only and not ((them >> np.uint64(to)) & _ONE or move // 4096 == QUEEN
                                  or (to == ep and (pawns >> np.uint64(frm)) & _ONE)):
            continue
        out[count] = action_of_move(move, seat)
        count += 1
    return count


@njit(cache=True)
def in_check_kernel(state):
    return in_check(state)


@njit(cache=True)
def null_move_kernel(state):
    """Pass in place (the other side to move, no en passant; the clocks and the repetition
    window untouched): False, without passing, when the side to move has only pawns and its
    king, where a pass may be the best move (zugzwang)."""
    own = state[COLOURS + np.int64(state[TO_PLAY])]
    if own & ~(state[PIECES + PAWN] | state[PIECES + KING]) == 0:
        return False
    key = state[KEY] ^ ZOBRIST_BLACK
    if state[EP] != NO_SQUARE:
        key ^= ZOBRIST_EP[state[EP] % np.uint64(8)]
        state[EP] = NO_SQUARE
    state[KEY] = key
    state[TO_PLAY] ^= _ONE
    state[PLY] += _ONE
    return True


def centipawns(value: float) -> int:
    """A search value in (-1, 1) from the side to move's view (alpha-beta's heuristic value
    or MCTS's mean result) as centipawns: the inverse of the evaluation's squashing."""
    clipped = min(max(value, -0.9999999), 0.9999999)
    score = CENTIPAWN_SCALE * math.atanh(clipped)
    return round(min(max(score, -MAX_CENTIPAWNS), MAX_CENTIPAWNS))


#: what search knows about chess (declared on the Game as its ``knowledge``)
def moves_left(state: np.ndarray) -> float:
    """The own moves the side to move can expect to make until the game ends, for a clock's
    allocation: from :data:`MOVES_LEFT_OPENING` with every piece on the board down to
    :data:`MOVES_LEFT_ENDING` without pieces, in step with PeSTO's game phase."""
    phase = sum(int(PHASE[piece]) * int(state[PIECES + piece]).bit_count() for piece in range(6))
    share = min(phase, MAX_PHASE) / MAX_PHASE
    return MOVES_LEFT_ENDING + (MOVES_LEFT_OPENING - MOVES_LEFT_ENDING) * share


KNOWLEDGE = Knowledge(
    evaluate_kernel=evaluate_kernel,
    key_kernel=key_kernel,
    tactical_kernel=tactical_kernel,
    in_check_kernel=in_check_kernel,
    null_move_kernel=null_move_kernel,
    late_move_reductions=True,
    moves_kernel=moves_kernel,
    moves_left=moves_left,
    search_defaults=SearchDefaults(
        selection="puct", evaluator="heuristic",
        evidence="random playouts carry no signal in chess; the PeSTO evaluation at the "
        "leaves and its softmax as priors make MCTS play material-aware chess"),
)
