"""The agent processes of a server: handed to games, taken back, reused, ended.

A game takes a worker (:meth:`WorkerPool.take`) and gives it back when it closes
(:meth:`WorkerPool.give_back`): every search of the game is stopped and the worker is asked
to release its agent. It is handed to another game only once it has answered that request,
so a worker whose search did not stop is never reused. A stop ends any search within a
progress round (about 0.1 s), so the answer comes at once; one that has not come within
:data:`RELEASE_LIMIT` seconds (the margin is for a machine so loaded that an idle process
waits seconds to run) means a stuck worker, which is ended (while it builds an agent, which
no stop interrupts, it gets :data:`WARM_UP_LIMIT`). Released workers wait, warm, for the
next game of the same game and agent kind (their compiled search is built: that game starts
at once); at most ``idle`` of them wait, the least recently used ended first. ``spares``
fresh processes are started ahead, so a game of a new kind does not wait for Python to start
either.

Every worker's replies come through :meth:`WorkerPool._on_message` on the server's event loop,
which keeps each worker's pending requests and passes the replies on to the game that holds
it (the ``deliver`` given to :meth:`take`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable
from typing import Any

from boardzoo.web.worker import AgentWorker

__all__ = ["RELEASE_LIMIT", "WARM_UP_LIMIT", "WorkerPool", "next_ref"]

#: seconds a worker given back has to answer its release before it is ended as stuck
RELEASE_LIMIT = 30.0
#: seconds a worker building an agent (importing torch, compiling a search) may take
WARM_UP_LIMIT = 180.0
Deliver = Callable[[dict[str, Any]], None]

_refs = itertools.count(1)
#: replies that end a request (the last one for its ref)
_FINAL = {"warm", "move", "skipped", "pondered", "go_end", "released", "error"}


def next_ref() -> int:
    """A request number unique in this server, larger than every earlier one (a worker's
    stop number stops every search up to it)."""
    return next(_refs)


class WorkerPool:
    """Worker processes: in games, returning from them, idle (warm) and spare."""

    def __init__(self, idle: int = 2, spares: int = 1) -> None:
        self.idle_limit, self.spare_count = idle, spares
        self.idle: list[AgentWorker] = []  # released, least recently used first
        self.spares: list[AgentWorker] = []  # never configured
        self.returning: dict[AgentWorker, asyncio.TimerHandle] = {}
        self.back: dict[AgentWorker, asyncio.Future] = {}  # done once released or ended
        self.owners: dict[AgentWorker, Deliver] = {}  # workers in games
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._fill_spares()

    def processes(self) -> list[AgentWorker]:
        """Every worker this pool has started and not ended."""
        return [*self.owners, *self.returning, *self.idle, *self.spares]

    # ------------------------------------------------------------------ take / give back
    def take(self, kind: tuple[str, str], deliver: Deliver) -> AgentWorker:
        """A worker for a game of ``kind`` (game, agent name): one warm for it (idle, else
        still building it for a closed game), else a spare, else the least recently used
        idle one, else a new process."""
        worker = (self._pick(self.idle, lambda w: w.kind == kind)
                  or self._pick(list(self.returning), lambda w: w.kind == kind and w.warming())
                  or self._pick(self.spares, lambda w: True)
                  or self._pick(self.idle, lambda w: True)
                  or self._start_worker())
        if worker in self.returning:
            self.returning.pop(worker).cancel()
            self._settle(worker)
        worker.kind = kind  # the game configures it for its kind at once
        self.owners[worker] = deliver
        self._fill_spares()
        return worker

    def give_back(self, worker: AgentWorker, last_ref: int) -> asyncio.Future:
        """Take back a game's worker: stop its searches (refs up to ``last_ref``), ask it to
        release the agent; it waits for the next game once it has (see the module
        docstring). The future is done once it has, or has been ended."""
        self.owners.pop(worker, None)
        back = self.back[worker] = self._loop().create_future()
        if not worker.alive():
            self._end(worker)
            return back
        worker.stop_through(last_ref)
        worker.send({"cmd": "release", "ref": next_ref()})
        limit = WARM_UP_LIMIT if worker.warming() else RELEASE_LIMIT
        self.returning[worker] = self._loop().call_later(limit, self._end, worker)
        return back

    def send(self, worker: AgentWorker, message: dict[str, Any]) -> None:
        worker.last_used = time.monotonic()
        worker.send(message)

    async def close_all(self) -> None:
        """End every worker (the server is stopping)."""
        for timer in self.returning.values():
            timer.cancel()
        workers = self.processes()
        self.owners.clear()
        self.returning.clear()
        self.idle.clear()
        self.spares.clear()
        await asyncio.gather(*(asyncio.to_thread(w.close) for w in workers))

    # ----------------------------------------------------------------------- replies
    def _on_message(self, worker: AgentWorker, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "exit":
            self._forget(worker)
        elif kind in _FINAL and "ref" in message:
            worker.pending.pop(message["ref"], None)
        if kind == "released" and worker in self.returning:
            self.returning.pop(worker).cancel()
            self._rest(worker)
            self._settle(worker)
        deliver = self.owners.get(worker)
        if deliver is not None:
            deliver(message)

    def _rest(self, worker: AgentWorker) -> None:
        """An idle worker waits for the next game (the least recently used beyond the
        ``idle`` limit is ended)."""
        self.idle.append(worker)
        while len(self.idle) > self.idle_limit:
            self._end(self.idle.pop(0))

    # ---------------------------------------------------------------------- internals
    def _pick(self, workers: list[AgentWorker],
              fits: Callable[[AgentWorker], bool]) -> AgentWorker | None:
        for worker in workers:
            if fits(worker) and worker.alive():
                for place in (self.idle, self.spares):
                    if worker in place:
                        place.remove(worker)
                return worker
        return None

    def _start_worker(self) -> AgentWorker:
        worker = AgentWorker()
        loop = self._loop()

        def deliver(message: dict[str, Any]) -> None:  # called from the reader thread
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(self._on_message, worker, message)

        worker.attach(deliver)
        return worker

    def _fill_spares(self) -> None:
        self.spares = [w for w in self.spares if w.alive()]
        while len(self.spares) < self.spare_count:
            self.spares.append(self._start_worker())

    def _end(self, worker: AgentWorker) -> None:
        """End a worker that is not in a game (it did not stop in time, or is not needed)."""
        self._forget(worker)
        self._loop().run_in_executor(None, worker.kill)

    def _forget(self, worker: AgentWorker) -> None:
        timer = self.returning.pop(worker, None)
        if timer is not None:
            timer.cancel()
        for place in (self.idle, self.spares):
            if worker in place:
                place.remove(worker)
        self._settle(worker)

    def _settle(self, worker: AgentWorker) -> None:
        """The worker is back (idle) or gone: whoever waits for it goes on."""
        back = self.back.pop(worker, None)
        if back is not None and not back.done():
            back.set_result(None)

    def _loop(self) -> asyncio.AbstractEventLoop:
        if self.loop is None:
            raise RuntimeError("WorkerPool.start(loop) was not called (the app's lifespan does)")
        return self.loop
