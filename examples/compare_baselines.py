"""Planning against model-free learning on Connect Four, in one file (cleanrl-style).

1. MaskablePPO learns by self-play on the compiled vector env (the opponent drawn from a pool
   of its own past policies, plus some games against the compiled "win_or_block" opponent) for
   a fixed budget of environment steps; every ``eval_every`` steps the policy plays fixed
   references (random, win_or_block-like MCTS) and the scores make the learning curve.
2. A round robin of the trained PPO policy, random, alpha-beta, MCTS at two budgets and the
   shipped AlphaZero network, with Elo by maximum likelihood and 95% intervals.

Writes under ``--out``: ``learning_curve.csv/.png`` (score against each reference versus
environment steps), the tournament's ``ratings.csv/.json/.png``, and ``ppo_connect_four.pt``
(weights only; ``make_agent("ppo:checkpoint=PATH")`` loads it)::

    python examples/compare_baselines.py --ppo_timesteps 1000000 --games_per_pair 20
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import os
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import VecMonitor

from boardzoo.agents import make_agent
from boardzoo.agents.ppo import PPOAgent, policy_kwargs, save_policy
from boardzoo.arena import play_match, tournament
from boardzoo.rl.sb3 import SB3VecEnv
from boardzoo.rl.selfplay import PolicyPool, SelfPlayCallback
from boardzoo.rl.vector import BoardVectorEnv

GAME = "connect_four"


@dataclass
class Args:
    """Everything the run depends on (each field is a --flag)."""

    ppo_timesteps: int = 300_000  # PPO's budget in learner moves
    seed: int = 0
    num_envs: int = 64  # self-play games stepped together
    scripted_envs: int = 16  # more games against the compiled "win_or_block" opponent
    n_steps: int = 64
    batch_size: int = 1024
    learning_rate: float = 3e-4
    ent_coef: float = 0.01
    snapshot_every: int = 50_000  # steps between two policies added to the self-play pool
    eval_every: int = 100_000  # steps between two points of the learning curve
    eval_games: int = 20  # games against each reference per point
    references: tuple[str, ...] = ("random", "mcts:simulations=100,exact_solver=False")
    # the tournament (AlphaZero: a shipped checkpoint's name or a path; "" leaves it out)
    alphazero: str = "connect_four"
    mcts_simulations: tuple[int, ...] = (1000, 10000)
    alphabeta_time: float = 0.05
    games_per_pair: int = 20
    workers: int = 1
    out: str = "runs/compare_baselines"


class LearningCurve(BaseCallback):
    """Every ``eval_every`` steps: save the policy (weights only) and score it against each
    reference; one row per point in ``rows`` (steps, seconds, score per reference)."""

    def __init__(self, args: Args, checkpoint: Path):
        super().__init__()
        self.args, self.checkpoint = args, checkpoint
        self.rows: list[dict[str, float]] = []
        self.next_eval = 0
        self.started = time.monotonic()

    def _on_training_start(self) -> None:
        self.next_eval = self.num_timesteps + self.args.eval_every

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next_eval:
            self.evaluate()
            self.next_eval += self.args.eval_every
        return True

    def evaluate(self) -> None:
        save_policy(self.model.policy, self.checkpoint, GAME, {}, "planes", "board_cnn", (128,))
        row = {"steps": self.num_timesteps, "seconds": round(time.monotonic() - self.started)}
        for spec in self.args.references:
            result = play_match(GAME, PPOAgent(str(self.checkpoint)), make_agent(spec, seed=0),
                                games=self.args.eval_games, seed=len(self.rows))
            row[spec] = result.score
        self.rows.append(row)
        print(", ".join(f"{k} {v}" for k, v in row.items()), flush=True)


def train_ppo(args: Args, out: Path) -> tuple[Path, list[dict[str, float]]]:
    """Self-play MaskablePPO for ``args.ppo_timesteps`` steps; the checkpoint and the curve."""
    pool = PolicyPool(10, seed=args.seed)
    parts = [BoardVectorEnv(GAME, args.num_envs, opponent=pool.opponent(), observation="planes")]
    if args.scripted_envs:
        parts.append(BoardVectorEnv(GAME, args.scripted_envs, opponent="win_or_block",
                                    observation="planes"))
    model = MaskablePPO("MlpPolicy", VecMonitor(SB3VecEnv(parts)), n_steps=args.n_steps,
                        batch_size=args.batch_size, learning_rate=args.learning_rate,
                        ent_coef=args.ent_coef, seed=args.seed, device="cpu",
                        policy_kwargs=policy_kwargs("board_cnn", (128,)))
    curve = LearningCurve(args, out / "ppo_connect_four.pt")
    model.learn(args.ppo_timesteps,
                callback=CallbackList([SelfPlayCallback(pool, args.snapshot_every), curve]))
    curve.evaluate()  # the final point is the policy that plays the tournament
    return curve.checkpoint, curve.rows


def write_curve(rows: list[dict[str, float]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(out / "learning_curve.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key in rows[0]:
        if key not in ("steps", "seconds"):
            ax.plot([r["steps"] for r in rows], [r[key] for r in rows], marker="o", label=key)
    ax.set_xlabel("environment steps (learner moves)")
    ax.set_ylabel("score (draws count half)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("MaskablePPO self-play on Connect Four")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "learning_curve.png", dpi=100)
    plt.close(fig)


def contestants(args: Args, ppo: Path) -> dict[str, object]:
    """The tournament's players by name (a name is the agent's spec)."""
    specs = ["random", f"ppo:checkpoint={ppo}", f"alphabeta:time_limit={args.alphabeta_time}"]
    specs += [f"mcts:simulations={n}" for n in args.mcts_simulations]
    if args.alphazero:
        specs.append(f"alphazero:checkpoint={args.alphazero},simulations=200")
    return {("ppo" if s.startswith("ppo:") else s): make_agent(s, seed=args.seed) for s in specs}


def main(args: Args) -> Path:
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    ppo, rows = train_ppo(args, out)
    write_curve(rows, out)
    print(f"PPO: {args.ppo_timesteps:,} steps in {time.monotonic() - started:.0f} s")
    result = tournament(GAME, contestants(args, ppo), args.games_per_pair, seed=args.seed,
                        store=out / "results.sqlite", workers=args.workers)
    result.table()
    result.save(out)
    return out


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        default = field.default
        if isinstance(default, tuple):
            kind = type(default[0]) if default else str
            parser.add_argument(f"--{field.name}", type=kind, nargs="*", default=default)
        else:
            parser.add_argument(f"--{field.name}", type=type(default), default=default)
    values = vars(parser.parse_args())
    return Args(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main(parse_args())
