"""Last good reply with forgetting (``knowledge.go.reply_playout_trace_kernel``): what the
reply tables learn from a finished game, worked out by hand, and that the playouts play a
stored reply, legally."""

from __future__ import annotations

import numpy as np

from boardzoo.envs import go_board
from boardzoo.envs.core import OUTCOME, P0_WINS, P1_WINS
from boardzoo.envs.go import Go
from boardzoo.knowledge import go as knowledge
from boardzoo.knowledge.go import playouts
from boardzoo.rng import make_rng
from tests.test_go_knowledge import first_moves, position

SLOTS = go_board.num_slots(9)  # 111 padded points on 9x9
BUFFER = 65536  # the size of the search's trace buffer (fast.run_simulations)


def replies_of(buffer: np.ndarray) -> np.ndarray:
    return buffer[knowledge.REPLY_OFFSET:]


def one(colour: int, prev: int) -> int:
    """LGR-1's index of ``colour``'s reply to padded point ``prev``."""
    return (colour - 1) * SLOTS + prev


def two(colour: int, prev2: int, prev: int) -> int:
    """LGR-2's index of ``colour``'s reply to ``prev2`` then ``prev``."""
    return 2 * SLOTS + ((colour - 1) * SLOTS + prev2) * SLOTS + prev


def played(actions: list[int], outcome: int) -> np.ndarray:
    """A 9x9 game of ``actions`` (Black first) marked as ended with ``outcome``."""
    game = Go(9)
    state = game.initial_state()
    for action in actions:
        state = game.step(state, action)
    state[OUTCOME] = outcome
    return state


# four board moves and a pass; padded point of action a on 9x9: (a // 9 + 1) * 10 + a % 9 + 1
A, B, C, D, PASS = 20, 30, 40, 50, 81
PA, PB, PC, PD = 33, 44, 55, 66


def test_the_winner_s_moves_become_replies_to_the_one_and_two_moves_before():
    replies = np.zeros(BUFFER - knowledge.REPLY_OFFSET, np.int64)
    playouts._learn_replies(played([A, B, C, D], P0_WINS), 0, replies)
    BLACK, WHITE = go_board.BLACK, go_board.WHITE
    expected = {one(BLACK, PB): PC, two(BLACK, PA, PB): PC}
    assert {int(i): int(replies[i]) for i in np.flatnonzero(replies)} == expected
    assert not replies[one(WHITE, PA)] and not replies[one(WHITE, PC)]


def test_the_loser_forgets_a_stored_reply_it_just_played_and_keeps_others():
    WHITE = go_board.WHITE
    replies = np.zeros(BUFFER - knowledge.REPLY_OFFSET, np.int64)
    replies[one(WHITE, PA)] = PB  # White's reply to A was B: White played it and lost
    replies[one(WHITE, PC)] = PA  # a reply White did not play: kept
    replies[two(WHITE, PB, PC)] = PD
    playouts._learn_replies(played([A, B, C, D], P0_WINS), 0, replies)
    assert replies[one(WHITE, PA)] == 0
    assert replies[one(WHITE, PC)] == PA
    assert replies[two(WHITE, PB, PC)] == 0


def test_only_moves_from_the_start_ply_teach_and_passes_are_never_replies():
    BLACK, WHITE = go_board.BLACK, go_board.WHITE
    replies = np.zeros(BUFFER - knowledge.REPLY_OFFSET, np.int64)
    playouts._learn_replies(played([A, B, C, PASS, D], P1_WINS), 3, replies)
    # from ply 3: White's pass (no reply stored), Black's D after a pass (no previous point)
    assert not np.any(replies)
    playouts._learn_replies(played([A, B, C, D], P1_WINS), 3, replies)
    assert {int(i): int(replies[i]) for i in np.flatnonzero(replies)} == {
        one(WHITE, PC): PD, two(WHITE, PB, PC): PD}
    assert not replies[one(BLACK, PB)]


# Black's (4, 4) on an empty board is the last move: nothing is in atari, so no capture or
# save comes before the reply step.
OPENED = position("\n".join(["." * 9] * 9), moves=(("B", (4, 4)),))
LAST, REPLY = 4 * 9 + 4, 2 * 9 + 6


def first_reply_moves(stored: int, seeds: int = 20) -> list[int]:
    """The first move of reply playouts from OPENED with ``stored`` (a padded point) as
    White's only stored reply to the last move, a fresh table each time."""
    game, state = OPENED
    firsts = []
    for seed in range(seeds):
        buffer = np.zeros(BUFFER, np.int64)
        replies_of(buffer)[one(go_board.WHITE, go_board.to_point(state, LAST))] = stored
        assert knowledge.reply_playout_trace_kernel(state.copy(), make_rng(seed), buffer) >= 1
        firsts.append(int(buffer[0]))
    return firsts


def test_the_playout_plays_the_stored_reply_to_the_last_move():
    game, state = OPENED
    assert first_reply_moves(go_board.to_point(state, REPLY)) == [REPLY] * 20
    plain = first_moves(knowledge.ladder_playout_trace_kernel, game, state, seeds=20)
    assert plain.count(REPLY) <= 3


def test_a_stored_reply_on_an_occupied_point_is_not_played():
    game, state = OPENED
    firsts = first_reply_moves(go_board.to_point(state, LAST))
    assert LAST not in firsts and len(set(firsts)) > 5


def test_the_tables_fill_over_a_search_s_playouts():
    game = Go(9)
    buffer = np.zeros(BUFFER, np.int64)
    for seed in range(10):
        knowledge.reply_playout_trace_kernel(game.initial_state(), make_rng(seed), buffer)
    stored = replies_of(buffer)[np.flatnonzero(replies_of(buffer))]
    assert stored.size > 100
    assert set(stored.tolist()) <= {int(go_board.to_point(OPENED[1], a)) for a in range(81)}
