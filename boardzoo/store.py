"""The results store: every finished game stored exactly once, in one SQLite file.

The arena and training write games here; ratings, tables and exports (JSONL, SGF, CSV) are
computed from it. Guarantees, for any number of processes on one file:

* **Nothing counted twice.** A game is a row keyed by (match, game id): a second write of
  the same id is refused (:meth:`ResultsStore.put` returns False).
* **Nothing played twice.** Work is claimed before it is played: a claim carries its owner
  (host, process id) and a lease; claims are taken in ``BEGIN IMMEDIATE`` transactions with
  a busy timeout (a deferred transaction cannot be upgraded to a write under contention,
  and a SELECT-then-UPDATE outside one duplicates work). A claim whose owner has died (a
  process of this host that no longer exists) is taken over, and another host's claim once
  its lease ran out (a live owner renews its leases while it plays, however long its games
  take); a live process of this host keeps its claim whatever its lease says.
* **Nothing lost.** Every write is one transaction in WAL mode with ``synchronous=FULL``: a
  crash loses at most the games being played, never a stored one.
* **Nothing mixed.** A match is identified by everything that defines it (the caller's
  *definition*: game, normalised options, every agent's full spec, openings, seed), as the
  SHA-256 of its canonical JSON; a different definition is a different match.
* **Nothing deleted.** A file that is not a boardzoo store, or a damaged one, raises
  :class:`~boardzoo.errors.StoreError` in one line and is left as it is.

Training's self-play writes through :meth:`ResultsStore.sink`, a :class:`StoreSink` with
``put_game(game_id, record) -> bool``, ``game_ids() -> set[str]`` and ``get_game(game_id)``
(the protocol of :mod:`boardzoo.training.sink`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from boardzoo.errors import StoreError

__all__ = ["ResultsStore", "StoreSink", "definition_key"]

FORMAT = "boardzoo results store"
VERSION = "1"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, definition TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    match_id INTEGER NOT NULL REFERENCES matches(id), game_id TEXT NOT NULL,
    record TEXT NOT NULL, owner TEXT NOT NULL, stored_at REAL NOT NULL,
    PRIMARY KEY (match_id, game_id));
CREATE TABLE IF NOT EXISTS claims (
    match_id INTEGER NOT NULL REFERENCES matches(id), game_id TEXT NOT NULL,
    owner TEXT NOT NULL, expires REAL NOT NULL,
    PRIMARY KEY (match_id, game_id));
"""


