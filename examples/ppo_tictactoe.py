"""MaskablePPO learns tic-tac-toe against a random opponent (cleanrl-style, one file).

Trains on boardzoo's compiled vector env (flat observations, MlpPolicy, one torch thread), then
measures the policy in the single-agent gym view against random play with a random seat::

    python examples/ppo_tictactoe.py                     # 30,000 steps, 1-3 minutes
    python examples/ppo_tictactoe.py --save ppo_ttt.pt   # also write a weights-only checkpoint

Load the checkpoint later with ``make_agent("ppo:checkpoint=ppo_ttt.pt")``.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib import MaskablePPO

import boardzoo  # noqa: F401 - registers the gym ids
from boardzoo.agents.ppo import policy_kwargs, save_policy
from boardzoo.rl.sb3 import make_sb3_vec_env


@dataclass
class Args:
    """Everything the run depends on (each field is a --flag)."""

    total_timesteps: int = 30_000  # learner moves, summed over the vector env's games
    seed: int = 0  # seeds the envs, the opponent and PPO
    num_envs: int = 16  # games stepped together by the compiled vector env
    n_steps: int = 64  # rollout length per env (a rollout is num_envs * n_steps moves)
    batch_size: int = 128
    n_epochs: int = 10
    learning_rate: float = 3e-3
    gamma: float = 0.99
    ent_coef: float = 0.0
    net_arch: tuple[int, ...] = (128, 128)
    eval_episodes: int = 400  # episodes in the gym view, random opponent, random seat
    save: str | None = None  # path of a weights-only checkpoint to write


def train(args: Args) -> MaskablePPO:
    torch.set_num_threads(1)
    env = make_sb3_vec_env("tictactoe", args.num_envs, opponent="random", observation="flat")
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.learning_rate,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs("flatten", args.net_arch),
        seed=args.seed,
        device="cpu",
    )
    model.learn(args.total_timesteps)
    return model


def evaluate(model: MaskablePPO, episodes: int, seed: int) -> dict[str, float]:
    """Wins, draws and losses (shares) of the greedy masked policy in the gym view."""
    env = gym.make("boardzoo/TicTacToe-v0", opponent="random", seat="random", observation="flat")
    results = []
    obs, info = env.reset(seed=seed)
    while len(results) < episodes:
        action, _ = model.predict(obs, deterministic=True, action_masks=info["action_mask"] == 1)
        obs, reward, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            results.append(reward)
            obs, info = env.reset()
    results = np.array(results)
    return {
        "wins": float(np.mean(results > 0)),
        "draws": float(np.mean(results == 0)),
        "losses": float(np.mean(results < 0)),
    }


def main(args: Args) -> dict[str, float]:
    start = time.perf_counter()
    model = train(args)
    seconds = time.perf_counter() - start
    scores = evaluate(model, args.eval_episodes, seed=args.seed + 10_000)
    print(
        f"{args.total_timesteps:,} steps in {seconds:.0f} s; against random over "
        f"{args.eval_episodes} games: {scores['wins']:.1%} wins, {scores['draws']:.1%} draws, "
        f"{scores['losses']:.1%} losses"
    )
    if args.save:
        save_policy(model.policy, args.save, "tictactoe", {}, "flat", "flatten", args.net_arch)
        print(f"checkpoint written to {args.save}")
    return scores


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        default = field.default
        if isinstance(default, tuple):
            parser.add_argument(f"--{field.name}", type=int, nargs="+", default=default)
        else:
            kind = str if default is None else type(default)
            parser.add_argument(f"--{field.name}", type=kind, default=default)
    return Args(
        **{k: tuple(v) if isinstance(v, list) else v for k, v in vars(parser.parse_args()).items()}
    )


if __name__ == "__main__":
    main(parse_args())
