"""Where boardzoo's games against GNU Go were lost: GNU Go's ``estimate_score`` every few
plies along each lost game of a ``benchmarks.go_strength gnugo`` store, from boardzoo's side
(positive: boardzoo ahead), so a loss shows the plies where its big group died.

Run::

    python -m benchmarks.go_losses benchmarks/results/go9_gnugo_ladders.sqlite --every 10
"""

from __future__ import annotations

import argparse
import re
from typing import Any, Protocol

from boardzoo.envs.go import Go
from boardzoo.gtp import GtpEngine, gnugo_command
from boardzoo.store import ResultsStore

_ESTIMATE = re.compile(r"([BW])\+([\d.]+)")


class Engine(Protocol):
    def send(self, command: str) -> str: ...


def black_lead(reply: str) -> float:
    """Black's lead in an ``estimate_score`` reply ("B+12.5 (upper bound ...)", "W+3.0 ...",
    "0")."""
    found = _ESTIMATE.match(reply.strip())
    if found is None:
        return 0.0
    return float(found.group(2)) * (1.0 if found.group(1) == "B" else -1.0)


def score_swings(game: Go, record: dict[str, Any], engine: Engine,
                 every: int) -> list[tuple[int, float]]:
    """(ply, boardzoo's lead) after every ``every`` plies of a stored game (opening
    included), replayed into ``engine`` from an empty board."""
    engine.send("clear_board")
    sign = 1.0 if record["agent_a_seat"] == 0 else -1.0
    swings = []
    for ply, action in enumerate(record["opening"] + record["moves"], start=1):
        colour = "black" if ply % 2 == 1 else "white"
        engine.send(f"play {colour} {game.action_to_str(action)}")
        if ply % every == 0:
            swings.append((ply, sign * black_lead(engine.send("estimate_score"))))
    return swings


def lost_games(path: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each match of the store at ``path``: (its game options, the records of the games
    boardzoo (agent a) lost, by index)."""
    with ResultsStore(path, read_only=True) as store:
        matches = [(definition, store.records(match_id)) for match_id, definition
                   in store.matches()]
    return [(definition["options"],
             sorted((r for r in records.values() if r["score"] < 0.5), key=lambda r: r["index"]))
            for definition, records in matches]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store", help="a benchmarks.go_strength gnugo store")
    parser.add_argument("--every", type=int, default=10, help="plies between estimates")
    parser.add_argument("--level", type=int, default=10, help="GNU Go level of the estimates")
    args = parser.parse_args(argv)
    for options, records in lost_games(args.store):
        game = Go(**options)
        engine = GtpEngine(gnugo_command(args.level)(options))
        engine.send(f"boardsize {options['board_size']}")
        engine.send(f"komi {options['komi']}")
        for record in records:
            swings = score_swings(game, record, engine, args.every)
            colour = "Black" if record["agent_a_seat"] == 0 else "White"
            print(f"game {record['index']} (boardzoo {colour}): "
                  + " ".join(f"{ply}:{lead:+.0f}" for ply, lead in swings), flush=True)
        engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
