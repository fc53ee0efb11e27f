"""Compiling ahead: ``boardzoo compile [GAME ...]`` runs every compiled path a game's envs,
agents and learners take once, on a tiny budget, so that numba compiles it now and caches it
on disk (:mod:`boardzoo.numba_cache`) instead of at a user's first move.

Run it once per installation (a Docker build, the end of an install script); each later
process loads the compiled code in a fraction of a second. A cache that is already filled
makes it quick: what is cached is loaded, not compiled again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from boardzoo import compile_progress

__all__ = ["UNITS", "compile_game", "compile_games"]


class _Uniform:
    """An evaluator with uniform priors and value 0 (AlphaZero's search without torch)."""

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> Any:
        from boardzoo.wrappers.model import Evaluation

        return Evaluation(np.where(masks, 0.0, -np.inf), np.zeros(len(observations)))


def compile_game(name: str) -> None:
    """Compile (or load from the cache) what playing, searching and learning game ``name``
    with its default options runs, one unit at a time (:data:`UNITS`), each reported by
    :mod:`boardzoo.compile_progress` while it compiles (``compiling go: the MCTS search
    (2/7)...``)."""
    from boardzoo.envs import make_env

    env: Any = None
    for index, (what, run) in enumerate(UNITS, 1):
        with compile_progress.unit(name, what, index, len(UNITS)):
            if env is None:
                env = make_env(name)  # (making Go's env compiles its empty board)
            run(env)


def _played_and_undone(env: Any, choose: Callable[[Any], int], plies: int) -> None:
    """Up to ``plies`` moves chosen by ``choose(env)`` (fewer if the game ends), then the env
    restored as it was, for the next unit."""
    raw = env.unwrapped
    snapshot = raw.clone_state()
    for _ in range(plies):
        if any(env.terminations.values()) or any(env.truncations.values()):
            break
        env.step(choose(env))
    raw.restore_state(snapshot)


def _rules(env: Any) -> None:
    env.reset(seed=0)
    _played_and_undone(env, lambda e: int(np.flatnonzero(e.unwrapped.legal_mask())[0]), 2)


def _mcts(env: Any) -> None:
    """Three moves of self-play by one agent: its later searches reuse the earlier ones'
    subtrees (tree reuse copies them in a kernel of its own)."""
    from boardzoo.agents import MCTSAgent

    agent = MCTSAgent(simulations=16, seed=0)
    agent.prepare(env)
    _played_and_undone(env, agent.act, 3)


def _alphabeta(env: Any) -> None:
    from boardzoo.agents import AlphaBetaAgent

    AlphaBetaAgent(depth=2, seed=0).prepare(env)


def _batched(env: Any) -> None:
    from boardzoo.agents.mcts.config import MCTSConfig
    from boardzoo.agents.mcts.search import MCTS, Budget
    from boardzoo.rng import make_rng
    from boardzoo.wrappers.model import EnvModel

    model = EnvModel(env)
    rng = np.random.default_rng(0)
    network = MCTS(MCTSConfig(selection="puct", evaluator=_Uniform(), solver=False), rng,
                   make_rng(rng), batch_size=4)
    network.run(model, model.root(), Budget.of(8))
    network.run_many(model, [model.root()] * 2, 4)


def _vector(env: Any) -> None:
    import gymnasium as gym

    from boardzoo.envs import gym_id

    vector: Any = gym.make_vec(gym_id(env.unwrapped.game.name), num_envs=2,
                               vectorization_mode="vector_entry_point")
    vector.reset(seed=0)
    vector.step(np.array([int(np.flatnonzero(m)[0]) for m in vector.unwrapped.action_masks()]))
    vector.close()


def _two_seats(env: Any) -> None:
    from boardzoo.rl import TwoPlayerVectorEnv

    two_seats = TwoPlayerVectorEnv(env.unwrapped.game.name, num_envs=2, opening_plies=2)
    _, info = two_seats.reset(seed=0)
    two_seats.step(np.array([int(np.flatnonzero(m)[0]) for m in info["action_mask"]]))


def _drop_in(env: Any) -> None:
    """A game of the game's ``pettingzoo.classic`` drop-in, if it has one, through
    ``env()`` with its default options (its own kernels: Go's history planes, chess's draw
    claims and planes)."""
    from boardzoo.classic import DROP_INS, MODULES

    name = DROP_INS.get(env.unwrapped.game.name)
    if name is None:
        return
    drop_in = MODULES[name].env()
    drop_in.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in drop_in.agent_iter():
        obs, _, termination, truncation, _ = drop_in.last()
        over = termination or truncation
        drop_in.step(None if over else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    drop_in.unwrapped.restore_state(drop_in.unwrapped.clone_state())


#: what ``compile_game`` runs, in order: (what it compiles, a run of it on a reset env)
UNITS: tuple[tuple[str, Callable[[Any], None]], ...] = (
    ("the rules", _rules),
    ("the MCTS search", _mcts),
    ("alpha-beta and the exact solver", _alphabeta),
    ("AlphaZero's batched search", _batched),
    ("the vector env", _vector),
    ("the two-seat env of self-play", _two_seats),
    ("the pettingzoo.classic drop-in", _drop_in),
)


def compile_games(names: Iterable[str],
                  on_game: Callable[[str, float], None] | None = None) -> float:
    """:func:`compile_game` for each of ``names``; ``on_game(name, seconds)`` after each.
    Returns the seconds it all took."""
    began = time.perf_counter()
    for name in names:
        start = time.perf_counter()
        compile_game(name)
        if on_game is not None:
            on_game(name, time.perf_counter() - start)
    return time.perf_counter() - began
