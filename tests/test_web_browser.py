"""`boardzoo serve` in a real headless browser: Playwright for Python driving Debian's
chromium (Playwright's own browser download is not reachable here; .ci/run installs the
`chromium` package). Screenshots go to test-artifacts/web/.

Checked: full games by clicking and by keys; chess by piece-then-square clicks with a
promotion choice, the king in check and the PGN download; games that end with their page
(reloads and closed tabs leave no game and no extra agent process); "Move now" during the
warm-up and during a long search; undo clearing the analysis; stepping through a finished game;
winning lines; the result banner; the layout at phone and laptop widths; the clock."""

from __future__ import annotations

import io
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

from boardzoo.envs import GAMES  # noqa: E402
from boardzoo.web.app import create_app  # noqa: E402
from boardzoo.web.security import loopback_hosts  # noqa: E402

pytestmark = pytest.mark.slow
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web"
AGENT_WAIT = 180_000  # ms: a fresh worker imports boardzoo and compiles its search first
GRACE = 1.0  # seconds a game outlives its page


class Running:
    """A server on a free loopback port, in a thread of this process (its app state can be
    read: the open games, the agent processes)."""

    def __init__(self, **options) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.app = create_app(loopback_hosts("127.0.0.1", port), **options)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=port,
                                                    log_level="warning",
                                                    ws="websockets-sansio"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port}/"

    @property
    def games(self):
        return self.app.state.games

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


@pytest.fixture(scope="module")
def server():
    running = Running(spare_workers=0, page_grace=GRACE, idle_workers=2)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


def open_page(browser, url, errors, width=1400, height=900):
    context = browser.new_context(viewport={"width": width, "height": height})
    opened = context.new_page()
    opened.on("pageerror", lambda err: errors.append(str(err)))
    opened.goto(url)
    expect(opened.locator("#game option")).to_have_count(len(GAMES), timeout=120_000)
    return opened


@pytest.fixture
def page(browser, server, request):
    errors: list[str] = []
    opened = open_page(browser, server.url, errors)
    yield opened
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    opened.screenshot(path=ARTIFACTS / f"{request.node.name}.png")
    opened.context.close()
    assert not errors, errors


def start(page, game, agent="mcts", agent_options=None, options=None, seat=0, record=None,
          time_control=""):
    if not page.locator("#game").is_visible():  # a game is on: the form is folded away
        page.click("#setup-details summary")
    page.select_option("#game", game)
    for name, value in (options or {}).items():
        page.fill(f'.game-option[data-name="{name}"]', value)
    page.select_option("#agent", agent)
    for name, value in (agent_options or {}).items():
        page.fill(f'.agent-option[data-name="{name}"]', value)
    page.check(f'input[name=seat][value="{seat}"]')
    if record is not None:
        if not page.locator("#record").is_visible():
            page.click("#load summary")
        page.fill("#record", record)
    page.fill("#time-control", time_control)
    page.click("#start")


def pieces(page):
    """{cell: owner} of the pieces drawn on the board."""
    found = page.locator("#board .piece")
    return {int(found.nth(k).get_attribute("data-at")): int(found.nth(k).get_attribute(
        "data-owner")) for k in range(found.count())}


def moves(page):
    return page.locator("#moves .move")


