"""What `boardzoo serve` keeps running while people reload and close its page: agent processes
and resident memory after each of 5 reloads and 5 closed tabs (each page starts a game
against MCTS first, so every worker has compiled a search).

Runs the server as `boardzoo serve` in a subprocess (so any version of boardzoo can be
measured: PYTHONPATH picks it) and Debian's chromium through Playwright::

    python -m benchmarks.web_pages [--game tictactoe] [--settle 15]

Prints one row per step: whether the game was played (or refused: the server's message),
the agent processes (the server's spawned children, the multiprocessing resource tracker
left out) and the resident memory of the server and its children, read from /proc,
``--settle`` seconds after the step.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from boardzoo.envs import GAMES

CHROMIUM = "/usr/bin/chromium"


def children(pid: int) -> list[int]:
    """Every descendant process of ``pid`` (from /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in parents.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def resident_mb(pid: int) -> float:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0.0
    match = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(match.group(1)) / 1024 if match else 0.0


def agent_processes(server: int) -> list[int]:
    out = []
    for pid in children(server):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "multiprocessing" in command and "resource_tracker" not in command:
            out.append(pid)
    return out


def snapshot(server: int) -> tuple[int, float]:
    """(agent processes, resident MB of the server and all its children)."""
    agents = agent_processes(server)
    total = resident_mb(server) + sum(resident_mb(pid) for pid in children(server))
    return len(agents), total


def start_game(page, game: str, seconds: float = 300.0) -> str:
    """Start a game against MCTS (moving first, so it compiles and searches) and wait for its
    move: "played", or "refused" with the server's message when it opens no game."""
    expect(page.locator("#game option")).to_have_count(len(GAMES), timeout=120_000)
    page.select_option("#game", game)
    page.select_option("#agent", "mcts")
    page.fill('.agent-option[data-name="time_limit"]', "0.2")
    page.check('input[name=seat][value="1"]')
    page.click("#start")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if page.locator("#moves li").count() >= 1:
            return "played"
        message = page.locator("#message").inner_text()
        if "games are open" in message:
            return f"refused: {message}"
        time.sleep(0.2)
    return "no move in time"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--settle", type=float, default=15.0,
                        help="seconds after each step before counting")
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "boardzoo.cli", "serve", "--port",
                               str(port)], env=os.environ.copy())
    url = f"http://127.0.0.1:{port}/"
    rows = []
    try:
        time.sleep(5)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            page = browser.new_page()
            page.goto(url)
            for step in range(1, 6):
                outcome = start_game(page, args.game)
                page.reload()
                time.sleep(args.settle)
                rows.append((f"reload {step}", outcome, *snapshot(server.pid)))
                print(*rows[-1], flush=True)
            page.close()
            for step in range(1, 6):
                tab = browser.new_page()
                tab.goto(url)
                outcome = start_game(tab, args.game)
                tab.close()
                time.sleep(args.settle)
                rows.append((f"close {step}", outcome, *snapshot(server.pid)))
                print(*rows[-1], flush=True)
            browser.close()
    finally:
        server.terminate()
        server.wait(30)
    print("\n| step | the game | agent processes | resident MB (server + children) |")
    print("| --- | --- | --- | --- |")
    for name, outcome, count, megabytes in rows:
        print(f"| {name} | {outcome} | {count} | {megabytes:.0f} |")


if __name__ == "__main__":
    main()
