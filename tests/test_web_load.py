"""A bounded load on `boardzoo serve` over loopback: 20 pages at once for about two minutes,
200 requests in all (the page's files, the catalog, new games against random and MCTS agents,
moves, undo, the live WebSocket, close), to `boardzoo serve` run as its own process. Every
request is answered (no connection failure, no 5xx; 429 when the games are full is an
answer), and the server and its agent processes stay under 3 GB resident in all."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")
httpx = pytest.importorskip("httpx2", reason="httpx2 (dev extra) is not installed")
websockets = pytest.importorskip("websockets")

from benchmarks.web_pages import children, resident_mb  # noqa: E402

pytestmark = pytest.mark.slow
PAGES = 20
REQUESTS = 200
SECONDS = 120.0  # the pages' requests spread over about this long
MEMORY_LIMIT_MB = 3 * 1024
GAMES = [("tictactoe", "random", {}), ("nim", "random", {}), ("connect_four", "random", {}),
         ("tictactoe", "mcts", {"time_limit": "0.2"}), ("othello", "random", {})]


PAUSE = SECONDS / (REQUESTS / PAGES)  # mean seconds between a page's requests


class Load:
    """The requests made and their answers, and the memory seen."""

    def __init__(self) -> None:
        self.statuses: list[int] = []
        self.failures: list[str] = []
        self.peak_mb = 0.0

    def budget_left(self) -> bool:
        return len(self.statuses) + len(self.failures) < REQUESTS


async def request(load: Load, client, method: str, path: str, rng, **kwargs):
    """One request, then a pause (the page's requests spread over SECONDS)."""
    try:
        response = await client.request(method, path, **kwargs)
    except httpx.HTTPError as err:
        load.failures.append(f"{method} {path}: {err!r}")
        response = None
    else:
        load.statuses.append(response.status_code)
    await asyncio.sleep(rng.uniform(0.5, 1.5) * PAUSE)
    return response


async def page(load: Load, url: str, origin: str, seed: int, end: float) -> None:
    """One page: load, then games until the time or the request budget is spent."""
    rng = random.Random(seed)
    headers = {"Origin": origin}
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=30) as client:
        for path in ("/", "/api/catalog"):
            await request(load, client, "GET", path, rng)
        while time.monotonic() < end and load.budget_left():
            game, agent, options = rng.choice(GAMES)
            created = await request(load, client, "POST", "/api/games", rng,
                                    json={"game": game, "agent": agent,
                                          "agent_options": options})
            if created is None or created.status_code != 201:
                continue  # the games are full: try later
            await play(load, client, url, origin, created.json(), rng, end)


async def play(load: Load, client, url: str, origin: str, view: dict, rng, end: float) -> None:
    gid = f"/api/games/{view['id']}"
    socket_url = url.replace("http://", "ws://") + gid.lstrip("/") + "/live"
    async with websockets.connect(socket_url, origin=origin) as live:
        await live.recv()
        for _ in range(rng.randint(2, 4)):
            if time.monotonic() > end or not load.budget_left() or view["result"]:
                break
            view = await your_turn(live, view)
            if view is None or view["result"]:
                break
            action = rng.choice(list(view["board"]["clicks"].values())
                                or [b["action"] for b in view["board"]["buttons"]])
            await request(load, client, "POST", f"{gid}/move", rng,
                          json={"action": action, "ply": len(view["moves"])})
        if rng.random() < 0.3 and load.budget_left():
            await request(load, client, "POST", f"{gid}/undo", rng, json={})
    if load.budget_left():
        await request(load, client, "POST", f"{gid}/close", rng, json={})


async def your_turn(live, view: dict, seconds: float = 30.0) -> dict | None:
    """The newest view pushed once it is the person's turn or the game is over."""
    deadline = time.monotonic() + seconds
    while not (view["result"] or view["board"]["to_play"] == view["human_seat"]):
        try:
            message = json.loads(await asyncio.wait_for(live.recv(),
                                                        deadline - time.monotonic()))
        except (TimeoutError, websockets.ConnectionClosed):
            return None
        if message["type"] == "view":
            view = message["view"]
    return view


async def watch_memory(load: Load, pids, end: float) -> None:
    while time.monotonic() < end:
        load.peak_mb = max(load.peak_mb, sum(resident_mb(pid) for pid in pids()))
        await asyncio.sleep(0.5)


def wait_for_port(port: int, server: subprocess.Popen, seconds: float = 120.0) -> None:
    """Return once the server accepts connections on ``port`` (fail if it exits first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert server.poll() is None, f"boardzoo serve exited with {server.returncode}"
        with socket.socket() as attempt:
            if attempt.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"boardzoo serve did not listen on port {port} in {seconds:.0f} s")


def test_twenty_pages_for_two_minutes_are_all_answered_within_three_gigabytes():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # the server in its own process, as users run it: its memory is its own, not the test
    # worker's (which holds whatever earlier tests loaded)
    server = subprocess.Popen([sys.executable, "-m", "boardzoo.cli", "serve", "--port",
                               str(port)])
    wait_for_port(port, server)
    url, origin = f"http://127.0.0.1:{port}/", f"http://127.0.0.1:{port}"

    def pids():
        return [server.pid, *children(server.pid)]

    load = Load()

    async def run() -> None:
        end = time.monotonic() + SECONDS
        watcher = asyncio.ensure_future(watch_memory(load, pids, end + 5))
        await asyncio.gather(*(page(load, url, origin, seed, end) for seed in range(PAGES)))
        await asyncio.sleep(2)
        watcher.cancel()

    started = time.monotonic()
    try:
        asyncio.run(run())
    finally:
        server.terminate()
        server.wait(30)
    seconds = time.monotonic() - started
    answered = len(load.statuses)
    print(f"requests: {answered} answered, {len(load.failures)} failed; statuses: "
          f"{sorted(set(load.statuses))}; peak resident (server + agents): "
          f"{load.peak_mb:.0f} MB; {seconds:.0f} s")
    assert not load.failures, load.failures[:5]
    assert answered >= REQUESTS - PAGES  # (pages stop within a round of the budget)
    assert not [s for s in load.statuses if s >= 500]
    assert load.peak_mb < MEMORY_LIMIT_MB
    assert seconds > SECONDS / 2  # the load was spread, not a burst
