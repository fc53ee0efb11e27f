"""Self-play: many games advanced in lockstep, their searches' leaves evaluated in one network
call per round (:class:`~boardzoo.agents.mcts.batched.LeafBatcher`, one tree per game).

Per move: with probability ``full_search_prob`` a *full* search (``simulations``, Dirichlet
noise ``(1 - eps) P + eps Dir(alpha)`` at the root) whose visit counts become a training
target, otherwise a *fast* search (``fast_simulations``, no noise) that only picks the move
(KataGo's playout-cap randomisation). The first ``temperature_moves`` plies are sampled from
the visit counts (T = 1), later ones are the most visited move. Optional resignation when
the root value falls below ``-resign_threshold``; a ``resign_check_fraction`` of games never
resign and report whether resigning would have been wrong.

A game is a JSON-ready record (moves, sparse policy targets, per-seat returns): positions are
rebuilt from the moves by :mod:`boardzoo.training.replay`, so a record is small and safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.agents.alphazero.network import (
    AlphaZeroNet,
    NetworkConfig,
    NetworkEvaluator,
    pick_device,
    zero_subnormals,
)
from boardzoo.agents.mcts.batched import LeafBatcher, SearchJob
from boardzoo.agents.mcts.rules import PUCT, SearchConfig, add_root_noise
from boardzoo.agents.mcts.tree import ACTION, VALUE, VISITS, Tree
from boardzoo.envs import make_game
from boardzoo.envs.aec import BoardGameEnv
from boardzoo.envs.core import Game, outcome_returns
from boardzoo.rng import make_rng
from boardzoo.training.config import TrainConfig
from boardzoo.wrappers.model import EnvModel

__all__ = ["GameTask", "SelfPlayWorker", "play_games", "search_settings"]


@dataclass(frozen=True)
class GameTask:
    """One self-play game to play: its unique id and its seed."""

    game_id: str
    seed: int


@dataclass
class _Game:
    task: GameTask
    rng: np.random.Generator
    state: np.ndarray
    tree: Tree
    never_resign: bool
    moves: list
    targets: list
    full: bool = False
    resigned: int | None = None
    would_resign: int | None = None


class SelfPlayWorker:
    """A self-play worker (a process or a Ray actor): its own copy of the network, loaded
    with versioned weights; every game it plays records that version (the learner's step
    when the weights were taken) as ``network_step``."""

    def __init__(self, game: str, config: TrainConfig):
        self.game = make_game(game, **config.game_options)
        self.config = config
        self.net = AlphaZeroNet.for_game(self.game, NetworkConfig(config.blocks, config.channels))
        self.net.to(pick_device(config.device)).eval()
        self.version = 0

    def load(self, weights: dict[str, Any], version: int) -> None:
        """Take the network weights of ``version`` (a state dict)."""
        self.net.load_state_dict(weights)
        zero_subnormals(self.net)
        self.version = version

    def play(self, tasks: list[GameTask]) -> list[dict[str, Any]]:
        """One record per task, in task order (:func:`play_games`)."""
        return play_games(self.net, self.game, self.config, tasks, self.version)


def search_settings(config: TrainConfig):
    """The compiled search settings (PUCT, no solver) self-play uses."""
    return SearchConfig(kind=PUCT, c=config.c, solver=False).typed()


def play_games(net: AlphaZeroNet, game: Game, config: TrainConfig, tasks: list[GameTask],
               network_step: int = 0, batcher: LeafBatcher | None = None
               ) -> list[dict[str, Any]]:
    """Play ``tasks`` by self-play with ``net``, ``config.parallel_games`` at a time; returns
    one record per task (in task order). ``batcher`` (default: a new one over ``net``)
    collects the search statistics."""
    records: dict[str, dict[str, Any]] = {}
    batcher = batcher or LeafBatcher(NetworkEvaluator(net, game))
    model = EnvModel(BoardGameEnv(game))
    cfg = search_settings(config)
    alpha = config.alpha_for(game.name)
    for start in range(0, len(tasks), config.parallel_games):
        chunk = tasks[start:start + config.parallel_games]
        games = [_new_game(task, game, config) for task in chunk]
        tree_rng = make_rng(np.random.default_rng(tasks[start].seed))
        while games:
            _search_all(games, batcher, model, cfg, config, alpha, tree_rng)
            for g in games:
                _play_move(g, game, config)
            for g in [g for g in games if game.is_terminal(g.state) or g.resigned is not None]:
                records[g.task.game_id] = _record(g, game, network_step)
                games.remove(g)
    return [records[task.game_id] for task in tasks]


def _new_game(task: GameTask, game: Game, config: TrainConfig) -> _Game:
    rng = np.random.default_rng(task.seed)
    never_resign = config.resign_threshold is None or rng.random() < config.resign_check_fraction
    return _Game(task, rng, game.initial_state(), Tree(1 << 12), never_resign, [], [])


def _search_all(games, batcher, model, cfg, config, alpha, tree_rng) -> None:
    """One search per game, all batched: expand the roots, add noise to full ones, search."""
    jobs = []
    for g in games:
        g.tree.clear()
        g.full = g.rng.random() < config.full_search_prob
        jobs.append(SearchJob(g.tree, cfg, model, g.state, 1))
    batcher.run(jobs, tree_rng)
    for g, job in zip(games, jobs, strict=True):
        budget = config.simulations if g.full else config.fast_simulations
        if g.full and config.dirichlet_epsilon > 0:
            add_root_noise(g.tree, config.dirichlet_epsilon, alpha, g.rng)
        job.simulations = budget
    batcher.run(jobs, tree_rng)


def _play_move(g: _Game, game: Game, config: TrainConfig) -> None:
    """Record the target of a full search, then pick and play the move (or resign)."""
    tree = g.tree
    children = list(tree.children())
    actions = tree.ints[children, ACTION].astype(np.int64)
    visits = tree.ints[children, VISITS].astype(np.float64)
    ply = len(g.moves)
    if g.full:
        policy = visits / visits.sum()
        g.targets.append({"ply": ply, "actions": actions.tolist(),
                          "probs": [round(float(p), 6) for p in policy]})
    root_value = -float(tree.floats[0, VALUE]) / max(int(tree.ints[0, VISITS]), 1)
    to_play = int(game.to_play(g.state))
    if config.resign_threshold is not None and root_value < -config.resign_threshold:
        if g.would_resign is None:
            g.would_resign = to_play
        if not g.never_resign:
            g.resigned = to_play
            return
    if ply < config.temperature_moves:
        action = int(actions[g.rng.choice(len(actions), p=visits / visits.sum())])
    else:
        action = int(actions[int(np.argmax(visits))])
    g.moves.append(action)
    g.state = game.step(g.state, action)


def _record(g: _Game, game: Game, network_step: int) -> dict[str, Any]:
    if g.resigned is not None:
        returns = np.array([-1.0, 1.0]) if g.resigned == 0 else np.array([1.0, -1.0])
    else:
        returns = outcome_returns(game.outcome(g.state))
    wrong_resign = None
    if g.would_resign is not None and g.resigned is None:
        wrong_resign = bool(returns[g.would_resign] >= 0)  # it would have resigned a non-loss
    return {
        "id": g.task.game_id,
        "seed": g.task.seed,
        "game": game.name,
        "moves": g.moves,
        "targets": g.targets,
        "returns": returns.tolist(),
        "resigned": g.resigned,
        "resign_false_positive": wrong_resign,
        "network_step": network_step,
    }
