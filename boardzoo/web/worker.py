"""The agent's own process: the server's event loop never searches.

Each game on the page gets an :class:`AgentWorker`, a spawned process that owns the opponent
(so MCTS keeps its tree between moves) and talks to the server over a pipe:

* server -> worker: ``{"cmd": "configure", "rid", "game", "options", "agent", "seed"}``,
  ``{"cmd": "think", "id", "snapshot", "clock"}`` (a ``ClockView`` or None),
  ``{"cmd": "ponder", "id", "snapshot"}`` (search the person's position until the next
  command arrives) and ``{"cmd": "quit"}``;
* worker -> server: ``{"type": "ready" | "error", "rid" | "id", ...}``, ``{"type": "warm"}``
  once its compiled search is built (after "ready", before the first search),
  ``{"type": "started", "id"}`` when a search begins, ``{"type": "progress", "id",
  "analysis"}`` while it searches and
  ``{"type": "move", "id", "action", "analysis", "seconds"}`` when it is done.

"Move now" sets the shared ``stop`` event; the worker clears it when a new search starts. A
ponder ends as soon as the next command is in the pipe (the person moved, undid, ...).
A reader thread hands each message to ``deliver`` (the server posts it into its loop).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from boardzoo.executor import _init_process
from boardzoo.web.search_view import ponder, think

__all__ = ["AgentWorker", "worker_main"]

Message = dict[str, Any]


class AgentWorker:
    """A started worker process and the thread that reads its messages."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")  # no forked copies of the server's threads
        self.stop = ctx.Event()
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=worker_main, args=(child, self.stop, os.getpid()),
                                   daemon=True, name="boardzoo-agent")
        self.process.start()
        child.close()
        self._deliver: Callable[[Message], None] = lambda message: None
        self._send_lock = threading.Lock()
        self.last_game: str | None = None  # the game it last played (its search is compiled)
        threading.Thread(target=self._read, daemon=True, name="boardzoo-agent-reader").start()

    def attach(self, deliver: Callable[[Message], None]) -> None:
        """Send every later message from the worker to ``deliver`` (called from a thread)."""
        self._deliver = deliver

    def send(self, message: Message) -> None:
        with self._send_lock, contextlib.suppress(OSError, ValueError):
            self.conn.send(message)

    def alive(self) -> bool:
        return self.process.is_alive()

    def close(self, timeout: float = 1.0) -> None:
        """Ask the worker to quit; stop a search first; kill it if it does not go in time."""
        self.stop.set()
        self.send({"cmd": "quit"})
        self.process.join(timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout)
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


def worker_main(conn: Any, stop: Any, parent: int) -> None:
    """The worker process: configure an agent, then search positions until told to quit."""
    _init_process(parent, None)  # one torch thread; exit as soon as the server is gone
    state: dict[str, Any] = {}
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message.get("cmd") == "quit":
            return
        try:
            conn.send(_handle(message, state, stop, conn))
            if message.get("cmd") == "configure":
                _warm_up(state["agent"], state["env"])
                conn.send({"type": "warm", "rid": message["rid"]})
        except Exception as err:  # the worker reports every failure and keeps serving
            key = "rid" if "rid" in message else "id"
            conn.send({"type": "error", key: message.get(key), "message": _describe(err)})


def _handle(message: Message, state: dict[str, Any], stop: Any, conn: Any) -> Message:
    from boardzoo.envs import make_game
    from boardzoo.envs.aec import BoardGameEnv
    from boardzoo.web.catalog import build

    if message["cmd"] == "configure":
        state["env"] = BoardGameEnv(
            make_game(message["game"], **message["options"]), illegal_action="raise"
        )
        state["agent"] = build(message["agent"], seed=message.get("seed"))
        _one_torch_thread()
        return {"type": "ready", "rid": message["rid"], "agent": repr(state["agent"])}
    if message["cmd"] == "think":
        stop.clear()
        env = state["env"]
        env.restore_state(message["snapshot"])
        conn.send({"type": "started", "id": message["id"]})
        start = time.perf_counter()

        def progress(analysis: dict[str, Any]) -> None:
            conn.send({"type": "progress", "id": message["id"], "analysis": analysis})

        action, analysis = think(state["agent"], env, stop, progress, message.get("clock"))
        return {"type": "move", "id": message["id"], "action": int(action),
                "analysis": analysis, "seconds": time.perf_counter() - start}
    if message["cmd"] == "ponder":
        env = state["env"]
        env.restore_state(message["snapshot"])
        with _until_next_command(conn) as next_command:
            pondered = ponder(state["agent"], env, next_command, lambda analysis: None)
        return {"type": "pondered", "id": message["id"], "pondered": pondered}
    raise ValueError(f"unknown worker command {message.get('cmd')!r}")


@contextlib.contextmanager
def _until_next_command(conn: Any):
    """An event that is set as soon as a message waits in ``conn`` (read by the main loop)."""
    arrived, done = threading.Event(), threading.Event()

    def watch() -> None:
        while not done.is_set():
            if conn.poll(0.02):
                arrived.set()
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield arrived
    finally:
        done.set()
        watcher.join()


def _warm_up(agent: Any, env: Any) -> None:
    """A tiny search by a copy of the agent, so its compiled search is built now (seconds,
    once per process and game) and not during its first real move."""
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
