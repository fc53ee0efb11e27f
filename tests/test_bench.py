"""``boardzoo bench``'s measuring: warm-ups not timed, ours and the reference in turn, and
what ``--quick`` leaves out (the short run itself is in test_cli)."""

from __future__ import annotations

import itertools
import time

import pytest

from boardzoo.bench.common import EVERY_GAME, FULL, QUICK, Settings, interleaved_rates, rate
from boardzoo.bench.run import SUITES, plan
from boardzoo.errors import InvalidOptionError


def slow_first_call(name: str, calls: list[str], first_seconds: float = 0.5):
    """A workload whose first call takes ``first_seconds`` (as a compile would) and each
    later one a millisecond; each call is one unit, recorded in ``calls``."""

    def work() -> int:
        time.sleep(first_seconds if name not in calls else 0.001)
        calls.append(name)
        return 1

    return work


def test_the_warm_up_is_not_timed():
    """Timed with its slow first call, the rate would be 2 units/s; warmed up, hundreds."""
    calls: list[str] = []
    assert rate(slow_first_call("ours", calls), Settings(repeats=1, seconds=0.05)) > 20
    assert len(calls) > 3


def test_ours_and_the_reference_warm_up_then_alternate():
    calls: list[str] = []
    measured = interleaved_rates(slow_first_call("ours", calls),
                                 slow_first_call("theirs", calls),
                                 Settings(repeats=3, seconds=0.02))
    assert measured.ours > 20 and measured.theirs > 20
    turns = [name for name, _ in itertools.groupby(calls)]
    assert turns == ["ours", "theirs"] * 4  # the warm-ups, then three timed turns each
    assert measured.spread is not None and measured.spread[0] <= measured.spread[1]


def test_quick_leaves_out_the_heaviest_and_says_so():
    quick, left_out = plan(None, QUICK)
    full, nothing = plan(None, FULL)
    assert nothing == []
    titles = {bench.title for _, bench in quick}
    assert "batched search against mctx" not in titles
    assert "AlphaZero self-play processes" not in titles
    assert {"batched search against mctx", "AlphaZero self-play processes",
            "boardzoo compile of every game, empty cache"} <= set(left_out)
    assert any("empty-cache" in text for text in left_out)
    assert len(quick) < len(full)
    assert [game for game, bench in full if bench.title.startswith("boardzoo compile")] == [
        EVERY_GAME]
    assert [game for game, bench in full if bench.title == "batched search against mctx"] == [
        "connect_four", "othello", "go"]


def test_one_game_has_no_run_once_rows():
    pairs, _ = plan("nim", FULL)
    assert {game for game, _ in pairs} == {"nim"}


def test_only_picks_suites_by_name():
    pairs, _ = plan("connect_four", FULL, ["batched", "startup"])
    assert {bench for _, bench in pairs} == {*SUITES["batched"], *SUITES["startup"]} - {
        bench for bench in SUITES["startup"] if bench.games == (EVERY_GAME,)}
    with pytest.raises(InvalidOptionError, match="--only gpu: no such benchmarks; use envs"):
        plan(None, FULL, ["startup", "gpu"])
