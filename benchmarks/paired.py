"""Two stored runs of one match, compared game by game: runs with the same seed play the same
openings with the same colours, so game i of one and game i of the other differ only in the
agent measured (a feature on or off, another setting) and in the searches' own noise. Prints
each run's score with its 95% interval, by colour, then over the games both have played the
games won by only one of them and the two-sided sign test on that split
(:func:`boardzoo.ratings.sign_test`). The stores are opened read-only.

Run::

    python -m benchmarks.paired benchmarks/results/go9_gnugo_ladders.sqlite other.sqlite
"""

from __future__ import annotations

import argparse
from typing import Any, NamedTuple

from boardzoo.ratings import score_interval, sign_test
from boardzoo.store import ResultsStore


class Paired(NamedTuple):
    """The games both runs played: A's and B's points on them, the games scored better by
    only one of them, and the sign test's p."""

    games: int
    score_a: float
    score_b: float
    only_a: int
    only_b: int
    p: float


def games_by_index(path: str) -> dict[int, dict[str, Any]]:
    """The stored games of a one-match store, by game index."""
    with ResultsStore(path, read_only=True) as store:
        matches = store.matches()
        if len(matches) != 1:
            raise SystemExit(f"{path} holds {len(matches)} matches; compare stores of one match")
        records = store.records(matches[0][0])
    return {record["index"]: record for record in records.values()}


def paired(a: dict[int, dict[str, Any]], b: dict[int, dict[str, Any]]) -> Paired:
    """Compare two runs on the game indices both played; their openings and colours must
    agree (else the runs used different seeds and pairing them means nothing)."""
    common = sorted(set(a) & set(b))
    for i in common:
        if (a[i]["opening"], a[i]["agent_a_seat"]) != (b[i]["opening"], b[i]["agent_a_seat"]):
            raise SystemExit(f"game {i} has another opening or colour in the two runs: they "
                             "were not played with the same seed and cannot be paired")
    only_a = sum(a[i]["score"] > b[i]["score"] for i in common)
    only_b = sum(b[i]["score"] > a[i]["score"] for i in common)
    return Paired(len(common), sum(a[i]["score"] for i in common),
                  sum(b[i]["score"] for i in common), only_a, only_b, sign_test(only_a, only_b))


def summary(name: str, games: dict[int, dict[str, Any]]) -> str:
    """One run's score, 95% interval and score by colour (boardzoo's seat 0 is Black)."""
    points = sum(r["score"] for r in games.values())
    low, high = score_interval(points / len(games), len(games))
    by_seat = [[r["score"] for r in games.values() if r["agent_a_seat"] == seat]
               for seat in (0, 1)]
    return (f"{name}: {points:g}/{len(games)} = {points / len(games):.3f} [{low:.2f}, "
            f"{high:.2f}]; first seat {sum(by_seat[0]):g}/{len(by_seat[0])}, second seat "
            f"{sum(by_seat[1]):g}/{len(by_seat[1])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="a store of one match (run A)")
    parser.add_argument("b", help="a store of the same match with another agent (run B)")
    args = parser.parse_args(argv)
    a, b = games_by_index(args.a), games_by_index(args.b)
    print(summary("A", a))
    print(summary("B", b))
    result = paired(a, b)
    print(f"on the {result.games} games both played: A {result.score_a:g}, B "
          f"{result.score_b:g}; won only by A {result.only_a}, only by B {result.only_b}; "
          f"sign test p = {result.p:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
