"""Screenshots of `boardzoo serve` for docs/web.md: one page per game, a few moves in, taken
while the agent searches (its analysis and heat-map live on the page).

Run from a checkout with the dev extra and Debian's chromium::

    .venv/bin/python docs/make_web_screenshots.py          # writes docs/images/web-*.png
"""

from __future__ import annotations

import re
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import expect, sync_playwright

from boardzoo.web.app import create_app
from boardzoo.web.security import loopback_hosts

OUT = Path(__file__).resolve().parent / "images"
# game -> (game options, opponent, its options, the person's clicks (cells), seconds to wait
# into the agent's search before the picture; 0: after its reply)
SCENES = {
    "tictactoe": ({}, "mcts", {"time_limit": "4"}, [4], 1.0),
    "nim": ({"heaps": "3,4,5", "max_take": "none"}, "alphabeta", {"time_limit": "1"}, [14],
            0.0),
    "connect_four": ({}, "mcts", {"time_limit": "6"}, [3, 3, 2], 3.0),
    "othello": ({}, "mcts", {"time_limit": "6"}, [19, 18], 3.0),
    "go": ({"board_size": "9"}, "mcts", {"time_limit": "6"}, [40, 20, 60], 3.0),
    "gomoku": ({"board_size": "15"}, "mcts", {"time_limit": "6"}, [112, 113, 97], 3.0),
}


def serve() -> tuple[str, uvicorn.Server]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(loopback_hosts("127.0.0.1", port), spare_workers=0)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning", ws="websockets-sansio"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}/", server


def scene(page, url: str, game: str) -> None:
    options, agent, agent_options, clicks, into_search = SCENES[game]
    page.goto(url)
    expect(page.locator("#game option")).to_have_count(6, timeout=120_000)
    page.select_option("#game", game)
    for name, value in options.items():
        page.fill(f'.game-option[data-name="{name}"]', value)
    page.select_option("#agent", agent)
    for name, value in agent_options.items():
        page.fill(f'.agent-option[data-name="{name}"]', value)
    page.click("#start")
    status = page.locator("#status")
    for k, cell in enumerate(clicks):
        expect(status).to_have_text(re.compile("^Your move"), timeout=300_000)
        target = page.locator(f'#board .cell.playable[data-cell="{cell}"]')
        if target.count() == 0:  # taken by the agent: any legal cell
            target = page.locator("#board .cell.playable").first
        target.click()
        if k < len(clicks) - 1:
            expect(page.locator("#moves li")).to_have_count(2 * k + 2, timeout=300_000)
    if into_search:  # a moment into the search, once its first report is on the page
        expect(page.locator("#summary")).to_contain_text("simulations", timeout=300_000)
        time.sleep(into_search)
    else:  # a quick search: the position after the agent's reply, with its last analysis
        expect(page.locator("#moves li")).to_have_count(2 * len(clicks), timeout=300_000)
    page.screenshot(path=OUT / f"web-{game}.png")


def main(games: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    url, server = serve()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page(viewport={"width": 1360, "height": 820})
        for game in games or list(SCENES):
            scene(page, url, game)
            print(f"wrote {OUT / f'web-{game}.png'}")
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main(sys.argv[1:])
