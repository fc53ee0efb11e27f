"""A fresh process compiles nothing once the cache is filled: the first move in a second.

Each case is a new Python process (boardzoo.bench.startup's script) with its own empty
compile cache: the first run compiles and fills it, the second must compile nothing at
all (numba's compile events counted, not timed).
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from boardzoo.bench.startup import first_move_seconds

CASES = [
    ("mcts", "tictactoe", "mcts:simulations=50"),
    ("alphabeta", "tictactoe", "alphabeta:depth=3"),
    ("vector", "tictactoe", ""),
    ("alphabeta", "chess", "alphabeta:depth=2"),
]


@pytest.mark.slow
@pytest.mark.parametrize("kind, game, spec", CASES)
def test_the_second_fresh_process_compiles_nothing(kind, game, spec, tmp_path):
    cold = first_move_seconds(kind, game, spec, tmp_path)
    assert cold["compiled"], "an empty cache compiles"
    assert list(tmp_path.rglob("*.nbi")), "into the cache folder, not the package's"
    warm = first_move_seconds(kind, game, spec, tmp_path)
    assert warm["compiled"] == []


@pytest.mark.slow
def test_two_processes_fill_one_cache_at_once(tmp_path):
    """Both finish with the right move, and a third process finds everything cached."""
    case = ("alphabeta", "connect_four", "alphabeta:depth=2")
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda _: first_move_seconds(*case, tmp_path), range(2)))
    assert all(run["compiled"] for run in runs)
    assert first_move_seconds(*case, tmp_path)["compiled"] == []


def test_a_cache_folder_that_cannot_be_made_still_plays(tmp_path):
    """Where the cache folder cannot be made (here: under a file), numba's own rules apply
    and the process still plays."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code = ("import boardzoo; from boardzoo.envs import make_env; "
            "from boardzoo.agents import RandomAgent; e = make_env('nim'); e.reset(seed=0); "
            "print(RandomAgent(seed=0).act(e))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "BOARDZOO_CACHE_DIR": str(blocker / "cache")},
                         check=False)
    assert run.returncode == 0 and run.stdout.strip().isdigit(), run.stderr
