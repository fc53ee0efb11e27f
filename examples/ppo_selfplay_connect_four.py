"""MaskablePPO learns Connect Four by self-play on the compiled vector env (cleanrl-style).

The opponent is drawn from a pool of the learner's own past policies (boardzoo.rl.selfplay);
a fraction of the games is played against the compiled one-ply "win_or_block" opponent, which
punishes a policy that ignores immediate threats. Training is resumable: it saves the SB3 model
and the pool's newest weights-only checkpoint every ``save_every`` steps under ``--out`` (a copy
named by its step count is kept too)::

    python examples/ppo_selfplay_connect_four.py --total_timesteps 2000000 --out runs/c4_ppo
    python examples/ppo_selfplay_connect_four.py --total_timesteps 4000000 --out runs/c4_ppo
    # the second command resumes the first run and trains on to 4,000,000 steps

The checkpoint ``<out>/ppo_connect_four.pt`` loads with ``make_agent("ppo:checkpoint=PATH")``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecMonitor

from boardzoo.agents import RandomAgent, make_agent
from boardzoo.agents.ppo import PPOAgent, load_policy, policy_kwargs, save_policy
from boardzoo.arena import play_match
from boardzoo.rl.sb3 import SB3VecEnv
from boardzoo.rl.selfplay import PolicyPool, SelfPlayCallback
from boardzoo.rl.vector import BoardVectorEnv

GAME = "connect_four"


@dataclass
class Args:
    """Everything the run depends on (each field is a --flag)."""

    total_timesteps: int = 200_000  # learner moves in total (a resumed run counts on)
    seed: int = 0
    num_envs: int = 64  # self-play games stepped together
    scripted_envs: int = 16  # more games against the compiled "win_or_block" opponent
    agent_envs: int = 0  # more games against ``agent_opponent`` (one agent per game)
    agent_opponent: str = "mcts:simulations=100,exact_solver=false"  # an agent spec
    init: str = ""  # start a new run from this PPO checkpoint's weights (same architecture)
    opening_plies: int = 4  # each game starts after 0 to this many random moves
    n_steps: int = 64
    batch_size: int = 1024
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.99
    ent_coef: float = 0.01
    features: str = "board_cnn"  # "board_cnn" (planes) or "flatten" (MLP on flat vectors)
    net_arch: tuple[int, ...] = (128, 128)
    pool_size: int = 10
    snapshot_every: int = 50_000
    save_every: int = 100_000
    eval_games: int = 40  # games against random at each save (0: no evaluation)
    eval_agent: str = ""  # also evaluate against this agent spec at each save (paired games)
    eval_seed: int = 1  # openings of the evaluations (keep them apart from the final test's)
    max_minutes: float = 0.0  # stop (and save) after this much training time; 0: no limit
    out: str = "runs/c4_ppo"


class SaveCallback(BaseCallback):
    """Saves the model (for resuming) and a weights-only checkpoint every ``save_every``
    steps; stops training once ``max_minutes`` have passed."""

    def __init__(self, args: Args, observation: str):
        super().__init__()
        self.args, self.observation = args, observation
        self.next_save = 0
        self.deadline = float("inf")

    def _on_training_start(self) -> None:
        self.next_save = self.num_timesteps + self.args.save_every
        if self.args.max_minutes > 0:
            self.deadline = time.monotonic() + 60 * self.args.max_minutes

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_save:
            save(self.model, self.args, self.observation)
            self.next_save += self.args.save_every
        return time.monotonic() < self.deadline


def save(model: MaskablePPO, args: Args, observation: str) -> Path:
    out = Path(args.out)
    model.save(out / "model.tmp.zip")  # then renamed: an interrupted save keeps the old one
    os.replace(out / "model.tmp.zip", out / "model.zip")
    checkpoint = out / "ppo_connect_four.pt"
    save_policy(model.policy, checkpoint, GAME, {}, observation, args.features, args.net_arch)
    shutil.copyfile(checkpoint, out / f"ppo_connect_four_{model.num_timesteps}.pt")
    line = f"{model.num_timesteps} steps {time.strftime('%H:%M:%S')}"
    if args.eval_games:
        opponents = {"random": RandomAgent(0)}
        if args.eval_agent:
            opponents[args.eval_agent] = make_agent(args.eval_agent, seed=0)
        for name, opponent in opponents.items():
            result = play_match(
                GAME,
                PPOAgent(str(checkpoint)),
                opponent,
                games=args.eval_games,
                opening_plies=args.opening_plies,
                seed=args.eval_seed,
            )
            line += f" score vs {name} {result.score:.3f}"
    with open(out / "progress.txt", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    print(line, flush=True)
    return checkpoint


def warm_start(model: MaskablePPO, args: Args) -> None:
    """Copy a saved policy's weights into the new model (its architecture must match)."""
    policy, config = load_policy(args.init)
    wanted = {"features": args.features, "net_arch": list(args.net_arch), "game": GAME}
    found = {key: config[key] for key in wanted}
    if found != wanted:
        raise SystemExit(f"--init {args.init}: the checkpoint has {found}, this run {wanted}")
    model.policy.load_state_dict(policy.state_dict())
    print(f"weights from {args.init}")


def make_env(args: Args, pool: PolicyPool, observation: str) -> VecMonitor:
    common = {"observation": observation, "opening_plies": args.opening_plies}
    parts = [BoardVectorEnv(GAME, args.num_envs, opponent=pool.opponent(), **common)]
    if args.scripted_envs:
        parts.append(BoardVectorEnv(GAME, args.scripted_envs, opponent="win_or_block", **common))
    if args.agent_envs:
        parts.append(BoardVectorEnv(GAME, args.agent_envs, opponent=args.agent_opponent, **common))
    return VecMonitor(SB3VecEnv(parts))


def main(args: Args) -> Path:
    torch.set_num_threads(1)
    observation = "planes" if args.features == "board_cnn" else "flat"
    Path(args.out).mkdir(parents=True, exist_ok=True)
    pool = PolicyPool(args.pool_size, seed=args.seed)
    env = make_env(args, pool, observation)
    resume = Path(args.out) / "model.zip"
    if resume.exists():
        model = MaskablePPO.load(resume, env=env, device="cpu")
        print(f"resuming from {model.num_timesteps} steps")
    else:
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            learning_rate=args.learning_rate,
            gamma=args.gamma,
            ent_coef=args.ent_coef,
            seed=args.seed,
            device="cpu",
            policy_kwargs=policy_kwargs(args.features, args.net_arch),
        )
        if args.init:
            warm_start(model, args)
    remaining = args.total_timesteps - model.num_timesteps
    if remaining > 0:
        callbacks = CallbackList(
            [SelfPlayCallback(pool, args.snapshot_every), SaveCallback(args, observation)]
        )
        model.learn(remaining, callback=callbacks, reset_num_timesteps=False)
    return save(model, args, observation)


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        default = field.default
        if isinstance(default, tuple):
            parser.add_argument(f"--{field.name}", type=int, nargs="+", default=default)
        else:
            parser.add_argument(f"--{field.name}", type=type(default), default=default)
    values = vars(parser.parse_args())
    return Args(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


if __name__ == "__main__":
    main(parse_args())
