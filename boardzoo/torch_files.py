"""Torch files as data, never code: every file is loaded weights-only
(``torch.load(..., weights_only=True)``, which refuses pickled objects), and each way a file
can be unfit (missing, a directory, empty, not a torch file, truncated, corrupt, carrying
pickled objects) is a one-line :class:`~boardzoo.errors.CheckpointError` that says which.
Weights are checked against the network they load into (:func:`unfit_tensor`): torch's
``load_state_dict`` would cast a wrong dtype silently and load NaN or infinity as numbers.
"""

from __future__ import annotations

import os
import pickle
import warnings
import zipfile
from collections.abc import Mapping
from typing import IO, Any

import torch

from boardzoo.errors import CheckpointError, excerpt, os_reason

__all__ = ["error_reason", "safe_torch_load", "torch_bytes", "unfit_tensor"]


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
                    kind: str = "boardzoo checkpoint") -> Any:
    """``torch.load`` that executes no code: a missing file, a directory, an empty file, one
    that is no torch file at all, a truncated or corrupt one and one holding pickled objects
    each become a one-line :class:`CheckpointError` naming the file as
    ``what`` and saying it is not a ``kind``, and why. ``path`` may also be an open binary
    file, e.g. ``io.BytesIO`` of :func:`torch_bytes`."""
    name = f"{what} {str(path)!r}"
    try:
        problem = _torch_file_problem(path)
    except FileNotFoundError:
        raise CheckpointError(f"{name} does not exist") from None
    except IsADirectoryError:
        raise CheckpointError(f"{name} is a directory, not a file") from None
    except OSError as err:
        raise CheckpointError(f"{name} cannot be read ({os_reason(err)})") from None
    if problem is None:
        try:
            with warnings.catch_warnings():  # a corrupt pickle's protocol number
                warnings.filterwarnings("ignore", message="Detected pickle protocol")
                return torch.load(path, map_location="cpu", weights_only=True)
        except Exception as err:  # its unpickler runs no code, but a corrupt pickle makes it
            problem = _load_failure(err)  # raise any type: every failure is the file's
    raise CheckpointError(f"{name} is not a {kind}: it {problem}")


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


def unfit_tensor(weights: Mapping[str, Any], network: Mapping[str, torch.Tensor]) -> str | None:
    """Why one of ``weights`` cannot go into ``network`` (a ``state_dict``) as it is, naming
    the tensor: not a tensor, another dtype than the network's, or NaN/infinite values; None
    if each fits (shapes and names are the loader's check)."""
    for key, wanted in network.items():
        tensor = weights.get(key)
        if tensor is None:
            continue
        if not isinstance(tensor, torch.Tensor):
            return f"{excerpt(key)} is {type(tensor).__name__}, not a tensor"
        if tensor.dtype != wanted.dtype:
            return (f"tensor {excerpt(key)} is {str(tensor.dtype).removeprefix('torch.')}, "
                    f"not {str(wanted.dtype).removeprefix('torch.')}")
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            bad = int((~torch.isfinite(tensor)).sum())
            return f"tensor {excerpt(key)} holds {bad} NaN or infinite values"
    return None
