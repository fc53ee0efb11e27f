"""``train``: AlphaZero's loop — self-play, store, replay, learn, checkpoint, measure — resumable.

An iteration plays ``games_per_iteration`` games with the current network (ids
``"<iteration>-<index>"``, seeds derived from the run's seed and the id), stores each one in
the game sink as it finishes, adds them to the replay buffer in id order, runs the learner,
then writes the resume state atomically. After ``kill -9`` or Ctrl-C, ``resume=True`` rebuilds
the replay buffer from the stored games, plays only the missing games of the interrupted
iteration and continues the step counter: no game is lost or counted twice.

With ``gating_games > 0`` self-play uses the *best* network, which the learner's network
replaces only after scoring more than ``gating_threshold`` against it in an arena match
(AlphaGo Zero); without gating the newest network always plays (AlphaZero).

This module is the algorithm; the run folder (its files, starting and resuming a run) is
:mod:`.run_folder`, the figures' sinks (log, curve, TensorBoard, progress bar) are
:mod:`.report`.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import torch

from boardzoo.agents.alphazero.checkpoint import (
    load_checkpoint,
    resolve_checkpoint,
    save_checkpoint,
)
from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig, pick_device
from boardzoo.envs import as_game
from boardzoo.envs.core import Game
from boardzoo.errors import CheckpointError, InvalidOptionError, excerpt
from boardzoo.executor import Executor, WorkerPool, make_executor
from boardzoo.training.agents import training_agent
from boardzoo.training.config import TrainConfig
from boardzoo.training.learner import ActorLearner, Learner, LearnerInActor
from boardzoo.training.replay import ReplayBuffer
from boardzoo.training.report import Row, RunReport, bar_text, budget_bar
from boardzoo.training.run_folder import ResumePoint, RunFolder, run_games
from boardzoo.training.selfplay import GameTask, SelfPlayWorker
from boardzoo.training.sink import GameSink

__all__ = ["TrainRun", "train"]

_WARM_CHUNK = 25  # supervised steps between learning-rate updates of a supervised-only run


@dataclass
class TrainRun:
    """What a training run left: its folder, the last iteration and step, games stored, the
    latest checkpoint's path and one log row per iteration."""

    out: Path
    iteration: int
    step: int
    games: int
    checkpoint: Path
    log: list[dict[str, Any]]


def train(
    game: str | Game,
    config: TrainConfig | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    sink: GameSink | None = None,
    progress: bool = True,
    on_iteration: Callable[[dict[str, Any]], None] | None = None,
    backend: str | Executor = "local",
    ray_address: str | None = None,
    changes: Mapping[str, Any] | None = None,
) -> TrainRun:
    """Train an AlphaZero network for ``game`` (module docstring): a name, whose options are
    ``config.game_options``, or a Game, whose options become the run's. With ``resume``,
    ``out`` must hold an earlier run of the same game; its config is kept except the budget
    (``minutes``/``iterations``), taken from ``config`` when given, and the options in
    ``changes`` (e.g. a new learning rate for self-play after a supervised-only run; not the
    network's shape, the game's options or the seed), saved as the run's config.
    ``on_iteration`` is called with each iteration's log row. Self-play runs on ``backend``:
    ``"local"`` (``config.workers`` processes), ``"ray"`` (``config.workers`` Ray actors, on
    the cluster at ``ray_address`` or a local instance) or an
    :class:`~boardzoo.executor.Executor` (its workers; the caller closes it); games are
    stored here, by this process."""
    name = game.name if isinstance(game, Game) else game
    folder = RunFolder(Path(out or f"runs/{name}"))
    if isinstance(game, Game) and not resume:
        config = _with_options_of(game, config or TrainConfig())
    config, changed = folder.config_for(name, config, resume, changes or {})
    rules = _rules_of_run(game, config)
    _check_references(rules, config)
    net = _network(rules, config, folder)
    labelled = _labelled_positions(rules, config)
    folder.out.mkdir(parents=True, exist_ok=True)  # only now: refused inputs leave no folder
    with contextlib.ExitStack() as stack:
        if sink is None:
            sink = stack.enter_context(run_games(folder.out))
        if not isinstance(backend, Executor):
            backend = stack.enter_context(
                make_executor(backend, config.workers, ray_address, start_method="spawn"))
        pool = backend.worker_pool(partial(SelfPlayWorker, rules, config))
        stack.callback(pool.close)
        net = net.to(pick_device(config.device))
        learner = stack.enter_context(contextlib.closing(_learner(rules, net, config, backend)))
        report = RunReport(folder.out, rules.name, progress, on_iteration)
        best = copy.deepcopy(learner.net) if config.gating_games else None
        return _Run(rules, config, folder, sink, pool, learner, report, best).go(labelled,
                                                                               changed)


