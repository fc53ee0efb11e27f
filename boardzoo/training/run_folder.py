"""A training run's folder: what it holds, how a run starts there, and how it resumes.

Layout under ``out``: ``config.json`` (the run's game and :class:`TrainConfig`),
``results.sqlite`` (the results store of :mod:`boardzoo.store`, whose ``"selfplay"`` sink
holds the games), ``state.pt`` (the resume state: iteration, elapsed time, the learner's
and, with gating, the best network's weights), ``latest.pt`` (and with gating ``best.pt``:
network checkpoints in the shipped format), and the figures of :mod:`.report`: ``log.csv``,
``curve.png``, ``tensorboard/``.

Whether a run may start or resume in a folder is decided here and nowhere else
(:meth:`RunFolder.config_for`, :meth:`RunFolder.resume_point`): a new run never starts over
an earlier one's files; a resumed one needs its config, and refuses a folder that lost its
resume state while a trained network or logged iterations remain, or that lost its games.
Every file is written atomically (:mod:`boardzoo.files`).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, NamedTuple

from boardzoo.agents.alphazero.checkpoint import save_checkpoint
from boardzoo.agents.alphazero.network import AlphaZeroNet
from boardzoo.envs.core import Game
from boardzoo.errors import CheckpointError, InvalidOptionError, excerpt
from boardzoo.files import atomic_write_bytes, atomic_write_text
from boardzoo.store import ResultsStore
from boardzoo.torch_files import safe_torch_load, torch_bytes
from boardzoo.training.config import TrainConfig, read_table
from boardzoo.training.learner import Learner
from boardzoo.training.sink import GameSink

__all__ = ["ResumePoint", "RunFolder", "run_games"]

STATE_FORMAT = "boardzoo-train-state"
STATE_VERSION = 1
STORE_FILE = "results.sqlite"
SINK_NAME = "selfplay"
#: the options a resumed run takes from the caller's config: its budget
BUDGET_FIELDS = ("minutes", "iterations")
#: the options a resumed run may not change: the network and its games depend on them
FIXED_ON_RESUME = ("blocks", "channels", "game_options", "init_from", "seed")
#: the files that make a folder a training run's: a new run never starts over them
RUN_FILES = ("config.json", "state.pt", "latest.pt", "best.pt", "log.csv")


@contextlib.contextmanager
def run_games(out: str | Path) -> Iterator[GameSink]:
    """The games of the run folder ``out``: the ``"selfplay"`` sink of its results store
    (``out/results.sqlite``, created if missing), closed on exit."""
    with ResultsStore(Path(out) / STORE_FILE) as store:
        yield store.sink(SINK_NAME)


class ResumePoint(NamedTuple):
    """Where a run goes on from: the last finished iteration (0: none), the seconds it had
    run, and the learner step at which the best network (under gating) was taken."""

    iteration: int
    elapsed: float
    best_step: int


class RunFolder:
    """The folder ``out`` of one training run (the module docstring)."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.state = out / "state.pt"
        self.latest = out / "latest.pt"
        self.best = out / "best.pt"

    # ------------------------------------------------------------------- starting a run
    def config_for(self, game: str, config: TrainConfig | None, resume: bool,
                   changes: Mapping[str, Any]) -> tuple[TrainConfig, bool]:
        """The run's config, and whether it is new or changed (to be saved with
        :meth:`save_config`): ``config`` for a new run in a folder without a run;
        resumed, the saved one with ``config``'s budget and ``changes`` (checked)."""
        if changes and not resume:
            raise InvalidOptionError("changes apply to a resumed run; give a config instead")
        if not resume:
            found = [name for name in RUN_FILES if (self.out / name).exists()]
            if found:
                raise InvalidOptionError(
                    f"{str(self.out)!r} already holds a training run ({', '.join(found)}): "
                    "resume it (--resume / resume=True) or choose another --out")
            return config or TrainConfig(), True
        previous = self._saved_config(game)
        if changes:
            previous = _changed_config(previous, changes)
        if config is not None:
            previous = replace(previous, **{k: getattr(config, k) for k in BUDGET_FIELDS})
        return previous, bool(changes)

    def _saved_config(self, game: str) -> TrainConfig:
        """The config of the run of ``game`` to resume here, the folder checked first."""
        saved = self.out / "config.json"
        if not saved.exists():
            raise CheckpointError(f"--resume {str(self.out)!r}: no training run there "
                                  "(config.json)")
        self._check_resumable()
        values = read_table(saved, f"the run's config.json {str(saved)!r}")
        if values.pop("game", game) != game:
            raise CheckpointError(f"{str(self.out)!r} holds a run of another game, not {game!r}")
        return TrainConfig.from_dict(values, source=str(saved))

    def _check_resumable(self) -> None:
        """CheckpointError for a run folder that cannot continue: its resume state lost
        while a trained network or logged iterations remain (resuming would train a new
        network over them), or its stored games lost (the replay cannot be rebuilt). A run
        killed before its first iteration ended has neither and starts that iteration again."""
        if not self.state.exists():
            left = [name for name in ("latest.pt", "best.pt", "log.csv")
                    if (self.out / name).exists()]
            if left:
                raise CheckpointError(
                    f"--resume {str(self.out)!r}: the run's resume state state.pt is missing, "
                    f"but {', '.join(left)} {'is' if len(left) == 1 else 'are'} there: "
                    "resuming would train a new network over them. Put state.pt back, or "
                    f"{self._fresh_start()}")
        elif not (self.out / STORE_FILE).exists():
            raise CheckpointError(
                f"--resume {str(self.out)!r}: the run's games ({STORE_FILE}) are missing, so "
                f"its replay buffer cannot be rebuilt. Put {STORE_FILE} back, or "
                f"{self._fresh_start()}")

    def _fresh_start(self) -> str:
        return (f"start a new run with --out NEW_FOLDER (--init-from {str(self.latest)!r} "
                "starts it from the trained network)")

    def save_config(self, game: Game, config: TrainConfig) -> None:
        atomic_write_text(self.out / "config.json",
                          json.dumps({"game": game.name, **config.to_dict()}, indent=2))

    def missing_game(self, game_id: str, iteration: int) -> CheckpointError:
        """The refusal of a resume whose store lacks a game of an iteration it finished."""
        return CheckpointError(
            f"--resume {str(self.out)!r}: game {game_id!r} of iteration {iteration} is not in "
            f"the run's {STORE_FILE}, so its replay buffer cannot be rebuilt; put the run's "
            f"{STORE_FILE} back, or start a new run with --out NEW_FOLDER")

    # ------------------------------------------------------------------ the resume state
    def save_state(self, game: Game, learner: Learner, point: ResumePoint,
                   best: AlphaZeroNet | None) -> None:
        """The resume state and the latest network checkpoint, each written atomically."""
        state = {"format": STATE_FORMAT, "version": STATE_VERSION, "game": game.name,
                 "iteration": point.iteration, "elapsed": point.elapsed, **learner.state()}
        if best is not None:
            state["best_weights"] = best.state_dict()
            state["best_step"] = point.best_step
        atomic_write_bytes(self.state, torch_bytes(state))
        save_checkpoint(self.latest, game, learner.net, learner.step,
                        {"iteration": point.iteration,
                         "minutes": round(point.elapsed / 60, 2)})

    def resume_point(self, game: Game, learner: Learner,
                     best: AlphaZeroNet | None) -> ResumePoint:
        """Where the run goes on from, its saved state loaded into ``learner`` and ``best``
        (every field checked first); the start when there is no saved state (a new run, or
        one killed before its first save)."""
        if not self.state.exists():
            return ResumePoint(0, 0.0, 0)
        state = safe_torch_load(self.state, "training state")
        path = str(self.state)
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise CheckpointError(f"{path!r} is not a boardzoo training state")
        if state.get("version") != STATE_VERSION:
            raise CheckpointError(
                f"{path!r}: unknown training-state version {excerpt(state.get('version'))}")
        if state.get("game") != game.name:
            raise CheckpointError(f"{path!r} is the training state of a run of "
                                  f"{excerpt(state.get('game'))}, not of {game.name!r}")
        counts = {"iteration": state.get("iteration"), "best_step": state.get("best_step", 0),
                  "elapsed": state.get("elapsed")}
        for name, value in counts.items():
            kinds = (int, float) if name == "elapsed" else (int,)
            if type(value) not in kinds or not 0 <= value < math.inf:
                raise CheckpointError(f"{path!r} is damaged: its {name} is {excerpt(value)}, "
                                      "not a number >= 0")
        try:
            learner.load(state)
            if best is not None:
                best.load_state_dict(state["best_weights"])
        except (KeyError, RuntimeError, ValueError, TypeError) as err:
            reason = " ".join(line.strip() for line in str(err).splitlines()[:2])
            raise CheckpointError(f"{path!r} does not fit this run's network: "
                                  f"{reason[:300]}") from None
        return ResumePoint(counts["iteration"], float(counts["elapsed"]), counts["best_step"])


def _changed_config(previous: TrainConfig, changes: Mapping[str, Any]) -> TrainConfig:
    """``previous`` with ``changes`` applied (checked)."""
    values = previous.to_dict()
    fixed = sorted(k for k in FIXED_ON_RESUME if k in changes and changes[k] != values[k])
    if fixed:
        raise InvalidOptionError(
            f"a resumed run cannot change {', '.join(fixed)} (the network and its games are "
            "fixed); start a new run with --out")
    return TrainConfig.from_dict({**values, **changes}, source="the changed options")
