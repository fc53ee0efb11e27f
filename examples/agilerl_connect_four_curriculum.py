"""AgileRL's DQN on boardzoo's drop-in ``connect_four_v3``, in the shape of PettingZoo's
AgileRL curriculum tutorial, shortened: a population of DQN agents learns against a random
opponent that blocks vertical threats more often, with the tutorial's lesson rewards, which
read the board through ``env.env.board`` as the tutorial does; then tournament selection
and mutation. Only the env import differs from a PettingZoo program.

Needs AgileRL's stack (``pip install agilerl`` beside boardzoo; AgileRL's releases with this
API pin numpy<2, which boardzoo supports). Run
``python examples/agilerl_connect_four_curriculum.py``; ``--episodes`` scales it.
"""

from __future__ import annotations

import argparse
import random

import numpy as np
import torch
from agilerl.components.replay_buffer import ReplayBuffer
from agilerl.hpo.mutation import Mutations
from agilerl.hpo.tournament import TournamentSelection
from agilerl.utils.utils import create_population
from tensordict import TensorDict

from boardzoo.classic import connect_four_v3  # PettingZoo: from pettingzoo.classic import ...

#: the tutorial's first lesson: a random opponent, extra reward for lines of three
LESSON = {
    "block_vert_coef": 4,
    "rewards": {"win": 1, "vertical_win": 0.7, "three_in_row": 0.05, "opp_three_in_row": -0.05,
                "lose": -1, "play_continues": 0},
}
INIT_HP = {"BATCH_SIZE": 64, "LR": 1e-4, "GAMMA": 0.99, "LEARN_STEP": 1, "TAU": 0.01,
           "DOUBLE": True, "POP_SIZE": 2}
NET_CONFIG = {"encoder_config": {"channel_size": [32], "kernel_size": [3], "stride_size": [1]},
              "head_config": {"hidden_size": [64]}}


def board(env) -> np.ndarray:
    """The board as PettingZoo's raw env keeps it: 6x7, 0 empty, 1 player_0, 2 player_1."""
    return np.array(env.env.board).reshape(6, 7)


def lines_of_three(cells: np.ndarray, piece: int) -> int:
    """Windows of four with three of ``piece`` and one empty cell (the tutorial's count)."""
    count = 0
    for r in range(6):
        for c in range(7):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (-1, 1)):
                if 0 <= r + 3 * dr < 6 and c + 3 * dc < 7:
                    window = [cells[r + k * dr, c + k * dc] for k in range(4)]
                    count += window.count(piece) == 3 and window.count(0) == 1
    return count


def vertical_win(cells: np.ndarray, piece: int) -> bool:
    return any((cells[r : r + 4, c] == piece).all() for r in range(3) for c in range(7))


def reward(env, done: bool, player: int) -> float:
    """The lesson's reward for ``player`` (0 or 1) after its move."""
    rewards, cells = LESSON["rewards"], board(env)
    if done:
        won = env.rewards[env.possible_agents[player]] > 0
        if not won:
            return rewards["lose"] if env.rewards[env.possible_agents[player]] < 0 else 0.0
        return rewards["vertical_win"] if vertical_win(cells, player + 1) else rewards["win"]
    ours, theirs = lines_of_three(cells, player + 1), lines_of_three(cells, 2 - player)
    return rewards["three_in_row"] * ours + rewards["opp_three_in_row"] * theirs


def opponent_action(mask: np.ndarray, last_move: int | None) -> int:
    """Random, but blocking the agent's last column ``block_vert_coef`` times as often."""
    weights = mask.astype(float)
    if last_move is not None:
        weights[last_move] *= LESSON["block_vert_coef"]
    return random.choices(range(7), weights)[0]


def planes(observation: dict) -> np.ndarray:
    """(1, 2, 6, 7) float32 for the agent's network, channels first."""
    return np.moveaxis(observation["observation"], -1, 0)[None].astype(np.float32)


def play_episode(env, agent, memory, epsilon: float) -> float:
    """One game as player_0 against the lesson's opponent; stores the agent's transitions."""
    env.reset()
    observation = env.last()[0]
    total, agent_move = 0.0, None
    while True:
        state, mask = planes(observation), observation["action_mask"]
        agent_move = int(agent.get_action(state, epsilon, mask[None])[0])
        env.step(agent_move)
        observation, _, done, truncated, _ = env.last()
        if not (done or truncated):
            env.step(opponent_action(observation["action_mask"], agent_move))
            observation, _, done, truncated, _ = env.last()
        gain = reward(env, done or truncated, 0)
        total += gain
        memory.add(TensorDict({
            "obs": state, "action": np.array([[agent_move]]), "reward": np.array([[gain]]),
            "next_obs": planes(observation), "done": np.array([[float(done or truncated)]]),
        }, batch_size=[1]))
        if done or truncated:
            return total


def main(episodes: int = 20, seed: int = 0) -> list[float]:
    """Train the population for ``episodes`` games each, then select and mutate; returns
    each agent's mean lesson reward."""
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 - AgileRL explores with numpy's global generator
    torch.manual_seed(seed)
    env = connect_four_v3.env()
    env.reset(seed=seed)
    space = env.observation_space("player_0")["observation"]
    obs_space = type(space)(0, 1, (space.shape[2], space.shape[0], space.shape[1]))
    population = create_population("DQN", obs_space, env.action_space("player_0"), NET_CONFIG,
                                   INIT_HP, population_size=INIT_HP["POP_SIZE"])
    memory = ReplayBuffer(max_size=10_000)
    scores = []
    for agent in population:
        totals = []
        for episode in range(episodes):
            totals.append(play_episode(env, agent, memory, max(0.1, 1 - episode / episodes)))
            if memory.size >= INIT_HP["BATCH_SIZE"]:
                agent.learn(memory.sample(INIT_HP["BATCH_SIZE"]))
        agent.fitness.append(float(np.mean(totals)))
        scores.append(float(np.mean(totals)))
    tournament = TournamentSelection(2, True, INIT_HP["POP_SIZE"], eval_loop=1)
    mutations = Mutations(no_mutation=0.2, architecture=0, new_layer_prob=0, parameters=0.2,
                          activation=0, rl_hp=0.2, mutation_sd=0.1, rand_seed=seed)
    _, population = tournament.select(population)
    mutations.mutation(population)
    env.close()
    return scores


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=20)
    args = parser.parse_args()
    print("mean lesson reward per agent:", main(args.episodes))
