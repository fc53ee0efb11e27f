"""`boardzoo serve` in a real headless browser: Playwright for Python driving Debian's
chromium (Playwright's own browser download is not reachable here; .ci/run installs the
`chromium` package). Screenshots go to test-artifacts/web/."""

from __future__ import annotations

import json
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")
pytest.importorskip("playwright", reason="playwright (dev extra) is not installed")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("Debian's chromium is not installed (apt-get install chromium; .ci/run does)",
                allow_module_level=True)

import uvicorn  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

from boardzoo.web.app import create_app  # noqa: E402
from boardzoo.web.security import loopback_hosts  # noqa: E402

pytestmark = pytest.mark.slow
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web"
AGENT_WAIT = 180_000  # ms: a fresh worker imports boardzoo and compiles its search first


@pytest.fixture(scope="module")
def server():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(loopback_hosts("127.0.0.1", port), spare_workers=0)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                            ws="websockets-sansio")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    running.should_exit = True
    thread.join(30)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server, request):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda err: errors.append(str(err)))
    opened.goto(server)
    expect(opened.locator("#game option")).to_have_count(6, timeout=120_000)
    yield opened
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    opened.screenshot(path=ARTIFACTS / f"{request.node.name}.png")
    context.close()
    assert not errors, errors


def start(page, game, agent="mcts", agent_options=None, options=None, seat=0, record=None):
    page.select_option("#game", game)
    for name, value in (options or {}).items():
        page.fill(f'.game-option[data-name="{name}"]', value)
    page.select_option("#agent", agent)
    for name, value in (agent_options or {}).items():
        page.fill(f'.agent-option[data-name="{name}"]', value)
    page.check(f'input[name=seat][value="{seat}"]')
    if record is not None:
        page.click("#load summary")
        page.fill("#record", record)
    page.click("#start")


def pieces(page):
    """{cell: owner} of the pieces drawn on the board."""
    found = page.locator("#board .piece")
    return {int(found.nth(k).get_attribute("data-at")): int(found.nth(k).get_attribute(
        "data-owner")) for k in range(found.count())}


def test_a_full_tictactoe_game_against_mcts_by_clicking(page):
    start(page, "tictactoe", agent_options={"simulations": "2000", "time_limit": ""})
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    preference = [4, 0, 2, 6, 8, 1, 3, 5, 7]
    board: dict[int, int] = {}
    while not re.search("win|Draw", status.inner_text()):
        cell = next(c for c in preference if c not in pieces(page))  # a free cell
        page.click(f'#board .cell[data-cell="{cell}"]')
        board[cell] = 1
        expect(page.locator(f'#board .piece[data-at="{cell}"]')).to_have_attribute(
            "data-owner", "1")
        expect(status).to_have_text(re.compile("^(Your move|You win|The agent wins|Draw)"),
                                    timeout=AGENT_WAIT)
        now = pieces(page)
        assert {c: o for c, o in now.items() if o == 1} == board  # ours, unchanged
        assert sum(o == 2 for o in now.values()) in (len(board) - 1, len(board))
    # perfect play from the centre opening draws: MCTS with 2000 simulations must not lose
    assert re.match("^(Draw|The agent wins)", status.inner_text())
    assert page.locator("#moves li").count() == len(pieces(page))


def test_a_late_move_answer_does_not_hide_the_agents_reply(page):
    # the move's HTTP answer ("the agent is thinking") held back until the agent's reply
    # has been pushed over the WebSocket: the page must keep the newer view (CI once hung
    # on "thinking" for 180 s when the two crossed)
    start(page, "tictactoe", agent="random")
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)

    def late(route):
        answer = route.fetch()
        time.sleep(1.0)  # the random agent has replied and its view was pushed meanwhile
        route.fulfill(response=answer)

    page.route("**/move", late)
    page.click('#board .cell[data-cell="4"]')
    expect(page.locator("#moves li")).to_have_count(2, timeout=AGENT_WAIT)
    page.wait_for_timeout(1500)  # the held-back answer has arrived by now
    expect(status).to_have_text(re.compile("^Your move"))
    assert page.locator("#moves li").count() == 2


def test_an_illegal_click_shows_a_message_and_changes_nothing_and_undo_works(page):
    start(page, "tictactoe", agent_options={"simulations": "200", "time_limit": ""})
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    page.click('#board .cell[data-cell="4"]')
    expect(page.locator("#moves li")).to_have_count(2, timeout=AGENT_WAIT)
    expect(status).to_have_text(re.compile("^Your move"))
    before = pieces(page)
    page.click('#board .cell[data-cell="4"]')  # taken
    expect(page.locator("#message")).to_contain_text("not a legal move")
    assert pieces(page) == before and page.locator("#moves li").count() == 2
    page.click("#undo")
    expect(page.locator("#moves li")).to_have_count(0)
    assert pieces(page) == {}
    expect(status).to_have_text(re.compile("^Your move"))


def test_go_a_capture_by_clicking_is_counted(page):
    # 5x5: black b2, c1, d2 around white's c2; black's click on c3 captures it
    record = json.dumps({"moves": ["b2", "c2", "c1", "a5", "d2", "b5"]})
    start(page, "go", agent="random", options={"board_size": "5"}, record=record)
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    assert sorted(pieces(page).values()) == [1, 1, 1, 2, 2, 2]
    page.click(f'#board .cell[data-cell="{2 * 5 + 2}"]')
    expect(status).to_contain_text("captures 1", timeout=AGENT_WAIT)
    expect(page.locator("#moves li")).to_have_count(8, timeout=AGENT_WAIT)
    assert 3 * 5 + 2 not in pieces(page) or pieces(page)[3 * 5 + 2] == 2  # c2 was taken
    assert page.locator("#buttons button", has_text="pass").count() == 1


def simulations(page):
    found = re.search(r"([\d,]+) simulations", page.locator("#summary").inner_text())
    return int(found.group(1).replace(",", "")) if found else 0


def test_othello_a_long_think_is_live_the_page_answers_and_move_now_plays(page):
    start(page, "othello", agent_options={"time_limit": "60"}, seat=1)
    expect(page.locator("#analysis-state")).to_have_text("· searching", timeout=AGENT_WAIT)
    expect(page.locator("#summary")).to_contain_text("simulations", timeout=AGENT_WAIT)
    counts = [simulations(page)]
    deadline = time.monotonic() + 30
    while len(counts) < 3 and time.monotonic() < deadline:  # updates arrive while it thinks
        if simulations(page) > counts[-1]:
            counts.append(simulations(page))
        time.sleep(0.05)
    assert len(counts) == 3 and counts == sorted(counts) and counts[0] < counts[-1], counts
    assert page.locator("#board .heat rect").count() > 0  # the visit heat-map
    page.click("#heat")  # the page's controls answer during the search
    expect(page.locator("#board .heat")).to_have_count(0)
    page.click("#heat")
    expect(page.locator("#board .heat")).to_have_count(1)
    assert len(pieces(page)) == 4 and page.locator("#stop").is_enabled()
    page.screenshot(path=ARTIFACTS / "othello-thinking.png")
    asked = time.monotonic()
    page.click("#stop")
    # the target is 0.5 s (measured 0.34-0.51 s on a loaded 2-core machine); the bound leaves
    # room for CI, where the search and another test share the two cores
    expect(page.locator("#board .piece")).to_have_count(5, timeout=2000)
    print(f"move now -> move on the board: {time.monotonic() - asked:.3f} s")
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"))
    assert page.locator("#moves li").count() == 1
