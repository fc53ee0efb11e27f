"""Self-play PPO on Connect Four with boardzoo's two-seat batch, in one file (CleanRL-style).

One policy plays both seats of ``num_envs`` games stepped together by
``boardzoo.rl.TwoPlayerVectorEnv``: every observation is the position from the side to move's
view, so every ply is a training sample for the same network. The value of a position is the
side to move's expected result, so the next position's value counts negated (the opponent
moves there): the advantages are GAE with the sign flipping at every ply (negamax GAE), and
a move that ends the game is scored by its mover's reward alone.

Training is resumable and saves atomically: ``<out>/state.pt`` (weights, optimizer, step
count; weights-only, loaded with ``torch.load(weights_only=True)``) every ``save_every``
plies, with a line in ``<out>/progress.txt`` scoring the policy (its argmax move) against
random and against ``eval_opponent`` (the shipped PPO policy by default) in arena games from
4-ply random openings, colours alternating::

    python examples/cleanrl_ppo_two_player.py --total_timesteps 30000000 --out runs/c4_2p
    # the same command again resumes the run and trains on to the same total
    python examples/cleanrl_ppo_two_player.py --out runs/c4_2p --eval_only \
        --eval_games 400 --eval_seed 0     # the saved policy's scores, on other openings
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from boardzoo.agents import RandomAgent, make_agent
from boardzoo.arena import play_match
from boardzoo.files import atomic_write_bytes
from boardzoo.rl import TwoPlayerVectorEnv

GAME = "connect_four"


@dataclass
class Args:
    """Everything the run depends on (each field is a --flag)."""

    total_timesteps: int = 1_000_000  # plies of both seats in total (a resumed run counts on)
    seed: int = 0
    num_envs: int = 256  # games stepped together
    num_steps: int = 32  # plies per game per rollout
    opening_plies: int = 4  # each game starts after 0 to this many random moves
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 8
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    channels: int = 32  # of the network's three 3x3 convolutions
    hidden: int = 256  # width of its hidden layer
    save_every: int = 1_000_000
    eval_games: int = 100  # arena games per opponent at each save (0: none)
    eval_opponent: str = "ppo:checkpoint=connect_four"  # an agent spec
    eval_seed: int = 1  # the evaluations' openings
    eval_only: bool = False  # only score the policy saved in ``out``
    max_minutes: float = 0.0  # stop (and save) after this much training time; 0: no limit
    out: str = "runs/c4_two_player"


class Agent(nn.Module):
    """Policy logits and value (the side to move's expected result) from its planes
    (``[B, H, W, C]``): three same-padding 3x3 convolutions and a hidden layer."""

    def __init__(self, planes: tuple[int, int, int], num_actions: int, channels: int,
                 hidden: int):
        super().__init__()
        rows, columns, depth = planes
        self.trunk = nn.Sequential(
            nn.Conv2d(depth, channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
            nn.Flatten(), nn.Linear(channels * rows * columns, hidden), nn.ReLU(),
        )
        self.policy = nn.Linear(hidden, num_actions)
        self.value = nn.Linear(hidden, 1)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits ``[B, A]`` (illegal moves at -1e9) and values ``[B]``."""
        hidden = self.trunk(obs.permute(0, 3, 1, 2))
        logits = self.policy(hidden).masked_fill(~mask, -1e9)
        return logits, self.value(hidden).squeeze(-1)


class PolicyPlayer:
    """The network as an arena agent: the legal move it rates best."""

    def __init__(self, agent: Agent):
        self.agent = agent

    def act(self, env) -> int:
        obs = env.observe(env.agent_selection)
        with torch.no_grad():
            logits, _ = self.agent(torch.as_tensor(obs["observation"])[None],
                                   torch.as_tensor(obs["action_mask"], dtype=torch.bool)[None])
        return int(logits.argmax())


def negamax_gae(rewards, values, next_value, dones, gamma, lam):
    """Advantages ``[T, N]`` where ``values[t]`` and ``next_value`` are from the side to move's
    view and ``rewards[t]`` is the mover's reward for ply t; ``dones[t]``: ply t ended its
    game (the next position is a new game's)."""
    advantages = torch.zeros_like(rewards)
    last = torch.zeros_like(next_value)
    for t in reversed(range(rewards.shape[0])):
        following = next_value if t == rewards.shape[0] - 1 else values[t + 1]
        alive = 1.0 - dones[t]
        delta = rewards[t] - gamma * following * alive - values[t]
        last = delta - gamma * lam * alive * last
        advantages[t] = last
    return advantages


def ppo_update(agent, optimizer, batch, args: Args) -> None:
    """``update_epochs`` passes of clipped PPO over the rollout's shuffled minibatches."""
    obs, masks, actions, logprobs, advantages, returns = batch
    size = obs.shape[0]
    minibatch = size // args.num_minibatches
    for _ in range(args.update_epochs):
        order = torch.randperm(size)
        for start in range(0, size, minibatch):
            idx = order[start:start + minibatch]
            logits, value = agent(obs[idx], masks[idx])
            dist = torch.distributions.Categorical(logits=logits)
            ratio = (dist.log_prob(actions[idx]) - logprobs[idx]).exp()
            adv = advantages[idx]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            policy_loss = torch.max(-adv * ratio,
                                    -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef))
            loss = (policy_loss.mean() + args.vf_coef * ((value - returns[idx]) ** 2).mean()
                    - args.ent_coef * dist.entropy().mean())
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()


