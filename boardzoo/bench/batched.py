"""The batched AlphaZero search against DeepMind's mctx (with pgx's games, JAX on the CPU),
measured in the same run: B searches of 200 simulations from the initial position with a
uniform evaluator (uniform priors over the legal moves, value 0), one evaluator call per
round for all trees, as self-play runs them. An optional reference, like OpenSpiel's: the
rows are left out when jax, mctx or pgx is not installed.

With the shipped Connect Four network at B = 64 the row reports how the time splits between
the search's own work and the network.
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from dataclasses import replace
from typing import Any

import numpy as np

from boardzoo.bench.common import Benchmark, Row, Settings, interleaved_rates
from boardzoo.bench.envs import REFERENCES, label

__all__ = ["bench_batched_search", "bench_network_split"]

SIMULATIONS = 200
BATCHES = (1, 64)
PGX_IDS = {"connect_four": "connect_four", "othello": "othello", "go": "go_9x9"}


class UniformEvaluator:
    """Uniform priors over the legal moves and value 0, for every position of a batch."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> Any:
        from boardzoo.wrappers.model import Evaluation

        return Evaluation(np.where(masks, 0.0, -np.inf), np.zeros(len(observations)))


def boardzoo_search(game: str, batch: int, evaluator: Any = None) -> tuple[Any, Any]:
    """(run(), the search object): ``run()`` searches ``batch`` initial positions at once."""
    from boardzoo.agents.mcts.config import MCTSConfig
    from boardzoo.agents.mcts.search import MCTS
    from boardzoo.envs import make_env
    from boardzoo.rng import make_rng
    from boardzoo.wrappers.model import EnvModel

    env = make_env(game, **REFERENCES[game].options)
    env.reset(seed=0)
    model = EnvModel(env)
    rng = np.random.default_rng(0)
    search = MCTS(MCTSConfig(selection="puct", evaluator=evaluator or UniformEvaluator(),
                             solver=False), rng, make_rng(rng), cache_size=0)
    roots = [model.root()] * batch

    def run() -> Any:
        return search.run_many(model, roots, SIMULATIONS)

    return run, search


def mctx_search(game: str, batch: int) -> Any:
    """``run()``: mctx's ``muzero_policy`` over pgx's ``game`` for ``batch`` initial states
    (jitted; its visit counts as numpy once done)."""
    import jax
    import jax.numpy as jnp
    import mctx
    import pgx

    env = pgx.make(PGX_IDS[game])
    step = jax.vmap(env.step)
    states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), batch))

    def uniform(mask: Any) -> Any:
        return jnp.where(mask, 0.0, -1e9)

    def recurrent_fn(params: Any, key: Any, action: Any, state: Any) -> Any:
        player = state.current_player
        state = step(state, action)
        reward = state.rewards[jnp.arange(batch), player]
        output = mctx.RecurrentFnOutput(
            reward=reward, discount=jnp.where(state.terminated, 0.0, -1.0),
            prior_logits=uniform(state.legal_action_mask), value=jnp.zeros(batch))
        return output, state

    @jax.jit
    def policy(key: Any) -> Any:
        root = mctx.RootFnOutput(prior_logits=uniform(states.legal_action_mask),
                                 value=jnp.zeros(batch), embedding=states)
        return mctx.muzero_policy(None, key, root, recurrent_fn, SIMULATIONS,
                                  invalid_actions=~states.legal_action_mask,
                                  dirichlet_fraction=0.0)

    def run() -> Any:
        out = policy(jax.random.PRNGKey(1))
        return np.asarray(out.search_tree.summary().visit_counts)

    return run


def bench_batched_search(game: str, settings: Settings) -> list[Row]:
    try:
        import jax  # noqa: F401
        import mctx  # noqa: F401
        import pgx  # noqa: F401
    except ImportError:
        return []
    return [_batched_row(game, batch, settings) for batch in BATCHES]


def _batched_row(game: str, batch: int, settings: Settings) -> Row:
    """``batch`` searches against mctx's, warmed up, then timed in turn (at least three
    times each)."""
    ours, _ = boardzoo_search(game, batch)
    theirs = mctx_search(game, batch)
    sims = batch * SIMULATIONS
    visits: dict[str, np.ndarray] = {}

    def ours_visits() -> int:
        visits["ours"] = np.array([summary.visit_counts() for summary in ours()])
        return sims

    def their_visits() -> int:
        visits["theirs"] = np.asarray(theirs(), np.float64)
        return sims

    m = interleaved_rates(ours_visits, their_visits,
                          replace(settings, repeats=max(settings.repeats, 3)))
    return Row(
        label(game), f"batched search, {batch} x {SIMULATIONS} sims", "sims/s", m.ours,
        m.theirs, "mctx + pgx (JAX, CPU)", 2.0 if batch > 1 else 1.0,
        f"uniform evaluator; {sims / m.ours * 1000:.0f} ms a search, mctx "
        f"{sims / m.theirs * 1000:.0f} ms; root visit shares differ by "
        f"{_visit_difference(visits['ours'], visits['theirs']):.1%}", spread=m.spread)


def _visit_difference(ours: np.ndarray, theirs: np.ndarray) -> float:
    """The mean total-variation distance between the two searches' root visit shares
    (``[B, A]`` visit counts each): 0 when both searches visit alike."""
    shares = [v / v.sum(axis=1, keepdims=True) for v in (ours, theirs)]
    return float(0.5 * np.abs(shares[0] - shares[1]).sum(axis=1).mean())


def bench_network_split(game: str, settings: Settings) -> list[Row]:
    """The shipped Connect Four network at B = 64: the search's own share of the time."""
    try:
        import torch
    except ImportError:
        return []
    from boardzoo.agents.alphazero.checkpoint import load_checkpoint, resolve_checkpoint
    from boardzoo.agents.alphazero.network import NetworkEvaluator

    torch.set_num_threads(1)
    net = load_checkpoint(resolve_checkpoint("connect_four")).net
    run, search = boardzoo_search(game, 64, NetworkEvaluator(net))
    run()
    shares, rates = [], []
    for _ in range(settings.repeats):
        before = dataclasses.replace(search.batcher.stats)
        start = time.perf_counter()
        run()
        seconds = time.perf_counter() - start
        network = search.batcher.stats.since(before).network_seconds
        shares.append((seconds - network) / network)
        rates.append(64 * SIMULATIONS / seconds)
    share = statistics.median(shares)
    return [Row(
        game, "AlphaZero batched search, shipped net", "sims/s", statistics.median(rates), None,
        "-", None, f"64 trees x {SIMULATIONS} sims: the search's own time is {share:.0%} of "
        f"the network's (target at most 15%)")]


BENCHMARKS = [
    Benchmark(bench_batched_search, "batched search against mctx", tuple(PGX_IDS),
              in_quick=False),
    Benchmark(bench_network_split, "batched search with the shipped network",
              ("connect_four",), in_quick=False),
]
