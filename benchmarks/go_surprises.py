"""Where GNU Go's replies surprised boardzoo in its lost games, and whether other search
settings would have seen them coming.

For each lost game of a ``benchmarks.go_strength gnugo`` store, boardzoo's own search
(``--scan`` simulations, the default Go agent on one tree) values every position where
boardzoo was to move, until it counts the game lost. The surprise is the move after which
that value fell most across GNU Go's reply, among positions boardzoo did not yet count as
lost. From the position after boardzoo's move (GNU Go to move), each search setting of
``--variants`` then searches ``--simulations`` times: how it ranks GNU Go's actual reply
by visits (0: its choice), the reply's share of the visits and its value for GNU Go. A
setting that ranks the surprising replies first more often reads the fights GNU Go wins.
Simulation counts, not time limits, so the figures do not depend on the machine's load.

Run::

    python -m benchmarks.go_surprises benchmarks/results/go9_gnugo_ladders.sqlite \\
        --variants "" "c=0.4" "rave_k=200"
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from benchmarks.go_losses import lost_games
from boardzoo.agents import make_agent
from boardzoo.agents.move import SearchResult
from boardzoo.envs import go_v0
from boardzoo.envs.go import Go


def search(options: dict[str, Any], moves: list[int], spec: str, seed: int) -> SearchResult:
    """The root statistics of agent ``spec``'s search after ``moves`` from the empty board."""
    agent = make_agent(spec, seed=seed)
    env = go_v0.env(**options)
    env.reset(seed=0, options={"moves": moves})
    agent.act(env)
    return agent.last_search


def surprise(values: dict[int, float], lost_below: float = -0.4) -> int | None:
    """The ply ``p`` (boardzoo to move, value ``values[p]`` from its side) whose value fell
    most by ``p + 2``, among plies not yet counted lost (value at least ``lost_below``);
    None when no two such plies follow each other."""
    falls = [(values[p] - values[p + 2], p) for p in values
             if p + 2 in values and values[p] >= lost_below]
    return max(falls)[1] if falls else None


def reply_rank(result: SearchResult, reply: int) -> tuple[int, float, float]:
    """(rank of ``reply`` by visits, 0 the most visited; its share of the visits; its value
    for the side to move, NaN when unvisited)."""
    order = np.argsort(-result.visits, kind="stable")
    rank = int(np.flatnonzero(order == reply)[0])
    return rank, float(result.visits[reply] / result.visits.sum()), float(result.q[reply])


def game_surprise(options: dict[str, Any], record: dict[str, Any], scan: int,
                  simulations: int, variants: list[str], seed: int = 1) -> dict[str, Any]:
    """The surprise of one lost game and how each variant ranks GNU Go's reply there."""
    seat = record["agent_a_seat"]
    actions = list(record["opening"]) + list(record["moves"])
    values: dict[int, float] = {}
    for ply in range(len(record["opening"]), len(actions)):
        if ply % 2 == seat:
            values[ply] = search(options, actions[:ply], f"mcts:simulations={scan}", seed).value
            if values[ply] < -0.6:
                break
    row: dict[str, Any] = {"game": record["index"]}
    ply = surprise(values)
    if ply is None:
        return row
    game = Go(**options)
    row.update(ply=ply, value=round(values[ply], 3), value_after=round(values[ply + 2], 3),
               played=game.action_to_str(actions[ply]),
               reply=game.action_to_str(actions[ply + 1]))
    for variant in variants:
        spec = ",".join(o for o in (f"mcts:simulations={simulations}", variant) if o)
        result = search(options, actions[:ply + 1], spec, seed)
        rank, share, q = reply_rank(result, actions[ply + 1])
        row[variant or "default"] = {"rank": rank, "share": round(share, 3),
                                     "q": round(q, 3),
                                     "choice": game.action_to_str(result.action)}
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="a benchmarks.go_strength gnugo store")
    parser.add_argument("--scan", type=int, default=10_000,
                        help="simulations of the search that values boardzoo's positions")
    parser.add_argument("--simulations", type=int, default=40_000,
                        help="simulations of each variant's search at the surprise")
    parser.add_argument("--variants", nargs="+", default=[""],
                        help='MCTS options to try, "" for the default (e.g. "" "c=0.4")')
    args = parser.parse_args(argv)
    found = {variant or "default": 0 for variant in args.variants}
    for options, records in lost_games(args.store):
        for record in records:
            row = game_surprise(options, record, args.scan, args.simulations, args.variants)
            print(json.dumps(row), flush=True)
            for name in found:
                found[name] += name in row and row[name]["rank"] == 0
    print("GNU Go's surprising reply ranked first by: "
          + ", ".join(f"{name} {count}" for name, count in found.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
