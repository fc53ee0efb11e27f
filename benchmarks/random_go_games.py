"""Random Go games with and without Go's rules of play: how long they last, how many end by
two passes, and how many own-eye fills they hold (the random agent's default plays by the
rules; ``rules_of_play=False`` plays every legal move alike).

Run: ``python -m benchmarks.random_go_games [--games 50] [--size 9] [--komi 7.5]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from boardzoo.agents.random import RandomAgent
from boardzoo.envs import BoardGameEnv
from boardzoo.envs.go import Go
from boardzoo.knowledge.go import fills_own_eye


def play(game: Go, seed: int, rules_of_play: bool) -> tuple[list[int], int]:
    """One game between two random agents (seeds ``seed`` and ``seed + 1000``): its moves
    and how many of them filled the mover's own eye."""
    env = BoardGameEnv(game)
    env.reset()
    agents = [RandomAgent(seed + k * 1000, rules_of_play=rules_of_play) for k in (0, 1)]
    moves, fills = [], 0
    while not game.is_terminal(env.state_array):
        action = agents[len(moves) % 2].act(env)
        fills += action != game.pass_action and fills_own_eye(env.state_array, action)
        moves.append(action)
        env.step(action)
    return moves, fills


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    args = parser.parse_args()
    game = Go(board_size=args.size, komi=args.komi)
    for rules_of_play in (False, True):
        games = [play(game, seed, rules_of_play) for seed in range(args.games)]
        lengths = [len(moves) for moves, _ in games]
        by_passes = sum(moves[-2:] == [game.pass_action] * 2 for moves, _ in games)
        print(f"rules_of_play={rules_of_play}: {args.games} games {args.size}x{args.size}, "
              f"plies median {int(np.median(lengths))} (min {min(lengths)}, max "
              f"{max(lengths)}; limit {game.max_moves}), ended by two passes {by_passes}, "
              f"own-eye fills {sum(fills for _, fills in games)}")


if __name__ == "__main__":
    main()
