"""Learner-side speed: the compiled vector env, and the plain AEC loop a user writes.

* vector env: steps/s of ``gymnasium.make_vec(id, num_envs=64,
  vectorization_mode="vector_entry_point", opponent="random")`` against Gymnasium's
  ``SyncVectorEnv`` of the same id (``vectorization_mode="sync"``) and, on Connect Four, SB3's
  ``SubprocVecEnv`` (one process per env, so fewer envs on a small machine). Every side picks
  uniformly random legal actions for all envs with the same numpy code.
* AEC user loop: ``reset()``, then per ply ``env.last()``, a random legal action drawn from
  ``obs["action_mask"]`` with numpy, ``env.step(action)``; against PettingZoo's classic env.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates
from boardzoo.bench.envs import REFERENCES, label, pettingzoo_env
from boardzoo.envs import gym_id, make_env

NUM_ENVS = 64
SUBPROC_ENVS = 8
VECTOR_TARGET = 10.0
USER_LOOP_TARGET = 4.0


def masked_random(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``masks`` ([N, A], 1 = legal)."""
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def gym_vector_steps(venv, rng: np.random.Generator, steps: int = 20) -> int:
    """Env steps of masked random play on a Gymnasium vector env (masks from its infos)."""
    _, info = venv.reset(seed=0)
    for _ in range(steps):
        _, _, _, _, info = venv.step(masked_random(rng, info["action_mask"]))
    return steps * venv.num_envs


def sb3_vector_steps(venv, rng: np.random.Generator, steps: int = 20) -> int:
    """Env steps of masked random play on an SB3 VecEnv (masks through env_method)."""
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(masked_random(rng, masks))
    return steps * venv.num_envs


def _compiled(game: str):
    return gym.make_vec(
        gym_id(game),
        num_envs=NUM_ENVS,
        vectorization_mode="vector_entry_point",
        opponent="random",
        **REFERENCES[game].options,
    )


def bench_vector_env(game: str, settings: Settings) -> list[Row]:
    """The compiled vector env against SyncVectorEnv (and SubprocVecEnv on Connect Four,
    outside ``--quick``)."""
    options = REFERENCES[game].options
    ours = _compiled(game)
    sync = gym.make_vec(
        gym_id(game), num_envs=NUM_ENVS, vectorization_mode="sync", opponent="random", **options
    )
    rng = np.random.default_rng(0)
    m = interleaved_rates(
        lambda: gym_vector_steps(ours, rng), lambda: gym_vector_steps(sync, rng), settings
    )
    rows = [
        Row(
            label(game),
            f"vector env ({NUM_ENVS} envs)",
            "steps/s",
            m.ours,
            m.theirs,
            f"gymnasium SyncVectorEnv ({NUM_ENVS} envs)",
            VECTOR_TARGET,
            "opponent random",
            spread=m.spread,
        )
    ]
    if game == "connect_four" and not settings.quick:
        rows.append(_versus_subproc(game, ours, rng, settings))
    return rows


def _versus_subproc(game: str, ours, rng: np.random.Generator, settings: Settings) -> Row:
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    # the "boardzoo:" prefix makes the worker processes import boardzoo (the registration)
    subproc = make_vec_env(
        f"boardzoo:{gym_id(game)}",
        n_envs=SUBPROC_ENVS,
        seed=0,
        vec_env_cls=SubprocVecEnv,
        env_kwargs={"opponent": "random", **REFERENCES[game].options},
    )
    try:
        subproc.reset()
        m = interleaved_rates(
            lambda: gym_vector_steps(ours, rng), lambda: sb3_vector_steps(subproc, rng), settings
        )
    finally:
        subproc.close()
    return Row(
        label(game),
        f"vector env ({NUM_ENVS} envs)",
        "steps/s",
        m.ours,
        m.theirs,
        f"SB3 SubprocVecEnv ({SUBPROC_ENVS} processes)",
        None,
        "opponent random",
        spread=m.spread,
    )


def aec_user_loop(env, rng: np.random.Generator, games: int = 2) -> int:
    """Plies of the loop users write: reset, then last / random legal action / step."""
    plies = 0
    for _ in range(games):
        env.reset()
        while True:
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            plies += 1
    return plies


def bench_aec_user_loop(game: str, settings: Settings) -> list[Row]:
    ref = REFERENCES[game]
    if ref.pettingzoo is None or ref.own_process:
        return []
    ours, theirs = make_env(game, **ref.options), pettingzoo_env(ref.pettingzoo)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = interleaved_rates(
            lambda: aec_user_loop(ours, rng), lambda: aec_user_loop(theirs, rng), settings
        )
    return [
        Row(
            label(game),
            "AEC user loop",
            "plies/s",
            m.ours,
            m.theirs,
            f"PettingZoo {ref.pettingzoo}",
            USER_LOOP_TARGET if game == "connect_four" else None,
            "reset + last/step",
            spread=m.spread,
        )
    ]


BENCHMARKS = [
    Benchmark(bench_vector_env, "vector env", quick_games=("connect_four",),
              quick_drops="vector env rows other than Connect Four's, and its SB3 "
              "SubprocVecEnv reference"),
    Benchmark(bench_aec_user_loop, "AEC user loop"),
]
