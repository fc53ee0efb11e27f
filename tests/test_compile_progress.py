"""Compile progress: a unit that compiles says what and how far, once, and says nothing when
its code is already compiled; front-ends get the same steps (the page's status line, a
fresh process's stderr)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from numba import njit

from boardzoo import compile_progress
from boardzoo.compile_progress import CompileStep


def test_a_unit_that_compiles_reports_its_start_and_end_once():
    steps: list[CompileStep] = []
    first, second = njit(lambda x: x + 1), njit(lambda x: x * 2)
    with compile_progress.quiet(), compile_progress.listening(steps.append):
        with compile_progress.unit("nim", "two kernels", 3, 7):
            first(1)
            second(1)  # the same unit: no second line
        with compile_progress.unit("nim", "two kernels again", 4, 7):
            first(2)  # compiled already: nothing to say
    assert [step.text() for step in steps[:1]] == ["compiling nim: two kernels (3/7)..."]
    assert len(steps) == 2 and steps[1].seconds is not None and steps[1].seconds > 0
    assert steps[1].text().startswith("compiled nim: two kernels (3/7) in ")


def test_other_libraries_compiles_outside_a_unit_are_not_reported():
    steps: list[CompileStep] = []
    with compile_progress.quiet(), compile_progress.listening(steps.append):
        njit(lambda x: x - 1)(1)
    assert steps == []


def test_the_default_line_goes_to_stderr(capsys):
    with compile_progress.unit(None, "a kernel"):
        njit(lambda x: x + 3)(1)
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert lines[0] == "boardzoo: compiling a kernel..." and lines[1].startswith(
        "boardzoo: compiled a kernel in ")


SCRIPT = """
import json, sys
from boardzoo import compile_progress
steps = []
compile_progress.add_listener(lambda step: steps.append(step.text()))
from boardzoo.agents import MCTSAgent
from boardzoo.envs import make_env
env = make_env("tictactoe"); env.reset(seed=0)
MCTSAgent(simulations=20, seed=0).act(env)
print(json.dumps(steps))
"""


@pytest.mark.slow
def test_a_fresh_process_first_search_says_what_it_compiles(tmp_path):
    """With an empty cache: one line as the MCTS search starts compiling and one when done
    (on stderr, and to a listener), and nothing at all once the cache is filled."""
    env = {**os.environ, "BOARDZOO_CACHE_DIR": str(tmp_path)}

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                              env=env, check=True, timeout=600)

    cold = run()
    steps = json.loads(cold.stdout.splitlines()[-1])
    assert "compiling tictactoe: the MCTS search..." in steps
    assert any(step.startswith("compiled tictactoe: the MCTS search in ") for step in steps)
    assert "boardzoo: compiling tictactoe: the MCTS search...\n" in cold.stderr
    warm = run()
    assert json.loads(warm.stdout.splitlines()[-1]) == [] and "compiling" not in warm.stderr
