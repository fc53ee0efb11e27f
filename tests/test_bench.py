"""``boardzoo bench``'s measuring: warm-ups not timed, ours and the reference in turn, and
what ``--quick`` leaves out (the short run itself is in test_cli)."""

from __future__ import annotations

import itertools
import time

import pytest

from boardzoo.bench.alphabeta import find_stockfish
from boardzoo.bench.common import (
    EVERY_GAME,
    FULL,
    QUICK,
    Row,
    Settings,
    interleaved_rates,
    rate,
)
from boardzoo.bench.envs import REFERENCES, label
from boardzoo.bench.guard import regressions, release_ratios
from boardzoo.bench.mcts import EXTRA_GO_SIZES
from boardzoo.bench.run import SUITES, plan
from boardzoo.errors import InvalidOptionError

STOCKFISH = find_stockfish()


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
        bench for bench in SUITES["startup"]
        if bench.games is not None and "connect_four" not in bench.games}
    with pytest.raises(InvalidOptionError, match="--only gpu: no such benchmarks; use envs"):
        plan(None, FULL, ["startup", "gpu"])


# ------------------------------------------------------------------ the regression guard
def _row(game: str, ours: float, reference: float | None, lower_is_better: bool = False):
    return Row(game, "MCTS 1000 sims", "sims/s", ours, reference, "OpenSpiel C++ MCTSBot",
               lower_is_better=lower_is_better)


def test_the_guard_flags_only_rows_more_than_ten_percent_below_the_release():
    recorded = {"connect_four | MCTS 1000 sims": 5.0, "go 9x9 | MCTS 1000 sims": 4.0,
                "othello | MCTS 1000 sims": 40.0}
    rows = [_row("connect_four", 4.45, 1.0),  # 11% below: flagged
            _row("go 9x9", 3.61, 1.0),  # 9.75% below: within the tolerance
            _row("othello", 50.0, 1.0),  # faster
            _row("nim", 0.1, 1.0),  # no recorded ratio: not judged
            _row("tictactoe", 1.0, None)]  # no reference in this run: not judged
    warnings = regressions(rows, recorded)
    assert len(warnings) == 1
    assert warnings[0].startswith("REGRESSION connect_four | MCTS 1000 sims: 4.45x")
    assert "11% below the last release's 5.00x" in warnings[0]
    assert len(regressions(rows, recorded, tolerance=0.05)) == 2  # Go's 9.75% too


def test_the_guard_reads_times_as_reference_over_ours():
    """A time row's ratio is the reference over ours: a slower boardzoo lowers it too."""
    recorded = {"othello | MCTS 1000 sims": 10.0}
    assert regressions([_row("othello", 0.125, 1.0, lower_is_better=True)], recorded)
    assert not regressions([_row("othello", 0.1, 1.0, lower_is_better=True)], recorded)


def test_the_release_ratios_shipped_name_rows_the_bench_makes():
    recorded = release_ratios()
    assert recorded, "boardzoo bench finds the recorded ratios"
    figures = {"MCTS 1000 sims"}
    games = {label(game) for game in REFERENCES} | {f"go {n}x{n}" for n in EXTRA_GO_SIZES}
    for key, ratio in recorded.items():
        game, figure = key.split(" | ")
        assert game in games and figure in figures and ratio > 0, key


# ------------------------------------------------------------------ chess alpha-beta row
def test_alphabeta_row_runs_for_chess_only():
    from boardzoo.bench.alphabeta import BENCHMARKS as ALPHABETA

    assert [bench for _, bench in plan("chess", FULL, ["alphabeta"])[0]] == ALPHABETA
    assert plan("connect_four", FULL, ["alphabeta"])[0] == []


def test_alphabeta_row_says_so_without_stockfish(monkeypatch):
    from boardzoo.bench import alphabeta

    monkeypatch.setattr(alphabeta, "find_stockfish", lambda: None)
    (row,) = alphabeta.bench_alphabeta("chess", QUICK)
    assert row.unit == "nodes/s" and row.ours > 0
    assert row.reference is None and row.ratio is None
    assert row.reference_name == "Stockfish not found (Debian: apt-get install stockfish)"


@pytest.mark.skipif(STOCKFISH is None, reason="Stockfish not installed (apt-get install stockfish)")
def test_stockfish_searches_its_node_budget_and_the_row_compares_with_it():
    """Stockfish stops at its node budget (a few nodes over), read from its own info lines."""
    from boardzoo.bench.alphabeta import POSITIONS, Stockfish, bench_alphabeta

    engine = Stockfish(STOCKFISH)
    try:
        assert engine.name.startswith("Stockfish")
        assert all(5_000 <= engine.nodes(fen, 5_000) < 5_100 for fen in POSITIONS)
    finally:
        engine.close()
    (row,) = bench_alphabeta("chess", QUICK)
    assert row.ours > 0 and row.reference is not None and row.reference > 0
    assert row.reference_name.startswith(engine.name)
