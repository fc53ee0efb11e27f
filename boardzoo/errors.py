"""Exceptions users see. Every one is a ``ValueError`` subclass whose message says what was
wrong and what is allowed, so a bad input never turns into a silent wrong answer.
(:class:`UnknownOptionError` is also a ``TypeError``, as Python's own error for an unknown
keyword argument is.)"""

from __future__ import annotations

__all__ = [
    "BoardzooError",
    "CheckpointError",
    "IllegalActionError",
    "GameOverError",
    "InvalidPositionError",
    "IncompatibleSnapshotError",
    "InvalidOptionError",
    "StoreError",
    "UnknownOptionError",
    "UnknownGameError",
    "os_reason",
]


class BoardzooError(ValueError):
    """Base class of every error boardzoo raises for bad input."""


class IllegalActionError(BoardzooError):
    """An action that is out of range or not legal in the current position."""


class GameOverError(BoardzooError):
    """A real (non-None) action sent to a game that has already ended."""


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



def os_reason(err: OSError) -> str:
    """Why a file could not be read or written, in the system's words ("No such file or
    directory", "Is a directory"), or the error's type where it gave none."""
    return err.strerror or type(err).__name__
