"""The open games of a server, each with its agent's worker process, and what happens when
the person moves, the agent answers, a tab goes away or a game sits idle.

Everything here runs on the server's event loop; workers' messages are posted into it. A
game's agent thinks only when it is its turn (one search at a time, numbered, so the answer
to a position that was undone or replaced is recognised as stale and dropped), and with
``ponder`` it searches the person's position on the person's time. With a time control
both seats' clocks run (:class:`boardzoo.timecontrol.GameClock`): the person's starts with
their turn, the agent's when its worker starts searching (never during a warm-up), and each
stops when the move reaches the server; a timer flags a side whose
time runs out while it thinks, which loses the game on time.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from typing import Any

from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, IllegalActionError
from boardzoo.timecontrol import TimeControl
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
        self.ponder = False
        self.flag_timer: asyncio.TimerHandle | None = None
        self.revision = 0  # bumped on every change: the page keeps the newest view it got


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
        for worker in workers:  # the server is stopping: blocking here is fine
            worker.close()

    # -------------------------------------------------------------------- lifecycle
    async def open(self, game: Game, spec: str, seat: int, start: str | None,
                   moves: list[int], time_control: TimeControl | None = None,
                   ponder: bool = False) -> GameSession:
        """A new game, its agent built in a worker (a 400 if the spec does not build)."""
        if len(self.games) >= self.max_games:
            raise TooManyGamesError(
                f"{self.max_games} games are open (one agent process each); close a tab or "
                f"wait until an idle game is cleaned up ({self.idle_seconds:.0f} s)")
        session = GameSession(game, spec, seat, start, moves, time_control)
        entry = _Game(session, self._take_worker(game.name))
        entry.ponder = ponder
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
        self._next_turn(entry)
        return session

    async def close(self, session: GameSession) -> None:
        """Close a game; its worker is kept for the next game (its compiled search for this
        game is built already) while fewer than ``spare + 1`` wait, else it is stopped."""
        entry = self.games.pop(session.id, None)
        if entry is None:
            return
        self._publish(entry, {"type": "closed"})
        if entry.flag_timer is not None:
            entry.flag_timer.cancel()
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
        index = session.check_human_move(action, ply)
        spent = self._stop_clock(entry)
        if session.flagged() is not None:
            self._next_turn(entry)
            raise IllegalActionError("your time ran out before that move: the agent wins on time")
        session.play(index, spent)
        entry.error = None
        self._next_turn(entry)

    async def undo(self, session: GameSession) -> None:
        entry = self.games[session.id]
        self._abandon_search(entry)
        session.undo()
        self._stop_clock(entry)  # the undone moves' time stays spent
        self._next_turn(entry)

    async def swap(self, session: GameSession) -> None:
        entry = self.games[session.id]
        if session.over():
            raise IllegalActionError("the game is over: start a new game")
        self._abandon_search(entry)
        self._stop_clock(entry)
        session.swap()
        self._next_turn(entry)

    async def stop(self, session: GameSession) -> None:
        """"Move now": the search stops and the agent plays its best move so far."""
        entry = self.games[session.id]
        if entry.thinking is None:
            raise IllegalActionError("the agent is not thinking")
        entry.worker.stop.set()

    # ------------------------------------------------------------------------ views
    def view(self, session: GameSession) -> dict[str, Any]:
        entry = self.games[session.id]
        return {**session.view(), "revision": entry.revision,
                "thinking": entry.thinking is not None,
                "warm": entry.warm, "analysis": entry.analysis, "error": entry.error,
                "ponder": entry.ponder}

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
    def _next_turn(self, entry: _Game) -> None:
        """After every change: the side to move's clock (and its flag timer), the agent's
        search or ponder, and the new view to every open page."""
        session = entry.session
        if session.clock is not None and session.clock.running is None and not (
                session.agent_to_move()):  # the agent's clock starts with its search
            self._start_clock(entry)
        if not self._think_if_due(entry):
            self._ponder_if_due(entry)
        self._changed(entry)

    def _changed(self, entry: _Game) -> None:
        """A new revision of the game's view, pushed to every open page (a view answered
        over HTTP and one pushed over the WebSocket can cross: the page keeps the newer)."""
        entry.revision += 1
        self._publish(entry, {"type": "view", "view": self.view(entry.session)})

    def _start_clock(self, entry: _Game) -> None:
        entry.session.start_clock()
        self._arm_flag_timer(entry)

    def _stop_clock(self, entry: _Game) -> float:
        if entry.flag_timer is not None:
            entry.flag_timer.cancel()
            entry.flag_timer = None
        return entry.session.stop_clock()

    def _arm_flag_timer(self, entry: _Game) -> None:
        """Flag the side to move if its clock runs out before its move arrives."""
        session, clock = entry.session, entry.session.clock
        if clock is None or clock.running is None:
            return
        seat, ply = clock.running, session.ply
        limit = clock.view(seat).hard_limit + 0.05

        def out_of_time() -> None:
            if session.ply == ply and clock.running == seat:
                self._abandon_search(entry)
                self._stop_clock(entry)
                self._next_turn(entry)

        entry.flag_timer = self._loop().call_later(limit, out_of_time)

    def _think_if_due(self, entry: _Game) -> bool:
        session = entry.session
        if entry.thinking is not None or not session.agent_to_move() or entry.error:
            return False
        entry.thinking = next(_numbers)
        entry.analysis = None
        clock = None if session.clock is None else session.clock.view(1 - session.human_seat)
        entry.worker.send({"cmd": "think", "id": entry.thinking,
                           "snapshot": session.history[-1], "clock": clock})
        return True

    def _ponder_if_due(self, entry: _Game) -> None:
        """With ``ponder``, the agent searches the person's position until they move."""
        session = entry.session
        if entry.ponder and not session.over() and not entry.error:
            entry.worker.send({"cmd": "ponder", "id": next(_numbers),
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
            self._stop_clock(entry)
            self._changed(entry)
            return
        if message.get("id") != entry.thinking:
            return  # the answer to a search that was abandoned
        if kind == "started":  # the search begins (after any warm-up): its clock starts
            if entry.session.clock is not None and entry.session.clock.running is None:
                self._start_clock(entry)
                self._changed(entry)
        elif kind == "progress":
            entry.analysis = message["analysis"]
            self._publish(entry, {"type": "analysis", "analysis": entry.analysis,
                                  "ply": entry.session.ply})
        elif kind == "move":
            entry.thinking = None
            entry.analysis = message["analysis"]
            spent = self._stop_clock(entry) if entry.session.clock else message["seconds"]
            try:
                if entry.session.flagged() is None:  # a move after the flag fell is lost
                    entry.session.play(message["action"], spent)
            except IllegalActionError as err:
                entry.error = f"the agent sent an illegal move: {err}"
            self._next_turn(entry)
        elif kind == "error":
            entry.thinking = None
            entry.error = f"the agent failed: {message['message']}"
            self._next_turn(entry)

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
        self._changed(entry)

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
