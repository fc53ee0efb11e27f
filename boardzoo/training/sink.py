"""Where self-play games go: the small interface training writes through.

Every game has a unique id; storing an id that is already there stores nothing and returns
False, so a resumed or repeated worker never counts a game twice. The default is a run's
results store (:meth:`boardzoo.store.ResultsStore.sink`); tests pass their own.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["GameSink"]


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
