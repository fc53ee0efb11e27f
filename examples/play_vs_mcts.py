"""Play a game against MCTS in the terminal.

    python examples/play_vs_mcts.py                      # Connect Four, you move first
    python examples/play_vs_mcts.py --game othello --seat 1 --simulations 20000

Moves are typed in the game's notation (Connect Four: the column 1-7; Othello/Go/Gomoku:
coordinates such as d3; "help" lists the legal moves). The same as ``boardzoo play GAME
--opponent mcts:simulations=N``, written out as one script.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from boardzoo.agents import MCTSAgent
from boardzoo.envs import make_env
from boardzoo.errors import IllegalActionError


@dataclass
class Args:
    game: str = "connect_four"
    seat: int = 0  # 0 moves first
    simulations: int = 5000
    seed: int = 0


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in vars(Args()).items():
        parser.add_argument(f"--{name}", type=type(default), default=default)
    return Args(**vars(parser.parse_args()))


def ask_move(env, read=input) -> int | None:
    """A legal move from the keyboard, or None to quit."""
    legal = [env.action_to_str(a) for a in env.legal_mask().nonzero()[0]]
    while True:
        text = read("your move> ").strip()
        if text in ("quit", "q"):
            return None
        if text in ("help", "?"):
            print("legal moves:", " ".join(legal))
            continue
        try:
            action = env.str_to_action(text)
        except IllegalActionError as err:
            print(err)
            continue
        if env.action_to_str(action) in legal:
            return action
        print(f"{text} is not legal here; legal moves: {' '.join(legal)}")


def main(args: Args, read=input) -> None:
    env = make_env(args.game, render_mode="ansi")
    env.reset(seed=args.seed)
    mcts = MCTSAgent(simulations=args.simulations, seed=args.seed)
    human = env.possible_agents[args.seat]
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last(observe=False)
        if termination or truncation:
            env.step(None)
            continue
        if agent == human:
            print(env.render())
            action = ask_move(env, read)
            if action is None:
                return
        else:
            action = mcts.act(env)
            stats = mcts.last_search
            print(
                f"MCTS plays {env.action_to_str(action)} "
                f"(value {stats.value:+.2f}, {stats.nodes} simulations)"
            )
        env.step(action)
    print(env.render())


if __name__ == "__main__":
    main(parse_args())
