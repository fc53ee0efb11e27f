"""Environment speed: the AEC loop, clone+restore, and compiled random playouts.

References: PettingZoo's classic envs (same AEC loop code, state-keeping clone) and OpenSpiel
driven from Python (random play through ``legal_actions``/``apply_action``).
"""

from __future__ import annotations

import random
import warnings

import numpy as np
from numba import njit

from benchmarks.common import Row, interleaved_rates, rate
from boardzoo.envs import make_env
from boardzoo.rng import make_rng
from boardzoo.wrappers.model import clone_aec_env

#: boardzoo game -> (PettingZoo classic module name, OpenSpiel game name)
REFERENCES = {
    "tictactoe": ("tictactoe_v3", "tic_tac_toe"),
    "connect_four": ("connect_four_v3", "connect_four"),
    "othello": (None, "othello"),
    "nim": (None, None),
}


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


def pettingzoo_env(name: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import importlib

        return importlib.import_module(f"pettingzoo.classic.{name}").env()


def openspiel_random_plies(game, rng: random.Random, games: int = 20) -> int:
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


def bench_aec_loop(game: str, repeats: int) -> Row:
    pz_name = REFERENCES[game][0]
    ours = make_env(game)
    if pz_name is None:
        return Row(
            game,
            "AEC loop",
            "plies/s",
            rate(lambda: aec_loop(ours, np.random.default_rng(0)), repeats),
            None,
            "no PettingZoo classic version",
        )
    theirs = pettingzoo_env(pz_name)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    a, b = interleaved_rates(
        lambda: aec_loop(ours, rng_a), lambda: aec_loop(theirs, rng_b), repeats
    )
    return Row(game, "AEC loop", "plies/s", a, b, f"PettingZoo {pz_name}", target=3.0)


def _play_some(env, plies: int) -> None:
    rng = np.random.default_rng(1)
    env.reset(seed=0)
    for _ in range(plies):
        obs, _, termination, _, _ = env.last()
        if termination:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def bench_clone(game: str, repeats: int) -> Row:
    """clone_state + restore_state against PettingZoo's state-keeping clone (clone_aec_env)."""
    ours = make_env(game)
    _play_some(ours, 4)
    raw = ours.unwrapped

    def ours_once() -> int:
        for _ in range(200):
            raw.restore_state(raw.clone_state())
        return 200

    pz_name = REFERENCES[game][0]
    if pz_name is None:
        return Row(
            game,
            "clone+restore",
            "1/s",
            rate(ours_once, repeats),
            None,
            "no PettingZoo classic version",
        )
    theirs = pettingzoo_env(pz_name)
    _play_some(theirs, 4)

    def theirs_once() -> int:
        for _ in range(20):
            clone_aec_env(theirs)
        return 20

    a, b = interleaved_rates(ours_once, theirs_once, repeats)
    return Row(game, "clone+restore", "1/s", a, b, f"PettingZoo {pz_name} state clone", target=20.0)


def bench_playouts(game: str, repeats: int) -> Row:
    env = make_env(game)
    initial = env.game.initial_state()
    rng = make_rng(0)
    compiled_playouts(env.game.playout_kernel, initial, rng, 1)  # compile outside the timing
    ours = lambda: int(compiled_playouts(env.game.playout_kernel, initial, rng, 200))  # noqa: E731
    spiel_name = REFERENCES[game][1]
    try:
        import pyspiel
    except ImportError:
        spiel_name = None
    if spiel_name is None:
        return Row(
            game, "random playouts", "plies/s", rate(ours, repeats), None, "OpenSpiel not available"
        )
    spiel_game = pyspiel.load_game(spiel_name)
    py_rng = random.Random(0)
    a, b = interleaved_rates(ours, lambda: openspiel_random_plies(spiel_game, py_rng), repeats)
    target = {"connect_four": 5.0, "othello": 10.0}.get(game)
    return Row(game, "random playouts", "plies/s", a, b, "OpenSpiel (Python-driven)", target=target)


BENCHMARKS = [bench_aec_loop, bench_clone, bench_playouts]
