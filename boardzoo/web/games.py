"""The open games of a server: each with its agent's worker process, the pages that show it,
and what happens when the person moves, the agent answers, the person interrupts, a page goes
away or a game sits idle.

Everything here runs on the server's event loop; workers' replies are posted into it by the
pool (:mod:`.pool`). A game lives as long as a page wants it: a page that goes away (it
closes the game as it unloads, or its WebSocket closes and no page reconnects within
``page_grace`` seconds) ends it, and its worker goes back to the pool. A game driven through
the API without a page is closed after ``idle_seconds`` without a request.

The agent thinks only when it is its turn (one search at a time, numbered; the answer to a
search that was stopped or abandoned is recognised by its number and dropped) and, with
``ponder``, on the person's time. "Move now", undo, swap, resign and closing act at once:
they stop the worker's search through its stop number (it answers within a progress round);
"Move now" before the search has begun (the worker still compiles it) plays a quick move
without search (:mod:`.fallback`). Each such action leaves a ``notice`` saying what happened.
With a time control both seats' clocks run (:class:`boardzoo.timecontrol.GameClock`): the
person's starts with their turn, the agent's when its search starts (never during a warm-up),
and each stops when the move reaches the server; a timer flags a side whose time runs out
while it thinks, which loses the game on time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import numpy as np

from boardzoo.envs.core import Game
from boardzoo.errors import BoardzooError, IllegalActionError
from boardzoo.timecontrol import TimeControl
from boardzoo.web.catalog import describe_agent
from boardzoo.web.fallback import quick_move
from boardzoo.web.pool import WARM_UP_LIMIT, WorkerPool, next_ref
from boardzoo.web.session import GameSession
from boardzoo.web.worker import AgentWorker

__all__ = ["Games", "TooManyGamesError", "UnknownGameIdError"]

SWEEP_SECONDS = 30.0
#: seconds closing a game waits for its worker to be released (it usually takes
#: milliseconds; a new game asked for next then gets it warm)
CLOSE_WAIT = 2.0


class UnknownGameIdError(BoardzooError):
    """No open game has this id (never opened, closed, or cleaned up after idling)."""


class TooManyGamesError(BoardzooError):
    """The server has as many open games (agent processes) as it allows."""


class _Game:
    """A session with its worker, its search in progress and the pages that show it."""

    def __init__(self, session: GameSession, worker: AgentWorker, ponder: bool) -> None:
        self.session = session
        self.worker = worker
        self.ponder = ponder
        self.configure_ref = 0
        self.agent_repr: str | None = None  # the agent as the worker built it
        self.warm = False
        self.compiling: str | None = None  # what the worker compiles now, for the status line
        self.search: int | None = None  # the ref of the search the game waits for
        self.started = False  # the worker has begun that search
        self.analysis: dict[str, Any] | None = None
        self.analysis_ply = 0  # the position (ply) the analysis is of
        self.error: str | None = None
        self.failed = False  # the agent cannot play: no more searches are asked for
        self.notice: str | None = None  # what the last interrupt did, for the page
        self.go_end: dict[str, Any] | None = None
        self.go_end_ref = 0
        self.subscribers: set[asyncio.Queue] = set()
        self.had_page = False
        self.gone_timer: asyncio.TimerHandle | None = None
        self.flag_timer: asyncio.TimerHandle | None = None
        self.revision = 0  # bumped on every change: the page keeps the newest view it got


class Games:
    """The open games by id (see the module docstring)."""

    def __init__(self, idle_seconds: float, max_games: int, page_grace: float,
                 pool: WorkerPool) -> None:
        self.idle_seconds = idle_seconds
        self.max_games = max_games
        self.page_grace = page_grace
        self.pool = pool
        self.games: dict[str, _Game] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.rng = np.random.default_rng()
        self._sweeper: asyncio.Task | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pool.start(loop)
        self._sweeper = loop.create_task(self._sweep_forever())

    async def close_all(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.games.clear()
        await self.pool.close_all()

    # -------------------------------------------------------------------- lifecycle
    async def open(self, game: Game, spec: str, seat: int, start: str | None,
                   moves: list[int], time_control: TimeControl | None = None,
                   ponder: bool = False) -> GameSession:
        """A new game; its agent is built in a worker meanwhile (the view says when it is
        ready: ``warm``)."""
        if len(self.games) >= self.max_games:
            raise TooManyGamesError(self._full_message())
        session = GameSession(game, spec, seat, start, moves, time_control)
        kind = (game.name, spec.split(":")[0])
        worker = self.pool.take(kind, lambda message: self._on_message(session.id, message))
        entry = _Game(session, worker, ponder)
        self.games[session.id] = entry
        entry.configure_ref = next_ref()
        self.pool.send(worker, {"cmd": "configure", "ref": entry.configure_ref,
                                "game": game.name, "options": dict(game.options),
                                "agent": spec, "seed": None})
        self._loop().call_later(WARM_UP_LIMIT, self._warm_up_overdue, session.id)
        self._next_turn(entry)
        return session

    async def close(self, session: GameSession) -> None:
        """Close a game: its pages are told, its worker goes back to the pool. Returns once
        the worker has stopped and is ready for the next game (at most CLOSE_WAIT), so a new
        game of the same kind asked for next gets it warm; a worker still building its
        agent goes on doing so in the pool meanwhile."""
        entry = self.games.pop(session.id, None)
        if entry is None:
            return
        self._publish(entry, {"type": "closed"})
        for timer in (entry.flag_timer, entry.gone_timer):
            if timer is not None:
                timer.cancel()
        warming = entry.worker.warming()
        back = self.pool.give_back(entry.worker, next_ref())
        if not warming:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(back), CLOSE_WAIT)

    def get(self, game_id: str) -> GameSession:
        entry = self.games.get(game_id)
        if entry is None:
            raise UnknownGameIdError(
                f"no open game {game_id[:40]!r}: it was closed (its page went away, or after "
                f"{self.idle_seconds:.0f} s idle); start a new game")
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
        entry.error = entry.notice = None
        self._next_turn(entry)

    async def undo(self, session: GameSession) -> None:
        entry = self.games[session.id]
        thinking = entry.search is not None
        session.undo()  # (raises before anything changes if there is nothing to undo)
        self._abandon_search(entry)
        self._stop_clock(entry)  # the undone moves' time stays spent
        entry.analysis, entry.go_end, entry.go_end_ref = None, None, 0
        entry.notice = "Undone: your last move and the agent's reply are taken back." + (
            " The agent's search was stopped." if thinking else "")
        self._next_turn(entry)

    async def swap(self, session: GameSession) -> None:
        entry = self.games[session.id]
        if session.over():
            raise IllegalActionError("the game is over: start a new game")
        self._abandon_search(entry)
        self._stop_clock(entry)
        session.swap()
        entry.notice = "Sides swapped: you now play the other side."
        self._next_turn(entry)

    async def resign(self, session: GameSession) -> None:
        entry = self.games[session.id]
        session.resign()
        self._abandon_search(entry)
        self._stop_clock(entry)
        entry.notice = "You resigned: the agent wins."
        self._next_turn(entry)

    async def stop(self, session: GameSession) -> None:
        """"Move now": the agent plays its best move so far, or, before its search has
        begun, a quick move without search."""
        entry = self.games[session.id]
        if entry.search is None:
            raise IllegalActionError("the agent is not thinking")
        if entry.started:
            entry.worker.stop_through(entry.search)
            entry.notice = "Move now: the agent stopped its search and plays its best move so far."
            self._changed(entry)
            return
        session = entry.session
        busy = ("was still building its search (compiling it: once per game and agent kind)"
                if not entry.warm else "had not begun its search yet")
        self._abandon_search(entry)
        action = quick_move(session.game, session.state, self.rng)
        entry.analysis = None
        entry.notice = (f"Move now: the agent {busy}, so it played "
                        f"{session.game.move_label(session.state, action)} without searching "
                        "(a move that wins at once, else one that stops an immediate win, else "
                        "a random one).")
        session.play(action, self._stop_clock(entry))
        self._next_turn(entry)

    # ------------------------------------------------------------------------ pages
    def subscribe(self, session: GameSession) -> asyncio.Queue:
        """A page opened the game's live feed: it lives while a page does."""
        entry = self.games[session.id]
        queue: asyncio.Queue = asyncio.Queue(maxsize=256)
        entry.subscribers.add(queue)
        entry.had_page = True
        if entry.gone_timer is not None:
            entry.gone_timer.cancel()
            entry.gone_timer = None
        return queue

    def unsubscribe(self, session: GameSession, queue: asyncio.Queue) -> None:
        """A page's live feed closed: the game ends unless a page is back within the grace."""
        entry = self.games.get(session.id)
        if entry is None:
            return
        entry.subscribers.discard(queue)
        session.touch()
        if not entry.subscribers:
            entry.gone_timer = self._loop().call_later(self.page_grace, self._close_if_gone,
                                                      session.id)

    def _close_if_gone(self, game_id: str) -> None:
        entry = self.games.get(game_id)
        if entry is not None and not entry.subscribers:
            self._loop().create_task(self.close(entry.session))

    def pages(self) -> int:
        """Open games with a live page."""
        return sum(1 for entry in self.games.values() if entry.subscribers)

    def _full_message(self) -> str:
        shown = self.pages()
        without = len(self.games) - shown
        return (f"{len(self.games)} games are open, the most this server runs at once (each has "
                f"an agent process): {shown} in open pages"
                + (f", {without} without a page" if without else "")
                + ". Close one of those tabs, or press New game in one of them to replace its "
                f"game; a closed tab's game ends within {self.page_grace:.0f} s"
                + (f", a game without a page after {self.idle_seconds:.0f} s idle"
                   if without else "") + ".")

    # ------------------------------------------------------------------------ views
    def view(self, session: GameSession) -> dict[str, Any]:
        entry = self.games.get(session.id)
        if entry is None:
            raise UnknownGameIdError(f"the game {session.id[:40]!r} was closed")
        return {**session.view(), "revision": entry.revision,
                "thinking": entry.search is not None, "searching": entry.started,
                "warm": entry.warm, "compiling": entry.compiling,
                "agent_info": describe_agent(session.agent_spec, entry.agent_repr),
                "analysis": entry.analysis, "analysis_ply": entry.analysis_ply,
                "error": entry.error, "notice": entry.notice, "ponder": entry.ponder,
                "go_end": entry.go_end}

    def position(self, session: GameSession, ply: Any) -> dict[str, Any]:
        """The position after ``ply`` moves (0 .. the moves played), for stepping through."""
        if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= session.ply:
            raise IllegalActionError(f"ply={str(ply)[:20]}: give 0..{session.ply} (the moves "
                                     "played so far)")
        return session.position_view(ply)

    # ---------------------------------------------------------------------- internals
    def _next_turn(self, entry: _Game) -> None:
        """After every change: the side to move's clock (and its flag timer), the agent's
        search or ponder, a finished Go game's dead stones, and the new view to every page."""
        session = entry.session
        if session.clock is not None and session.clock.running is None and not (
                session.agent_to_move()):  # the agent's clock starts with its search
            self._start_clock(entry)
        if not self._think_if_due(entry):
            self._ponder_if_due(entry)
        self._mark_go_end_if_due(entry)
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
        if entry.search is not None or not session.agent_to_move() or entry.failed:
            return False
        entry.search, entry.started = next_ref(), False
        entry.analysis = None
        clock = None if session.clock is None else session.clock.view(1 - session.human_seat)
        self.pool.send(entry.worker, {"cmd": "think", "ref": entry.search,
                                      "snapshot": session.history[-1], "clock": clock})
        return True

    def _ponder_if_due(self, entry: _Game) -> None:
        """With ``ponder``, the agent searches the person's position until they move."""
        session = entry.session
        if entry.ponder and not session.over() and not entry.failed:
            self.pool.send(entry.worker, {"cmd": "ponder", "ref": next_ref(),
                                          "snapshot": session.history[-1]})

    def _mark_go_end_if_due(self, entry: _Game) -> None:
        """Ask the worker for the dead stones of a Go game that the rules ended."""
        session = entry.session
        if (session.game.name != "go" or not session.game.is_terminal(session.state)
                or entry.go_end_ref or entry.failed):
            return
        entry.go_end_ref = next_ref()
        self.pool.send(entry.worker, {"cmd": "go_end", "ref": entry.go_end_ref,
                                      "snapshot": session.history[-1]})

    def _abandon_search(self, entry: _Game) -> None:
        """Stop the search in progress or queued; its answer will be stale and dropped."""
        if entry.search is not None:
            entry.worker.stop_through(entry.search)
            entry.search, entry.started = None, False
        entry.error = None

    def _on_message(self, game_id: str, message: dict[str, Any]) -> None:
        entry = self.games.get(game_id)
        if entry is None:
            return
        kind, ref = message["type"], message.get("ref")
        if kind == "exit":
            entry.error = "the agent's process ended; start a new game"
            entry.failed, entry.search = True, None
            self._stop_clock(entry)
            self._changed(entry)
        elif ref == entry.configure_ref:
            self._on_configure_message(entry, message)
        elif ref == entry.go_end_ref and kind == "go_end":
            entry.go_end = {"dead": message["dead"], "score": message["score"]}
            self._changed(entry)
        elif ref == entry.search and ref is not None:
            self._on_search_message(entry, message)

    def _on_configure_message(self, entry: _Game, message: dict[str, Any]) -> None:
        """"ready" (the agent is built), "compiling" (what its search compiles now), "warm"
        (its search is compiled) or "error"."""
        if message["type"] == "ready":
            entry.agent_repr = message["agent"]
        elif message["type"] == "compiling":
            entry.compiling = message["text"]
        elif message["type"] == "warm":
            entry.warm, entry.compiling = True, None
        elif message["type"] == "error":
            entry.error = f"the agent could not start: {message['message']}"
            entry.failed, entry.search = True, None
            self._stop_clock(entry)
        self._changed(entry)

    def _on_search_message(self, entry: _Game, message: dict[str, Any]) -> None:
        session, kind = entry.session, message["type"]
        if kind == "started":  # the search begins (after any warm-up): its clock starts
            entry.started = True
            if session.clock is not None and session.clock.running is None:
                self._start_clock(entry)
            self._changed(entry)
        elif kind == "progress":
            entry.analysis, entry.analysis_ply = message["analysis"], session.ply
            self._publish(entry, {"type": "analysis", "analysis": entry.analysis,
                                  "ply": session.ply})
        elif kind == "move":
            entry.search, entry.started = None, False
            entry.analysis, entry.analysis_ply = message["analysis"], session.ply
            spent = self._stop_clock(entry) if session.clock else message["seconds"]
            try:
                if session.flagged() is None:  # a move after the flag fell is lost
                    session.play(message["action"], spent)
            except IllegalActionError as err:
                entry.error = f"the agent sent an illegal move: {err}"
            self._next_turn(entry)
        elif kind == "error":
            entry.search, entry.started = None, False
            entry.error = f"the agent failed: {message['message']}"
            entry.failed = True
            self._next_turn(entry)

    def _warm_up_overdue(self, game_id: str) -> None:
        entry = self.games.get(game_id)
        if entry is not None and not entry.warm and not entry.failed:
            entry.error = (f"the agent's process did not get ready within {WARM_UP_LIMIT:.0f} s;"
                           " start a new game")
            entry.failed, entry.search = True, None
            self._changed(entry)

    def _publish(self, entry: _Game, message: dict[str, Any]) -> None:
        for queue in list(entry.subscribers):
            if queue.full():  # a page that stopped reading: drop its oldest update
                queue.get_nowait()
            queue.put_nowait(message)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_SECONDS)
            await self.sweep()

    async def sweep(self, now: float | None = None) -> list[str]:
        """Close the games driven without a page that sat ``idle_seconds`` without a
        request; returns their ids."""
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
