"""AlphaZero checkpoints: data, never code.

A checkpoint is one ``torch.save`` file holding only tensors and plain values (read back with
``torch.load(..., weights_only=True)``, which refuses pickled objects)::

    {"format": "boardzoo-alphazero", "version": 1, "game": "connect_four",
     "game_options": "<json>", "network": "<json NetworkConfig>", "step": int,
     "meta": "<json: anything else, e.g. training figures>", "weights": {name: tensor}}

Writes are atomic (a temporary file in the same folder, fsync, rename, fsync of the folder),
so a crash never leaves a half-written file in place of a good one. Every refusal is a
:class:`~boardzoo.errors.CheckpointError`. Shipped checkpoints live in
``boardzoo/checkpoints/<name>.pt`` and are found by name.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
import warnings
import zipfile
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from typing import IO, Any, NamedTuple

import torch

from boardzoo.agents.alphazero.network import AlphaZeroNet, NetworkConfig, zero_subnormals
from boardzoo.envs import make_game
from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, CheckpointError

__all__ = [
    "FORMAT",
    "VERSION",
    "Checkpoint",
    "atomic_write_bytes",
    "error_reason",
    "load_checkpoint",
    "safe_torch_load",
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


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the whole new one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def torch_bytes(obj: Any) -> bytes:
    """``obj`` (tensors and plain values only) as ``torch.save`` bytes."""
    import io

    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


#: the pickled magic number that begins torch's legacy (pre-zip) files, after the protocol
#: header (and a frame header for pickle protocol 4+)
_LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)[2:-1]
_ZIP_MAGIC = b"PK\x03\x04"


def safe_torch_load(path: str | os.PathLike | IO[bytes], what: str = "checkpoint", *,
                    kind: str = "boardzoo checkpoint",
                    error: type[CheckpointError] = CheckpointError) -> Any:
    """``torch.load`` that executes no code: a missing file, a directory, an empty file, one
    that is no torch file at all, a truncated or corrupt one and one holding pickled objects
    each become a one-line ``error`` (a :class:`CheckpointError`) naming the file as
    ``what`` and saying it is not a ``kind``, and why. ``path`` may also be an open binary
    file, e.g. ``io.BytesIO`` of :func:`torch_bytes`."""
    name = f"{what} {str(path)!r}"
    try:
        problem = _torch_file_problem(path)
    except FileNotFoundError:
        raise error(f"{name} does not exist") from None
    except IsADirectoryError:
        raise error(f"{name} is a directory, not a file") from None
    except OSError as err:
        raise error(f"{name} cannot be read ({err.strerror or err})") from None
    if problem is None:
        try:
            with warnings.catch_warnings():  # a corrupt pickle's protocol number
                warnings.filterwarnings("ignore", message="Detected pickle protocol")
                return torch.load(path, map_location="cpu", weights_only=True)
        except Exception as err:  # its unpickler runs no code, but a corrupt pickle makes it
            problem = _load_failure(err)  # raise any type: every failure is the file's
    raise error(f"{name} is not a {kind}: it {problem}")


def _torch_file_problem(source: str | os.PathLike | IO[bytes]) -> str | None:
    """Why ``source`` cannot be a torch file, judged from its bytes before torch reads it
    (empty, a truncated zip archive, neither torch's zip nor its legacy format), as a
    predicate for a sentence about the file; None if it may be one."""
    head = _head(source)
    if not head:
        return "is empty (0 bytes)"
    if head.startswith(_ZIP_MAGIC):
        return _zip_problem(source)
    if _LEGACY_MAGIC in head:
        return None
    return ("is not a torch checkpoint file at all (not a zip/torch archive: text, JSON, "
            "another format, or corrupt)")


def _zip_problem(source: str | os.PathLike | IO[bytes]) -> str | None:
    """Why a file that starts as a zip archive is no complete one (its end, which holds the
    archive's directory, is missing or damaged); None if it is one."""
    try:
        complete = zipfile.is_zipfile(source)
    except zipfile.BadZipFile as err:
        return f"is a damaged zip/torch archive ({err})"
    finally:
        if not isinstance(source, (str, os.PathLike)):
            source.seek(0)
    return None if complete else (
        "is truncated (it starts as a zip/torch archive, but its end is missing)"
    )


def _load_failure(err: Exception) -> str:
    """Why ``torch.load`` failed on a file that looked like a torch file, as a predicate:
    pickled objects (refused: loading them would run code), else corrupt inside."""
    reason = error_reason(err)
    if isinstance(err, pickle.UnpicklingError) and not reason.startswith("Unsupported operand"):
        return ("is a torch file holding pickled objects beyond tensors and plain values, "
                f"which loading would run as code: boardzoo refuses to load code ({reason})")
    return f"looks like a torch file but is corrupt inside ({type(err).__name__}: {reason})"


def _head(source: str | os.PathLike | IO[bytes], size: int = 64) -> bytes:
    """The first ``size`` bytes of a file, or of a seekable binary stream (rewound after)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as fh:
            return fh.read(size)
    source.seek(0)
    head = source.read(size)
    source.seek(0)
    return head


def error_reason(err: Exception) -> str:
    """The informative first line of a torch load error (the WeightsUnpickler's own words
    when torch wraps them in advice), at most 200 characters; the error's type if empty."""
    text = str(err)
    _, found, inner = text.partition("WeightsUnpickler error:")
    lines = [line.strip() for line in (inner if found else text).splitlines() if line.strip()]
    return lines[0].split(". ")[0].rstrip(".")[:200] if lines else type(err).__name__


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
