"""Learning checks: a model-free learner really learns on boardzoo's envs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_tictactoe.py"


@pytest.mark.slow
def test_maskable_ppo_learns_tictactoe_against_random():
    """MaskablePPO (MlpPolicy, 1 torch thread, seed 0), 30,000 steps, then >= 90% non-losses
    over 400 games in the gym view against random with a random seat."""
    spec = importlib.util.spec_from_file_location("ppo_tictactoe", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    sys.modules["ppo_tictactoe"] = example
    spec.loader.exec_module(example)
    scores = example.main(example.Args(total_timesteps=30_000, eval_episodes=400, seed=0))
    assert scores["wins"] + scores["draws"] >= 0.90
