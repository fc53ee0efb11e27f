"""docs/works-with.md stays true: every snippet runs as written (a section whose library is
not installed is skipped), and each library's wrapper plays 10,000 masked random steps
without one illegal move; an unmasked random player ends games as PettingZoo's classic envs
do, never with an exception."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from boardzoo.envs import connect_four_v0
from boardzoo.envs.aec import IllegalActionWarning

PAGE = Path(__file__).resolve().parents[1] / "docs" / "works-with.md"
#: the module each section needs (its extra may be missing: the section is skipped then)
NEEDS = {
    "Replacing pettingzoo.classic": "pettingzoo",
    "Stable-Baselines3": "sb3_contrib",
    "RLlib": "ray.rllib",
    "TorchRL": "torchrl",
    "Tianshou": "tianshou",
    "CleanRL-style scripts": "torch",
    "AgileRL": "agilerl",
    "PettingZoo's own tests": "pettingzoo",
}
#: third-party notices the snippets trigger, harmless here
THIRD_PARTY_WARNINGS = [
    "ignore:PettingZoo in TorchRL is tested using version",
    "ignore:.*Overriding environment rllib-multi-agent-env-v0 already in registry",
    # AgileRL 2.2 on newer torch and pydantic than it pins
    "ignore:`torch.jit.script` is deprecated",
    "ignore:Accessing the 'model_fields' attribute on the instance is deprecated",
]


def snippets() -> list[tuple[str, int, str]]:
    """(section, number within it, code) of every python block on the page."""
    found, section, counts = [], None, {}
    pattern = re.compile(r"^## ([^\n]+)$|^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)
    for match in pattern.finditer(PAGE.read_text(encoding="utf-8")):
        if match.group(1):
            section = match.group(1).strip()
        else:
            counts[section] = counts.get(section, 0) + 1
            found.append((section, counts[section], match.group(2)))
    return found


def test_every_library_section_has_a_snippet_and_a_version():
    sections = {section for section, _, _ in snippets()}
    assert sections == set(NEEDS)
    text = PAGE.read_text(encoding="utf-8")
    for version in ("1.4.0", "1.27.0", "2.9.2", "2.60.0", "0.14.1", "2.0.1"):
        assert f"| {version}" in text


@pytest.mark.parametrize(("section", "number", "code"), snippets(),
                         ids=[f"{s}-{n}" for s, n, _ in snippets()])
@pytest.mark.filterwarnings(*THIRD_PARTY_WARNINGS)
def test_the_snippet_runs(section, number, code):
    pytest.importorskip(NEEDS[section], reason=f"the {section} section needs {NEEDS[section]}")
    exec(compile(code, f"works-with.md ({section}, snippet {number})", "exec"), {})


# ----------------------------------------------------- masked random play, wrapper by wrapper
STEPS = 10_000


@pytest.mark.filterwarnings(*THIRD_PARTY_WARNINGS)
def test_torchrl_gym_env_by_id_with_masks_never_plays_an_illegal_move():
    pytest.importorskip("torchrl")
    import torch
    from torchrl.data import Binary
    from torchrl.envs import ActionMask, Compose, DTypeCastTransform, GymEnv, TransformedEnv
    from torchrl.envs.libs.gym import default_info_dict_reader

    import boardzoo  # noqa: F401

    env = GymEnv("boardzoo/ConnectFour-v0", opponent="random")
    env.set_info_dict_reader(default_info_dict_reader(
        ["action_mask"], spec={"action_mask": Binary(7, dtype=torch.int8)}))
    env = TransformedEnv(env, Compose(
        DTypeCastTransform(torch.int8, torch.bool, in_keys=["action_mask"]), ActionMask()))
    env.set_seed(0)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    played = rollout["action"].argmax(-1, keepdim=True)
    assert rollout["action_mask"].gather(-1, played).all()
    ends = rollout["next", "done"].squeeze(-1)
    assert ends.sum() > 300  # whole games, each ended by the rules
    assert set(rollout["next", "reward"][ends].flatten().tolist()) <= {-1.0, 0.0, 1.0}


@pytest.mark.filterwarnings(*THIRD_PARTY_WARNINGS)
def test_torchrl_pettingzoo_wrapper_with_masks_never_plays_an_illegal_move():
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    env = PettingZooWrapper(connect_four_v0.env(), use_mask=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)  # an illegal move would warn
        rollout = env.rollout(STEPS, break_when_any_done=False)
    for agent in ("player_0", "player_1"):
        moving = rollout[agent, "mask"][:, 0]
        played = rollout[agent, "action"][:, 0, None]
        legal = rollout[agent, "action_mask"][:, 0].gather(-1, played)[:, 0]
        assert moving.any() and legal[moving].all()
    rewards = rollout["next", "player_0", "reward"] + rollout["next", "player_1", "reward"]
    assert rewards.abs().sum() == 0  # zero-sum at every end: no forfeits


def test_tianshou_pettingzoo_env_with_masked_random_players_never_plays_an_illegal_move():
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make_env():
        return PettingZooEnv(connect_four_v0.env())

    env = make_env()
    players = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space) for _ in range(2)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=players, env=env)
    collector = Collector(algorithm, DummyVectorEnv([make_env] * 4),
                          VectorReplayBuffer(STEPS + 100, 4))
    with warnings.catch_warnings():
        warnings.simplefilter("error", IllegalActionWarning)
        stats = collector.collect(n_step=STEPS, reset_before_collect=True)
    buffer = collector.buffer
    rows = buffer.sample_indices(0)  # every stored step
    assert stats.n_collected_steps >= STEPS and stats.n_collected_episodes > 300
    assert len(rows) >= STEPS and buffer.obs.mask[rows, buffer.act[rows]].all()


def test_the_two_seat_batch_with_masked_random_moves_never_sees_an_illegal_one():
    from boardzoo.rl import TwoPlayerVectorEnv

    env = TwoPlayerVectorEnv("connect_four", 50)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(STEPS // 50):
        masks = info["action_mask"]
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        _, rewards, terminations, _, info = env.step(actions)
        assert "illegal_action" not in info and not rewards.sum(axis=1).any()
        ends += terminations.sum()
    assert ends > 300


def test_an_unmasked_random_player_ends_games_with_minus_one_and_never_raises():
    env = connect_four_v0.env()
    rng = np.random.default_rng(0)
    forfeits = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for game in range(300):
            env.reset(seed=game)
            while not any(env.terminations.values()):
                mover = env.agent_selection
                env.step(int(rng.integers(7)))  # any column, full or not
            other = "player_1" if mover == "player_0" else "player_0"
            if env.infos[mover].get("illegal_action"):
                forfeits += 1
                assert env.rewards == {mover: -1.0, other: 0.0}
            else:
                assert sorted(env.rewards.values()) in ([-1.0, 1.0], [0.0, 0.0])
    illegal = [w for w in caught if issubclass(w.category, IllegalActionWarning)]
    assert forfeits > 20 and len(illegal) == forfeits
