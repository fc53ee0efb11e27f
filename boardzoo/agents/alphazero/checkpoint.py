"""AlphaZero checkpoints: data, never code.

A checkpoint is one ``torch.save`` file holding only tensors and plain values (read back with
``torch.load(..., weights_only=True)``, which refuses pickled objects)::

    {"format": "boardzoo-alphazero", "version": 1, "game": "connect_four",
     "game_options": "<json>", "network": "<json NetworkConfig>", "step": int,
     "meta": "<json: anything else, e.g. training figures>", "weights": {name: tensor}}

Writes are atomic (:func:`boardzoo.files.atomic_write_bytes`: a temporary file in the same
folder, fsync, rename, fsync of the folder), so a crash never leaves a half-written file in
place of a good one; loading goes through :func:`boardzoo.torch_files.safe_torch_load`, which
runs no code. Every refusal is a :class:`~boardzoo.errors.CheckpointError`. Shipped
checkpoints live in ``boardzoo/checkpoints/<name>.pt`` and are found by name.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple

import torch

from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig, zero_subnormals
from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, CheckpointError
from boardzoo.files import atomic_write_bytes
from boardzoo.torch_files import safe_torch_load, torch_bytes

__all__ = [
    "FORMAT",
    "VERSION",
    "Checkpoint",
    "load_checkpoint",
    "save_checkpoint",
    "shipped_checkpoints",
    "resolve_checkpoint",
]

FORMAT = "boardzoo-alphazero"
VERSION = 1
SHIPPED_PACKAGE = "boardzoo.checkpoints"


class Checkpoint(NamedTuple):
    """A loaded checkpoint: the game (with its options), the network in eval mode, the
    training step it was written at and free-form metadata."""

    game: Game
    net: AlphaZeroNet
    step: int
    meta: dict[str, Any]


def save_checkpoint(path: str | os.PathLike, game: Game, net: AlphaZeroNet, step: int,
                    meta: dict[str, Any] | None = None) -> None:
    """Write ``net`` (for ``game``) atomically to ``path``."""
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "game": game.name,
        "game_options": json.dumps(game.options, sort_keys=True, default=list),
        "network": json.dumps(asdict(net.config)),
        "step": int(step),
        "meta": json.dumps(meta or {}, sort_keys=True),
        "weights": {k: v.detach().cpu() for k, v in net.state_dict().items()},
    }
    atomic_write_bytes(path, torch_bytes(payload))


def load_checkpoint(path: str | os.PathLike, game: Game | None = None,
                    device: torch.device | str = "cpu") -> Checkpoint:
    """Load a checkpoint file; with ``game`` given, refuse one of another game or options."""
    payload = safe_torch_load(path)
    _check_header(payload, path)
    try:
        options = json.loads(payload["game_options"])
        saved_game = make_game(payload["game"], **_tuples(options))
        config = NetworkConfig(**json.loads(payload["network"]))
        meta = json.loads(payload.get("meta", "{}"))
    except (KeyError, TypeError, json.JSONDecodeError, BoardzooError) as err:
        raise CheckpointError(f"checkpoint {str(path)!r} has a malformed header: {err}") from None
    if game is not None and game.key != saved_game.key:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is for {saved_game!r}, not {game!r}"
        )
    net = AlphaZeroNet.for_game(saved_game, config)
    try:
        net.load_state_dict(payload["weights"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(
            f"checkpoint {str(path)!r}: weights do not fit the network it declares: "
            f"{str(err).splitlines()[0][:200]}"
        ) from None
    zero_subnormals(net)
    return Checkpoint(saved_game, net.to(device).eval(), int(payload["step"]), meta)


def _check_header(payload: Any, path: Any) -> None:
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a boardzoo AlphaZero checkpoint")
    if payload.get("version") != VERSION:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has format version {payload.get('version')!r}; this "
            f"boardzoo reads version {VERSION}"
        )


def _tuples(options: dict[str, Any]) -> dict[str, Any]:
    """JSON lists back to the tuples game options use (e.g. Nim's heaps)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def shipped_checkpoints() -> dict[str, Path]:
    """Name -> path of every checkpoint shipped in the package (``boardzoo/checkpoints``)."""
    try:
        folder = resources.files(SHIPPED_PACKAGE)
    except ModuleNotFoundError:
        return {}
    return {
        entry.name[: -len(".pt")]: Path(str(entry))
        for entry in folder.iterdir()
        if entry.name.endswith(".pt") and not entry.name.startswith("ppo_")
    }


def resolve_checkpoint(name_or_path: str | os.PathLike) -> Path:
    """A shipped checkpoint's name ("tictactoe", ...) or a file path, as a path; an unknown
    name is a CheckpointError that lists the shipped ones."""
    shipped = shipped_checkpoints()
    if str(name_or_path) in shipped:
        return shipped[str(name_or_path)]
    path = Path(name_or_path)
    if path.is_file():
        return path
    if path.is_dir():
        raise CheckpointError(
            f"AlphaZero checkpoint {str(name_or_path)!r} is a directory; give a checkpoint "
            f"file or a shipped name ({', '.join(sorted(shipped)) or 'none'})"
        )
    raise CheckpointError(
        f"no AlphaZero checkpoint {str(name_or_path)!r}: not a file, and the shipped ones are "
        f"{', '.join(sorted(shipped)) or 'none'}"
    )
