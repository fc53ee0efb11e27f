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
checkpoints are found by name (:mod:`boardzoo.checkpoints`).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any, NamedTuple

import torch

from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig, zero_subnormals
from boardzoo.checkpoints import shipped_checkpoints
from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, CheckpointError, excerpt
from boardzoo.files import atomic_write_bytes
from boardzoo.torch_files import safe_torch_load, torch_bytes, unfit_tensor

__all__ = [
    "FORMAT",
    "MAX_META_DEPTH",
    "VERSION",
    "Checkpoint",
    "load_checkpoint",
    "save_checkpoint",
    "resolve_checkpoint",
]

FORMAT = "boardzoo-alphazero"
VERSION = 1


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
    """Load a checkpoint file; with ``game`` given, refuse one of another game or options.

    Everything is checked before the network is built: the header's fields and types, the
    network size within :data:`~boardzoo.agents.alphazero.network.NETWORK_LIMITS`, and the
    shape of every weight against the network the header declares, so a forged header
    cannot make loading allocate more than the file itself holds."""
    saved_game, config, step, meta, weights = _read_header(safe_torch_load(path), path)
    if game is not None and game.key != saved_game.key:
        raise CheckpointError(
            f"checkpoint {str(path)!r} is for {saved_game!r}, not {game!r}"
        )
    _check_weights_fit(saved_game, config, weights, path)
    net = AlphaZeroNet.for_game(saved_game, config)
    try:
        net.load_state_dict(weights)
    except (RuntimeError, KeyError, TypeError) as err:
        raise CheckpointError(
            f"checkpoint {str(path)!r}: weights do not fit the network it declares: "
            f"{str(err).splitlines()[0][:200]}"
        ) from None
    zero_subnormals(net)
    return Checkpoint(saved_game, net.to(device).eval(), step, meta)


class _Header(NamedTuple):
    game: Game
    config: NetworkConfig
    step: int
    meta: dict[str, Any]
    weights: dict[str, torch.Tensor]


#: the header's fields and their types (``meta`` may be absent)
_FIELDS = {"game": str, "game_options": str, "network": str, "step": int, "meta": str,
           "weights": dict}
#: how deep ``meta`` may nest (boardzoo writes flat figures)
MAX_META_DEPTH = 32


def _read_header(payload: Any, path: Any) -> _Header:
    """The checkpoint's header, every field checked (type, JSON, range); CheckpointError
    saying which field is wrong otherwise."""
    name = f"checkpoint {str(path)!r}"
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{str(path)!r} is not a boardzoo AlphaZero checkpoint")
    if payload.get("version") != VERSION:
        raise CheckpointError(
            f"{name} has format version {excerpt(payload.get('version'))}; this boardzoo "
            f"reads version {VERSION}"
        )
    fields = {"meta": "{}", **payload}
    for key, kind in _FIELDS.items():
        value = fields.get(key)
        if type(value) is not kind:
            raise CheckpointError(f"{name} has a malformed header: {key!r} is "
                                  f"{excerpt(value)}, not {_KIND_WORDS[kind]}")
    weights = fields["weights"]
    if not all(isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in weights.items()):
        raise CheckpointError(f"{name} has a malformed header: 'weights' is not a table of "
                              "named tensors")
    if fields["step"] < 0:
        raise CheckpointError(f"{name} has a malformed header: 'step' is {fields['step']}, "
                              "not a count >= 0")
    options, network, meta = (_json_object(fields[key], key, name)
                              for key in ("game_options", "network", "meta"))
    if _depth(meta) > MAX_META_DEPTH:
        raise CheckpointError(f"{name} has a malformed header: 'meta' nests deeper than "
                              f"{MAX_META_DEPTH} levels")
    try:
        saved_game = make_game(fields["game"], **_tuples(options))
        config = NetworkConfig(**network)
    except (TypeError, BoardzooError) as err:
        raise CheckpointError(f"{name} has a malformed header: {err}") from None
    return _Header(saved_game, config, fields["step"], meta, weights)


_KIND_WORDS = {str: "text", int: "an integer", dict: "a table"}


def _json_object(text: str, key: str, name: str) -> dict[str, Any]:
    """The JSON object of the header field ``key``; CheckpointError if it is not one."""
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as err:
        reason = "it nests too deep" if isinstance(err, RecursionError) else str(err)
        raise CheckpointError(f"{name} has a malformed header: {key!r} is not JSON "
                              f"({reason})") from None
    if not isinstance(value, dict):
        raise CheckpointError(f"{name} has a malformed header: {key!r} is not a JSON object")
    return value


def _depth(value: Any) -> int:
    """How deep JSON lists and objects nest in ``value`` (0 for a number or text), counted
    without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
            deepest = max(deepest, depth + 1)
    return deepest


def _check_weights_fit(game: Game, config: NetworkConfig, weights: dict[str, torch.Tensor],
                       path: Any) -> None:
    """CheckpointError unless ``weights`` has exactly the tensors, of exactly the shapes, of
    the network ``config`` declares for ``game``: computed on torch's meta device, which
    allocates no memory, so a header that overstates the network is refused first."""
    with torch.device("meta"):
        declared = AlphaZeroNet.for_game(game, config).state_dict()
    wanted = {key: tuple(tensor.shape) for key, tensor in declared.items()}
    found = {key: tuple(tensor.shape) for key, tensor in weights.items()}
    if wanted == found:
        unfit = unfit_tensor(weights, declared)
        if unfit is not None:
            raise CheckpointError(f"checkpoint {str(path)!r} has unusable weights: {unfit}")
        return
    differ = [key for key in wanted if key in found and wanted[key] != found[key]]
    missing, extra = sorted(wanted.keys() - found.keys()), sorted(found.keys() - wanted.keys())
    if differ:
        key = differ[0]
        detail = f"{key} is {list(found[key])} in the file, {list(wanted[key])} in that network"
    elif missing:
        detail = f"{len(missing)} of its tensors are missing (e.g. {missing[0]})"
    else:
        detail = f"{len(extra)} tensors are not in it (e.g. {excerpt(extra[0])})"
    raise CheckpointError(
        f"checkpoint {str(path)!r}: its header declares a network of {config.blocks} blocks "
        f"x {config.channels} channels (value head {config.value_hidden}) that its weights "
        f"do not fit: {detail}"
    )


def _tuples(options: dict[str, Any]) -> dict[str, Any]:
    """JSON lists back to the tuples game options use (e.g. Nim's heaps)."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}


def resolve_checkpoint(name_or_path: str | os.PathLike) -> Path:
    """A shipped checkpoint's name ("tictactoe", ...) or a file path, as a path; an unknown
    name is a CheckpointError that lists the shipped ones."""
    shipped = shipped_checkpoints("alphazero")
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