def evaluate(agent: Agent, args: Args) -> str:
    """Scores against random and ``eval_opponent`` (arena games from 4-ply openings)."""
    text = ""
    for name, opponent in (("random", RandomAgent(0)),
                           (args.eval_opponent, make_agent(args.eval_opponent, seed=0))):
        result = play_match(GAME, PolicyPlayer(agent), opponent, games=args.eval_games,
                            opening_plies=4, seed=args.eval_seed)
        low, high = result.score_ci
        text += (f" score vs {name} {result.score:.3f} [{low:.3f}, {high:.3f}] "
                 f"(+{result.wins} ={result.draws} -{result.losses})")
    return text


def save(out: Path, agent: Agent, optimizer, step: int, args: Args, rate: float) -> None:
    buffer = io.BytesIO()
    torch.save({"agent": agent.state_dict(), "optimizer": optimizer.state_dict(),
                "step": step, "args": dataclasses.asdict(args)}, buffer)
    atomic_write_bytes(out / "state.pt", buffer.getvalue())  # an interrupted save keeps the old
    line = f"{step} plies {time.strftime('%H:%M:%S')} {rate:,.0f} plies/s"
    if args.eval_games:
        line += evaluate(agent, args)
    with open(out / "progress.txt", "a", encoding="utf-8") as fh:
        fh.write(line + "\n")
    print(line, flush=True)


def main(args: Args) -> Agent:
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    envs = TwoPlayerVectorEnv(GAME, args.num_envs, opening_plies=args.opening_plies)
    agent = Agent(envs.single_observation_space.shape, envs.single_action_space.n,
                  args.channels, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    step = 0
    if (out / "state.pt").exists():
        state = torch.load(out / "state.pt", weights_only=True)
        agent.load_state_dict(state["agent"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
        print(f"resuming at {step} plies")
    if args.eval_only:
        print(f"{step} plies, {args.eval_games} games, openings of seed {args.eval_seed}:"
              f"{evaluate(agent, args)}")
        return agent
    start, first = time.monotonic(), step
    deadline = start + 60 * args.max_minutes if args.max_minutes else float("inf")
    next_save = step + args.save_every
    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, *envs.single_observation_space.shape))
    mask_buf = torch.zeros((T, N, envs.single_action_space.n), dtype=torch.bool)
    actions, logprobs, rewards, dones, values = (torch.zeros((T, N)) for _ in range(5))
    next_obs, info = envs.reset(seed=args.seed + step)
    while step < args.total_timesteps and time.monotonic() < deadline:
        for t in range(T):  # the rollout: one policy for both seats
            obs_buf[t] = torch.as_tensor(next_obs)
            mask_buf[t] = torch.as_tensor(info["action_mask"], dtype=torch.bool)
            with torch.no_grad():
                logits, values[t] = agent(obs_buf[t], mask_buf[t])
            dist = torch.distributions.Categorical(logits=logits)
            actions[t] = dist.sample()
            logprobs[t] = dist.log_prob(actions[t])
            movers = info["to_play"]
            next_obs, both, terminations, _, info = envs.step(actions[t].long().numpy())
            rewards[t] = torch.as_tensor(both[np.arange(N), movers])
            dones[t] = torch.as_tensor(terminations, dtype=torch.float32)
        with torch.no_grad():
            _, next_value = agent(torch.as_tensor(next_obs),
                                  torch.as_tensor(info["action_mask"], dtype=torch.bool))
            advantages = negamax_gae(rewards, values, next_value, dones, args.gamma,
                                     args.gae_lambda)
        batch = (obs_buf.flatten(0, 1), mask_buf.flatten(0, 1), actions.flatten().long(),
                 logprobs.flatten(), advantages.flatten(), (advantages + values).flatten())
        ppo_update(agent, optimizer, batch, args)
        step += T * N
        if step >= next_save:
            save(out, agent, optimizer, step, args, (step - first) / (time.monotonic() - start))
            next_save += args.save_every
    save(out, agent, optimizer, step, args, (step - first) / (time.monotonic() - start))
    return agent


def parse_args() -> Args:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field in dataclasses.fields(Args):
        if isinstance(field.default, bool):
            parser.add_argument(f"--{field.name}", action="store_true")
        else:
            parser.add_argument(f"--{field.name}", type=type(field.default), default=field.default)
    return Args(**vars(parser.parse_args()))


if __name__ == "__main__":
    main(parse_args())
