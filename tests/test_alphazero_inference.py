"""The network run by ONNX Runtime against torch eager (the oracle): equal outputs on the
shipped networks, the same move, the default choice, and nothing changed without the extra."""

from __future__ import annotations

import pickle
import sys

import numpy as np
import pytest
import torch

from boardzoo.agents import make_agent
from boardzoo.agents.alphazero import AlphaZeroAgent
from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint
from boardzoo.agents.alphazero.inference import network_forward, resolve_inference
from boardzoo.envs import make_env
from boardzoo.errors import InvalidOptionError, MissingExtraError
from boardzoo.training import TrainConfig
from boardzoo.training.agents import training_agent

pytest.importorskip("onnxruntime")


def _random_positions(env, count: int, plies: int, seed: int) -> np.ndarray:
    """Observations (side to move's view) after ``plies`` random moves from ``count`` games."""
    rng = np.random.default_rng(seed)
    observations = []
    for _ in range(count):
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(plies):
            observation, _, done, truncated, _ = env.last()
            if done or truncated:
                break
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        observations.append(env.last()[0]["observation"])
    return np.stack(observations).astype(np.float32)


@pytest.mark.parametrize("name, env_options", [
    ("tictactoe", {}), ("connect_four", {}), ("othello_6x6", {"board_size": 6})])
def test_onnxruntime_outputs_equal_torchs_on_the_shipped_networks(name, env_options):
    checkpoint = load_checkpoint(resolve_checkpoint(name))
    planes = _random_positions(make_env(checkpoint.game.name, **env_options), 16, 6, seed=1)
    onnx = network_forward(checkpoint.net, "onnxruntime")
    with torch.inference_mode():
        want_logits, want_values = checkpoint.net(torch.from_numpy(planes))
    for batch in (planes[:1], planes):  # one leaf, and a batch (the axis is dynamic)
        logits, values = onnx(batch)
        np.testing.assert_allclose(logits, want_logits[:len(batch)].numpy(), atol=1e-4)
        np.testing.assert_allclose(values, want_values[:len(batch)].numpy(), atol=1e-4)


def test_onnxruntime_and_torch_choose_the_same_moves():
    agents = {inference: AlphaZeroAgent.from_checkpoint(
        "connect_four", simulations=200, reuse_tree=False, inference=inference, seed=0)
        for inference in ("torch", "onnxruntime")}
    env = make_env("connect_four")
    for opening in ([], [3, 3, 2], [3, 4, 3, 4, 2]):
        env.reset()
        for move in opening:
            env.step(move)
        moves = {name: agent.search(env).action for name, agent in agents.items()}
        assert moves["torch"] == moves["onnxruntime"], (opening, moves)


def test_the_default_is_onnxruntime_on_the_cpu_and_the_spec_and_training_choose():
    assert AlphaZeroAgent.from_checkpoint("tictactoe", simulations=10).inference == "onnxruntime"
    assert resolve_inference("auto", torch.device("cuda")) == "torch"
    spec = make_agent("alphazero:checkpoint=tictactoe,inference=torch,simulations=10")
    assert spec.inference == "torch"
    checkpoint = load_checkpoint(resolve_checkpoint("tictactoe"))
    config = TrainConfig(iterations=1, inference="torch")
    agent = training_agent(checkpoint.net, checkpoint.game, config, seed=0, self_play=True)
    assert agent.inference == "torch"
    with pytest.raises(InvalidOptionError, match="inference='tensorrt'; use 'auto', 'torch'"):
        make_agent("alphazero:checkpoint=tictactoe,inference=tensorrt")
    with pytest.raises(InvalidOptionError, match="inference"):
        TrainConfig(iterations=1, inference="tensorrt")


@pytest.mark.parametrize("blocked", ["onnxruntime", "onnx"])
def test_without_the_extra_the_default_is_torch_and_asking_for_it_names_it(
        monkeypatch, blocked):
    monkeypatch.setitem(sys.modules, blocked, None)  # as if not installed
    agent = make_agent("alphazero:checkpoint=tictactoe,simulations=50", seed=0)
    env = make_env("tictactoe")
    env.reset(options={"position": "XX.OO...."})
    assert agent.inference == "torch" and agent.act(env) == 2
    with pytest.raises(MissingExtraError, match=r"needs onnx.*pip install 'boardzoo\[onnx\]'"):
        make_agent("alphazero:checkpoint=tictactoe,inference=onnxruntime")


@pytest.mark.parametrize("inference", ["torch", "onnxruntime"])
def test_an_agent_pickles_for_arena_worker_processes(inference):
    agent = AlphaZeroAgent.from_checkpoint("tictactoe", simulations=50, inference=inference,
                                           seed=0)
    copied = pickle.loads(pickle.dumps(agent))
    planes = _random_positions(make_env("tictactoe"), 4, 3, seed=2)
    masks = np.ones((len(planes), 9), bool)
    original = agent.options["evaluator"](planes, masks)
    copy = copied.options["evaluator"](planes, masks)
    np.testing.assert_array_equal(copy.logits, original.logits)
    np.testing.assert_array_equal(copy.values, original.values)
    env = make_env("tictactoe")
    env.reset(options={"position": "XX.OO...."})
    assert copied.inference == inference and copied.act(env) == 2
