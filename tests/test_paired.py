"""Paired runs: the sign test (exact binomial sums by hand) and benchmarks.paired on two
hand-built stores of the same openings."""

from __future__ import annotations

import pytest

from benchmarks import paired
from boardzoo.ratings import sign_test
from boardzoo.store import ResultsStore


@pytest.mark.parametrize(("only_a", "only_b", "p"), [
    (7, 2, 2 * (1 + 9 + 36) / 2**9),  # C(9, 0..2) of 512, both tails
    (2, 7, 2 * (1 + 9 + 36) / 2**9),
    (5, 0, 2 / 2**5),
    (3, 3, 1.0),  # both tails overlap: capped at 1
    (0, 0, 1.0),  # no game split them
])
def test_sign_test_is_the_two_sided_binomial_tail(only_a, only_b, p):
    assert sign_test(only_a, only_b) == pytest.approx(p)


def test_sign_test_rejects_negative_counts():
    with pytest.raises(ValueError, match=">= 0"):
        sign_test(-1, 3)


def make_store(path, scores, openings=None):
    """A one-match store whose game i has score ``scores[i]``, boardzoo first on even i."""
    with ResultsStore(path) as store:
        match = store.match({"game": "go", "agents": ["a", "b"]})
        for i, score in enumerate(scores):
            opening = openings[i] if openings else [i // 2]
            store.put(match, f"g{i}", {"index": i, "opening": opening, "agent_a_seat": i % 2,
                                       "score": score})
    return str(path)


def test_paired_counts_the_games_only_one_run_won_on_the_indices_both_played(tmp_path,
                                                                            capsys):
    a = make_store(tmp_path / "a.sqlite", [1, 1, 0, 1, 0.5, 1])
    b = make_store(tmp_path / "b.sqlite", [1, 0, 1, 0, 0.5])  # one game fewer
    result = paired.paired(paired.games_by_index(a), paired.games_by_index(b))
    assert result == (5, 3.5, 2.5, 2, 1, 1.0)
    paired.main([a, b])
    out = capsys.readouterr().out
    assert "A: 4.5/6 = 0.750 [0.36, 0.94]; first seat 1.5/3, second seat 3/3" in out
    assert "won only by A 2, only by B 1; sign test p = 1.00" in out


def test_runs_with_other_openings_are_not_paired(tmp_path):
    a = make_store(tmp_path / "a.sqlite", [1, 0], openings=[[3], [3]])
    b = make_store(tmp_path / "b.sqlite", [1, 0], openings=[[3], [4]])
    with pytest.raises(SystemExit, match="game 1 has another opening"):
        paired.paired(paired.games_by_index(a), paired.games_by_index(b))
