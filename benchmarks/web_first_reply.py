"""How long the page's first Othello reply takes: a fresh `boardzoo serve` for every game (on
the compile cache as it is: fill it first with `boardzoo compile othello tictactoe`), the
page opened in Debian's chromium through Playwright, Othello started against the page's
default opponent settings, the person's first move clicked as soon as the page offers it, and
the seconds from that click to the agent's reply drawn on the board, measured in the page
(``performance.now()``)::

    python -m benchmarks.web_first_reply [--servers 5] [--case othello-mcts ...]
        [--checkout DIR ...]

Cases: the start position against MCTS and against alpha-beta (their default 1.0 s a move),
and FFO endgame #1 (14 empty squares, the person to move) against alpha-beta, whose reply
there is its exact solver's. Besides the reply, each row gives the agent's own search seconds
(from the game's record: the worker's time from the search's start to its move) and the
rest, ``reply - search``: the page, the server, the pipe and any warm-up the agent still had
to do when the person moved ("warm at the move": whether it had finished, as the server saw
it then; "Start -> agent warm" when it did). The person chooses at once as the page opens;
``--pause`` makes them read the form first, as a person does, while the server's spare agent
process starts. ``--checkout`` runs the servers from other source trees (their PYTHONPATH), every
case of every tree in turn, so that the machine's load hits them alike; one untimed server
per tree first fills what its cache lacks. Prints a row per server and medians.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

from playwright.sync_api import Browser, expect, sync_playwright

from boardzoo.bench.startup import ENDGAMES
from boardzoo.envs import GAMES

CHROMIUM = "/usr/bin/chromium"
# case -> (opponent, record to load: None for the start position)
CASES = {
    "othello-mcts": ("mcts", None),
    "othello-alphabeta": ("alphabeta", None),
    "othello-ffo1-alphabeta": ("alphabeta", ENDGAMES["othello"]),
}
# in the page: the click's time, and the time the second move (the reply) is in the list
WATCH = """() => {
    window.firstReply = {};
    document.querySelector('#board').addEventListener('mousedown', () => {
        window.firstReply.clicked = performance.now();
    }, {capture: true, once: true});
    new MutationObserver((changes, observer) => {
        if (document.querySelectorAll('#moves .move').length >= 2) {
            window.firstReply.shown = performance.now();
            observer.disconnect();
        }
    }).observe(document.querySelector('#moves'), {childList: true, subtree: true});
}"""


def start_server(checkout: str) -> tuple[subprocess.Popen, str]:
    """`boardzoo serve` from ``checkout`` in a fresh process, once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "boardzoo.cli", "serve", "--port",
                               str(port)], env={**os.environ, "PYTHONPATH": checkout},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/api/catalog", timeout=5):
                return server, url
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("boardzoo serve did not answer within 300 s")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as answer:
        return answer.read()


def first_reply(browser: Browser, checkout: str, case: str, pause: float) -> dict[str, Any]:
    """Start a fresh server and page, wait ``pause`` seconds (a person reading the form),
    play the person's first move of ``case``; the times."""
    agent, position = CASES[case]
    server, url = start_server(checkout)
    page = browser.new_page(viewport={"width": 1360, "height": 820})
    try:
        page.goto(url + "/")
        expect(page.locator("#game option")).to_have_count(len(GAMES), timeout=120_000)
        time.sleep(pause)
        page.select_option("#game", "othello")
        page.select_option("#agent", agent)
        page.check('input[name=seat][value="0"]')
        if position is not None:
            page.click("#load summary")
            page.fill("#record", position)
        started = time.monotonic()
        page.click("#start")
        expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=120_000)
        offered = time.monotonic() - started
        game = re.search(r"/api/games/([^/]+)/record",
                         page.locator("#download-jsonl").get_attribute("href") or "")
        assert game is not None, "the page shows no game"
        page.evaluate(WATCH)
        view_url = f"{url}/api/games/{game.group(1)}"
        warm = json.loads(_get(view_url))["warm"]
        warmed: list[float] = []
        watcher = threading.Thread(target=_watch_warm_up, args=(view_url, warmed), daemon=True)
        watcher.start()
        page.locator("#board .cell.playable").first.click()
        page.wait_for_function("() => window.firstReply.shown !== undefined", timeout=300_000)
        watcher.join(30)
        times = page.evaluate("() => window.firstReply")
        record = json.loads(_get(f"{url}/api/games/{game.group(1)}/record?format=jsonl"))
    finally:
        page.close()
        server.terminate()
        server.wait(30)
    reply, search = (times["shown"] - times["clicked"]) / 1000, record["seconds"][1]
    return {"checkout": checkout, "case": case, "offered": offered, "reply": reply,
            "search": search, "rest": reply - search, "warm": warm,
            "warm_up": warmed[0] - started if warmed else float("nan")}


def _watch_warm_up(view_url: str, warmed: list[float]) -> None:
    """Poll the game's view until the server says the agent is warm; when it first did."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if json.loads(_get(view_url))["warm"]:
            warmed.append(time.monotonic())
            return
        time.sleep(0.02)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=5, help="fresh servers per case")
    parser.add_argument("--case", action="append", choices=sorted(CASES),
                        help="default: every case")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds on the page before choosing the game (default: none)")
    parser.add_argument("--checkout", action="append",
                        help="a source tree to serve from (default: this one)")
    args = parser.parse_args()
    cases = args.case or list(CASES)
    checkouts = args.checkout or [os.environ.get("PYTHONPATH", os.getcwd())]
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for checkout in checkouts:  # untimed: fills what the tree's cache lacks
            first_reply(browser, checkout, cases[0], args.pause)
        for round_ in range(1, args.servers + 1):
            for case in cases:
                for checkout in checkouts:
                    rows.append(row := first_reply(browser, checkout, case, args.pause))
                    print(f"round {round_} {case} {checkout}: Start -> 'Your move' "
                          f"{row['offered']:.2f} s, Start -> agent warm {row['warm_up']:.2f} s, "
                          f"move -> reply shown {row['reply']:.3f} s "
                          f"(search {row['search']:.3f} s, rest {row['rest']:.3f} s), agent "
                          f"warm at the move: {row['warm']}", flush=True)
        browser.close()
    print("\n| case | source | fresh servers | move -> reply shown, median (range) | the agent's "
          "search | the rest (reply - search) | Start -> agent warm | agent warm at the move |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in cases:
        for checkout in checkouts:
            mine = [row for row in rows if row["case"] == case and row["checkout"] == checkout]
            print(f"| {case} | {checkout} | {len(mine)} | "
                  f"{_spread([row['reply'] for row in mine])} | "
                  f"{_spread([row['search'] for row in mine])} | "
                  f"{_spread([row['rest'] for row in mine])} | "
                  f"{_spread([row['warm_up'] for row in mine])} | "
                  f"{sum(row['warm'] for row in mine)} of {len(mine)} |")


if __name__ == "__main__":
    main()
