"""The training configuration: one frozen dataclass, loadable from JSON or TOML files.

Every field has a default that trains something sensible on a 2-core CPU; per-game Dirichlet
alphas follow AlphaZero's rule of thumb ``alpha ~ 10 / typical number of legal moves``.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import math
import tomllib
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardzoo.errors import CheckpointError, InvalidOptionError, excerpt, os_reason

__all__ = ["DIRICHLET_ALPHA", "TrainConfig", "json_kind", "read_table"]

#: Dirichlet alpha of the root noise per game (~10 / typical legal moves; AlphaZero used
#: 0.3 for chess, 0.15 for shogi, 0.03 for 19x19 Go)
DIRICHLET_ALPHA = {
    "tictactoe": 1.0,  # ~5 legal moves
    "nim": 1.0,
    "connect_four": 1.0,  # ~7 columns
    "othello": 1.0,  # ~8-10 moves in mid-game
    "go": 0.1,  # ~80 on 9x9
    "gomoku": 0.05,  # ~200 on 15x15
    "chess": 0.3,  # ~35, AlphaZero's own value
}


@dataclass(frozen=True)
class TrainConfig:
    """AlphaZero training settings (see docs/alphazero.md for each).

    Budget: training stops after ``minutes`` of wall time or ``iterations`` iterations,
    whichever comes first (None: no limit of that kind; at least one must be set).
    """

    # budget and reproducibility
    minutes: float | None = 10.0
    iterations: int | None = None
    seed: int = 0
    workers: int = 1
    game_options: dict[str, Any] = field(default_factory=dict)
    # network
    blocks: int = 4
    channels: int = 64
    # self-play
    games_per_iteration: int = 64
    parallel_games: int = 32  # games one worker advances in lockstep (one batch)
    simulations: int = 100  # full searches (training targets)
    fast_simulations: int = 25  # playout-cap randomisation: cheap searches, not trained on
    full_search_prob: float = 0.25  # KataGo's p; 1.0 turns playout-cap randomisation off
    c: float = 1.5
    dirichlet_epsilon: float = 0.25
    dirichlet_alpha: float | None = None  # None: DIRICHLET_ALPHA of the game
    temperature_moves: int = 8  # plies sampled from visits with T = 1, then greedy
    resign_threshold: float | None = None  # resign when the root value is below -threshold
    resign_check_fraction: float = 0.1  # games that never resign, to measure false positives
    # supervised warm start (AlphaGo): labelled positions trained on before self-play
    from_records: str | None = None  # a labelled-position JSON Lines file (training.labels)
    supervised_steps: int | None = None  # None: ~4 passes over the labelled positions
    init_from: str | None = None  # a checkpoint (file or shipped name) the network starts from
    label_share: float = 0.0  # > 0: labels kept out of the window, this share of every batch
    # learner
    replay_window: int = 20_000  # positions
    batch_size: int = 128
    train_steps_per_iteration: int | None = None  # None: ~2 passes over the new positions
    optimizer: str = "adam"  # "adam" | "sgd" (momentum 0.9)
    learning_rate: float = 1e-3
    lr_schedule: str = "cosine"  # "constant" | "cosine" (over the iteration budget or minutes)
    l2: float = 1e-4  # c in (z - v)^2 - pi log p + c ||theta||^2
    # evaluation and gating
    gating_games: int = 0  # > 0: a new network replaces the best only if it scores >= gate
    gating_threshold: float = 0.55
    eval_every: int = 5  # iterations between Elo measurements against fixed references
    eval_games: int = 20
    eval_references: tuple[str, ...] = ("random", "mcts:simulations=100,exact_solver=False")
    device: str = "auto"
    # what runs the network in self-play, gating and measurement: "torch", "onnxruntime"
    # (the onnx extra) or "auto" (ONNX Runtime when installed and the device is the CPU)
    inference: str = "auto"
    # where the gradient steps run: "driver" (this process), "actor" (a Ray actor, given a
    # GPU when the cluster has one) or "auto" (an actor on a Ray cluster's GPU when this
    # process has none, else the driver); see docs/ray.md
    learner: str = "auto"

    def __post_init__(self) -> None:
        if self.minutes is None and self.iterations is None:
            raise InvalidOptionError("TrainConfig needs a budget: minutes or iterations")
        checks = {
            "minutes": self.minutes is None or 0 < self.minutes < math.inf,
            "iterations": self.iterations is None or self.iterations >= 0,
            "workers": self.workers >= 1,
            "games_per_iteration": self.games_per_iteration >= 1,
            "parallel_games": self.parallel_games >= 1,
            "simulations": self.simulations >= 2,
            "fast_simulations": self.fast_simulations >= 1,
            "full_search_prob": 0 < self.full_search_prob <= 1,
            "dirichlet_epsilon": 0 <= self.dirichlet_epsilon <= 1,
            "replay_window": self.replay_window >= self.batch_size,
            "label_share": 0 <= self.label_share < 1,
            "batch_size": self.batch_size >= 1,
            "optimizer": self.optimizer in ("adam", "sgd"),
            "lr_schedule": self.lr_schedule in ("constant", "cosine"),
            "learning_rate": self.learning_rate > 0,
            "l2": self.l2 >= 0,
            "blocks": self.blocks >= 0,
            "channels": self.channels >= 1,
            "learner": self.learner in ("auto", "driver", "actor"),
            "inference": self.inference in ("auto", "torch", "onnxruntime"),
        }
        if self.label_share > 0 and not self.from_records:
            raise InvalidOptionError("TrainConfig: label_share needs labelled positions "
                                     "(from_records)")
        bad = [name for name, ok in checks.items() if not ok]
        if bad:
            values = ", ".join(f"{name}={getattr(self, name)!r}" for name in bad)
            raise InvalidOptionError(f"TrainConfig: invalid {values} (see docs/alphazero.md)")

    def alpha_for(self, game_name: str) -> float:
        return self.dirichlet_alpha or DIRICHLET_ALPHA.get(game_name, 0.3)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any], source: str = "config") -> TrainConfig:
        """A config from plain values; an unknown key is an error that suggests the name."""
        known = {f.name for f in dataclasses.fields(cls)}
        for key in values:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                raise InvalidOptionError(f"{source}: unknown training option {key!r}{hint}")
        _check_types(values, source)
        values = dict(values)
        if "eval_references" in values:
            values["eval_references"] = tuple(values["eval_references"])
        return cls(**values)

    @classmethod
    def from_file(cls, path: str | Path) -> TrainConfig:
        """Read a ``.json`` or ``.toml`` file (data only: nothing in it is executed)."""
        return cls.from_dict(cls.read_options(path), source=str(path))

    @classmethod
    def read_options(cls, path: str | Path) -> dict[str, Any]:
        """The options a ``.json`` or ``.toml`` file names (checked, not filled in)."""
        values = read_table(Path(path), f"config file {str(path)!r}")
        cls.from_dict(values, source=str(path))
        return values


def read_table(path: Path, what: str) -> dict[str, Any]:
    """The table of options in the file ``path`` (TOML when its name ends in .toml, else a
    JSON object); any file that is not one is a :class:`CheckpointError` that starts with
    ``what`` (e.g. ``"config file 'x.json'"``) and says why."""
    try:
        text = path.read_text(encoding="utf-8")
        values = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except FileNotFoundError:
        raise CheckpointError(f"{what} does not exist") from None
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError,
            RecursionError) as err:
        raise CheckpointError(f"{what} is not valid: {err}") from None
    except OSError as err:  # a directory, a path under a file, no permission, ...
        raise CheckpointError(
            f"{what} cannot be read ({os_reason(err)})") from None
    if not isinstance(values, dict):
        raise CheckpointError(f"{what} is not a config object but {json_kind(values)}; "
                              'expected a table of options such as {"minutes": 10}')
    return values


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, in words (``"a list"``, ``"a number"``, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object"


def _check_types(values: dict[str, Any], source: str) -> None:
    """Refuse an option whose value is not of its field's type (e.g. ``"workers": "2"``)."""
    hints = typing.get_type_hints(TrainConfig)
    for name, value in values.items():
        if not _fits(value, hints[name]):
            raise InvalidOptionError(f"{source}: training option {name!r} must be "
                                     f"{_describe(hints[name])}, not {excerpt(value)}")


def _fits(value: Any, hint: Any) -> bool:
    """Whether ``value`` (as JSON or TOML decodes it) is of the type ``hint``."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_fits(value, arg) for arg in args)
    if origin is tuple:  # tuple[X, ...]: a list or tuple of X
        return isinstance(value, (list, tuple)) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def _describe(hint: Any) -> str:
    """The type ``hint`` in words, e.g. ``"an integer or null"``."""
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin in (types.UnionType, typing.Union):
        return " or ".join(_describe(arg) for arg in args)
    if origin is tuple:
        return f"a list of {_describe(args[0]).partition(' ')[2]}s"  # "a list of strings"
    words = {dict: "an object", type(None): "null", float: "a number", int: "an integer",
             str: "a string", bool: "true or false"}
    return words.get(origin or hint, str(hint))
