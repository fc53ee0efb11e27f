"""Environment speed: the AEC loop, clone+restore, and compiled random playouts.

References: PettingZoo's classic envs (the same AEC loop code; the state-keeping clone of
``boardzoo.wrappers.model.clone_aec_env``) and OpenSpiel driven from Python (random play
through ``legal_actions``/``apply_action``). PettingZoo's go_v5 keeps its board size in module
globals, so it is measured in a process of its own.
"""

from __future__ import annotations

import importlib
import json
import random
import subprocess
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from boardzoo.bench.common import Row, interleaved_rates, rate
from boardzoo.envs import make_env
from boardzoo.rng import make_rng
from boardzoo.wrappers.model import clone_aec_env


@dataclass(frozen=True)
class Reference:
    """What boardzoo's game is compared with, and the targets from the issues."""

    options: dict = field(default_factory=dict)  # boardzoo game options
    pettingzoo: str | None = None  # classic module name
    pettingzoo_options: dict = field(default_factory=dict)
    own_process: bool = False  # PettingZoo env with module-global configuration
    openspiel: str | None = None
    openspiel_options: dict = field(default_factory=dict)
    aec_target: float | None = None
    clone_target: float | None = None
    playout_target: float | None = None


REFERENCES = {
    "tictactoe": Reference(
        pettingzoo="tictactoe_v3", openspiel="tic_tac_toe", aec_target=3.0, clone_target=20.0
    ),
    "nim": Reference(
        options={"heaps": (1, 3, 5, 7), "max_take": None, "misere": True}, openspiel="nim"
    ),
    "connect_four": Reference(
        pettingzoo="connect_four_v3",
        openspiel="connect_four",
        aec_target=3.0,
        clone_target=20.0,
        playout_target=5.0,
    ),
    "othello": Reference(openspiel="othello", playout_target=10.0),
    "go": Reference(
        options={"board_size": 9},
        pettingzoo="go_v5",
        pettingzoo_options={"board_size": 9},
        own_process=True,
        openspiel="go",
        openspiel_options={"board_size": 9},
        aec_target=4.0,
        clone_target=20.0,
        playout_target=2.0,
    ),
    "gomoku": Reference(openspiel="gomoku", playout_target=2.0),
}


def label(game: str) -> str:
    options = REFERENCES[game].options
    size = options.get("board_size")
    return f"{game} {size}x{size}" if size else game


def aec_loop(env, rng: np.random.Generator, games: int = 5) -> int:
    """Plies of masked random play through reset/last/step (the loop a learner runs)."""
    plies = 0
    for _ in range(games):
        env.reset()
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            plies += 1
    return plies


def pettingzoo_env(name: str, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return importlib.import_module(f"pettingzoo.classic.{name}").env(**options)


def _play_some(env, plies: int) -> None:
    rng = np.random.default_rng(1)
    env.reset(seed=0)
    for _ in range(plies):
        obs, _, termination, _, _ = env.last()
        if termination:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def pettingzoo_rates(name: str, options: dict, seconds: float = 0.3) -> dict[str, float]:
    """AEC-loop plies/s and state-keeping clones/s of a PettingZoo classic env."""
    env = pettingzoo_env(name, **options)
    rng = np.random.default_rng(0)
    loop = rate(lambda: aec_loop(env, rng, 2), 1, seconds)
    _play_some(env, 4)

    def ten_clones() -> int:
        for _ in range(10):
            clone_aec_env(env)
        return 10

    clone = rate(ten_clones, 1, seconds)
    return {"aec": loop, "clone": clone}


def pettingzoo_rates_in_own_process(name: str, options: dict) -> dict[str, float]:
    code = (
        "import json, sys; from boardzoo.bench.envs import pettingzoo_rates; "
        f"print(json.dumps(pettingzoo_rates({name!r}, {options!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ours_aec(game: str, seconds: float) -> float:
    env = make_env(game, **REFERENCES[game].options)
    rng = np.random.default_rng(0)
    return rate(lambda: aec_loop(env, rng, 2), 1, seconds)


def _ours_clone(game: str, seconds: float) -> float:
    env = make_env(game, **REFERENCES[game].options)
    _play_some(env, 4)

    def once() -> int:
        for _ in range(200):
            env.restore_state(env.clone_state())
        return 200

    return rate(once, 1, seconds)


def bench_pettingzoo(game: str, repeats: int) -> list[Row]:
    """The AEC loop and clone+restore against PettingZoo, alternating measurements."""
    ref = REFERENCES[game]
    if ref.pettingzoo is None:
        return [
            Row(
                label(game),
                "AEC loop",
                "plies/s",
                _median(_ours_aec, game, repeats),
                None,
                "no PettingZoo version",
            ),
            Row(
                label(game),
                "clone+restore",
                "/s",
                _median(_ours_clone, game, repeats),
                None,
                "no PettingZoo version",
            ),
        ]
    ours_aec, ours_clone, theirs_aec, theirs_clone = [], [], [], []
    for _ in range(repeats):
        ours_aec.append(_ours_aec(game, 0.3))
        ours_clone.append(_ours_clone(game, 0.3))
        theirs = (pettingzoo_rates_in_own_process if ref.own_process else pettingzoo_rates)(
            ref.pettingzoo, ref.pettingzoo_options
        )
        theirs_aec.append(theirs["aec"])
        theirs_clone.append(theirs["clone"])
    where = " (own process)" if ref.own_process else ""
    return [
        Row(
            label(game),
            "AEC loop",
            "plies/s",
            np.median(ours_aec),
            np.median(theirs_aec),
            f"PettingZoo {ref.pettingzoo}{where}",
            ref.aec_target,
        ),
        Row(
            label(game),
            "clone+restore",
            "/s",
            np.median(ours_clone),
            np.median(theirs_clone),
            f"PettingZoo {ref.pettingzoo} state-keeping clone",
            ref.clone_target,
        ),
    ]


def _median(fn, game: str, repeats: int) -> float:
    return float(np.median([fn(game, 0.3) for _ in range(repeats)]))


def openspiel_random_plies(game, rng: random.Random, games: int = 5) -> int:
    plies = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            plies += 1
    return plies


@njit
def compiled_playouts(playout_kernel, initial, rng, games):
    """Random games from ``initial`` in a compiled loop (as search runs them); total plies."""
    plies = 0
    for _ in range(games):
        state = initial.copy()
        playout_kernel(state, rng)
        plies += state[2] - initial[2]
    return plies


def bench_playouts(game: str, repeats: int) -> list[Row]:
    ref = REFERENCES[game]
    rules = make_env(game, **ref.options).game
    initial = rules.initial_state()
    rng = make_rng(0)
    compiled_playouts(rules.kernels.playout, initial, rng, 1)  # compile outside the timing
    ours = lambda: int(compiled_playouts(rules.kernels.playout, initial, rng, 50))  # noqa: E731
    spiel = _openspiel_game(ref.openspiel, ref.openspiel_options)
    if spiel is None:
        return [
            Row(
                label(game),
                "random playouts",
                "plies/s",
                rate(ours, repeats),
                None,
                "OpenSpiel not installed",
            )
        ]
    py_rng = random.Random(0)
    a, b = interleaved_rates(ours, lambda: openspiel_random_plies(spiel, py_rng), repeats)
    return [
        Row(
            label(game),
            "random playouts",
            "plies/s",
            a,
            b,
            "OpenSpiel, Python-driven",
            ref.playout_target,
        )
    ]


def _openspiel_game(name: str | None, options: dict):
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel.load_game(name, options) if name else None


BENCHMARKS = [bench_pettingzoo, bench_playouts]
