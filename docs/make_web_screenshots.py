"""Screenshots of `boardzoo serve` for docs/web.md: every game at a desktop and a phone width,
most taken while the agent searches (its analysis and heat-map live on the page), and a
finished Go game with its score and dead stones. Fill the compile cache first (`boardzoo
compile`), or the searches compile while the pictures wait.

Run from a checkout with the dev extra and Debian's chromium::

    .venv/bin/python docs/make_web_screenshots.py [GAME ...]   # writes docs/images/web-*.png
"""

from __future__ import annotations

import json
import re
import socket
import sys
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import expect, sync_playwright

from boardzoo.envs import GAMES
from boardzoo.web.app import create_app
from boardzoo.web.security import loopback_hosts

OUT = Path(__file__).resolve().parent / "images"
SIZES = {"desktop": {"width": 1360, "height": 820}, "phone": {"width": 390, "height": 844}}
# name -> (game, game options, opponent, its options, a record to start from (None: the
# start), the person's moves (each a cell, or the cells clicked in turn: chess's piece, then
# its square), seconds to wait into the agent's search before the picture (0: after its reply))
SCENES = {
    "tictactoe": ("tictactoe", {}, "random", {}, {"moves": [0, 3, 1, 4]}, [2], 0.0),
    "nim": ("nim", {"heaps": "3,4,5", "max_take": "none"}, "alphabeta", {"time_limit": "1"},
            None, [14], 0.0),
    "connect_four": ("connect_four", {}, "mcts", {"time_limit": "6"}, None, [38, 31, 37], 3.0),
    "othello": ("othello", {}, "mcts", {"time_limit": "6"}, None, [19, 18], 3.0),
    "go": ("go", {"board_size": "9"}, "mcts", {"time_limit": "6"}, None, [40, 20, 60], 3.0),
    "go-end": ("go", {"board_size": "5"}, "random", {},
               {"moves": ["c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5", "pass",
                          "a3", "pass", "pass"]}, [], 0.0),
    "gomoku": ("gomoku", {"board_size": "15"}, "mcts", {"time_limit": "6"}, None,
               [112, 113, 97], 3.0),
    # the Two Knights: the person's Bxf7+ (c4 = cell 34, f7 = cell 13; a8 is cell 0) checks
    "chess": ("chess", {}, "alphabeta", {"time_limit": "6"},
              {"moves": ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6"]}, [(34, 13)], 3.0),
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


def scene(page, url: str, name: str, path: Path) -> None:
    game, options, agent, agent_options, record, clicks, into_search = SCENES[name]
    page.goto(url)
    expect(page.locator("#game option")).to_have_count(len(GAMES), timeout=120_000)
    page.select_option("#game", game)
    for option, value in options.items():
        page.fill(f'.game-option[data-name="{option}"]', value)
    page.select_option("#agent", agent)
    for option, value in agent_options.items():
        page.fill(f'.agent-option[data-name="{option}"]', value)
    if record is not None:
        page.click("#load summary")
        page.fill("#record", json.dumps(record))
    page.click("#start")
    status = page.locator("#status")
    played = len(record["moves"]) if record else 0
    for k, move in enumerate(clicks):
        expect(status).to_have_text(re.compile("^Your move"), timeout=300_000)
        for cell in move if isinstance(move, tuple) else (move,):
            target = page.locator(f'#board .cell.playable[data-cell="{cell}"]')
            if target.count() == 0:  # taken by the agent: any legal cell
                target = page.locator("#board .cell.playable").first
            target.click()
        if k < len(clicks) - 1:
            expect(page.locator("#moves .move")).to_have_count(played + 2 * k + 2,
                                                               timeout=300_000)
    if into_search:  # a moment into the search, once its first report is on the page
        expect(page.locator("#summary")).to_contain_text("search so far", timeout=300_000)
        time.sleep(into_search)
    elif clicks:  # a quick reply or a finished game: after it, with the last analysis
        expect(status).to_have_text(re.compile("^(Your move|The game is over)"),
                                    timeout=300_000)
        page.wait_for_timeout(1500)
    else:  # a finished game: once its dead stones are marked
        expect(page.locator("#banner")).to_contain_text("marks", timeout=300_000)
    if page.viewport_size["width"] > 1100:  # desktop: from the top, the header included
        page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=path)


def main(names: list[str]) -> None:
    OUT.mkdir(exist_ok=True)
    url, server = serve()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for name in names or list(SCENES):
            for size, viewport in SIZES.items():
                page = browser.new_page(viewport=viewport)
                path = OUT / f"web-{name}-{size}.png"
                scene(page, url, name, path)
                page.close()
                print(f"wrote {path}")
        browser.close()
    server.should_exit = True


if __name__ == "__main__":
    main(sys.argv[1:])
