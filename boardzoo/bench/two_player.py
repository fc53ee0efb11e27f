"""Self-play batch speed: :class:`boardzoo.rl.TwoPlayerVectorEnv` against pgx (JAX on CPU).

Unit: plies per second, both seats' moves counted, every game restarted as soon as it ends
(boardzoo's same-step autoreset; pgx's ``pgx.experimental.auto_reset``), observations and
legal masks produced at every step on both sides. Actions are a uniformly random legal move
per game: drawn by a small compiled function from the env's masks on boardzoo's side (so
the figure is the env with its Python overhead: one ``step()`` call per batch of plies), and
by ``jax.random.categorical`` over the masked logits inside the jitted step on pgx's.

pgx runs two ways, both measured: a Python loop over one jitted batched step, and
``jax.lax.scan`` over :data:`SCAN_STEPS` steps in one jitted call; the faster is the
reference. JAX runs on one CPU thread, as boardzoo does (the table is one thread), and the
rates are per CPU second of the process (``time.process_time``: every thread counted, and
other load on the machine does not inflate it). The three runners take turns in every
repetition; the note gives the spread of the ratio over the repetitions. Without pgx
installed (``pip install 'boardzoo[pgx]'``) the rows say so.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_samples, paired
from boardzoo.bench.envs import REFERENCES, label
from boardzoo.rl.two_player import TwoPlayerVectorEnv
from boardzoo.rng import choose_true, make_rng

#: boardzoo game -> pgx env id (the options are the bench's, see bench.envs.REFERENCES)
PGX_IDS = {"connect_four": "connect_four", "othello": "othello", "go": "go_9x9"}
SIZES = (64, 1024)
SCAN_STEPS = 16
#: the issue's floors for the env, Python overhead included, against pgx's faster runner
TARGETS = {("connect_four", 64): 1.5}
DEFAULT_TARGET = 2.0
#: one CPU thread for XLA (read when jax is first imported)
ONE_THREAD_XLA = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"


@njit(cache=True)
def random_legal_actions(masks, rng, out):
    """A uniformly random legal action per row of ``masks`` (int8, 1 = legal) into ``out``."""
    for i in range(masks.shape[0]):
        out[i] = choose_true(rng, masks[i], masks[i].sum())


def boardzoo_runner(game: str, num_envs: int, steps: int = SCAN_STEPS) -> Callable[[], int]:
    """``steps`` calls of ``TwoPlayerVectorEnv.step`` with random legal actions; plies."""
    env = TwoPlayerVectorEnv(game, num_envs, **REFERENCES[game].options)
    info = [env.reset(seed=0)[1]]
    rng, actions = make_rng(0), np.zeros(num_envs, dtype=np.int64)

    def work() -> int:
        for _ in range(steps):
            random_legal_actions(info[0]["action_mask"], rng, actions)
            info[0] = env.step(actions)[4]
        return steps * num_envs

    return work


def pgx_runners(game: str, num_envs: int) -> dict[str, Callable[[], int]] | None:
    """pgx's jitted step loop and ``lax.scan`` runners (compiled at their first call), or
    None without pgx."""
    os.environ.setdefault("XLA_FLAGS", ONE_THREAD_XLA)
    try:
        import jax
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    env = pgx.make(PGX_IDS[game])
    step = jax.vmap(auto_reset(env.step, env.init))

    def one(carry: Any, _: Any) -> tuple[Any, None]:
        state, key = carry
        key, act_key, step_key = jax.random.split(key, 3)
        logits = jax.numpy.where(state.legal_action_mask, 0.0, -jax.numpy.inf)
        action = jax.random.categorical(act_key, logits, axis=-1)
        return (step(state, action, jax.random.split(step_key, num_envs)), key), None

    one_step = jax.jit(lambda state, key: one((state, key), None)[0])
    scan = jax.jit(lambda state, key: jax.lax.scan(one, (state, key), None, SCAN_STEPS)[0])
    carry = [jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), num_envs)),
             jax.random.PRNGKey(1)]

    def loop() -> int:
        state, key = carry
        for _ in range(SCAN_STEPS):
            state, key = one_step(state, key)
        jax.block_until_ready(state)
        carry[:] = state, key
        return SCAN_STEPS * num_envs

    def scanned() -> int:
        carry[:] = jax.block_until_ready(scan(*carry))
        return SCAN_STEPS * num_envs

    return {"pgx jitted step loop": loop, "pgx lax.scan": scanned}


def bench_two_player_env(game: str, settings: Settings) -> list[Row]:
    """The two-seat env against pgx's faster runner at each of :data:`SIZES` envs."""
    rows = []
    for num_envs in SIZES:
        figure = f"two-seat env ({num_envs} envs)"
        target = TARGETS.get((game, num_envs), DEFAULT_TARGET)
        ours = boardzoo_runner(game, num_envs)
        theirs = pgx_runners(game, num_envs)
        if theirs is None:
            (rates,) = interleaved_samples([ours], settings, clock=time.process_time)
            rows.append(Row(label(game), figure, "plies/cpu-s", statistics.median(rates), None,
                            "pgx not installed (pip install 'boardzoo[pgx]')", target))
            continue
        names = list(theirs)
        ours_rates, *their_rates = interleaved_samples([ours, *theirs.values()], settings,
                                                       clock=time.process_time)
        best = max(range(len(names)), key=lambda k: statistics.median(their_rates[k]))
        m = paired(ours_rates, their_rates[best])
        rows.append(Row(label(game), figure, "plies/cpu-s", m.ours, m.theirs,
                        f"{names[best]} (JAX, CPU)", target, spread=m.spread))
    return rows


BENCHMARKS = [Benchmark(bench_two_player_env, "two-seat env against pgx", tuple(PGX_IDS),
                        quick_games=("connect_four",))]
