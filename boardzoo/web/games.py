"""The open games of a server, each with its agent's worker process, and what happens when
the person moves, the agent answers, a tab goes away or a game sits idle.

Everything here runs on the server's event loop; workers' messages are posted into it. A
game's agent thinks only when it is its turn (one search at a time, numbered, so the answer
to a position that was undone or replaced is recognised as stale and dropped).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, IllegalActionError
from boardzoo.web.session import GameSession
from boardzoo.web.worker import AgentWorker

__all__ = ["Games", "TooManyGamesError", "UnknownGameIdError"]

CONFIGURE_TIMEOUT = 120.0  # seconds for a new worker to import boardzoo and build the agent
SWEEP_SECONDS = 30.0
# request and search numbers, unique in the server: a worker passed on to another game may
# still answer a request of its last one, and that answer must not match the new game's
_numbers = itertools.count(1)


class UnknownGameIdError(BoardzooError):
    """No open game has this id (never opened, closed, or cleaned up after idling)."""


class TooManyGamesError(BoardzooError):
    """The server has as many open games (agent processes) as it allows."""


class _Game:
    """A session with its worker, its search in progress and its page subscribers."""

    def __init__(self, session: GameSession, worker: AgentWorker) -> None:
        self.session = session
        self.worker = worker
        self.thinking: int | None = None
        self.analysis: dict[str, Any] | None = None
        self.error: str | None = None
        self.subscribers: set[asyncio.Queue] = set()
        self.configured: asyncio.Future = asyncio.get_running_loop().create_future()
        self.rid = 0
        self.warm = False


class Games:
    """The open games by id (see the module docstring)."""

    def __init__(self, idle_seconds: float, max_games: int, spare: int) -> None:
        self.idle_seconds = idle_seconds
        self.max_games = max_games
        self.spare_count = spare
        self.games: dict[str, _Game] = {}
        self.spares: list[AgentWorker] = []
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._fill_spares()
        self._sweeper = loop.create_task(self._sweep_forever())

    async def close_all(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        workers = [g.worker for g in self.games.values()] + self.spares
        self.games.clear()
        self.spares.clear()
        await asyncio.gather(*(asyncio.to_thread(w.close) for w in workers))

    # -------------------------------------------------------------------- lifecycle
    async def open(self, game: Game, spec: str, seat: int, start: str | None,
                   moves: list[int]) -> GameSession:
        """A new game, its agent built in a worker (a 400 if the spec does not build)."""
        if len(self.games) >= self.max_games:
            raise TooManyGamesError(
                f"{self.max_games} games are open (one agent process each); close a tab or "
                f"wait until an idle game is cleaned up ({self.idle_seconds:.0f} s)")
        session = GameSession(game, spec, seat, start, moves)
        entry = _Game(session, self._take_worker(game.name))
        entry.worker.attach(self._deliverer(session.id))
        self.games[session.id] = entry
        rid = next(_numbers)
        entry.rid = rid
        entry.worker.send({"cmd": "configure", "rid": rid, "game": game.name,
                           "options": dict(game.options), "agent": spec, "seed": None})
        try:
            message = await asyncio.wait_for(entry.configured, CONFIGURE_TIMEOUT)
        except TimeoutError:
            message = {"type": "error", "message": "the agent's process did not start in time"}
        if message["type"] != "ready":
            await self.close(session)
            raise BoardzooError(f"opponent {spec!r}: {message['message']}")
        self._think_if_due(entry)
        return session

    async def close(self, session: GameSession) -> None:
        """Close a game; its worker is kept for the next game (its compiled search for this
        game is built already) while fewer than ``spare + 1`` wait, else it is stopped."""
        entry = self.games.pop(session.id, None)
        if entry is None:
            return
        self._publish(entry, {"type": "closed"})
        entry.worker.attach(lambda message: None)
        entry.worker.stop.set()
        if entry.worker.alive() and len(self.spares) <= self.spare_count:
            entry.worker.last_game = session.game.name
            self.spares.append(entry.worker)
        else:
            await asyncio.to_thread(entry.worker.close)

    def get(self, game_id: str) -> GameSession:
        entry = self.games.get(game_id)
        if entry is None:
            raise UnknownGameIdError(
                f"no open game {game_id!r}: it was closed or cleaned up after "
                f"{self.idle_seconds:.0f} s idle; start a new game")
        entry.session.touch()
        return entry.session

    # --------------------------------------------------------------------- commands
    def human_move(self, session: GameSession, action: Any, ply: Any) -> None:
        entry = self.games[session.id]
        if isinstance(action, str):
            action = session.game.str_to_action(action)
        session.play_human(action, ply)
        entry.error = None
        self._changed(entry)

    async def undo(self, session: GameSession) -> None:
        entry = self.games[session.id]
        self._abandon_search(entry)
        session.undo()
        self._changed(entry)

    async def swap(self, session: GameSession) -> None:
        entry = self.games[session.id]
        self._abandon_search(entry)
        session.swap()
        self._changed(entry)

    async def stop(self, session: GameSession) -> None:
        """"Move now": the search stops and the agent plays its best move so far."""
        entry = self.games[session.id]
        if entry.thinking is None:
            raise IllegalActionError("the agent is not thinking")
        entry.worker.stop.set()

    # ------------------------------------------------------------------------ views
    def view(self, session: GameSession) -> dict[str, Any]:
        entry = self.games[session.id]
        return {**session.view(), "thinking": entry.thinking is not None,
                "warm": entry.warm, "analysis": entry.analysis, "error": entry.error}

    def subscribe(self, session: GameSession) -> asyncio.Queue:
        queue: asyncio.Queue = asyncio.Queue(maxsize=256)
        self.games[session.id].subscribers.add(queue)
        return queue

    def unsubscribe(self, session: GameSession, queue: asyncio.Queue) -> None:
        entry = self.games.get(session.id)
        if entry is not None:
            entry.subscribers.discard(queue)
            session.touch()

    # ---------------------------------------------------------------------- internals
    def _changed(self, entry: _Game) -> None:
        self._think_if_due(entry)
        self._publish(entry, {"type": "view", "view": self.view(entry.session)})

    def _think_if_due(self, entry: _Game) -> None:
        session = entry.session
        if entry.thinking is not None or not session.agent_to_move() or entry.error:
            return
        entry.thinking = next(_numbers)
        entry.analysis = None
        entry.worker.send({"cmd": "think", "id": entry.thinking,
                           "snapshot": session.history[-1]})

    def _abandon_search(self, entry: _Game) -> None:
        """Stop the search in progress; its answer will be stale and dropped."""
        if entry.thinking is not None:
            entry.worker.stop.set()
            entry.thinking = None
        entry.error = None

    def _deliverer(self, game_id: str):
        loop = self._loop()

        def deliver(message: dict[str, Any]) -> None:  # called from the reader thread
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(self._on_message, game_id, message)

        return deliver

    def _on_message(self, game_id: str, message: dict[str, Any]) -> None:
        entry = self.games.get(game_id)
        if entry is None:
            return
        kind = message["type"]
        if "rid" in message:
            self._on_configure_message(entry, message)
            return
        if kind == "exit":
            entry.error = "the agent's process ended; start a new game"
            entry.thinking = None
            self._publish(entry, {"type": "view", "view": self.view(entry.session)})
            return
        if message.get("id") != entry.thinking:
            return  # the answer to a search that was abandoned
        if kind == "progress":
            entry.analysis = message["analysis"]
            self._publish(entry, {"type": "analysis", "analysis": entry.analysis,
                                  "ply": entry.session.ply})
        elif kind == "move":
            entry.thinking = None
            entry.analysis = message["analysis"]
            try:
                entry.session.play(message["action"], message["seconds"])
            except IllegalActionError as err:
                entry.error = f"the agent sent an illegal move: {err}"
            self._changed(entry)
        elif kind == "error":
            entry.thinking = None
            entry.error = f"the agent failed: {message['message']}"
            self._changed(entry)

    def _on_configure_message(self, entry: _Game, message: dict[str, Any]) -> None:
        """"ready" or "error" answers the configure request; "warm" (or an error while
        warming up) follows it."""
        if message["rid"] != entry.rid:
            return
        if not entry.configured.done():
            entry.configured.set_result(message)
            return
        if message["type"] == "warm":
            entry.warm = True
        elif message["type"] == "error":
            entry.error = f"the agent failed: {message['message']}"
        self._publish(entry, {"type": "view", "view": self.view(entry.session)})

    def _publish(self, entry: _Game, message: dict[str, Any]) -> None:
        for queue in list(entry.subscribers):
            if queue.full():  # a page that stopped reading: drop its oldest update
                with contextlib.suppress(asyncio.QueueEmpty):
                    queue.get_nowait()
            queue.put_nowait(message)

    def _take_worker(self, game_name: str) -> AgentWorker:
        """A waiting worker, preferably one that played ``game_name`` (compiled already)."""
        self.spares = [w for w in self.spares if w.alive()]
        self.spares.sort(key=lambda w: w.last_game == game_name)
        worker = self.spares.pop() if self.spares else AgentWorker()
        self._fill_spares()
        return worker

    def _fill_spares(self) -> None:
        while len(self.spares) < self.spare_count:
            self.spares.append(AgentWorker())

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            await self.sweep()

    async def sweep(self, now: float | None = None) -> list[str]:
        """Close games idle for ``idle_seconds`` with no page open; returns their ids."""
        now = time.monotonic() if now is None else now
        idle = [g.session for g in self.games.values()
                if not g.subscribers and now - g.session.last_active > self.idle_seconds]
        for session in idle:
            await self.close(session)
        return [s.id for s in idle]

    def _loop(self) -> asyncio.AbstractEventLoop:
        if self.loop is None:
            raise RuntimeError("Games.start(loop) was not called (the app's lifespan does it)")
        return self.loop
