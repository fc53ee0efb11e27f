"""Masked PPO self-play with RLlib (new API stack) on a boardzoo game, boardzoo agents as
optional fixed opponents, then arena scores against random and MCTS.

RLlib trains "main" (its action-masking module) on ``boardzoo.rl.rllib.RLlibEnv`` for a
budget of iterations or minutes (``selfplay_ppo_config``), on a private loopback-only Ray
with ``env_runners`` sampling processes, or on a cluster with ``--ray_address``. It prints,
and appends to ``<out>/progress.txt``: first ``--sampling_rounds`` timed rounds of sampling
alone (``train_batch`` env steps each, all env runners at once: the env runners'
throughput), then at every iteration the env steps so far and per second of the iteration
(sampling and learning), then the arena scores of main's best move (``ModuleAgent``)
against ``RandomAgent`` and ``--eval_opponent`` from 4-ply random openings, colours
alternating.
Main's weights are saved atomically (weights only) to ``<out>/main.pt`` after every
iteration; ``--init`` starts from such a file::

    python examples/rllib_selfplay.py --minutes 30 --out runs/rllib_c4
    python examples/rllib_selfplay.py --opponent "mcts:simulations=100" --league 3 \\
        --env_runners 2 --ray-address auto --minutes 60
"""

from __future__ import annotations

import argparse
import io
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import torch
from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

from boardzoo.agents import RandomAgent, make_agent
from boardzoo.arena import play_match
from boardzoo.files import atomic_write_bytes
from boardzoo.rl.rllib import MAIN, ModuleAgent, ray_session, selfplay_ppo_config


@dataclass
class Args:
    """Everything the run depends on (each field is a --flag)."""

    game: str = "connect_four"
    iterations: int = 1_000  # training iterations at most
    minutes: float = 0.0  # or stop after this much wall time; 0: no limit
    env_runners: int = 1  # sampling processes (0: sample in this process)
    envs_per_runner: int = 8
    train_batch: int = 4_000  # env steps per iteration
    minibatch: int = 500
    epochs: int = 4
    hidden: tuple[int, ...] = (256, 256)
    opponent: list[str] = field(default_factory=list)  # boardzoo agent specs as opponents
    league: int = 0  # frozen copies of main as opponents
    snapshot_every: int = 10
    self_play_share: float = 0.5
    sampling_rounds: int = 0  # timed rounds of sampling alone before training
    seed: int = 0
    ray_address: str = ""  # a Ray cluster ("auto", "host:6379"); "": a private local Ray
    init: str = ""  # start from main's weights saved by an earlier run
    eval_games: int = 200
    eval_opponent: str = "mcts:simulations=100"
    out: str = "runs/rllib_selfplay"


def sampling_rate(algo, env_steps: int) -> float:
    """Env steps per second of one round of sampling alone, every env runner at once."""
    start = time.perf_counter()
    episodes = synchronous_parallel_sample(worker_set=algo.env_runner_group,
                                           max_env_steps=env_steps, _uses_new_env_runners=True)
    return sum(episode.env_steps() for episode in episodes) / (time.perf_counter() - start)


def save_main(module, path: Path) -> None:
    buffer = io.BytesIO()
    torch.save(module.state_dict(), buffer)
    atomic_write_bytes(path, buffer.getvalue())


def log(out: Path, line: str) -> None:
    print(line, flush=True)
    with open(out / "progress.txt", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")


def evaluate(module, args: Args) -> str:
    text = ""
    for name, opponent in (("random", RandomAgent(0)),
                           (args.eval_opponent, make_agent(args.eval_opponent, seed=0))):
        result = play_match(args.game, ModuleAgent(module), opponent, games=args.eval_games,
                            opening_plies=4, seed=0)
        low, high = result.score_ci
        text += (f" score vs {name} {result.score:.3f} [{low:.3f}, {high:.3f}] "
                 f"(+{result.wins} ={result.draws} -{result.losses})")
    return text


def main(args: Args) -> Any:
    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    opponents = {spec.split(":")[0]: spec for spec in args.opponent}
    config = (
        selfplay_ppo_config(args.game, opponents=opponents, league=args.league,
                            snapshot_every=args.snapshot_every, hidden=args.hidden,
                            self_play_share=args.self_play_share, seed=args.seed)
        .env_runners(num_env_runners=args.env_runners,
                     num_envs_per_env_runner=args.envs_per_runner)
        .training(train_batch_size_per_learner=args.train_batch,
                  minibatch_size=args.minibatch, num_epochs=args.epochs)
    )
    with ray_session(args.ray_address or None, cpus=max(args.env_runners, 1) + 1):
        algo = config.build_algo()
        if args.init:  # into the learner and the local env runner, then the remote ones
            algo.set_weights({MAIN: torch.load(args.init, weights_only=True)})
            algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group)
        for _ in range(args.sampling_rounds):
            log(out, f"sampling: {sampling_rate(algo, args.train_batch):,.0f} env steps/s "
                     f"({args.env_runners} env runners)")
        start = time.monotonic()
        steps = 0
        for _ in range(args.iterations):
            began = time.monotonic()
            result = algo.train()
            sampled = result["num_env_steps_sampled_lifetime"] - steps
            steps = result["num_env_steps_sampled_lifetime"]
            runners = result.get("env_runners", {})  # an iteration may report no episodes
            returns = {k: round(float(v), 3) for k, v in
                       runners.get("module_episode_returns_mean", {}).items()}
            log(out, f"iteration {result['training_iteration']}: {steps:.0f} env steps, "
                     f"{sampled / (time.monotonic() - began):,.0f} env steps/s of training "
                     f"({args.env_runners} env runners), returns {returns}")
            save_main(algo.get_module(MAIN), out / "main.pt")
            if args.minutes and time.monotonic() - start > 60 * args.minutes:
                break
        minutes = (time.monotonic() - start) / 60
        line = f"{steps} env steps in {minutes:.1f} min"
        if args.eval_games:
            line += evaluate(algo.get_module(MAIN), args)
        log(out, line)
        weights = algo.get_weights([MAIN])[MAIN]
        algo.stop()
    return weights


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in fields(Args):
        if f.name == "opponent":  # repeatable
            parser.add_argument("--opponent", action="append", default=[])
        elif f.name == "hidden":
            parser.add_argument("--hidden", type=int, nargs="+", default=list(f.default))
        elif f.name == "ray_address":  # also spelt as boardzoo's other Ray paths spell it
            parser.add_argument("--ray_address", "--ray-address", default=f.default)
        else:
            parser.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    values = vars(parser.parse_args())
    return Args(**values | {"hidden": tuple(values["hidden"])})


if __name__ == "__main__":
    main(parse_args())
