"""A match process for the store tests: ``python -m tests.arena_driver STORE [options]``.

Plays a reproducible match (random agents reseeded per game, one of them taking 30 ms per
move so that games take long enough to overlap and to be killed; MCTS would spend ~15 s
compiling in every fresh process) on a results store. ``--ready FILE --wait-for FILE...``
synchronise several drivers so that they really run at once; ``--die-in-game K`` makes the
process SIGKILL itself in the middle of the K-th game it plays (while it holds its claim).
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from pathlib import Path

from boardzoo.agents import RandomAgent
from boardzoo.arena import play_match

GAME, GAMES, SEED = "connect_four", 20, 3


class DrivenAgent:
    """A random agent that thinks 30 ms per move (the same stored match whatever ``die_in``);
    with ``die_in=K`` it kills its own process at its first move of the K-th game."""

    spec = {"name": "random", "think_seconds": 0.03}

    def __init__(self, die_in: int = 0):
        self.agent, self.die_in, self.games = RandomAgent(1), die_in, 0

    def reseed(self, seed: int) -> None:
        self.games += 1
        self.agent.reseed(seed)

    def act(self, env) -> int:
        if self.die_in and self.games == self.die_in:
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(0.03)
        return self.agent.act(env)


def play(store, die_in: int = 0, workers: int = 1):
    return play_match(GAME, DrivenAgent(die_in), RandomAgent(2), games=GAMES, seed=SEED,
                      store=store, workers=workers)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("--ready", default=None)
    parser.add_argument("--wait-for", nargs="*", default=[])
    parser.add_argument("--die-in-game", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    if args.ready:
        Path(args.ready).touch()
    while not all(Path(p).exists() for p in args.wait_for):
        time.sleep(0.05)
    play(args.store, args.die_in_game, args.workers)


if __name__ == "__main__":
    main()