def definition_key(definition: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a match definition (sorted keys, no spaces)."""
    text = json.dumps(definition, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class ResultsStore:
    """One SQLite results file (created if missing); see the module docstring.

    ``lease_seconds``: how long a claim stays with an owner that cannot be checked (another
    host) before others may take it over; an owner renews its claims whenever it writes, and
    while it plays (:meth:`claims_kept`).
    ``read_only``: open an existing store for reading only (an analysis of a committed
    store): the file is not created, its journal mode is left as it is, and any write raises
    :class:`~boardzoo.errors.StoreError`.
    One store object per process (connections are not shared across ``fork``).
    """

    def __init__(
        self, path: str | os.PathLike, lease_seconds: float = 600.0, busy_timeout: float = 60.0,
        read_only: bool = False,
    ):
        self.path = Path(path)
        self.lease_seconds = lease_seconds
        self.busy_timeout = busy_timeout
        self.read_only = read_only
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        if read_only and not self.path.is_file():
            raise StoreError(f"{self.path}: no such results store to read")
        if not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = self._connect()
            self._open()
        except sqlite3.DatabaseError as err:
            with contextlib.suppress(Exception):
                self._db.close()
            raise StoreError(
                f"{self.path} is not a readable boardzoo results store ({err}); it was left "
                "untouched: move it away or pass another path"
            ) from None

    def _connect(self) -> sqlite3.Connection:
        """A connection to the file: read-write (created if missing), or read-only."""
        if self.read_only:
            return sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                   timeout=self.busy_timeout, isolation_level=None)
        return sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)

    def _open(self) -> None:
        """Check an existing file before writing anything to it, then create what is missing
        (a new or empty file gets the tables; an SQLite file of something else is refused;
        read-only: only the checks)."""
        db = self._db
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        if (tables and "meta" not in tables) or (self.read_only and not tables):
            raise sqlite3.DatabaseError("an SQLite file without boardzoo's tables")
        if tables:
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                problems = [line.strip() for line in check.splitlines() if line.strip()
                            and not line.startswith("***")] or ["unknown"]
                more = f" and {len(problems) - 1} more" if len(problems) > 1 else ""
                raise sqlite3.DatabaseError(f"integrity check failed: {problems[0]}{more}")
        if not self.read_only:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            with self._write():
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    db.execute(statement)
                db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?), ('version', ?)",
                           (FORMAT, VERSION))
        meta = dict(db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise sqlite3.DatabaseError(
                f"format {meta.get('format')!r} version {meta.get('version')!r}, "
                f"expected {FORMAT!r} version {VERSION}"
            )

    # ------------------------------------------------------------------ transactions
    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (``BEGIN IMMEDIATE``, waiting for the busy
        timeout) so no read inside it can be invalidated by another writer."""
        if self.read_only:
            raise StoreError(f"results store {self.path} was opened read-only; open it without "
                             "read_only to write")
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as err:
            raise StoreError(f"results store {self.path}: {err}") from None
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as err:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            if isinstance(err, sqlite3.Error):  # e.g. a full disk: nothing stored is lost
                raise StoreError(f"results store {self.path}: {err}; every game stored before "
                                 "is kept: fix that and rerun to go on") from None
            raise

    def close(self) -> None:
        """Give back this process's open claims and close the file."""
        if not self.read_only:
            with contextlib.suppress(sqlite3.Error):
                self.release()
        self._db.close()

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ----------------------------------------------------------------------- matches
    def match(self, definition: Mapping[str, Any]) -> int:
        """The id of the match with this definition (JSON-serialisable), created if new."""
        key = definition_key(definition)
        text = json.dumps(definition, sort_keys=True)
        with self._write() as db:
            db.execute("INSERT OR IGNORE INTO matches (key, definition) VALUES (?, ?)",
                       (key, text))
            return db.execute("SELECT id FROM matches WHERE key = ?", (key,)).fetchone()[0]

    def matches(self) -> list[tuple[int, dict[str, Any]]]:
        """Every match as (id, definition), in the order they were created."""
        rows = self._db.execute("SELECT id, definition FROM matches ORDER BY id")
        return [(match_id, self._object(text, f"match {match_id}")) for match_id, text in rows]

    # ------------------------------------------------------------------------- games
    def records(self, match_id: int) -> dict[str, dict[str, Any]]:
        """The stored games of a match: game id -> record."""
        rows = self._db.execute("SELECT game_id, record FROM games WHERE match_id = ?",
                                (match_id,))
        return {game_id: self._object(text, f"game {game_id!r} of match {match_id}")
                for game_id, text in rows}

    def _object(self, text: Any, what: str) -> dict[str, Any]:
        """The JSON object stored as ``what``; StoreError if it is not one (a damaged row)."""
        try:
            value = json.loads(text)
        except (json.JSONDecodeError, RecursionError, TypeError):
            value = None
        if not isinstance(value, dict):
            raise StoreError(f"results store {self.path}: {what} is damaged (not a JSON "
                             "object); the store was left as it is: delete that row or use "
                             "another store")
        return value

    def count(self, match_id: int) -> int:
        return self._db.execute("SELECT COUNT(*) FROM games WHERE match_id = ?",
                                (match_id,)).fetchone()[0]

    def put(self, match_id: int, game_id: str, record: Mapping[str, Any]) -> bool:
        """Store a finished game once and drop its claim; False if the id was stored already
        (the record is then not written). Renews this owner's other claims."""
        text = json.dumps(record)
        with self._write() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?)",
                (match_id, game_id, text, self.owner, time.time()),
            )
            db.execute("DELETE FROM claims WHERE match_id = ? AND game_id = ?",
                       (match_id, game_id))
            self._renew(db)
            return cursor.rowcount == 1

    # ------------------------------------------------------------------------ claims
    def claim(self, match_id: int, game_ids: Iterable[str]) -> str | None:
        """Claim the first of ``game_ids`` that is neither stored nor claimed by a live owner
        (a dead owner's or an expired claim is taken over); None if there is none."""
        with self._write() as db:
            done = {row[0] for row in db.execute(
                "SELECT game_id FROM games WHERE match_id = ?", (match_id,))}
            held = {game_id: (owner, expires) for game_id, owner, expires in db.execute(
                "SELECT game_id, owner, expires FROM claims WHERE match_id = ?", (match_id,))}
            for game_id in game_ids:
                if game_id in done or (game_id in held and self._alive(*held[game_id])):
                    continue
                db.execute("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?)",
                           (match_id, game_id, self.owner, time.time() + self.lease_seconds))
                self._renew(db)
                return game_id
        return None

    def pending_elsewhere(self, match_id: int, game_ids: Iterable[str]) -> bool:
        """Whether another live owner holds a claim on one of ``game_ids`` not yet stored."""
        wanted = set(game_ids)
        rows = self._db.execute(
            "SELECT c.game_id, c.owner, c.expires FROM claims c WHERE c.match_id = ? "
            "AND c.owner != ? AND NOT EXISTS (SELECT 1 FROM games g WHERE "
            "g.match_id = c.match_id AND g.game_id = c.game_id)",
            (match_id, self.owner),
        )
        return any(game_id in wanted and self._alive(owner, expires)
                   for game_id, owner, expires in rows)

    def release(self) -> None:
        """Give back every claim of this owner (on a clean stop, so others need not wait)."""
        with self._write() as db:
            db.execute("DELETE FROM claims WHERE owner = ?", (self.owner,))

    @contextlib.contextmanager
    def claims_kept(self) -> Iterator[None]:
        """While the block runs, a thread renews this owner's claims every quarter of the
        lease, so that a game longer than the lease (even one played in this very thread)
        keeps its claim on a store shared with other hosts, which cannot see whether this
        process lives."""
        if str(self.path) == ":memory:":  # (no other process can open it)
            yield
            return
        stop = threading.Event()
        thread = threading.Thread(target=self._renew_until, args=(stop,), daemon=True,
                                  name="boardzoo-store-claims")
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def _renew_until(self, stop: threading.Event) -> None:
        """Renew this owner's claims every quarter lease until ``stop`` (own connection: one
        SQLite connection is not shared between threads); a busy store is retried later."""
        db = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None)
        try:
            while not stop.wait(self.lease_seconds / 4):
                with contextlib.suppress(sqlite3.Error):
                    self._renew(db)
        finally:
            db.close()

    def _renew(self, db: sqlite3.Connection) -> None:
        db.execute("UPDATE claims SET expires = ? WHERE owner = ?",
                   (time.time() + self.lease_seconds, self.owner))

    def _alive(self, owner: str, expires: float) -> bool:
        """Whether a claim's owner may still be working: this owner, another host's (trusted
        until its lease ``expires``), or a process of this host that still exists (whatever
        its lease says)."""
        if owner == self.owner:
            return True
        host, _, rest = owner.partition(":")
        if host != socket.gethostname():
            return expires > time.time()
        try:
            os.kill(int(rest.partition(":")[0]), 0)
        except ProcessLookupError:
            return False
        except (PermissionError, ValueError):
            return True
        return True

    # -------------------------------------------------------------------------- sinks
    def sink(self, name: str) -> StoreSink:
        """A :class:`StoreSink` writing to this store under the match ``{"sink": name}``."""
        return StoreSink(self, self.match({"sink": name}))


class StoreSink:
    """Where training's self-play puts finished games: each id stored once, never lost."""

    def __init__(self, store: ResultsStore, match_id: int):
        self.store = store
        self.match_id = match_id

    def put_game(self, game_id: str, record: dict) -> bool:
        """Store ``record`` (JSON-serialisable) as ``game_id``; False if it is stored already."""
        return self.store.put(self.match_id, game_id, record)

    def get_game(self, game_id: str) -> dict[str, Any]:
        """The record stored under ``game_id``; KeyError if there is none."""
        row = self.store._db.execute(
            "SELECT record FROM games WHERE match_id = ? AND game_id = ?",
            (self.match_id, game_id),
        ).fetchone()
        if row is None:
            raise KeyError(game_id)
        return self.store._object(row[0], f"game {game_id!r}")

    def game_ids(self) -> set[str]:
        """The ids of every game stored so far (by any process)."""
        rows = self.store._db.execute("SELECT game_id FROM games WHERE match_id = ?",
                                      (self.match_id,))
        return {row[0] for row in rows}
