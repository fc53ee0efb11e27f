"""How long the page's first Othello reply takes: a fresh `boardzoo serve` for every game (on
the compile cache as it is: fill it first with `boardzoo compile othello`), the page opened in
Debian's chromium through Playwright, Othello started against the page's default opponent
settings, the person's first move clicked as soon as the page offers it, and the seconds from
that click to the agent's reply drawn on the board, measured in the page
(``performance.now()``)::

    python -m benchmarks.web_first_reply [--servers 5] [--case othello-mcts ...]

Cases: the start position against MCTS and against alpha-beta (their default 1.0 s a move),
and FFO endgame #1 (14 empty squares, the person to move) against alpha-beta, whose reply
there is its exact solver's. Besides the reply, each row gives the agent's own search seconds
(from the game's record: the worker's time from the search's start to its move) and the
rest, ``reply - search``: the page, the server, the pipe and any warm-up the agent still had
to do when the person moved (the "agent was warm" column says whether it had finished).
Prints a row per server and a median per case.
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
import time
import urllib.request
from typing import Any

from playwright.sync_api import Page, expect, sync_playwright

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
        window.firstReply.warm = document.querySelector('#status').innerText;
    }, {capture: true, once: true});
    new MutationObserver((changes, observer) => {
        if (document.querySelectorAll('#moves .move').length >= 2
                && document.querySelectorAll('#board .piece').length > 0) {
            window.firstReply.shown = performance.now();
            observer.disconnect();
        }
    }).observe(document.querySelector('#moves'), {childList: true, subtree: true});
}"""


def start_server() -> tuple[subprocess.Popen, str]:
    """`boardzoo serve` in a fresh process (PYTHONPATH and BOARDZOO_CACHE_DIR as given),
    once it answers."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "boardzoo.cli", "serve", "--port",
                               str(port)], env=os.environ.copy(), stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "api/catalog", timeout=5):
                return server, url
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("boardzoo serve did not answer within 120 s")


def first_reply(page: Page, url: str, case: str) -> dict[str, Any]:
    """Play the person's first move of ``case`` on a fresh page; the timings."""
    agent, position = CASES[case]
    page.goto(url)
    expect(page.locator("#game option")).to_have_count(len(GAMES), timeout=120_000)
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
    page.evaluate(WATCH)
    page.locator("#board .cell.playable").first.click()
    page.wait_for_function("() => window.firstReply.shown !== undefined", timeout=300_000)
    times = page.evaluate("() => window.firstReply")
    href = page.locator("#download-jsonl").get_attribute("href")
    with urllib.request.urlopen(url.rstrip("/") + href, timeout=30) as answer:
        record = json.loads(answer.read())
    reply = (times["shown"] - times["clicked"]) / 1000
    search = record["seconds"][1]
    return {"case": case, "offered": offered, "reply": reply, "search": search,
            "rest": reply - search, "warm": "warming up" not in times["warm"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--servers", type=int, default=5, help="fresh servers per case")
    parser.add_argument("--case", action="append", choices=sorted(CASES),
                        help="default: every case")
    args = parser.parse_args()
    cases = args.case or list(CASES)
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        for round_ in range(args.servers):
            for case in cases:  # interleaved: the machine's load hits every case alike
                server, url = start_server()
                try:
                    page = browser.new_page(viewport={"width": 1360, "height": 820})
                    rows.append(first_reply(page, url, case))
                    page.close()
                finally:
                    server.terminate()
                    server.wait(30)
                row = rows[-1]
                print(f"round {round_ + 1} {case}: Start -> 'Your move' {row['offered']:.2f} s, "
                      f"move -> reply shown {row['reply']:.3f} s (search {row['search']:.3f} s, "
                      f"rest {row['rest']:.3f} s), agent warm at the move: {row['warm']}",
                      flush=True)
        browser.close()
    print("\n| case | fresh servers | move -> reply shown, median (range) | the agent's search "
          "| the rest (reply - search) | agent warm at the move |")
    print("| --- | --- | --- | --- | --- | --- |")
    for case in cases:
        mine = [row for row in rows if row["case"] == case]

        def spread(key: str, rows: list[dict[str, Any]] = mine) -> str:
            values = [row[key] for row in rows]
            return (f"{statistics.median(values):.3f} s ({min(values):.3f}-"
                    f"{max(values):.3f})")

        warm = sum(row["warm"] for row in mine)
        print(f"| {case} | {len(mine)} | {spread('reply')} | {spread('search')} | "
              f"{spread('rest')} | {warm} of {len(mine)} |")


if __name__ == "__main__":
    main()
