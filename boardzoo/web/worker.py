"""The agent's own process: the server's event loop never searches.

An :class:`AgentWorker` is a spawned process that holds one opponent at a time (so MCTS keeps
its tree between moves) and talks to the server over a pipe. Every request carries a ``ref``
(a number unique in the server, increasing) and ends with one final reply carrying it:

* ``{"cmd": "configure", "ref", "game", "options", "agent", "seed"}``: build the agent ->
  ``{"type": "ready", "agent"}`` (its repr), ``{"type": "compiling", "text"}`` as each part
  of its search starts and ends compiling (:mod:`boardzoo.compile_progress`), then
  ``{"type": "warm"}`` once its compiled search is built (the final reply), or
  ``{"type": "error", "message"}``;
* ``{"cmd": "think", "ref", "snapshot", "clock"}`` (a ``ClockView`` or None): ``started``,
  ``progress`` (``analysis``) while it searches, then ``move`` (``action``, ``analysis``,
  ``seconds``); ``{"cmd": "ponder", "ref", "snapshot"}``: search the person's position until
  the next request arrives -> ``pondered``;
* ``{"cmd": "go_end", "ref", "snapshot"}``: the finished Go game's dead stones -> ``go_end``
  (``dead``: cells, ``score``: the score without them, as every front-end's);
* ``{"cmd": "release", "ref"}``: drop the agent and its tree -> ``released`` (the process
  keeps its compiled code for the next game); ``{"cmd": "quit"}``: end.

Stopping: the server raises the shared number ``stop_value``; every search whose ``ref`` is
not above it stops (MCTS and alpha-beta within a progress round, their exact solvers within
milliseconds) and answers with its best move so far; a search stopped before it began
answers ``skipped`` at once. So "Move now", undo and closing a game never wait for a search.
A reader thread hands each reply to ``deliver`` (the pool posts it into the server's loop).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from boardzoo import compile_progress
from boardzoo.executor import _init_process

__all__ = ["AgentWorker", "SearchStop", "worker_main"]

Message = dict[str, Any]
#: how often (seconds) a stopped search's ``wait`` looks at the shared stop number
STOP_POLL = 0.01


class AgentWorker:
    """A started worker process, the thread that reads its replies, and the shared stop
    number. Its bookkeeping (``kind``, ``pending``, ...) belongs to the pool."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # no forked copies of the server's threads
        self.stop_value = ctx.RawValue("q", 0)
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=worker_main, args=(child, self.stop_value, os.getpid()),
                                   daemon=True, name="boardzoo-agent")
        self.process.start()
        child.close()
        self._deliver: Callable[[Message], None] = lambda message: None
        self._send_lock = threading.Lock()
        self.kind: tuple[str, str] | None = None  # (game, agent) whose search it has built
        self.pending: dict[int, str] = {}  # ref -> command, until its final reply
        self.last_used = time.monotonic()
        threading.Thread(target=self._read, daemon=True, name="boardzoo-agent-reader").start()

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def attach(self, deliver: Callable[[Message], None]) -> None:
        """Send every later reply to ``deliver`` (called from the reader thread)."""
        self._deliver = deliver

    def send(self, message: Message) -> None:
        """Send a request (its ``ref`` is pending until the final reply)."""
        if "ref" in message:
            self.pending[message["ref"]] = message["cmd"]
        with self._send_lock, contextlib.suppress(OSError, ValueError):
            self.conn.send(message)

    def stop_through(self, ref: int) -> None:
        """Stop every search whose ref is at most ``ref`` (running, queued or not yet sent)."""
        if ref > self.stop_value.value:
            self.stop_value.value = ref

    def alive(self) -> bool:
        return self.process.is_alive()

    def warming(self) -> bool:
        """Whether it is building an agent (configure answered by no final reply yet)."""
        return "configure" in self.pending.values()

    def kill(self) -> None:
        """End the process now (a worker that did not stop in time); blocks briefly."""
        self.process.kill()
        self.process.join(5.0)
        with contextlib.suppress(OSError):
            self.conn.close()

    def close(self, timeout: float = 1.0) -> None:
        """Stop any search, ask the worker to quit, kill it if it does not go in time."""
        self.stop_through(1 << 62)
        self.send({"cmd": "quit"})
        self.process.join(timeout)
        if self.process.is_alive():
            self.kill()
        with contextlib.suppress(OSError):
            self.conn.close()

    def _read(self) -> None:
        while True:
            try:
                message = self.conn.recv()
            except (EOFError, OSError):
                self._deliver({"type": "exit"})
                return
            self._deliver(message)


