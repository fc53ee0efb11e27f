"""Nim: lost positions by exhaustive search through the kernels, against the known rules
(tests/data/nim), and move-for-move against OpenSpiel's (misère) Nim."""

from __future__ import annotations

import itertools
from functools import cache

import pytest

from boardzoo.envs.nim import Nim
from boardzoo.errors import IllegalActionError, InvalidOptionError, InvalidPositionError


def side_to_move_loses(game: Nim, position: str) -> bool:
    """Exhaustive negamax over the game's own legal moves and step."""

    @cache
    def loses(text: str) -> bool:
        state = game.parse_position(text)
        if game.is_terminal(state):
            return game.returns(state)[game.to_play(state)] < 0
        return all(not loses(game.position(game.step(state, a))) for a in game.legal_actions(state))

    return loses(position)


@pytest.mark.parametrize("max_take", [1, 2, 3, 4, 5])
def test_single_heap_loses_iff_multiple_of_k_plus_one(max_take):
    game = Nim(heaps=(40,), max_take=max_take)
    for heap in range(41):
        assert side_to_move_loses(game, f"{heap} 0") == (heap % (max_take + 1) == 0), heap


def test_misere_single_heap_loses_iff_one_mod_four():
    game = Nim(heaps=(29,), max_take=3, misere=True)
    for heap in range(30):
        assert side_to_move_loses(game, f"{heap} 1") == (heap % 4 == 1), heap


def test_multi_heap_unlimited_loses_iff_xor_is_zero():
    game = Nim(heaps=(5, 5, 5), max_take=None)
    for heaps in itertools.product(range(6), repeat=3):
        text = ",".join(map(str, heaps)) + " 0"
        assert side_to_move_loses(game, text) == (heaps[0] ^ heaps[1] ^ heaps[2] == 0), heaps


def test_actions_encode_heap_and_take():
    game = Nim(heaps=(3, 4, 5), max_take=None)  # K = 5
    state = game.initial_state()
    assert game.num_actions == 15
    assert game.legal_actions(state) == [0, 1, 2, 5, 6, 7, 8, 10, 11, 12, 13, 14]
    assert game.position(game.step(state, game.str_to_action("2:4"))) == "3,0,5 1"
    assert game.action_to_str(7) == "2:3"
    assert Nim().str_to_action("3") == 2
    with pytest.raises(IllegalActionError, match="heap:take"):
        game.str_to_action("4:1")


def test_positions_and_errors():
    game = Nim(heaps=(3, 4, 5))
    state = game.parse_position("1,0,2 1")
    assert game.to_play(state) == 1 and game.position(state) == "1,0,2 1"
    finished = game.parse_position("0,0,0 1")  # player_0 took the last stone
    assert game.returns(finished).tolist() == [1.0, -1.0]
    assert Nim(heaps=(3,), misere=True).returns(
        Nim(heaps=(3,), misere=True).parse_position("0 1")
    ).tolist() == [-1.0, 1.0]
    with pytest.raises(InvalidPositionError, match="malformed"):
        game.parse_position("1,2 x")
    with pytest.raises(InvalidPositionError, match=r"nim_v0.env\(heaps=\(1, 2\)\)"):
        game.parse_position("1,2 0")
    with pytest.raises(InvalidOptionError, match="heaps"):
        Nim(heaps=(0,))
    with pytest.raises(InvalidOptionError, match="max_take"):
        Nim(max_take=0)


def test_same_games_as_openspiel_misere_1357():
    pyspiel = pytest.importorskip("pyspiel")
    from tests.openspiel_diff import assert_same_as_openspiel

    game = Nim(heaps=(1, 3, 5, 7), max_take=None, misere=True)

    def to_spiel(action: int) -> int:  # OpenSpiel: pile + (take - 1) * num_piles
        heap, take_minus_one = divmod(action, game.take_limit)
        return heap + take_minus_one * 4

    plies = assert_same_as_openspiel(game, pyspiel.load_game("nim"), to_spiel, 1000)
    assert plies > 5000


def test_a_move_count_no_game_reaches_is_refused_and_every_accepted_one_plays_on():
    # heaps=(11,): after k moves at most 11 - k stones are left
    game = Nim()
    for ply, heap, ok in [(0, 11, True), (3, 8, True), (1, 11, False), (11, 11, False),
                          (10, 1, True), (11, 1, False)]:
        state = game.initial_state()
        state[2], state[-1] = ply, heap  # PLY and the heap
        if not ok:
            with pytest.raises(InvalidPositionError, match=f"ply={ply} is impossible"):
                game.validate_state(state)
            continue
        game.validate_state(state)
        for action in game.legal_actions(state):  # each successor is a valid state too
            game.validate_state(game.step(state, action))
