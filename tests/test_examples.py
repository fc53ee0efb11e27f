"""Every example runs end to end with a tiny budget."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_play_vs_mcts_plays_a_whole_game(capsys):
    example = load("play_vs_mcts")
    moves = iter(
        [
            "help",
            "9",
            "4",
            "4",
            "4",
            "4",
            "4",
            "4",
            "3",
            "3",
            "3",
            "3",
            "3",
            "3",
            "5",
            "5",
            "5",
            "5",
            "5",
            "5",
            "2",
            "2",
            "2",
            "2",
            "2",
            "2",
            "6",
            "6",
            "6",
            "6",
            "6",
            "6",
            "1",
            "1",
            "1",
            "1",
            "1",
            "1",
            "7",
            "7",
            "7",
            "7",
            "7",
            "7",
        ]
    )

    def read(prompt: str) -> str:
        return next(moves)

    example.main(example.Args(simulations=50), read=read)
    out = capsys.readouterr().out
    assert "legal moves:" in out and "not legal" in out and "MCTS plays" in out
    assert "wins" in out or "draw" in out
