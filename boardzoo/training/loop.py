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

Folder layout under ``out``: ``config.json``, ``results.sqlite`` (the results store of
:mod:`boardzoo.store`, whose ``"selfplay"`` sink holds the games), ``state.pt`` (resume state),
``latest.pt`` (and with gating ``best.pt``: network checkpoints in the shipped format),
``log.csv``, ``curve.png``, and ``tensorboard/`` when TensorBoard is installed.
"""

from __future__ import annotations

import contextlib
import copy
import csv
import json
import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
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
from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import CheckpointError, InvalidOptionError, excerpt
from boardzoo.executor import Executor, WorkerPool, make_executor
from boardzoo.files import atomic_write_bytes, atomic_write_text, save_figure
from boardzoo.store import ResultsStore
from boardzoo.torch_files import safe_torch_load, torch_bytes
from boardzoo.training.config import TrainConfig, read_table
from boardzoo.training.learner import ActorLearner, Learner, LearnerInActor
from boardzoo.training.replay import ReplayBuffer
from boardzoo.training.selfplay import GameTask, SelfPlayWorker
from boardzoo.training.sink import GameSink

__all__ = ["TrainRun", "run_games", "train"]

STATE_FORMAT = "boardzoo-train-state"
STATE_VERSION = 1
BUDGET_FIELDS = ("minutes", "iterations")
STORE_FILE = "results.sqlite"
SINK_NAME = "selfplay"
OLD_GAMES_FOLDER = "games"  # before the results store: one JSON file per game


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
    game: str,
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
    """Train an AlphaZero network for ``game`` (module docstring). With ``resume``, ``out``
    must hold an earlier run of the same game; its config is kept except the budget
    (``minutes``/``iterations``), taken from ``config`` when given, and the options in
    ``changes`` (e.g. a new learning rate for self-play after a supervised-only run; not the
    network's shape, the game's options or the seed), saved as the run's config. ``on_iteration`` is
    called with each iteration's log row. Self-play runs on ``backend``: ``"local"``
    (``config.workers`` processes), ``"ray"`` (``config.workers`` Ray actors, on the cluster
    at ``ray_address`` or a local instance) or an :class:`~boardzoo.executor.Executor`
    (its workers; the caller closes it); games are stored here, by this process."""
    out = Path(out or f"runs/{game}")
    config, changed = _resolve_config(game, config, out, resume, changes or {})
    rules = make_game(game, **config.game_options)
    _check_references(rules, config)
    net = _network(rules, config, out)
    labelled = _labelled_positions(rules, config)
    out.mkdir(parents=True, exist_ok=True)  # only now: refused inputs leave no folder behind
    with contextlib.ExitStack() as stack:
        if sink is None:
            sink = stack.enter_context(run_games(out))
            if resume:
                _import_game_folder(out / OLD_GAMES_FOLDER, sink)
        if not isinstance(backend, Executor):
            backend = stack.enter_context(
                make_executor(backend, config.workers, ray_address, start_method="spawn"))
        pool = backend.worker_pool(partial(SelfPlayWorker, game, config))
        stack.callback(pool.close)
        return _train(game, rules, net, labelled, config, out, resume, changed, sink, backend,
                      pool, progress, on_iteration)


@contextlib.contextmanager
def run_games(out: str | Path) -> Iterator[GameSink]:
    """The games of the run folder ``out``: the ``"selfplay"`` sink of its results store
    (``out/results.sqlite``, created if missing), closed on exit."""
    with ResultsStore(Path(out) / STORE_FILE) as store:
        yield store.sink(SINK_NAME)


def _train(game: str, rules: Game, net: AlphaZeroNet, labelled: list, config: TrainConfig,
           out: Path, resume: bool, changed: bool, sink: GameSink, executor: Executor,
           pool: WorkerPool, progress: bool,
           on_iteration: Callable[[dict[str, Any]], None] | None) -> TrainRun:
    """The run, once its learner could be made: only then is a new or changed config saved
    (a refused learner leaves no run behind)."""
    net = net.to(pick_device(config.device))
    with contextlib.closing(_learner(game, net, config, executor)) as learner:
        if changed:
            atomic_write_text(out / "config.json",
                              json.dumps({"game": game, **config.to_dict()}, indent=2))
        return _train_with(rules, config, out, resume, sink, pool, progress, on_iteration,
                           learner, labelled)


def _network(rules: Game, config: TrainConfig, out: Path) -> AlphaZeroNet:
    """The run's network, seeded: with the weights of ``config.init_from`` (checked) unless
    ``out`` already holds a started run (which has its own)."""
    torch.manual_seed(config.seed)
    net = AlphaZeroNet.for_game(rules, NetworkConfig(config.blocks, config.channels))
    if config.init_from and not (out / "state.pt").exists():
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


def _learner(game: str, net: AlphaZeroNet, config: TrainConfig, executor: Executor) -> Learner:
    """The learner ``config.learner`` asks for: in this process, or in an actor of
    ``executor`` (with a GPU when its cluster has one; "auto" takes that actor only when
    the cluster has a GPU and this process has none)."""
    gpus = executor.gpus()
    on_gpu_here = next(net.parameters()).device.type != "cpu"
    if config.learner == "driver" or (config.learner == "auto" and (on_gpu_here or not gpus)):
        return Learner(net, config)
    wants_gpu = 1 if gpus and config.device != "cpu" else 0
    return ActorLearner(net, config, partial(executor.actor, partial(LearnerInActor, game,
                                                                     config), wants_gpu))


def _train_with(rules: Game, config: TrainConfig, out: Path, resume: bool, sink: GameSink,
                pool: WorkerPool, progress: bool,
                on_iteration: Callable[[dict[str, Any]], None] | None,
                learner: Learner, labelled: list) -> TrainRun:
    net = learner.net
    best = copy.deepcopy(net) if config.gating_games else None
    iteration, elapsed, best_step = 0, 0.0, 0
    if resume and (out / "state.pt").exists():  # (killed before its first save: start over)
        iteration, elapsed, best_step = _load_state(out / "state.pt", rules, learner, best)
    replay = _replay_with_labels(rules, config, labelled)
    for it in range(1, iteration + 1):
        try:
            _add_iteration(replay, sink, _tasks(config, it))
        except KeyError as err:
            raise CheckpointError(
                f"--resume {str(out)!r}: game {err.args[0]} of iteration {it} is not in the "
                f"run's {STORE_FILE}, so its replay buffer cannot be rebuilt; put the run's "
                f"{STORE_FILE} back, or start a new run with --out NEW_FOLDER") from None
    log = _read_log(out / "log.csv")
    writer = _tensorboard(out)
    if labelled and iteration == 0 and not log:
        log.append(_warm_start(rules, config, learner, labelled, out, best, progress, writer))
        best_step = learner.step
    started = time.monotonic() - elapsed
    measured = False  # whether the last iteration was evaluated (and so drew the curve)
    total = _bar_total(config)
    with _progress_bar(progress and config.iterations != 0, total, "training") as bar:
        while _budget_left(config, iteration, time.monotonic() - started):
            iteration += 1
            learner.progress = _budget_spent(config, iteration - 1, time.monotonic() - started)
            version = learner.step if best is None else best_step
            row = _iteration(rules, config, learner, replay, sink, pool, iteration,
                             best or learner.net, version)
            if best is not None:
                row.update(_gate(rules, config, learner.net, best, iteration, out))
                best_step = learner.step if row["promoted"] else best_step
            row["minutes"] = round((time.monotonic() - started) / 60, 3)
            measured = bool(config.eval_every) and (
                iteration % config.eval_every == 0
                or not _budget_left(config, iteration, time.monotonic() - started))
            if measured:
                row.update(_measure(rules, net, config, iteration))
            _save_state(out, rules, learner, iteration, time.monotonic() - started, best,
                        best_step)
            log.append(row)
            _write_log(out / "log.csv", log)
            if measured:  # the curve stays current for a run that is stopped or killed
                _plot_curve(log, rules.name, out / "curve.png")
            _write_scalars(writer, row, learner.step)
            if on_iteration:
                on_iteration(row)
            bar(_done_so_far(config, total, iteration, time.monotonic() - started),
                f"it {iteration} {_bar_info(row['step'], row)}")
    if writer is not None:
        writer.close()
    if not measured:
        _plot_curve(log, rules.name, out / "curve.png")
    return TrainRun(out, iteration, learner.step, len(sink.game_ids()), out / "latest.pt", log)


# --------------------------------------------------------------------------- an iteration
def _tasks(config: TrainConfig, iteration: int) -> list[GameTask]:
    return [
        GameTask(f"{iteration:05d}-{k:04d}",
                 int(np.random.SeedSequence([config.seed, iteration, k]).generate_state(1)[0]))
        for k in range(config.games_per_iteration)
    ]


def _iteration(rules: Game, config: TrainConfig, learner: Learner, replay: ReplayBuffer,
               sink: GameSink, pool: WorkerPool, iteration: int, player: AlphaZeroNet,
               version: int) -> dict[str, Any]:
    """Self-play with ``player`` as network ``version`` (the best network under gating, else
    the learner's), store, replay, learn; returns the iteration's log row."""
    tasks = _tasks(config, iteration)
    stored = sink.game_ids()
    todo = [t for t in tasks if t.game_id not in stored]
    start = time.monotonic()
    for record in _self_play(pool, player, config, todo, version):
        sink.put_game(record["id"], record)
    selfplay_seconds = time.monotonic() - start
    records, positions = _add_iteration(replay, sink, tasks)
    steps = config.train_steps_per_iteration or max(1, math.ceil(2 * positions / config.batch_size))
    start = time.monotonic()
    rng = np.random.default_rng([config.seed, iteration, 1])
    parts = learner.train(replay, steps, rng) if len(replay) >= config.batch_size else {}
    checks = [r["resign_false_positive"] for r in records if r["resign_false_positive"] is not None]
    return {
        "iteration": iteration,
        "step": learner.step,
        "games": len(records),
        "played": len(todo),
        "positions": positions,
        "replay": len(replay),
        "p0_score": float(np.mean([(r["returns"][0] + 1) / 2 for r in records])),
        "mean_length": float(np.mean([len(r["moves"]) for r in records])),
        "resign_false_positives": float(np.mean(checks)) if checks else float("nan"),
        "selfplay_seconds": round(selfplay_seconds, 2),
        "train_seconds": round(time.monotonic() - start, 2),
        "lr": learner.learning_rate(),
        **{k: round(v, 5) for k, v in parts.items()},
    }


def _add_iteration(replay: ReplayBuffer, sink: GameSink, tasks: list[GameTask]):
    """Add an iteration's stored games to the replay in id order; (records, positions)."""
    records = [sink.get_game(t.game_id) for t in tasks]
    positions = sum(replay.add_game(r) for r in records)
    return records, positions


def _self_play(pool: WorkerPool, net: AlphaZeroNet, config: TrainConfig,
               tasks: list[GameTask], version: int) -> Iterator[dict[str, Any]]:
    """Yield finished game records from the self-play workers (chunks of ``parallel_games``
    games), each chunk as soon as it ends; the workers first take ``net``'s weights as
    network ``version``."""
    if not tasks:
        return
    pool.share("load", {k: v.detach().cpu() for k, v in net.state_dict().items()}, version)
    chunks = [tasks[i:i + config.parallel_games]
              for i in range(0, len(tasks), config.parallel_games)]
    for records in pool.map_unordered("play", chunks):
        yield from records


_WARM_CHUNK = 25  # supervised steps between learning-rate updates of a supervised-only run


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


def _warm_start(rules: Game, config: TrainConfig, learner: Learner, positions: list,
                out: Path, best: AlphaZeroNet | None, progress: bool, writer) -> dict:
    """AlphaGo's first stage: supervised training on the labelled ``positions`` (augmented),
    logged as iteration 0 and saved, so a resumed run does not repeat it. With
    ``iterations=0`` the warm start is the whole run: the learning-rate schedule decays over
    its steps, and a bar and tensorboard follow it chunk by chunk (it may take an hour)."""
    buffer = ReplayBuffer(rules, max(len(positions), config.batch_size))
    buffer.add_positions(positions)
    steps = config.supervised_steps or max(1, math.ceil(4 * len(positions) / config.batch_size))
    start = time.monotonic()
    rng = np.random.default_rng([config.seed, 0, 2])
    if config.iterations == 0:  # a supervised-only run: the schedule spans its steps
        with _progress_bar(progress, steps, "supervised") as bar:
            for done in range(0, steps, _WARM_CHUNK):
                learner.progress = done / steps
                parts = learner.train(buffer, min(_WARM_CHUNK, steps - done), rng)
                _write_scalars(writer, parts, learner.step)
                bar(min(done + _WARM_CHUNK, steps), _bar_info(learner.step, parts))
        learner.progress = 1.0
    else:
        parts = learner.train(buffer, steps, rng)
    row = {"iteration": 0, "step": learner.step, "positions": len(positions),
           "train_seconds": round(time.monotonic() - start, 2), "lr": learner.learning_rate(),
           **{k: round(v, 5) for k, v in parts.items()}}
    if best is not None:
        best.load_state_dict(learner.net.state_dict())
    _save_state(out, rules, learner, 0, 0.0, best, learner.step)
    _write_log(out / "log.csv", [row])
    return row


# ------------------------------------------------------------------------ measurements
def _gate(rules: Game, config: TrainConfig, net: AlphaZeroNet, best: AlphaZeroNet,
          iteration: int, out: Path) -> dict[str, Any]:
    """Match the learner's network against the best one; promote it if it scores enough."""
    from boardzoo.agents.alphazero.agent import AlphaZeroAgent
    from boardzoo.arena import play_match

    new = AlphaZeroAgent(net, rules, simulations=config.simulations, seed=iteration)
    old = AlphaZeroAgent(best, rules, simulations=config.simulations, seed=iteration + 1)
    result = play_match(rules.name, new, old, games=config.gating_games, seed=iteration,
                        opening_plies=2, game_options=config.game_options)
    promoted = result.score > config.gating_threshold  # AlphaGo Zero: "by a margin of > 55%"
    if promoted:
        best.load_state_dict(net.state_dict())
        save_checkpoint(out / "best.pt", rules, best, iteration, {"gate_score": result.score})
    net.eval()
    return {"gate_score": round(result.score, 4), "promoted": int(promoted)}


def _check_references(rules: Game, config: TrainConfig) -> None:
    """InvalidOptionError now, not at the first measurement minutes into the run, for an
    ``eval_references`` spec that names no agent or an agent that cannot play ``rules``."""
    from boardzoo.agents import check_agent_plays, make_agent

    for spec in config.eval_references:
        try:
            check_agent_plays(make_agent(spec), rules)
        except InvalidOptionError as err:
            raise InvalidOptionError(f"eval_references {spec!r}: {err}") from None


def _measure(rules: Game, net: AlphaZeroNet, config: TrainConfig, iteration: int):
    """Score and Elo of the current network's search against each fixed reference."""
    from boardzoo.agents import make_agent
    from boardzoo.agents.alphazero.agent import AlphaZeroAgent
    from boardzoo.arena import play_match

    row = {}
    agent = AlphaZeroAgent(net, rules, simulations=config.simulations, seed=iteration)
    for spec in config.eval_references:
        reference = make_agent(spec, seed=iteration)
        result = play_match(rules.name, agent, reference, games=config.eval_games,
                            seed=iteration, opening_plies=2, game_options=config.game_options)
        name = spec.split(":")[0] if spec.count(":") == 0 else spec
        row[f"score vs {name}"] = round(result.score, 4)
        row[f"elo vs {name}"] = round(_elo_of_score(result.score, config.eval_games), 1)
    return row


def _elo_of_score(score: float, games: int) -> float:
    """Elo difference implied by a mean score (clipped half a game from 0 and 1)."""
    s = min(max(score, 0.5 / games), 1 - 0.5 / games)
    return 400.0 * math.log10(s / (1 - s))


# ---------------------------------------------------------------------- state and files
def _import_game_folder(folder: Path, sink: GameSink) -> None:
    """Move a run folder from before the results store (one ``<id>.json`` per game in
    ``games/``) into the store: every game is stored once (an id already there is kept),
    then the folder is renamed ``games.imported`` (kept, never deleted)."""
    if not folder.is_dir():
        return
    for path in sorted(folder.glob("*.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise CheckpointError(
                f"stored game {str(path)!r} is corrupt ({err}); the folder was left as it "
                "is: move that file away to resume without it"
            ) from None
        if not isinstance(record, dict) or record.get("id") != path.stem:
            raise CheckpointError(f"stored game {str(path)!r} is not the record of {path.stem!r}")
        sink.put_game(path.stem, record)
    folder.rename(folder.with_name(folder.name + ".imported"))


FIXED_ON_RESUME = ("blocks", "channels", "game_options", "init_from", "seed")


def _resolve_config(game: str, config: TrainConfig | None, out: Path, resume: bool,
                    changes: Mapping[str, Any]) -> tuple[TrainConfig, bool]:
    """The run's config, and whether it is new or changed (to be saved as config.json)."""
    saved = out / "config.json"
    if changes and not resume:
        raise InvalidOptionError("changes apply to a resumed run; give a config instead")
    if resume:
        if not saved.exists():
            raise CheckpointError(f"--resume {str(out)!r}: no training run there (config.json)")
        _check_resumable(out)
        values = read_table(saved, f"the run's config.json {str(saved)!r}")
        if values.pop("game", game) != game:
            raise CheckpointError(f"{str(out)!r} holds a run of another game, not {game!r}")
        previous = TrainConfig.from_dict(values, source=str(saved))
        if changes:
            previous = _changed_config(previous, changes)
        if config is None:
            return previous, bool(changes)
        return replace(previous, **{k: getattr(config, k) for k in BUDGET_FIELDS}), bool(changes)
    config = config or TrainConfig()
    found = [name for name in RUN_FILES if (out / name).exists()]
    if found:
        raise InvalidOptionError(
            f"{str(out)!r} already holds a training run ({', '.join(found)}): resume it "
            "(--resume / resume=True) or choose another --out"
        )
    return config, True


#: the files that make a folder a training run's: a new run never starts over them
RUN_FILES = ("config.json", "state.pt", "latest.pt", "best.pt", "log.csv")


def _check_resumable(out: Path) -> None:
    """CheckpointError for a run folder that cannot continue: its resume state (state.pt)
    lost while a trained network or logged iterations remain (resuming would train a new
    network over them), or its stored games lost (the replay cannot be rebuilt). A run
    killed before its first iteration ended has neither and starts that iteration again."""
    fresh = f"start a new run with --out NEW_FOLDER (--init-from {str(out / 'latest.pt')!r} " \
            "starts it from the trained network)"
    if not (out / "state.pt").exists():
        left = [name for name in ("latest.pt", "best.pt", "log.csv") if (out / name).exists()]
        if left:
            raise CheckpointError(
                f"--resume {str(out)!r}: the run's resume state state.pt is missing, but "
                f"{', '.join(left)} {'is' if len(left) == 1 else 'are'} there: resuming would "
                f"train a new network over them. Put state.pt back, or {fresh}")
    elif not (out / STORE_FILE).exists() and not (out / OLD_GAMES_FOLDER).is_dir():
        raise CheckpointError(
            f"--resume {str(out)!r}: the run's games ({STORE_FILE}) are missing, so its "
            f"replay buffer cannot be rebuilt. Put {STORE_FILE} back, or {fresh}")


def _changed_config(previous: TrainConfig, changes: Mapping[str, Any]) -> TrainConfig:
    """``previous`` with ``changes`` applied (checked)."""
    values = previous.to_dict()
    fixed = sorted(k for k in FIXED_ON_RESUME if k in changes and changes[k] != values[k])
    if fixed:
        raise InvalidOptionError(
            f"a resumed run cannot change {', '.join(fixed)} (the network and its games are "
            "fixed); start a new run with --out"
        )
    return TrainConfig.from_dict({**values, **changes}, source="the changed options")


def _save_state(out: Path, rules: Game, learner: Learner, iteration: int, elapsed: float,
                best: AlphaZeroNet | None, best_step: int):
    """The resume state and the latest network checkpoint, each written atomically;
    ``best_step``: the learner step at which the best network (under gating) was taken."""
    state = {"format": STATE_FORMAT, "version": STATE_VERSION, "game": rules.name,
             "iteration": iteration, "elapsed": elapsed, **learner.state()}
    if best is not None:
        state["best_weights"] = best.state_dict()
        state["best_step"] = best_step
    atomic_write_bytes(out / "state.pt", torch_bytes(state))
    save_checkpoint(out / "latest.pt", rules, learner.net, learner.step,
                    {"iteration": iteration, "minutes": round(elapsed / 60, 2)})


def _load_state(path: Path, rules: Game, learner: Learner,
                best: AlphaZeroNet | None) -> tuple[int, float, int]:
    """(iteration, elapsed seconds, best network's step) of a saved run of ``rules``' game,
    loaded into ``learner`` and ``best``; every field checked first."""
    state = safe_torch_load(path, "training state")
    if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a boardzoo training state")
    if state.get("version") != STATE_VERSION:
        raise CheckpointError(
            f"{str(path)!r}: unknown training-state version {excerpt(state.get('version'))}"
        )
    if state.get("game") != rules.name:
        raise CheckpointError(f"{str(path)!r} is the training state of a run of "
                              f"{excerpt(state.get('game'))}, not of {rules.name!r}")
    counts = {"iteration": state.get("iteration"), "best_step": state.get("best_step", 0),
              "elapsed": state.get("elapsed")}
    for name, value in counts.items():
        kinds = (int, float) if name == "elapsed" else (int,)
        if type(value) not in kinds or not 0 <= value < math.inf:
            raise CheckpointError(f"{str(path)!r} is damaged: its {name} is {excerpt(value)}, "
                                  "not a number >= 0")
    try:
        learner.load(state)
        if best is not None:
            best.load_state_dict(state["best_weights"])
    except (KeyError, RuntimeError, ValueError, TypeError) as err:
        reason = " ".join(line.strip() for line in str(err).splitlines()[:2])
        raise CheckpointError(f"{str(path)!r} does not fit this run's network: "
                              f"{reason[:300]}") from None
    return counts["iteration"], float(counts["elapsed"]), counts["best_step"]


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


def _read_log(path: Path) -> list[dict[str, Any]]:
    """The rows of a run's log.csv (none if there is none); CheckpointError if it is not
    one this loop writes."""
    if not path.exists():
        return []
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, restval=""))
    except (UnicodeDecodeError, csv.Error, OSError) as err:
        raise CheckpointError(f"the run's log {str(path)!r} is not a readable CSV log "
                              f"({type(err).__name__}); move it away to resume (the log then "
                              "restarts)") from None
    if any(None in row or not row.get("iteration", "").isdigit() for row in rows):
        raise CheckpointError(f"the run's log {str(path)!r} is not a log this training wrote "
                              "(a row without its iteration number, or with more cells than "
                              "columns); move it away to resume (the log then restarts)")
    return [{k: _number(v) for k, v in row.items()} for row in rows]