def settled(server, timeout=45.0):
    """(open games, agent processes) once no game is left and no worker is returning."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        games = server.games
        if not games.games and not games.pool.returning:
            break
        time.sleep(0.1)
    return len(server.games.games), len(server.games.pool.processes())


def assert_no_leak(server, baseline: int) -> None:
    """No game left open and no more agent processes than ``baseline``: a worker that does
    not come back within the pool's release limit (a heavily loaded machine) is ended, not
    kept, so fewer is no leak."""
    games, processes = settled(server)
    assert games == 0 and processes <= baseline, (games, processes, baseline)


# ------------------------------------------------------------------------- full games
def test_a_full_tictactoe_game_against_mcts_by_clicking(page):
    start(page, "tictactoe", agent_options={"simulations": "2000", "time_limit": ""})
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    preference = [4, 0, 2, 6, 8, 1, 3, 5, 7]
    board: dict[int, int] = {}
    while not page.locator("#banner").is_visible():
        cell = next(c for c in preference if c not in pieces(page))  # a free cell
        page.click(f'#board .cell[data-cell="{cell}"]')
        board[cell] = 1
        expect(page.locator(f'#board .piece[data-at="{cell}"]')).to_have_attribute(
            "data-owner", "1")
        expect(status).to_have_text(re.compile("^(Your move|The game is over)"),
                                    timeout=AGENT_WAIT)
        now = pieces(page)
        assert {c: o for c, o in now.items() if o == 1} == board  # ours, unchanged
        assert sum(o == 2 for o in now.values()) in (len(board) - 1, len(board))
    # perfect play from the centre opening draws: MCTS with 2000 simulations must not lose
    assert re.match("^(Draw|The agent wins)", page.locator("#banner").inner_text())
    assert moves(page).count() == len(pieces(page))


def test_connect_four_by_keys_to_a_highlighted_win_and_back_through_it(page):
    # Red (you) has d1-d3 and plays d4 with the "4" key: a vertical four
    start(page, "connect_four", agent="random", record=json.dumps({"moves": [3, 0, 3, 0, 3, 6]}))
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    expect(page.locator("#board-hint")).to_contain_text("type 1–7")
    page.keyboard.press("4")
    banner = page.locator("#banner")
    expect(banner).to_contain_text("You win", timeout=10_000)
    expect(page.locator("#board .winning-line")).to_have_count(1)
    assert sorted(int(p.get_attribute("data-at")) for p in
                  page.locator("#board .piece.winning").all()) == [17, 24, 31, 38]
    page.screenshot(path=ARTIFACTS / "connect-four-won.png")
    # step back through all seven moves and forward again: each position shown
    for ply in range(6, -1, -1):
        page.keyboard.press("ArrowLeft")
        expect(page.locator("#ply-label")).to_have_text(f"move {ply} of 7")
        expect(page.locator("#board .piece")).to_have_count(ply)
    expect(page.locator("#board .winning-line")).to_have_count(0)
    page.click('#moves .move[data-ply="3"]')
    expect(page.locator("#board .piece")).to_have_count(3)
    page.keyboard.press("End")
    expect(page.locator("#board .piece")).to_have_count(7)
    expect(page.locator("#board .winning-line")).to_have_count(1)


@pytest.mark.parametrize("game, options, record, line", [
    ("tictactoe", {}, "{\"moves\": [0, 3, 1, 4]}", [0, 1, 2]),
    ("gomoku", {"board_size": "9"}, "{\"moves\": [0, 9, 1, 10, 2, 11, 3, 12]}",
     [0, 1, 2, 3, 4]),
])
def test_the_winning_line_is_highlighted(page, game, options, record, line):
    start(page, game, agent="random", options=options, record=record)
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    page.click(f'#board .cell[data-cell="{line[-1]}"]')
    expect(page.locator("#banner")).to_contain_text("You win", timeout=10_000)
    expect(page.locator("#board .winning-line")).to_have_count(1)
    assert sorted(int(p.get_attribute("data-at")) for p in
                  page.locator("#board .winning").all()) == line


def test_go_a_capture_by_clicking_is_counted(page):
    # 5x5: black b2, c1, d2 around white's c2; black's click on c3 captures it
    record = json.dumps({"moves": ["b2", "c2", "c1", "a5", "d2", "b5"]})
    start(page, "go", agent="random", options={"board_size": "5"}, record=record)
    status = page.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    assert sorted(pieces(page).values()) == [1, 1, 1, 2, 2, 2]
    page.click(f'#board .cell[data-cell="{2 * 5 + 2}"]')
    expect(status).to_contain_text("captures: Black 1", timeout=AGENT_WAIT)
    expect(moves(page)).to_have_count(8, timeout=AGENT_WAIT)
    assert 3 * 5 + 2 not in pieces(page) or pieces(page)[3 * 5 + 2] == 2  # c2 was taken
    assert page.locator("#buttons button", has_text="pass").count() == 1


def test_resigning_shows_the_banner(page):
    start(page, "othello", agent="random")
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    expect(page.locator("#banner")).to_have_text(re.compile("^The agent wins.*resignation"))
    assert page.locator("#undo").is_disabled() and page.locator("#resign").is_disabled()


# ------------------------------------------------------------------------ interrupts
def simulations(page):
    found = re.search(r"([\d,]+) simulations", page.locator("#summary").inner_text())
    return int(found.group(1).replace(",", "")) if found else 0


def test_othello_a_long_think_is_live_the_page_answers_and_move_now_plays(page):
    start(page, "othello", agent_options={"time_limit": "60"}, seat=1)
    expect(page.locator("#analysis-state")).to_have_text("· searching", timeout=AGENT_WAIT)
    expect(page.locator("#summary")).to_contain_text("simulations", timeout=AGENT_WAIT)
    expect(page.locator("#agent-name")).to_have_text(re.compile("^MCTS · 60.0 s a move"))
    expect(page.locator("#analysis-head")).to_have_text(re.compile("win rate"))
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
    expect(page.locator("#board .piece")).to_have_count(5, timeout=1000)
    print(f"move now -> move on the board: {time.monotonic() - asked:.3f} s")
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"))
    expect(page.locator("#notice")).to_contain_text("best move so far")
    assert moves(page).count() == 1


def test_move_now_during_the_warm_up_plays_at_once(browser):
    fresh = Running(spare_workers=0, idle_workers=0, page_grace=GRACE)
    errors: list[str] = []
    try:
        opened = open_page(browser, fresh.url, errors)
        start(opened, "connect_four", agent_options={"time_limit": "30"}, seat=1)
        expect(opened.locator("#status")).to_contain_text("warming up", timeout=10_000)
        asked = time.monotonic()
        opened.click("#stop")
        expect(opened.locator("#board .piece")).to_have_count(1, timeout=1000)
        assert time.monotonic() - asked < 1.0
        expect(opened.locator("#notice")).to_contain_text("without searching")
        opened.context.close()
    finally:
        fresh.stop()
    assert not errors, errors


def test_undo_clears_the_analysis_of_the_undone_position(page):
    start(page, "connect_four", agent_options={"time_limit": "30"})
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    page.keyboard.press("4")
    expect(page.locator("#summary")).to_contain_text("simulations", timeout=AGENT_WAIT)
    page.click("#undo")
    expect(moves(page)).to_have_count(0)
    expect(page.locator("#summary")).to_have_text("The agent's search appears here while it "
                                                  "thinks.")
    expect(page.locator("#notice")).to_contain_text("search was stopped")
    expect(page.locator("#top-moves tbody tr")).to_have_count(0)


def test_a_policy_agent_lists_its_move_probabilities_and_random_says_it_has_none(page):
    start(page, "tictactoe", agent="ppo", seat=1)
    expect(page.locator("#analysis-head")).to_have_text(re.compile("probability"),
                                                        timeout=AGENT_WAIT)
    expect(page.locator("#summary")).to_contain_text("policy's move probabilities")
    start(page, "tictactoe", agent="random")
    expect(page.locator("#summary")).to_contain_text("no analysis to show", timeout=AGENT_WAIT)


# --------------------------------------------------------- games live with their pages
def test_reloads_and_closed_tabs_leave_no_game_and_no_extra_process(browser, server):
    errors: list[str] = []
    opened = open_page(browser, server.url, errors)
    start(opened, "tictactoe", agent="random")
    expect(opened.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    opened.reload()
    assert settled(server) == (0, len(server.games.pool.processes()))
    baseline = len(server.games.pool.processes())
    for _ in range(5):  # reloads
        expect(opened.locator("#game option")).to_have_count(len(GAMES), timeout=60_000)
        start(opened, "tictactoe", agent="random")
        expect(opened.locator("#status")).to_have_text(re.compile("^Your move"),
                                                       timeout=AGENT_WAIT)
        assert len(server.games.games) == 1
        opened.reload()
        assert_no_leak(server, baseline)
    opened.context.close()
    for _ in range(5):  # tabs closed
        tab = open_page(browser, server.url, errors)
        start(tab, "tictactoe", agent="random")
        expect(tab.locator("#status")).to_have_text(re.compile("^Your move"),
                                                    timeout=AGENT_WAIT)
        tab.context.close()
        assert_no_leak(server, baseline)
    assert not errors, errors


# ------------------------------------------------------------------------------ layout
@pytest.mark.parametrize("width, height", [(1360, 820), (390, 844)])
def test_chess_a_capture_out_of_check_and_a_promotion_by_clicking(browser, server, width,
                                                                  height):
    """White starts in check (its king's square marked), takes the checking rook (e1, then
    e2: the legal targets are marked once the king is picked) and later promotes b7-b8 to a
    knight from the choice of four; the move list is SAN and the PGN download replays in
    python-chess to the position on the board."""
    errors: list[str] = []
    opened = open_page(browser, server.url, errors, width, height)
    start(opened, "chess", agent="random", record="4k3/1P6/8/8/8/8/4r3/4K3 w - - 0 1")
    status = opened.locator("#status")
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    expect(opened.locator("#board .check")).to_have_attribute("data-at", "60")  # e1
    assert pieces(opened)[60] == 1 and opened.locator(
        '#board .piece[data-at="60"]').get_attribute("data-letter") == "K"
    opened.click('#board .cell[data-cell="60"]')
    expect(opened.locator("#board .selected")).to_have_attribute("data-at", "60")
    assert opened.locator("#board .legal").count() == 3  # d1, f1 and the rook on e2
    opened.click('#board .cell[data-cell="52"]')  # Kxe2
    expect(moves(opened).first).to_have_text("Kxe2", timeout=AGENT_WAIT)
    expect(status).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    expect(opened.locator("#board .check")).to_have_count(0)
    opened.click('#board .cell[data-cell="9"]')  # b7
    opened.click('#board .cell[data-cell="1"]')  # b8: a choice of four pieces
    expect(opened.locator("#promotion button")).to_have_count(4)
    opened.click('#promotion button[data-promotion="n"]')
    expect(moves(opened).nth(2)).to_have_text(re.compile(r"^b8=N\+?$"), timeout=AGENT_WAIT)
    expect(status).to_have_text(re.compile("^(Your move|The game is over)"), timeout=AGENT_WAIT)
    assert opened.locator('#board .piece[data-at="1"]').get_attribute("data-letter") == "N"
    pgn_link = opened.locator("#download-pgn")
    expect(pgn_link).to_be_visible()
    text = opened.request.get(server.url.rstrip("/") + pgn_link.get_attribute("href")).text()
    chess_pgn = pytest.importorskip("chess.pgn")
    read = chess_pgn.read_game(io.StringIO(text))
    assert [node.san() for node in read.mainline()][:3:2] == ["Kxe2", moves(opened).nth(2)
                                                            .inner_text()]
    box = opened.locator("#board").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
    opened.screenshot(path=ARTIFACTS / f"chess-{width}.png")
    opened.context.close()
    assert not errors, errors


@pytest.mark.parametrize("width, height", [(390, 844), (1024, 768)])
def test_the_board_is_on_screen_after_start(browser, server, width, height):
    errors: list[str] = []
    opened = open_page(browser, server.url, errors, width, height)
    start(opened, "go", agent="random")
    expect(opened.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    opened.wait_for_timeout(300)  # the scroll to the board
    box = opened.locator("#board").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= height + 1, box
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, box
    opened.screenshot(path=ARTIFACTS / f"layout-{width}.png")
    opened.context.close()
    assert not errors, errors


def test_the_clock_never_shows_sixty_seconds(page):
    start(page, "tictactoe", agent="random", time_control="60+0")
    expect(page.locator("#clocks")).to_be_visible(timeout=AGENT_WAIT)
    texts = set()
    for _ in range(20):
        texts.add(page.locator("#clock-0").inner_text())
        page.wait_for_timeout(100)
    assert all(":60" not in text for text in texts), texts
    assert any(re.search(r" (1:00|0:59)$", text) for text in texts), texts


def _inside(box, outer, slack=1):
    """Whether bounding box ``box`` lies within ``outer`` (x, y, width, height)."""
    return (box["x"] >= outer["x"] - slack and box["y"] >= outer["y"] - slack
            and box["x"] + box["width"] <= outer["x"] + outer["width"] + slack
            and box["y"] + box["height"] <= outer["y"] + outer["height"] + slack)


@pytest.mark.parametrize("width, height", [(390, 844), (1360, 820)])
def test_the_end_of_a_go_game_keeps_its_controls_on_screen_and_the_cards_hold_their_parts(
        browser, server, width, height):
    errors: list[str] = []
    opened = open_page(browser, server.url, errors, width, height)
    viewport = {"x": 0, "y": 0, "width": width, "height": height}
    setup = opened.locator("#setup").bounding_box()
    marker = opened.evaluate("""() => {
        const s = document.querySelector('#setup-details summary');
        const r = s.getBoundingClientRect(), c = s.closest('.card').getBoundingClientRect();
        return {inside: getComputedStyle(s).listStylePosition, left: r.left, card: c.left};
    }""")
    assert marker["inside"] == "inside" and marker["left"] >= marker["card"], marker
    moves = ["C3", "G7", "pass", "pass"]  # the game ends at once with two passes
    start(opened, "go", agent="random", options={"board_size": "9"},
          record=json.dumps({"moves": moves}))
    expect(opened.locator("#banner")).to_be_visible(timeout=AGENT_WAIT)
    opened.wait_for_timeout(300)  # the scroll to the board
    opened.screenshot(path=ARTIFACTS / f"go-end-{width}.png")
    if width > 1100:  # a desktop shows the whole card: the board and its controls
        for part in ("#banner", "#board", "#controls"):
            box = opened.locator(part).bounding_box()
            assert _inside(box, viewport), (part, box)
    for part in ("#status", "#board", "#controls"):
        assert _inside(opened.locator(part).bounding_box(),
                       opened.locator("#play").bounding_box()), part
    assert setup["x"] >= 0
    opened.context.close()
    assert not errors, errors


def test_a_phone_shows_gomokus_heat_map_counts_readably_and_the_status_in_whole_phrases(
        browser, server):
    errors: list[str] = []
    opened = open_page(browser, server.url, errors, 390, 844)
    start(opened, "gomoku", agent="mcts", agent_options={"simulations": "3000"}, seat=1)
    expect(opened.locator("#board .heat-count").first).to_be_visible(timeout=AGENT_WAIT)
    sizes = opened.evaluate("""() => [...document.querySelectorAll('#board .heat-count')]
        .map((t) => t.getBoundingClientRect().height)""")
    assert min(sizes) >= 9, sizes  # pixels on the screen, not units of the board's drawing
    phrases = opened.evaluate("""() => [...document.querySelectorAll('#status .phrase')]
        .map((p) => p.getClientRects().length)""")
    assert phrases and all(n == 1 for n in phrases), phrases
    opened.screenshot(path=ARTIFACTS / "gomoku-phone.png")
    opened.context.close()
    assert not errors, errors


_DRAW_COUNTS = """async ([id, visits]) => {
    const { drawBoard } = await import('/static/board.js');
    const view = await (await fetch(`/api/games/${id}`)).json();
    const moves = Object.keys(view.board.targets).slice(0, visits.length)
        .map((action, k) => ({ action: Number(action), visits: visits[k] }));
    const svg = document.getElementById('board');
    drawBoard(svg, view.game, view, { playable: false, heat: true, analysis: { moves },
                                      dead: null, selected: null });
    return [...svg.querySelectorAll('.heat-count')].map((text) => {
        // the cell: the heat square before the count, with its 3-unit margin
        const box = text.getBBox(), square = text.previousElementSibling.getBBox();
        return { text: text.textContent, box: { x: box.x, y: box.y, width: box.width,
                 height: box.height }, cell: { x: square.x - 3, y: square.y - 3,
                 width: square.width + 6, height: square.height + 6 } };
    });
}"""


@pytest.mark.parametrize("visits, texts", [
    ([262_475, 999_999, 500_000], ["262k", "999k", "500k"]),  # four characters
    ([98_765, 60_000, 25_000], ["99k", "60k", "25k"]),  # three, at the full size
    ([999, 900, 700], ["999", "900", "700"]),
])
def test_heat_map_counts_stay_inside_their_cells_however_many_visits(page, visits, texts):
    """Othello's heat-map after a long search: its counts (as drawn by the page, bold) lie
    inside their cells' squares, also at a quarter of a million visits."""
    start(page, "othello", agent="random")
    expect(page.locator("#status")).to_have_text(re.compile("^Your move"), timeout=AGENT_WAIT)
    game = re.search(r"/api/games/([^/]+)/", page.locator("#download-jsonl").get_attribute(
        "href"))
    drawn = page.evaluate(_DRAW_COUNTS, [game.group(1), visits])
    assert sorted(d["text"] for d in drawn) == sorted(texts)
    for count in drawn:
        assert _inside(count["box"], count["cell"]), count
