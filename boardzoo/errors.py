"""Exceptions users see. Every one is a ``ValueError`` subclass whose message says what was
wrong and what is allowed, so a bad input never turns into a silent wrong answer.
(:class:`UnknownOptionError` is also a ``TypeError``, as Python's own error for an unknown
keyword argument is.)

Messages quote input through :func:`excerpt`, and a :class:`BoardzooError` keeps at most
:data:`MAX_MESSAGE` characters of its message (the middle is cut): a megabyte of bad input
gives a line of error, not a megabyte of it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BoardzooError",
    "CheckpointError",
    "IllegalActionError",
    "GameOverError",
    "ResetNeededError",
    "InvalidPositionError",
    "IncompatibleSnapshotError",
    "InvalidOptionError",
    "MissingExtraError",
    "StoreError",
    "UnknownOptionError",
    "UnknownGameError",
    "EXTRAS",
    "MAX_MESSAGE",
    "excerpt",
    "missing_extra",
    "os_reason",
]

#: the longest message a BoardzooError keeps; a longer one loses its middle
MAX_MESSAGE = 600
_KEPT_TAIL = 200  # of a cut message: its end, which says what is allowed


def excerpt(value: Any, limit: int = 80) -> str:
    """``repr(value)``, or for a long value the first ``limit`` characters of it and its
    length, e.g. ``'XXXXXXXX...' (1000282 characters)``: how a message quotes input."""
    text = repr(value)
    if len(text) <= limit:
        return text
    size = len(value) if hasattr(value, "__len__") else len(text)
    unit = "characters" if isinstance(value, str) else "bytes" if isinstance(
        value, (bytes, bytearray)) else "items"
    return f"{text[:limit]}... ({size} {unit})"


def _bounded(message: str) -> str:
    """``message`` cut in the middle to :data:`MAX_MESSAGE` characters if longer."""
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE
    head = MAX_MESSAGE - _KEPT_TAIL
    return f"{message[:head]} [... {cut} characters cut ...] {message[-_KEPT_TAIL:]}"


class BoardzooError(ValueError):
    """Base class of every error boardzoo raises for bad input; its message is one line of
    at most :data:`MAX_MESSAGE` characters."""

    def __init__(self, message: Any = "", *args: Any) -> None:
        super().__init__(_bounded(str(message)), *args)


class IllegalActionError(BoardzooError):
    """An action that is out of range or not legal in the current position."""


class GameOverError(BoardzooError):
    """A real (non-None) action sent to a game that has already ended."""


class ResetNeededError(BoardzooError):
    """``step()`` on an env that was never ``reset()`` (nor restored): it has no game yet."""


class InvalidPositionError(BoardzooError):
    """A position text or move list that is malformed or cannot arise in the game."""


class IncompatibleSnapshotError(BoardzooError):
    """A snapshot restored into an env of another game or other options."""


class InvalidOptionError(BoardzooError):
    """A game option, agent option or reset option that is not allowed."""


class UnknownOptionError(InvalidOptionError, TypeError):
    """A keyword option that the env, game or agent does not take. Also a ``TypeError``
    worded as Python's own ("... got an unexpected keyword argument 'frameskip'"), so code
    that probes constructors with a keyword and retries without it on that error (TorchRL's
    ``GymEnv`` does with ``frameskip``) works; the message goes on to list the valid
    options and the nearest one."""


class StoreError(BoardzooError):
    """A results store that is not one, is damaged, or stays locked past the busy timeout."""


class CheckpointError(BoardzooError):
    """A checkpoint, resume directory, replay or config file that cannot be loaded safely:
    code-carrying (pickled objects), truncated or corrupt, of another game or board size, or
    of an unknown format version."""


class UnknownGameError(BoardzooError):
    """A game name that boardzoo does not know."""


class MissingExtraError(BoardzooError, ModuleNotFoundError):
    """An optional dependency that is not installed; the message names the extra that
    brings it (``pip install 'boardzoo[torch]'``). Also a ``ModuleNotFoundError``."""


#: boardzoo's optional dependencies (top-level module) -> the extra that installs each
EXTRAS = {
    "torch": "torch",
    "onnxruntime": "onnx",
    "onnx": "onnx",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "tqdm": "sb3",
    "ray": "ray",
    "pygame": "human",
    "pyspiel": "openspiel",
    "tensorboard": "tensorboard",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
}


def missing_extra(err: ImportError, what: str) -> MissingExtraError | None:
    """The :class:`MissingExtraError` for a failed import if the missing module is one of
    :data:`EXTRAS` (``what`` names what needed it, e.g. "agent 'alphazero'"), else None."""
    if isinstance(err, MissingExtraError):
        return err
    module = (getattr(err, "name", None) or "").partition(".")[0]
    if module not in EXTRAS:
        return None
    missing = MissingExtraError(
        f"{what} needs {module}, which is not installed: pip install "
        f"'boardzoo[{EXTRAS[module]}]'")
    missing.name = module
    return missing



def os_reason(err: OSError) -> str:
    """Why a file could not be read or written, in the system's words ("No such file or
    directory", "Is a directory"), or the error's type where it gave none."""
    return err.strerror or type(err).__name__