def _with_options_of(game: Game, config: TrainConfig) -> TrainConfig:
    """``config`` for a run of ``game``: its game options are the game's (InvalidOptionError
    where the config names others)."""
    if config.game_options and as_game(game.name, config.game_options).key != game.key:
        raise InvalidOptionError(
            f"config.game_options {config.game_options!r} are not those of {game!r}: give "
            "the game by name, or leave game_options out")
    return TrainConfig.from_dict({**config.to_dict(), "game_options": dict(game.options)})


def _rules_of_run(game: str | Game, config: TrainConfig) -> Game:
    """The run's rules: ``game`` (a Game, checked against a resumed run's options) or the
    game of that name with ``config.game_options``."""
    rules = as_game(game.name if isinstance(game, Game) else game, config.game_options)
    if isinstance(game, Game) and game.key != rules.key:
        raise CheckpointError(f"the run's game is {rules!r}, not {game!r}")
    return rules


def _network(rules: Game, config: TrainConfig, folder: RunFolder) -> AlphaZeroNet:
    """The run's network, seeded: with the weights of ``config.init_from`` (checked) unless
    the folder already holds a started run (which has its own)."""
    torch.manual_seed(config.seed)
    net = AlphaZeroNet.for_game(rules, NetworkConfig(config.blocks, config.channels))
    if config.init_from and not folder.state.exists():
        _start_from_checkpoint(net, rules, config.init_from)
    return net


def _start_from_checkpoint(net: AlphaZeroNet, rules: Game, name_or_path: str) -> None:
    """Copy the weights of the checkpoint ``name_or_path`` (a file or a shipped name) into
    ``net``: a new run that continues a trained network. Its game, options and network shape
    must be this run's."""
    path = resolve_checkpoint(name_or_path)
    start = load_checkpoint(path, rules)
    if start.net.config != net.config:
        raise CheckpointError(
            f"init_from {name_or_path!r} is a {start.net.config.blocks}x"
            f"{start.net.config.channels} network (blocks x channels); this run's is "
            f"{net.config.blocks}x{net.config.channels}: set blocks and channels to match"
        )
    net.load_state_dict(start.net.state_dict())


def _learner(rules: Game, net: AlphaZeroNet, config: TrainConfig,
             executor: Executor) -> Learner:
    """The learner ``config.learner`` asks for: in this process, or in an actor of
    ``executor`` (with a GPU when its cluster has one; "auto" takes that actor only when
    the cluster has a GPU and this process has none)."""
    gpus = executor.gpus()
    on_gpu_here = next(net.parameters()).device.type != "cpu"
    if config.learner == "driver" or (config.learner == "auto" and (on_gpu_here or not gpus)):
        return Learner(net, config)
    wants_gpu = 1 if gpus and config.device != "cpu" else 0
    return ActorLearner(net, config, partial(executor.actor, partial(LearnerInActor, rules,
                                                                     config), wants_gpu))


def _check_references(rules: Game, config: TrainConfig) -> None:
    """InvalidOptionError now, not at the first measurement minutes into the run, for an
    ``eval_references`` spec that names no agent or an agent that cannot play ``rules``."""
    from boardzoo.agents import check_agent_plays, make_agent

    for spec in config.eval_references:
        try:
            check_agent_plays(make_agent(spec), rules)
        except InvalidOptionError as err:
            raise InvalidOptionError(f"eval_references {excerpt(spec)}: {err}") from None


def _labelled_positions(rules: Game, config: TrainConfig) -> list:
    """The positions of ``config.from_records`` (none without it)."""
    from boardzoo.training.labels import load_labelled

    return load_labelled(str(config.from_records), rules) if config.from_records else []


def _replay_with_labels(rules: Game, config: TrainConfig, labelled: list) -> ReplayBuffer:
    """The replay buffer, the labels in it: anchored as ``label_share`` of every batch, or
    (share 0) seeding the window, where self-play pushes them out."""
    replay = ReplayBuffer(rules, config.replay_window)
    if labelled and config.label_share > 0:
        replay.anchor(labelled, config.label_share)
    else:
        replay.add_positions(labelled[-config.replay_window:])
    return replay


def _tasks(config: TrainConfig, iteration: int) -> list[GameTask]:
    return [
        GameTask(f"{iteration:05d}-{k:04d}",
                 int(np.random.SeedSequence([config.seed, iteration, k]).generate_state(1)[0]))
        for k in range(config.games_per_iteration)
    ]


