"""Dead stones of boardzoo's final score (``boardzoo gtp``'s, the arena's and the page's:
:mod:`boardzoo.knowledge.go.scoring`) against GNU Go's ``final_status_list dead``.

GNU Go (level 1, Chinese rules, no dead-stone capture, a seed per game) plays itself on 9x9
until two passes, which leaves dead stones on the board; at every such final position GNU Go
and boardzoo's engine (ownership over its playouts) each list the dead stones. Reported: the
share of positions where the two lists are equal, and the share of stones on which they agree.
With ``--write FILE`` the positions, GNU Go's lists and final scores are saved as JSON Lines
(the test data of tests/test_gtp_engine.py).

Run: ``python -m benchmarks.go_dead_stones [--positions 50] [--size 9] [--write FILE]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from boardzoo.envs.go import Go
from boardzoo.gtp import GtpEngine, gnugo_command
from boardzoo.gtp.record import GtpRecord
from boardzoo.knowledge.go.scoring import final_score

MAX_PLIES = 300


def gnugo_final_position(gnugo: GtpEngine, size: int, seed: int) -> list[str]:
    """GNU Go's self-play game (list of "b D4"-style moves) ending in two passes."""
    gnugo.send(f"boardsize {size}")
    gnugo.send("clear_board")
    gnugo.send(f"set_random_seed {seed}")
    moves: list[str] = []
    passes = 0
    while passes < 2 and len(moves) < MAX_PLIES:
        colour = "bw"[len(moves) % 2]
        move = gnugo.send(f"genmove {colour}").lower()
        moves.append(f"{colour} {move}")
        passes = passes + 1 if move == "pass" else 0
    return moves


def dead_set(text: str) -> set[str]:
    return {vertex.upper() for vertex in text.split()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", default=None, help="save positions + GNU Go's lists here")
    args = parser.parse_args(argv)
    command = gnugo_command(level=1)({"ko": "positional", "suicide": False})
    command.remove("--capture-all-dead")
    gnugo = GtpEngine(command, timeout=120)
    gnugo.send("komi 7.5")
    equal = stones = agreed = 0
    rows = []
    try:
        for k in range(args.positions):
            moves = gnugo_final_position(gnugo, args.size, args.seed + k)
            theirs = dead_set(gnugo.send("final_status_list dead"))
            their_score = gnugo.send("final_score")
            record = GtpRecord(Go(board_size=args.size, komi=7.5))
            for move in moves:
                colour, vertex = move.split()
                record.play("bw".index(colour), record.game.str_to_action(vertex))
            game, state = record.game, record.state
            ours = {game.action_to_str(a) for a in final_score(game, state).dead_stones}
            on_board = {game.action_to_str(a) for a in range(args.size**2)
                        if game.cells(state).ravel()[a]}
            equal += ours == theirs
            stones += len(on_board)
            agreed += len(on_board) - len(ours ^ theirs)
            rows.append({"size": args.size, "moves": moves, "gnugo_dead": sorted(theirs),
                         "gnugo_score": their_score})
            print(f"{k + 1:3d}: gnugo {len(theirs):2d} dead, ours {len(ours):2d}, "
                  f"{'same' if ours == theirs else 'differ: ' + ' '.join(sorted(ours ^ theirs))}",
                  flush=True)
    finally:
        gnugo.close()
    n = len(rows)
    print(f"\n{n} final positions ({args.size}x{args.size}): the dead-stone lists are equal in "
          f"{equal}/{n} ({equal / n:.0%}); stones classified alike {agreed}/{stones} "
          f"({agreed / stones:.1%})")
    if args.write:
        Path(args.write).write_text("".join(json.dumps(row) + "\n" for row in rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
