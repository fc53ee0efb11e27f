"""Alpha-beta nodes per CPU-second on the six games without chess's tactics.

Each game is searched to a fixed depth (``AlphaBetaAgent(depth=N, seed=0, solver=False)``)
from four positions reached by seeded random moves; the node counts are the same in every
version of the code whose search is the same, so comparing two trees (run this file in each,
alternating processes) compares the cost per node. The first pass compiles; of the measured
passes the fastest is kept, which is robust to the machine's other jobs.

Run::

    nice python -m benchmarks.alphabeta_speed                 # every game
    nice python -m benchmarks.alphabeta_speed connect_four othello --passes 6
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from boardzoo.agents import AlphaBetaAgent
from boardzoo.envs import BoardGameEnv, make_game

#: game, options, search depth, random plies before the searched positions
CASES = (
    ("tictactoe", {}, 9, 0),
    ("connect_four", {}, 11, 6),
    ("othello", {}, 9, 8),
    ("gomoku", {}, 3, 6),
    ("go", {"board_size": 9}, 4, 10),
    ("nim", {"heaps": (3, 4, 5, 6)}, 12, 0),
)


def openings(game, plies: int, count: int = 4) -> list[list[int]]:
    """``count`` seeded random move sequences of ``plies`` moves that leave the game running."""
    rng = np.random.default_rng(1)
    found: list[list[int]] = []
    while len(found) < count:
        env = BoardGameEnv(game, illegal_action="raise")
        env.reset(seed=0)
        moves = []
        for _ in range(plies):
            legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
            moves.append(int(rng.choice(legal)))
            env.step(moves[-1])
            if env.terminations[env.agent_selection]:
                break
        else:
            found.append(moves)
    return found


def search_pass(game, starts: list[list[int]], depth: int) -> tuple[int, float]:
    """Total nodes and CPU seconds of one search from every start."""
    nodes, seconds = 0, 0.0
    for moves in starts:
        env = BoardGameEnv(game, illegal_action="raise")
        env.reset(seed=0)
        for action in moves:
            env.step(action)
        agent = AlphaBetaAgent(depth=depth, seed=0, solver=False)
        agent.prepare(env)
        started = time.process_time()
        nodes += agent.search(env).nodes
        seconds += time.process_time() - started
    return nodes, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="only these games (default: all six)")
    parser.add_argument("--passes", type=int, default=6, help="measured passes per game")
    args = parser.parse_args()
    rows = {}
    for name, options, depth, plies in CASES:
        if args.games and name not in args.games:
            continue
        game = make_game(name, **options)
        starts = openings(game, plies)
        search_pass(game, starts, depth)  # compiles
        passes = [search_pass(game, starts, depth) for _ in range(args.passes)]
        nodes, seconds = passes[0][0], min(s for _, s in passes)
        rows[name] = {"nodes": nodes, "cpu_seconds": seconds, "nodes_per_second": nodes / seconds}
        print(f"{name:13s} {nodes:>10,d} nodes  {seconds:7.3f} s  {nodes / seconds:>12,.0f}/s",
              flush=True)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
