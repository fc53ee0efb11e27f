"""RLlib (the rllib extra, its own venv in CI: ``make test-rllib``): boardzoo's MultiAgentEnv
with RLlib's masking module and no adapter, a boardzoo agent as a fixed opponent module, the
league, and 10,000 masked random steps that are never illegal. One Ray session serves the
module's tests."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra (pip install 'boardzoo[rllib]')")

from ray.rllib.algorithms.ppo import PPOConfig  # noqa: E402
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (  # noqa: E402
    ActionMaskingTorchRLModule,
)

from boardzoo.agents import RandomAgent  # noqa: E402
from boardzoo.arena import play_match  # noqa: E402
from boardzoo.envs import make_env  # noqa: E402
from boardzoo.errors import IllegalActionError, InvalidOptionError, UnknownOptionError  # noqa: E402
from boardzoo.rl.rllib import (  # noqa: E402
    MAIN,
    ModuleAgent,
    RLlibEnv,
    SeatMapping,
    ray_session,
    selfplay_ppo_config,
)

TINY = {"train_batch_size_per_learner": 128, "minibatch_size": 64, "num_epochs": 1}
#: RLlib registers its multi-agent env wrapper with gymnasium again for every algorithm
pytestmark = pytest.mark.filterwarnings(
    "ignore:.*Overriding environment rllib-multi-agent-env-v0 already in registry")


@pytest.fixture(scope="module")
def ray():
    with ray_session(cpus=2):
        yield


@pytest.mark.parametrize("game", ["tictactoe", "connect_four", "othello", "go"])
def test_masked_random_play_is_never_illegal_and_ends_as_the_aec_env(game):
    env, mirror = RLlibEnv(game), make_env(game, illegal_action="raise")
    rng = np.random.default_rng(0)
    steps, games = 0, 0
    while steps < (10_000 if game in ("tictactoe", "connect_four") else 2_000):
        obs, _ = env.reset(seed=steps)
        mirror.reset()
        while True:
            (agent, seen), = obs.items()
            assert agent == mirror.agent_selection
            assert env.observation_spaces[agent].contains(seen)
            assert np.array_equal(seen["action_mask"], mirror.observe(agent)["action_mask"])
            action = int(rng.choice(np.flatnonzero(seen["action_mask"])))
            obs, rewards, terminateds, _, infos = env.step({agent: action})
            mirror.step(action)
            steps += 1
            assert not infos
            if terminateds["__all__"]:
                assert rewards == {a: float(mirror.rewards[a]) for a in mirror.possible_agents}
                assert set(obs) == {"player_0", "player_1"}
                assert not any(o["action_mask"].any() for o in obs.values())
                games += 1
                break
            assert not rewards and not mirror.terminations[agent]
    assert games > 5


def test_an_illegal_action_ends_the_game_as_in_pettingzoo_classic():
    env = RLlibEnv({"game": "connect_four"})
    env.reset(options={"moves": [0] * 6})
    obs, rewards, terminateds, _, infos = env.step({"player_0": 0})
    assert rewards == {"player_0": -1.0, "player_1": 0.0} and terminateds["__all__"]
    assert infos == {"player_0": {"illegal_action": True}}
    strict = RLlibEnv("connect_four", illegal_action="raise")
    strict.reset(options={"moves": [0] * 6})
    with pytest.raises(IllegalActionError, match=r"action 0 \(column 1\) is full"):
        strict.step({"player_0": 0})
    with pytest.raises(UnknownOptionError, match="unexpected keyword argument 'colums'.*did you "
                                                 "mean 'columns'"):
        RLlibEnv({"game": "connect_four", "colums": 8})


def test_seat_mapping_puts_main_on_one_seat_and_draws_the_other_per_episode():
    class Episode:
        def __init__(self, id_):
            self.id_ = id_

    mapping = SeatMapping(["mcts", "main_1"], self_play_share=0.5)
    seen = set()
    for k in range(200):
        episode = Episode(f"episode-{k}")
        seats = [mapping(agent, episode) for agent in ("player_0", "player_1")]
        assert seats == [mapping(agent, episode) for agent in ("player_0", "player_1")]
        assert MAIN in seats
        seen.add(tuple(seats))
    assert {("main", "main"), ("main", "mcts"), ("mcts", "main"), ("main_1", "main")} <= seen
    assert SeatMapping([], 0.0)("player_1", Episode("x")) == MAIN


def test_ppo_trains_on_the_env_with_rllibs_masking_module_and_no_adapter(ray):
    config = (
        PPOConfig()
        .environment(RLlibEnv, env_config={"game": "connect_four"})
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent, episode, **kw: "main")
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={"main": RLModuleSpec(module_class=ActionMaskingTorchRLModule)}))
        .env_runners(num_env_runners=0)
        .training(**TINY)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 128
        outcome = play_match("connect_four", ModuleAgent(algo.get_module("main")),
                             RandomAgent(0), games=2)
        assert outcome.games == 2  # its moves were legal in the arena
    finally:
        algo.stop()


def test_self_play_with_an_mcts_opponent_and_a_league(ray):
    config = (
        selfplay_ppo_config("connect_four", opponents={"mcts": "mcts:simulations=8"}, league=1,
                            snapshot_every=1, self_play_share=0.0, seed=0)
        .env_runners(num_env_runners=0)
        .training(**TINY)
    )
    algo = config.build_algo()
    try:
        result = algo.train()
        returns = result["env_runners"]["module_episode_returns_mean"]
        assert {"main", "mcts", "main_1"} <= set(returns)  # both opponents played
        assert result["league_refreshed"] == "main_1"
        weights = algo.get_weights([MAIN, "main_1"])
        for key, value in weights[MAIN].items():
            assert np.array_equal(np.asarray(value), np.asarray(weights["main_1"][key]))
        runner = algo.get_module("main_1").state_dict()  # the env runner plays that copy
        assert all(np.array_equal(np.asarray(value), np.asarray(runner[key]))
                   for key, value in weights["main_1"].items())
    finally:
        algo.stop()


def test_the_example_trains_logs_throughput_saves_main_and_scores_it(ray, tmp_path):
    import importlib.util
    import sys
    from pathlib import Path

    import torch

    path = Path(__file__).resolve().parents[1] / "examples" / "rllib_selfplay.py"
    spec = importlib.util.spec_from_file_location("rllib_selfplay", path)
    example = importlib.util.module_from_spec(spec)
    sys.modules["rllib_selfplay"] = example  # dataclasses look their module up
    spec.loader.exec_module(example)
    args = example.Args(game="tictactoe", iterations=1, env_runners=0, envs_per_runner=1,
                        train_batch=128, minibatch=64, epochs=1, hidden=(16,), eval_games=2,
                        eval_opponent="random", sampling_rounds=1, out=str(tmp_path))
    example.main(args)
    lines = (tmp_path / "progress.txt").read_text().splitlines()
    assert lines[0].startswith("sampling: ") and lines[0].endswith(" env steps/s (0 env runners)")
    assert lines[1].startswith("iteration 1: ") and "env steps/s of training" in lines[1]
    assert "score vs random" in lines[-1]
    saved = torch.load(tmp_path / "main.pt", weights_only=True)
    started = example.main(example.Args(**{**vars(args), "init": str(tmp_path / "main.pt"),
                                           "iterations": 0, "eval_games": 0,
                                           "out": str(tmp_path / "again")}))
    assert saved.keys() == started.keys()
    assert all(np.array_equal(saved[key].numpy(), np.asarray(started[key])) for key in saved)


@pytest.mark.parametrize("spec", ["random", "alphabeta:depth=2",
                                  "alphazero:checkpoint=connect_four,simulations=16"])
def test_a_boardzoo_agent_module_plays_from_the_observed_state(spec):
    from boardzoo.rl.rllib import AgentModule

    env = RLlibEnv("connect_four", include_state=True)
    obs, _ = env.reset(options={"position": "445566"})  # X to move, three in the bottom row
    module = AgentModule(observation_space=env.observation_spaces["player_0"],
                         action_space=env.action_spaces["player_0"],
                         model_config={"agent": spec, "game": "connect_four", "seed": 0})
    batch = {"obs": {key: np.stack([value, value]) for key, value in obs["player_0"].items()}}
    actions = module.forward_inference(batch)["actions"]
    assert actions.shape == (2,) and all(obs["player_0"]["action_mask"][actions] == 1)
    if spec != "random":
        assert set(actions.tolist()) <= {2, 6}  # the wins: columns 3 and 7
    with pytest.raises(InvalidOptionError, match="include_state=True"):
        module.forward_inference({"obs": {"observations": batch["obs"]["observations"]}})