@dataclass
class _Run:
    """A run's parts, wired by :func:`train`: the rules, the config, the folder, where games
    go, the self-play workers, the learner, the figures' sinks and (under gating) the best
    network so far."""

    game: Game
    config: TrainConfig
    folder: RunFolder
    games: GameSink
    pool: WorkerPool
    learner: Learner
    report: RunReport
    best: AlphaZeroNet | None

    def go(self, labelled: list, changed: bool) -> TrainRun:
        """Resume where the folder says (or start), warm-start on ``labelled`` positions if
        none was trained yet, then iterate until the budget is spent. A new or ``changed``
        config is saved once the folder's state and games are taken: a refused resume
        leaves the run's config.json as it was."""
        point = self.folder.resume_point(self.game, self.learner, self.best)
        replay = _replay_with_labels(self.game, self.config, labelled)
        self._replay_stored_games(replay, point.iteration)
        if changed:
            self.folder.save_config(self.game, self.config)
        if labelled and point.iteration == 0 and not self.report.rows:
            point = self._warm_start(labelled)
        point = self._iterate(replay, point)
        self.report.close()
        return TrainRun(self.folder.out, point.iteration, self.learner.step,
                        len(self.games.game_ids()), self.folder.latest, self.report.rows)

    def _replay_stored_games(self, replay: ReplayBuffer, iterations: int) -> None:
        """Rebuild the replay of a resumed run from the games of its finished iterations."""
        for iteration in range(1, iterations + 1):
            try:
                self._add_iteration(replay, _tasks(self.config, iteration))
            except KeyError as err:
                raise self.folder.missing_game(err.args[0], iteration) from None

    def _iterate(self, replay: ReplayBuffer, point: ResumePoint) -> ResumePoint:
        """Iterations until the budget is spent, each saved and reported as it ends."""
        config, learner = self.config, self.learner
        iteration, best_step = point.iteration, point.best_step
        started = time.monotonic() - point.elapsed
        total, done = budget_bar(config)
        with self.report.bar(total, "training", shown=config.iterations != 0) as bar:
            while _budget_left(config, iteration, time.monotonic() - started):
                iteration += 1
                learner.progress = _budget_spent(config, iteration - 1,
                                                 time.monotonic() - started)
                version = learner.step if self.best is None else best_step
                row = self._iteration(replay, iteration, self.best or learner.net, version)
                if self.best is not None:
                    row.update(self._gate(self.best, iteration))
                    best_step = learner.step if row["promoted"] else best_step
                row["minutes"] = round((time.monotonic() - started) / 60, 3)
                measured = bool(config.eval_every) and (
                    iteration % config.eval_every == 0
                    or not _budget_left(config, iteration, time.monotonic() - started))
                if measured:
                    row.update(self._measure(iteration))
                point = ResumePoint(iteration, time.monotonic() - started, best_step)
                self.folder.save_state(self.game, learner, point, self.best)
                self.report.iteration(row, measured)
                bar(done(iteration, time.monotonic() - started),
                    f"it {iteration} {bar_text(row['step'], row)}")
        return point

    def _iteration(self, replay: ReplayBuffer, iteration: int, player: AlphaZeroNet,
                   version: int) -> Row:
        """Self-play with ``player`` as network ``version`` (the best network under gating,
        else the learner's), store, replay, learn; returns the iteration's log row."""
        config = self.config
        tasks = _tasks(config, iteration)
        stored = self.games.game_ids()
        todo = [t for t in tasks if t.game_id not in stored]
        start = time.monotonic()
        for record in self._self_play(player, todo, version):
            self.games.put_game(record["id"], record)
        selfplay_seconds = time.monotonic() - start
        records, positions = self._add_iteration(replay, tasks)
        steps = config.train_steps_per_iteration or max(
            1, math.ceil(2 * positions / config.batch_size))
        start = time.monotonic()
        rng = np.random.default_rng([config.seed, iteration, 1])
        parts = (self.learner.train(replay, steps, rng) if len(replay) >= config.batch_size
                 else {})
        checks = [r["resign_false_positive"] for r in records
                  if r["resign_false_positive"] is not None]
        return {
            "iteration": iteration,
            "step": self.learner.step,
            "games": len(records),
            "played": len(todo),
            "positions": positions,
            "replay": len(replay),
            "p0_score": float(np.mean([(r["returns"][0] + 1) / 2 for r in records])),
            "mean_length": float(np.mean([len(r["moves"]) for r in records])),
            "resign_false_positives": float(np.mean(checks)) if checks else float("nan"),
            "selfplay_seconds": round(selfplay_seconds, 2),
            "train_seconds": round(time.monotonic() - start, 2),
            "lr": self.learner.learning_rate(),
            **{k: round(v, 5) for k, v in parts.items()},
        }

    def _add_iteration(self, replay: ReplayBuffer,
                       tasks: list[GameTask]) -> tuple[list[dict[str, Any]], int]:
        """Add an iteration's stored games to the replay in id order; (records, positions)."""
        records = [self.games.get_game(t.game_id) for t in tasks]
        positions = sum(replay.add_game(r) for r in records)
        return records, positions

    def _self_play(self, net: AlphaZeroNet, tasks: list[GameTask],
                   version: int) -> Iterator[dict[str, Any]]:
        """Yield finished game records from the self-play workers (chunks of
        ``parallel_games`` games), each chunk as soon as it ends; the workers first take
        ``net``'s weights as network ``version``."""
        if not tasks:
            return
        self.pool.share("load", {k: v.detach().cpu() for k, v in net.state_dict().items()},
                        version)
        size = self.config.parallel_games
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        for records in self.pool.map_unordered("play", chunks):
            yield from records

    def _warm_start(self, positions: list) -> ResumePoint:
        """AlphaGo's first stage: supervised training on the labelled ``positions``
        (augmented), logged as iteration 0 and saved, so a resumed run does not repeat it.
        With ``iterations=0`` the warm start is the whole run: the learning-rate schedule
        decays over its steps, and the bar and the figures follow it chunk by chunk (it may
        take an hour)."""
        config, learner = self.config, self.learner
        buffer = ReplayBuffer(self.game, max(len(positions), config.batch_size))
        buffer.add_positions(positions)
        steps = config.supervised_steps or max(1, math.ceil(4 * len(positions)
                                                            / config.batch_size))
        start = time.monotonic()
        rng = np.random.default_rng([config.seed, 0, 2])
        if config.iterations == 0:  # a supervised-only run: the schedule spans its steps
            with self.report.bar(steps, "supervised") as bar:
                for done in range(0, steps, _WARM_CHUNK):
                    learner.progress = done / steps
                    parts = learner.train(buffer, min(_WARM_CHUNK, steps - done), rng)
                    self.report.figures(parts, learner.step)
                    bar(min(done + _WARM_CHUNK, steps), bar_text(learner.step, parts))
            learner.progress = 1.0
        else:
            parts = learner.train(buffer, steps, rng)
        row = {"iteration": 0, "step": learner.step, "positions": len(positions),
               "train_seconds": round(time.monotonic() - start, 2),
               "lr": learner.learning_rate(), **{k: round(v, 5) for k, v in parts.items()}}
        if self.best is not None:
            self.best.load_state_dict(learner.net.state_dict())
        point = ResumePoint(0, 0.0, learner.step)
        self.folder.save_state(self.game, learner, point, self.best)
        self.report.warm_start(row)
        return point

    def _gate(self, best: AlphaZeroNet, iteration: int) -> Row:
        """Match the learner's network against the ``best`` one; promote it if it scores
        enough."""
        from boardzoo.arena import play_match

        config, net = self.config, self.learner.net
        new = training_agent(net, self.game, config, seed=iteration)
        old = training_agent(best, self.game, config, seed=iteration + 1)
        result = play_match(self.game, new, old, games=config.gating_games, seed=iteration,
                            opening_plies=2)
        promoted = result.score > config.gating_threshold  # AlphaGo Zero: "by > 55%"
        if promoted:
            best.load_state_dict(net.state_dict())
            save_checkpoint(self.folder.best, self.game, best, iteration,
                            {"gate_score": result.score})
        net.eval()
        return {"gate_score": round(result.score, 4), "promoted": int(promoted)}

    def _measure(self, iteration: int) -> Row:
        """Score and Elo of the current network's search against each fixed reference."""
        from boardzoo.agents import make_agent
        from boardzoo.arena import play_match

        config, row = self.config, {}
        agent = training_agent(self.learner.net, self.game, config, seed=iteration)
        for spec in config.eval_references:
            reference = make_agent(spec, seed=iteration)
            result = play_match(self.game, agent, reference, games=config.eval_games,
                                seed=iteration, opening_plies=2)
            name = spec.split(":")[0] if spec.count(":") == 0 else spec
            row[f"score vs {name}"] = round(result.score, 4)
            row[f"elo vs {name}"] = round(_elo_of_score(result.score, config.eval_games), 1)
        return row


def _elo_of_score(score: float, games: int) -> float:
    """Elo difference implied by a mean score (clipped half a game from 0 and 1)."""
    s = min(max(score, 0.5 / games), 1 - 0.5 / games)
    return 400.0 * math.log10(s / (1 - s))


def _budget_spent(config: TrainConfig, iteration: int, seconds: float) -> float:
    """The share of the budget (iterations or minutes, whichever is further along) used."""
    shares = []
    if config.iterations is not None:
        shares.append(iteration / config.iterations)
    if config.minutes is not None:
        shares.append(seconds / (config.minutes * 60))
    return max(shares)


def _budget_left(config: TrainConfig, iteration: int, seconds: float) -> bool:
    if config.iterations is not None and iteration >= config.iterations:
        return False
    return config.minutes is None or seconds < config.minutes * 60