class SearchStop:
    """The ``stop`` event a search gets: set once the server's stop number reaches ``ref``
    (or, for a ponder, once the next request waits in ``conn``). Offers ``is_set`` and
    ``wait`` as ``threading.Event`` does."""

    def __init__(self, stop_value: Any, ref: int, conn: Any = None) -> None:
        self.stop_value, self.ref, self.conn = stop_value, ref, conn

    def is_set(self) -> bool:
        return self.stop_value.value >= self.ref or (self.conn is not None and self.conn.poll())

    def wait(self, timeout: float | None = None) -> bool:
        end = None if timeout is None else time.monotonic() + timeout
        while not self.is_set():
            if end is not None and time.monotonic() >= end:
                return False
            time.sleep(STOP_POLL)
        return True


def worker_main(conn: Any, stop_value: Any, parent: int) -> None:
    """The worker process: serve requests until told to quit (module docstring)."""
    _init_process(parent, None)  # one torch thread; exit as soon as the server is gone
    held: dict[str, Any] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message.get("cmd") == "quit":
            return
        ref = message.get("ref")
        try:
            for reply in _handle(message, held, stop_value, conn):
                conn.send({**reply, "ref": ref})
        except Exception as err:  # the worker reports every failure and keeps serving
            conn.send({"type": "error", "ref": ref, "message": _describe(err)})


def _handle(message: Message, held: dict[str, Any], stop_value: Any, conn: Any):
    """The replies to one request, in order (the last is its final reply)."""
    from boardzoo.web.search_view import go_end, ponder, think

    command, ref = message["cmd"], message.get("ref", 0)
    if command == "configure":
        yield _configure(message, held)

        def compiling(step: Any) -> None:
            conn.send({"type": "compiling", "ref": ref, "text": step.text()})

        with compile_progress.listening(compiling):
            _warm_up(held["agent"], held["env"])
        yield {"type": "warm"}
    elif command in ("think", "ponder"):
        stop = SearchStop(stop_value, ref, conn if command == "ponder" else None)
        if stop.is_set():
            yield {"type": "skipped"}
            return
        env = held["env"]
        env.restore_state(message["snapshot"])
        if command == "ponder":
            yield {"type": "pondered", "pondered": ponder(held["agent"], env, stop)}
            return
        yield {"type": "started"}
        start = time.perf_counter()

        def progress(analysis: dict[str, Any]) -> None:
            conn.send({"type": "progress", "ref": ref, "analysis": analysis})

        action, analysis = think(held["agent"], env, stop, progress, message.get("clock"))
        yield {"type": "move", "action": int(action), "analysis": analysis,
               "seconds": time.perf_counter() - start}
    elif command == "go_end":
        env = held["env"]
        env.restore_state(message["snapshot"])
        dead, score = go_end(env)
        yield {"type": "go_end", "dead": dead, "score": score}
    elif command == "release":
        held.clear()
        gc.collect()
        yield {"type": "released"}
    else:
        raise ValueError(f"unknown worker command {command!r}")


def _configure(message: Message, held: dict[str, Any]) -> Message:
    from boardzoo.envs import make_game
    from boardzoo.envs.aec import BoardGameEnv
    from boardzoo.web.catalog import build

    held.clear()
    held["env"] = BoardGameEnv(make_game(message["game"], **message["options"]),
                               illegal_action="raise")
    held["agent"] = build(message["agent"], seed=message.get("seed"))
    _one_torch_thread()
    return {"type": "ready", "agent": repr(held["agent"])}


def _warm_up(agent: Any, env: Any) -> None:
    """Build the agent's compiled search now (loaded from the compile cache, or compiled:
    once per process and game), not during its first move: ``prepare`` where the agent has
    it, else a tiny search by a copy of it."""
    import copy

    if env.game.is_terminal(env.state_array):
        return
    if hasattr(agent, "prepare"):
        agent.prepare(env)
        return
    trial = copy.deepcopy(agent)
    for name, value in (("simulations", 8), ("time_limit", None), ("depth", 1)):
        if hasattr(trial, name):
            setattr(trial, name, value)
    trial.act(env)


def _describe(err: BaseException) -> str:
    from boardzoo.errors import BoardzooError

    return str(err) if isinstance(err, BoardzooError) else f"{type(err).__name__}: {err}"


def _one_torch_thread() -> None:
    """torch (if an agent brought it in) on one thread: see docs (2 cores, shared)."""
    import sys

    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)
