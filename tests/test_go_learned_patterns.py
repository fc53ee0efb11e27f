"""Learned 3x3 pattern priors: canonical pattern keys, the per-colour logit tables, safe
loading of a fitted file, the learned kernel against the hand-set one, and the MM fit of
benchmarks.go_fit_patterns on synthetic competitions with known logits."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import go_fit_patterns as fitting
from benchmarks.go_strength import go_with_learned_patterns
from boardzoo.envs.go import Go
from boardzoo.errors import CheckpointError
from boardzoo.knowledge import go as knowledge
from boardzoo.store import ResultsStore
from tests.test_go_patterns import EDGE, B, E, W, code

HANE = code(B, W, B, E, E, E, E, E)


def test_a_pattern_has_one_key_in_every_orientation_and_for_either_side_to_move():
    turned = code(B, E, E, W, E, B, E, E)  # the hane turned to the west side
    swapped = code(W, B, W, E, E, E, E, E)  # colours swapped
    keys = knowledge.canonical_codes(np.array([HANE, turned, swapped]),
                                     np.array([1, 1, 2]))
    assert len(set(keys.tolist())) == 1
    # the same stones are another pattern for the other side to move
    assert knowledge.canonical_codes(HANE, 1) != knowledge.canonical_codes(HANE, 2)
    edge = code(EDGE, EDGE, EDGE, E, E, E, E, E)
    assert knowledge.canonical_codes(edge, 1) != knowledge.canonical_codes(HANE, 1)


def test_the_logit_table_gives_each_code_the_logit_of_its_key_for_the_side_to_move():
    key = int(knowledge.canonical_codes(HANE, 1))
    table = knowledge.pattern_logits(np.array([key]), np.array([0.75]))
    assert table[0, HANE] == 0.75 and table[0, code(B, E, E, W, E, B, E, E)] == 0.75
    assert table[1, code(W, B, W, E, E, E, E, E)] == 0.75  # White to move, colours swapped
    assert table[1, HANE] == 0.0 and table[0, code(E, E, E, E, E, E, E, E)] == 0.0
    assert np.count_nonzero(table) == 2 * np.count_nonzero(table[0])


def hand_set_as_learned() -> np.ndarray:
    """The hand-set pattern term written as learned logits: PRIOR_PATTERN per key."""
    keys = np.unique(knowledge.canonical_codes(np.flatnonzero(knowledge.PATTERN_TABLE), 1))
    return knowledge.pattern_logits(keys, np.full(len(keys), knowledge.PRIOR_PATTERN))


def test_the_hand_set_patterns_written_as_learned_logits_give_the_same_table():
    assert np.array_equal(hand_set_as_learned(), knowledge.PATTERN_LOGITS)


def test_the_learned_kernel_with_the_hand_set_logits_is_the_ladder_prior_kernel():
    kernel = knowledge.make_learned_prior_kernel(hand_set_as_learned())
    game = Go(board_size=9)
    rng = np.random.default_rng(0)
    for _ in range(10):
        state = game.initial_state()
        mask = np.zeros(game.num_actions, np.bool_)
        for _ in range(int(rng.integers(5, 40))):
            game.kernels.legal_mask(state, mask)
            game.kernels.apply(state, int(rng.choice(np.flatnonzero(mask[:-1]))))
        game.kernels.legal_mask(state, mask)
        got, want = (np.zeros((2, game.num_actions)) for _ in range(2))
        kernel(state, mask, got[0], got[1])
        knowledge.ladder_prior_kernel(state, mask, want[0], want[1])
        assert np.array_equal(got, want)


def test_a_fitted_file_loads_without_pickles_and_a_bad_one_is_a_clear_error(tmp_path):
    good = tmp_path / "p.npz"
    np.savez(good, codes=np.array([int(knowledge.canonical_codes(HANE, 1))]),
             logits=np.array([1.5]))
    assert knowledge.load_pattern_logits(good)[0, HANE] == 1.5
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, codes=np.array([object()]), logits=np.array([1.0]))
    wrong = tmp_path / "wrong.npz"
    np.savez(wrong, codes=np.array([1 << 20]), logits=np.array([1.0]))
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip")
    for path in (pickled, wrong, garbage, tmp_path / "missing.npz"):
        with pytest.raises(CheckpointError, match="codes"):
            knowledge.load_pattern_logits(path)


def synthetic(true_logits: np.ndarray, positions: int, moves: int, seed: int):
    """Competitions whose chosen move is drawn from softmax(offset + true logit of its
    pattern)."""
    rng = np.random.default_rng(seed)
    code_ = rng.integers(0, len(true_logits), (positions, moves))
    offset = rng.normal(0, 1, (positions, moves))
    strength = np.exp(offset + true_logits[code_])
    pick = np.array([rng.choice(moves, p=s / s.sum()) for s in strength])
    chosen = np.zeros((positions, moves), bool)
    chosen[np.arange(positions), pick] = True
    return fitting.Competitions(np.repeat(np.arange(positions), moves), offset.ravel(),
                                np.zeros(positions * moves), code_.ravel(), chosen.ravel(),
                                np.arange(positions) % 5)


def test_mm_recovers_known_pattern_logits_and_beats_them_on_held_out_likelihood():
    true = np.array([0.0, 1.0, -1.0, 2.0])
    data = synthetic(true, positions=6000, moves=8, seed=1)
    test = data.game[data.position] == 0
    codes, logits = fitting.fit(data, ~test)
    assert codes.tolist() == [0, 1, 2, 3]
    assert np.allclose(logits - logits[0], true, atol=0.15)  # logits are up to a constant
    learned = fitting.scores(data, test, fitting.learned_logits(data, codes, logits))
    flat = fitting.scores(data, test, data.offset)
    assert learned[0] > flat[0] + 0.1 and learned[1] > flat[1]


def test_moves_without_a_pattern_term_are_left_out_of_the_fit_and_anchor_its_scale():
    # the moves of pattern 0 fill an own eye: no pattern term (strength of the offset alone)
    true = np.array([0.0, 1.0, -1.0, 2.0])
    data = synthetic(true, positions=6000, moves=8, seed=2)
    data = data._replace(code=np.where(data.code == 0, fitting.NO_CODE, data.code))
    codes, logits = fitting.fit(data, np.ones(len(data.code), bool))
    assert codes.tolist() == [1, 2, 3]
    assert np.allclose(logits, true[1:], atol=0.15)  # no longer up to a constant


def test_an_own_eye_fill_is_told_apart_from_other_moves():
    game = Go(board_size=5)
    state = game.initial_state()
    for action in (1, 25, 5, 25, 6, 25):  # Black b5, a4, b4 around a5; White passes
        game.kernels.apply(state, action)
    assert knowledge.fills_own_eye(state, 0)  # a5: Black's corner eye
    assert not knowledge.fills_own_eye(state, 2) and not knowledge.fills_own_eye(state, 24)
    game.kernels.apply(state, 24)  # Black plays elsewhere: for White a5 is no own eye
    assert not knowledge.fills_own_eye(state, 0)


def test_scores_by_hand_share_a_tie_for_the_top():
    # position 0: logits (0, 0), first chosen; position 1: logits (ln 3, 0), second chosen
    data = fitting.Competitions(np.array([0, 0, 1, 1]), np.array([0, 0, np.log(3), 0]),
                                np.zeros(4), np.zeros(4, int),
                                np.array([True, False, False, True]), np.array([0, 0]))
    loglik, top = fitting.scores(data, np.ones(4, bool), data.offset)
    assert loglik == pytest.approx((np.log(1 / 2) + np.log(1 / 4)) / 2)
    assert top == pytest.approx((1 / 2 + 0) / 2)


def test_competitions_are_gnu_go_s_board_moves_before_the_first_pass(tmp_path):
    game = Go(board_size=5)
    path = tmp_path / "s.sqlite"
    with ResultsStore(path) as store:
        match = store.match({"game": "go", "options": dict(game.options),
                             "agents": [{"name": "mcts"}, {"name": "gnugo", "level": 10}]})
        # boardzoo (agent a) is Black; GNU Go White plays plies 1 and 3, then Black passes
        store.put(match, "g0", {"index": 0, "agent_a_seat": 0, "opening": [12],
                                "moves": [6, 18, 8, 25, 7, 25], "score": 1.0})
    data = fitting.competitions([str(path)])
    assert len(np.unique(data.position)) == 2  # plies 1 and 3; ply 5 comes after the pass
    assert data.chosen.sum() == 2 and len(data.chosen) == 24 + 22
    state = game.initial_state()
    game.kernels.apply(state, 12)
    first = knowledge.canonical_codes(knowledge.neighbourhood_code_of(state, 6), 2)
    for action in (6, 18):
        game.kernels.apply(state, action)
    second = knowledge.canonical_codes(knowledge.neighbourhood_code_of(state, 8), 2)
    assert data.code[data.chosen].tolist() == [first, second]


def test_go_strength_plays_with_the_learned_patterns_of_a_file(tmp_path):
    path = tmp_path / "p.npz"
    np.savez(path, codes=np.array([int(knowledge.canonical_codes(HANE, 1))]),
             logits=np.array([1.5]))
    learned = go_with_learned_patterns(str(path))
    assert issubclass(learned, Go)
    assert learned.knowledge.playout_kernel is knowledge.KNOWLEDGE.playout_kernel
    assert learned.knowledge.prior_kernel is not knowledge.KNOWLEDGE.prior_kernel
