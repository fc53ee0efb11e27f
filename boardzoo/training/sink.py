"""Where self-play games go: the small interface every backend implements, and a folder of
JSON files as the default.

Every game has a unique id; storing an id that is already there stores nothing and returns
False, so a resumed or repeated worker never counts a game twice.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from boardzoo.errors import CheckpointError

__all__ = ["DirectorySink", "GameSink"]


@runtime_checkable
class GameSink(Protocol):
    """Stores finished games exactly once, by id."""

    def put_game(self, game_id: str, record: dict[str, Any]) -> bool:
        """Store ``record`` under ``game_id``; False (and nothing stored) if it exists."""
        ...

    def game_ids(self) -> set[str]:
        """The ids stored so far."""
        ...

    def get_game(self, game_id: str) -> dict[str, Any]:
        """The record stored under ``game_id``."""
        ...


class DirectorySink:
    """One ``<id>.json`` file per game in ``folder``, published atomically with a hard link
    (which fails if the id exists), so concurrent writers never overwrite or tear a game."""

    def __init__(self, folder: str | os.PathLike):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def put_game(self, game_id: str, record: dict[str, Any]) -> bool:
        if not game_id or "/" in game_id or game_id.startswith("."):
            raise ValueError(f"game id {game_id!r} must be a plain file name")
        final = self.folder / f"{game_id}.json"
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(record, fh, separators=(",", ":"))
                fh.flush()
                os.fsync(fh.fileno())
            os.link(tmp, final)
            return True
        except FileExistsError:
            return False
        finally:
            Path(tmp).unlink(missing_ok=True)

    def game_ids(self) -> set[str]:
        return {p.stem for p in self.folder.glob("*.json")}

    def get_game(self, game_id: str) -> dict[str, Any]:
        path = self.folder / f"{game_id}.json"
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise CheckpointError(f"no stored game {game_id!r} in {str(self.folder)!r}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise CheckpointError(f"stored game {str(path)!r} is corrupt: {err}") from None
        if not isinstance(record, dict) or record.get("id") != game_id:
            raise CheckpointError(f"stored game {str(path)!r} is not the record of {game_id!r}")
        return record