def _number(text: str) -> Any:
    try:
        return float(text) if "." in text or "e" in text or text == "nan" else int(text)
    except ValueError:
        return text


def _write_log(path: Path, rows: list[dict[str, Any]]) -> None:
    import io

    columns = list(dict.fromkeys(key for row in rows for key in row))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, columns)
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


def _tensorboard(out: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
    except ImportError:
        return None
    return SummaryWriter(str(out / "tensorboard"))


def _plot_curve(log: list[dict[str, Any]], game: str, path: Path) -> None:
    """Elo against each reference and the loss, by training step."""
    if not log:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    steps = [row["step"] for row in log]
    for key in sorted({k for row in log for k in row if k.startswith("elo vs")}):
        points = [(row["step"], row[key]) for row in log if isinstance(row.get(key), float)
                  and not math.isnan(row[key])]
        if points:
            left.plot(*zip(*points, strict=True), marker="o", label=key)
    left.set(xlabel="training step", ylabel="Elo difference", title=f"{game}: strength")
    if left.lines:
        left.legend(fontsize=8)
    else:  # say why the panel is empty rather than leave a blank frame
        left.text(0.5, 0.5, "no strength measurements in this run\n(eval_every = 0)",
                  ha="center", va="center", transform=left.transAxes, color="gray")
    for key in ("loss", "value_loss", "policy_loss"):
        if any(key in row for row in log):
            right.plot(steps, [row.get(key, float("nan")) for row in log], label=key)
    right.set(xlabel="training step", title="loss")
    if right.lines:
        right.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def _bar_total(config: TrainConfig) -> float:
    """The bar's total: the budget's seconds, or its iterations for a run without minutes."""
    if config.minutes is None:
        return float(config.iterations or 0)
    return config.minutes * 60


def _done_so_far(config: TrainConfig, total: float, iteration: int, seconds: float) -> float:
    """How far the run is towards ``total`` (:func:`_bar_total`; with both budgets, whichever
    is nearer its end)."""
    if config.minutes is None:
        return iteration
    if config.iterations is not None:
        return max(seconds, total * iteration / config.iterations)
    return seconds


def _bar_info(step: int, figures: dict[str, Any]) -> str:
    """The bar's text: where training is and its last loss (both stages)."""
    return f"step {step} loss {figures.get('loss', float('nan')):.3f}"


def _write_scalars(writer, figures: dict[str, Any], step: int) -> None:
    """Every number of ``figures`` but the iteration to tensorboard (if installed) at ``step``."""
    if writer is None:
        return
    for key, value in figures.items():
        if isinstance(value, (int, float)) and key != "iteration":
            writer.add_scalar(key, value, step)


class _progress_bar:
    """A rich progress bar towards ``total`` (iterations, seconds or steps), with the latest
    figures; ``update(done, info)``."""

    def __init__(self, enabled: bool, total: float, description: str):
        self.enabled = enabled
        self.total = total
        self.description = description

    def __enter__(self) -> Callable[[float, str], None]:
        if not self.enabled:
            return lambda *args: None
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                 TextColumn("{task.fields[info]}"), TimeRemainingColumn())
        self.task = self.progress.add_task(self.description, total=self.total, info="")
        self.progress.start()

        def update(done: float, info: str) -> None:
            self.progress.update(self.task, completed=min(done, self.total), info=info)

        return update

    def __exit__(self, *exc) -> None:
        if self.enabled:
            self.progress.stop()
