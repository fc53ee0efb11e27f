"""A fresh process compiles nothing once the cache is filled: the first move in a second.

Each case is a new Python process (boardzoo.bench.startup's script) with its own empty
compile cache: the first run compiles and fills it, the second must compile nothing at
all (numba's compile events counted, not timed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from boardzoo.bench.startup import ENDGAMES, first_move_seconds

CASES = [
    ("mcts", "tictactoe", "mcts:simulations=50", ""),
    ("alphabeta", "tictactoe", "alphabeta:depth=3", ""),
    ("vector", "tictactoe", "", ""),
    ("alphabeta", "chess", "alphabeta:depth=2", ""),
    # the move is Othello's exact solver's (a search of its own, recursive)
    ("endgame", "othello", "alphabeta:time_limit=1", ENDGAMES["othello"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("kind, game, spec, position", CASES)
def test_the_second_fresh_process_compiles_nothing(kind, game, spec, position, tmp_path):
    cold = first_move_seconds(kind, game, spec, tmp_path, position)
    assert cold["compiled"], "an empty cache compiles"
    assert list(tmp_path.rglob("*.nbi")), "into the cache folder, not the package's"
    warm = first_move_seconds(kind, game, spec, tmp_path, position)
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


#: the start of a script that prints, last, the functions numba compiled (``compiled``)
COUNTING = ("import json, boardzoo; from numba.core import event\n"
            "compiled = []\n"
            "class Count(event.Listener):\n"
            "    def on_start(self, ev): compiled.append(ev.data['dispatcher'].py_func.__name__)\n"
            "    def on_end(self, ev): pass\n"
            "event.register('numba:compile', Count())\n")
NIM_MOVES = (COUNTING +
             "from boardzoo.envs import make_env\n"
             "env = make_env('nim'); env.reset(seed=0); env.step(0)\n"
             "print(json.dumps(compiled))")
SEED = ("import sys; from pathlib import Path; from boardzoo import numba_cache\n"
        "source = Path(sys.argv[1]) / numba_cache.cache_dir().relative_to(sys.argv[2])\n"
        "print(numba_cache._seed(source, numba_cache.cache_dir()))")


def _python(code: str, cache: Path, *args: str, **env: str) -> str:
    run = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env={**os.environ, "BOARDZOO_CACHE_DIR": str(cache), **env},
                         check=True, timeout=600)
    return run.stdout.splitlines()[-1]


@pytest.mark.slow
def test_a_shipped_portable_cache_seeds_an_empty_one_and_nothing_compiles(tmp_path):
    """Code compiled for x86-64-v2 (as `make wheel` ships it) is copied into an empty cache
    folder under this CPU's key and loaded: nothing compiles (until the copies are removed).
    Code compiled for this CPU is not what a wheel ships: nothing is seeded from it."""
    portable, host, user = tmp_path / "portable", tmp_path / "host", tmp_path / "user"
    assert json.loads(_python(NIM_MOVES, portable, NUMBA_CPU_NAME="x86-64-v2",
                              NUMBA_CPU_FEATURES=""))
    assert json.loads(_python(NIM_MOVES, host))
    assert int(_python(SEED, user, str(host), str(user))) == 0
    assert int(_python(SEED, user, str(portable), str(user))) > 0
    assert json.loads(_python(NIM_MOVES, user)) == []
    # boardzoo compile --for-this-cpu: the seeded copies go, and the kernels compile again
    _python("from boardzoo import numba_cache; numba_cache.unseed(); print('ok')", user)
    assert json.loads(_python(NIM_MOVES, user))


DROP_IN_UNIT = ("import sys; from boardzoo.compiling import UNITS; from boardzoo.envs import "
                "make_env\n"
                "dict(UNITS)['the pettingzoo.classic drop-in'](make_env(sys.argv[1])); print('ok')")
DROP_IN_GAMES = (COUNTING +
                 "import sys, numpy as np; from boardzoo.classic import DROP_INS, MODULES\n"
                 "env = MODULES[DROP_INS[sys.argv[1]]].env(); rng = np.random.default_rng(1)\n"
                 "for game in range(2):\n"
                 "    env.reset(seed=game)\n"
                 "    for _ in env.agent_iter():\n"
                 "        obs, _, term, trunc, _ = env.last()\n"
                 "        mask = obs['action_mask']\n"
                 "        env.step(None if term or trunc else int(rng.choice(mask.nonzero()[0])))\n"
                 "print(json.dumps(compiled))")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["connect_four", "go"])
def test_boardzoo_compile_warms_the_drop_in(game, tmp_path):
    """After ``boardzoo compile``'s drop-in unit, two random games through the drop-in's
    ``env()`` (19x19 for go_v5) compile nothing; with nothing compiled, they compile."""
    assert json.loads(_python(DROP_IN_GAMES, tmp_path / "cold", game))
    assert _python(DROP_IN_UNIT, tmp_path / "warm", game) == "ok"
    assert json.loads(_python(DROP_IN_GAMES, tmp_path / "warm", game)) == []


ALPHABETA_UNIT = ("import sys; from boardzoo.compiling import UNITS; from boardzoo.envs import "
                  "make_env\n"
                  "dict(UNITS)['alpha-beta and the exact solver'](make_env(sys.argv[1])); "
                  "print('ok')")
#: 16 stones: within the solver's reach, no four yet
CONNECT_FOUR_ENDGAME = "6542311126574576"


@pytest.mark.slow
def test_boardzoo_compile_warms_the_exact_solvers_whole_path(tmp_path):
    """After ``boardzoo compile``'s alpha-beta unit (which loads the solver by a solve that
    gives up at once), the first alpha-beta move of a Connect Four endgame, the solver's,
    compiles nothing."""
    assert _python(ALPHABETA_UNIT, tmp_path, "connect_four") == "ok"
    first = first_move_seconds("endgame", "connect_four", "alphabeta:time_limit=1", tmp_path,
                               CONNECT_FOUR_ENDGAME)
    assert first["compiled"] == []
