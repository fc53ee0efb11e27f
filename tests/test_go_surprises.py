"""benchmarks.go_surprises: the ply where boardzoo's own value fell most across one reply,
and how a search ranks that reply (by hand, and one small game end to end)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.go_surprises import game_surprise, reply_rank, surprise
from boardzoo.agents.move import SearchResult
from boardzoo.analysis import MEAN


def test_the_surprise_is_the_biggest_fall_before_the_game_counts_as_lost():
    values = {10: 0.2, 12: -0.3, 14: -0.35, 16: -0.7}
    assert surprise(values) == 10  # falls: 0.5, 0.05, 0.35
    assert surprise({**values, 10: -0.5}) == 14  # ply 10 already counted lost
    assert surprise({10: 0.1, 13: -0.2}) is None  # no reply between them


def result(visits: list[int], q: list[float]) -> SearchResult:
    visits_ = np.array(visits)
    return SearchResult(int(np.argmax(visits_)), 0.0, MEAN, False, None, 0, int(visits_.sum()),
                        0.0, [], "mcts", visits=visits_, q=np.array(q),
                        prior=visits_ / visits_.sum(), policy=visits_ / visits_.sum())


def test_a_reply_is_ranked_by_visits_with_its_share_and_value():
    searched = result([5, 10, 0, 3], [0.1, 0.2, float("nan"), -0.4])
    assert reply_rank(searched, 1) == (0, pytest.approx(10 / 18), pytest.approx(0.2))
    assert reply_rank(searched, 3) == (2, pytest.approx(3 / 18), pytest.approx(-0.4))
    rank, share, q = reply_rank(searched, 2)
    assert (rank, share) == (3, 0.0) and np.isnan(q)


def test_a_small_lost_game_gives_its_surprise_and_each_variant_s_rank():
    options = {"board_size": 5, "komi": 0.5}
    # boardzoo (agent a) is Black, moving at the even plies after the opening; on 5x5 with
    # komi 0.5 its search counts every one of them won (values about 0.75 to 0.95)
    record = {"index": 3, "agent_a_seat": 0, "opening": [12],
              "moves": [6, 7, 8, 11, 13, 16, 17, 18], "score": 0.0}
    row = game_surprise(options, record, scan=64, simulations=128,
                        variants=["", "c=0.4"])
    assert row["game"] == 3 and row["ply"] in (2, 4, 6)
    points = ["C3", "B4", "C4", "D4", "B3", "D3", "B2", "C2", "D2"]  # opening + moves
    assert (row["played"], row["reply"]) == (points[row["ply"]], points[row["ply"] + 1])
    for name in ("default", "c=0.4"):
        assert 0 <= row[name]["rank"] < 26 and 0.0 <= row[name]["share"] <= 1.0
