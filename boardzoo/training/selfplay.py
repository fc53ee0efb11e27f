"""Self-play: many games advanced in lockstep, their searches' leaves evaluated in one network
call per round (``AlphaZeroAgent.search_many``: the agent's own search, one tree per game).

Per move: with probability ``full_search_prob`` a *full* search (``simulations``, Dirichlet
noise ``(1 - eps) P + eps Dir(alpha)`` at the root) whose visit counts become a training
target, otherwise a *fast* search (``fast_simulations``, no noise) that only picks the move
(KataGo's playout-cap randomisation). The first ``temperature_moves`` plies are sampled from
the visit counts (T = 1), later ones are the most visited move. Optional resignation when
the root value falls below ``-resign_threshold``; a ``resign_check_fraction`` of games never
resign and report whether resigning would have been wrong. The move played obeys the game's
rules of play as every searching agent's does (Go: pass when passing wins after the
opponent's pass, never fill an own eye while another move was searched); the training target
stays the search's visit distribution.

A game is a JSON-ready record (moves, sparse policy targets, per-seat returns): positions are
rebuilt from the moves by :mod:`boardzoo.training.replay`, so a record is small and safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from boardzoo.agents.alphazero.agent import AlphaZeroAgent
from boardzoo.agents.alphazero.network import (
    AlphaZeroNet,
    NetworkConfig,
    pick_device,
    zero_subnormals,
)
from boardzoo.agents.mcts.summary import TreeSummary
from boardzoo.agents.move import by_rules_of_play, rules_before_search
from boardzoo.envs.core import Game, outcome_returns
from boardzoo.training.agents import training_agent
from boardzoo.training.config import TrainConfig

__all__ = ["GameTask", "SelfPlayWorker", "play_games"]


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

    def __init__(self, game: Game, config: TrainConfig):
        self.game = game
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
        # seeded by the run's seed, its searches are the same in every worker (the games'
        # own seeds vary them)
        agent = training_agent(self.net, self.game, self.config, self.config.seed,
                               self_play=True)
        return play_games(agent, self.config, tasks, self.version)


def play_games(agent: AlphaZeroAgent, config: TrainConfig, tasks: list[GameTask],
               network_step: int = 0) -> list[dict[str, Any]]:
    """Play ``tasks`` by self-play with ``agent`` (:func:`~boardzoo.training.agents.
    training_agent` with ``self_play``),
    ``config.parallel_games`` at a time; returns one record per task (in task order). The
    agent's ``statistics`` count the search's work."""
    game = agent.game
    records: dict[str, dict[str, Any]] = {}
    for start in range(0, len(tasks), config.parallel_games):
        chunk = tasks[start:start + config.parallel_games]
        games = [_new_game(task, game, config) for task in chunk]
        while games:
            for g in games:
                g.full = g.rng.random() < config.full_search_prob
            summaries = agent.search_many(
                [g.state for g in games],
                [config.simulations if g.full else config.fast_simulations for g in games],
                noise=[g.rng if g.full else None for g in games])
            for g, summary in zip(games, summaries, strict=True):
                _play_move(g, summary, game, config)
            for g in [g for g in games if game.is_terminal(g.state) or g.resigned is not None]:
                records[g.task.game_id] = _record(g, game, network_step)
                games.remove(g)
    return [records[task.game_id] for task in tasks]


def _new_game(task: GameTask, game: Game, config: TrainConfig) -> _Game:
    rng = np.random.default_rng(task.seed)
    never_resign = config.resign_threshold is None or rng.random() < config.resign_check_fraction
    return _Game(task, rng, game.initial_state(), never_resign, [], [])


def _play_move(g: _Game, summary: TreeSummary, game: Game, config: TrainConfig) -> None:
    """Record the target of a full search, then pick and play the move (or resign).

    The target is the search's visit distribution, whatever is played. The move is drawn
    from the visits or the most visited, as the game's rules of play allow
    (:func:`~boardzoo.agents.move.by_rules_of_play`, as every searching agent plays: Go's
    winning pass after the opponent's pass, no own-eye fill while another move was
    searched)."""
    actions, visits = summary.actions, summary.visits.astype(np.float64)
    ply = len(g.moves)
    if g.full:
        policy = visits / visits.sum()
        g.targets.append({"ply": ply, "actions": actions.tolist(),
                          "probs": [round(float(p), 6) for p in policy]})
    to_play = int(game.to_play(g.state))
    if (config.resign_threshold is not None and summary.value < -config.resign_threshold
            and rules_before_search(game, g.state) is None):  # a winning pass is played
        if g.would_resign is None:
            g.would_resign = to_play
        if not g.never_resign:
            g.resigned = to_play
            return
    if ply < config.temperature_moves:
        action = int(actions[g.rng.choice(len(actions), p=visits / visits.sum())])
    else:
        action = int(actions[int(np.argmax(visits))])
    action = by_rules_of_play(game, g.state, action, summary.visit_counts())
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
