"""`boardzoo serve`'s app through Starlette's TestClient: the Host/Origin guard on HTTP and
WebSocket, every malformed request answered with a 4xx and a message, games played against
agents in their worker processes, undo/swap, records out and back in, idle clean-up."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx2", reason="Starlette's TestClient needs httpx2 (dev extra)")

from starlette.testclient import TestClient  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from boardzoo.web.app import MAX_BODY, create_app  # noqa: E402
from boardzoo.web.security import loopback_hosts  # noqa: E402

ORIGIN = {"Origin": "http://testserver"}
WAIT = 180.0  # seconds: a fresh worker imports boardzoo and compiles its search first


@pytest.fixture(scope="module")
def client():
    app = create_app(["testserver"], spare_workers=0)
    with TestClient(app, base_url="http://testserver") as test_client:
        yield test_client


@pytest.fixture(autouse=True)
def close_games_after(request):
    """Every test's games are closed after it (at most max_games may be open)."""
    yield
    if "client" in request.fixturenames:
        client = request.getfixturevalue("client")
        for game_id in list(client.app.state.games.games):
            post(client, f"/api/games/{game_id}/close")


def post(client, path, body=None, **kwargs):
    headers = {**ORIGIN, **kwargs.pop("headers", {})}
    return client.post(path, json={} if body is None else body, headers=headers, **kwargs)


def new_game(client, **settings):
    response = post(client, "/api/games", {"agent": "random", **settings})
    assert response.status_code == 201, response.text
    return response.json()


def wait_for(client, game_id, predicate, timeout=WAIT):
    """The game's view once ``predicate(view)`` holds (polled; the server answers meanwhile)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/api/games/{game_id}").json()
        if predicate(view):
            return view
        time.sleep(0.05)
    raise AssertionError(f"timed out; last view: {view}")


# --------------------------------------------------------------------------- the guard
def test_loopback_hosts_name_every_loopback_spelling():
    assert loopback_hosts("127.0.0.1", 8000) == ["127.0.0.1:8000", "[::1]:8000",
                                                 "localhost:8000"]
    assert "[::1]:9000" in loopback_hosts("::1", 9000)


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example",
                                  "testserver.evil.example", ""])
def test_a_foreign_host_is_refused_and_the_server_keeps_serving(client, host):
    response = client.get("/api/catalog", headers={"Host": host})
    assert response.status_code == 403
    assert "not this server's" in response.json()["error"]
    assert client.get("/api/catalog").status_code == 200


def test_dns_rebinding_is_refused_even_with_a_matching_origin(client):
    # the rebinding page's Host and Origin agree with each other, not with the server
    headers = {"Host": "attacker.example:8000", "Origin": "http://attacker.example:8000"}
    assert client.post("/api/games", json={"game": "nim"}, headers=headers).status_code == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://testserver",
                                    "http://testserver.evil.example"])
def test_a_cross_site_request_is_refused(client, origin):
    response = client.post("/api/games", json={"game": "nim"}, headers={"Origin": origin})
    assert response.status_code == 403
    assert "cross-site" in response.json()["error"]
    assert client.get("/api/catalog", headers={"Origin": origin}).status_code == 403


def test_a_state_changing_request_needs_an_origin(client):
    response = client.post("/api/games", json={"game": "nim"})
    assert response.status_code == 403
    assert "Origin" in response.json()["error"]


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"}, {},
                                     {"Host": "evil.example", "Origin": "http://evil.example"}])
def test_a_foreign_websocket_handshake_is_refused(client, headers):
    game = new_game(client, game="nim")
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect(f"/api/games/{game['id']}/live", headers=headers):
            pass
    assert refused.value.code == 1008


def test_no_get_changes_state(client):
    game = new_game(client, game="tictactoe")
    for command in ("move", "undo", "swap", "stop", "close"):
        assert client.get(f"/api/games/{game['id']}/{command}").status_code == 405
    assert client.post("/api/catalog", json={}, headers=ORIGIN).status_code == 405
    assert client.get(f"/api/games/{game['id']}").json()["moves"] == []


# ------------------------------------------------------------------ malformed requests
@pytest.mark.parametrize("body, content_type, status, words", [
    (b"{not json", "application/json", 400, "not valid JSON"),
    (b"[1, 2]", "application/json", 400, "JSON object"),
    (b'{"game": "nim"}', "text/plain", 415, "Content-Type"),
    (b'{"game": "shogi"}', "application/json", 400, "unknown game 'shogi'"),
    (b'{"game": "go", "options": {"board_size": "40"}}', "application/json", 400, "board_size"),
    (b'{"game": "go", "options": {"colour": "red"}}', "application/json", 400,
     "unexpected keyword argument 'colour'"),
    (b'{"game": "go", "options": [1]}', "application/json", 400, "game options"),
    (b'{"game": "nim", "agent": "deep-blue"}', "application/json", 400, "unknown opponent"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"simulations": "a,b=c"}}',
     "application/json", 400, "whole number"),
    ('{"game": "nim", "agent": "mcts", "agent_options": {"simulations": "²"}}'.encode(),
     "application/json", 400, "whole number"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"simulations": "-5"}}',
     "application/json", 400, "simulations"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"speed": "9"}}',
     "application/json", 400, "unknown option 'speed' for mcts; the page offers"),
    (b'{"game": "tictactoe", "agent": "alphazero", "agent_options": {"checkpoint": "/etc/passwd"}}',
     "application/json", 400, "does not play"),
    (b'{"game": "nim", "human_seat": 2}', "application/json", 400, "human_seat"),
    (b'{"game": "tictactoe", "record": "XXXXXXXXX"}', "application/json", 400, "position"),
    (b'{"game": "tictactoe", "record": "{\\"moves\\": [4, 4]}"}', "application/json", 400,
     "move 2"),
    # another game's record whose moves happen to be legal here
    (b'{"game": "connect_four", "record": "{\\"game\\": \\"tictactoe\\", \\"moves\\": [0, 1]}"}',
     "application/json", 400, "a record of 'tictactoe', not of connect_four"),
    (b'{"game": "connect_four", "record": "{\\"moves\\": [0, 1], '
     b'\\"final_position\\": \\"XO.......\\"}"}', "application/json", 400,
     "this record is not one of"),
])
def test_a_malformed_new_game_is_a_4xx_with_a_message(client, body, content_type, status, words):
    response = client.post("/api/games", content=body,
                           headers={**ORIGIN, "Content-Type": content_type})
    assert response.status_code == status, response.text
    assert words in response.json()["error"]


def test_an_oversized_body_is_refused(client):
    body = json.dumps({"game": "go", "record": "x" * (MAX_BODY + 1)})
    response = client.post("/api/games", content=body,
                           headers={**ORIGIN, "Content-Type": "application/json"})
    assert response.status_code == 413
    assert client.get("/api/catalog").status_code == 200


def test_unknown_ids_and_routes_are_404(client):
    assert client.get("/api/games/nope").status_code == 404
    assert "no open game" in client.get("/api/games/nope").json()["error"]
    assert post(client, "/api/games/nope/move", {"action": 0, "ply": 0}).status_code == 404
    assert post(client, "/api/games/nope/undo").status_code == 404
    assert client.get("/api/nothing-here").status_code == 404
    with pytest.raises(WebSocketDisconnect) as closed:
        with client.websocket_connect("/api/games/nope/live", headers=ORIGIN) as ws:
            ws.receive_json()
    assert closed.value.code == 4404


@pytest.mark.parametrize("path", [
    "/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py", "/static/%2e%2e%2fapp.py",
    "/static/..%5capp.py", "/static/%2e%2e/%2e%2e/__init__.py", "/static//etc/passwd",
    "/static/%2fetc%2fpasswd", "/static/../../../../../../etc/passwd", "/..%2f..%2fetc/passwd",
])
def test_only_the_pages_own_files_are_served(client, path):
    response = client.get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)
    assert "import" not in response.text and "root:" not in response.text


def test_the_page_and_its_modules_are_served_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and '<script type="module"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["x-frame-options"] == "DENY"
    for name in ("main.js", "api.js", "board.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200


def test_the_catalog_lists_every_game_and_the_shipped_checkpoints(client):
    catalog = client.get("/api/catalog").json()
    names = [g["name"] for g in catalog["games"]]
    assert names[:6] == ["tictactoe", "nim", "connect_four", "othello", "go", "gomoku"]
    go = next(g for g in catalog["games"] if g["name"] == "go")
    assert {"name": "board_size", "default": "9", "type": "int"} in go["options"]
    shipped = {(c["agent"], c["name"]) for c in catalog["checkpoints"]}
    assert {("alphazero", "tictactoe"), ("ppo", "tictactoe")} <= shipped
    assert {a["name"] for a in catalog["agents"]} == {"random", "alphabeta", "mcts",
                                                      "alphazero", "ppo"}


# --------------------------------------------------------------------------- playing
def test_moves_are_checked_against_the_position(client):
    game = new_game(client, game="tictactoe")
    gid = game["id"]
    assert post(client, f"/api/games/{gid}/move", {"action": 9, "ply": 0}).status_code == 400
    assert "out of range" in post(client, f"/api/games/{gid}/move",
                                  {"action": 9, "ply": 0}).json()["error"]
    assert post(client, f"/api/games/{gid}/move", {"action": "z9", "ply": 0}).status_code == 400
    assert post(client, f"/api/games/{gid}/move", {"action": 4.0, "ply": 0}).status_code == 400
    assert post(client, f"/api/games/{gid}/move", {"action": None, "ply": 0}).status_code == 400
    stale = post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 3})
    assert stale.status_code == 409 and "ply" in stale.json()["error"]
    assert post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 0}).status_code == 200
    view = wait_for(client, gid, lambda v: len(v["moves"]) == 2)  # the random reply
    taken = post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 2})
    assert taken.status_code == 400 and "not legal" in taken.json()["error"]
    assert view["board"]["cells"][1][1] == 1
    assert client.get(f"/api/games/{gid}").json()["moves"] == view["moves"]


def test_mcts_answers_the_centre_with_a_corner_and_undo_takes_both_back(client):
    # tic-tac-toe: after X takes the centre, every edge reply loses; only corners draw
    game = new_game(client, game="tictactoe", agent="mcts",
                    agent_options={"simulations": "3000", "time_limit": ""})
    gid = game["id"]
    with client.websocket_connect(f"/api/games/{gid}/live", headers=ORIGIN) as ws:
        assert ws.receive_json()["type"] == "view"
        post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 0})
        while True:
            message = ws.receive_json()
            if message["type"] == "view" and len(message["view"]["moves"]) == 2:
                break
    view = message["view"]
    assert view["moves"][1] in ("a1", "c1", "a3", "c3")
    analysis = view["analysis"]  # boardzoo.analysis.Analysis.to_json()
    assert analysis["engine"] == "mcts" and analysis["nodes"] == 3000 and analysis["final"]
    assert analysis["move"] == view["moves"][1] == analysis["moves"][0]["move"]
    assert sum(m["visits"] for m in analysis["moves"]) >= 3000 - 1
    assert view["last_move"]["move"] == view["moves"][1]
    undone = post(client, f"/api/games/{gid}/undo").json()
    assert undone["moves"] == [] and undone["board"]["cells"] == [[0] * 3] * 3
    assert post(client, f"/api/games/{gid}/undo").status_code == 400  # nothing left


def test_every_change_is_a_newer_revision_so_a_late_http_answer_is_recognised(client):
    # the move's HTTP answer (agent thinking) and the pushed reply (agent moved) can reach
    # the page in either order: the reply must carry the higher revision
    game = new_game(client, game="tictactoe")
    gid = game["id"]
    with client.websocket_connect(f"/api/games/{gid}/live", headers=ORIGIN) as ws:
        first = ws.receive_json()["view"]
        answered = post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 0}).json()
        pushed = [first]
        while len(pushed[-1]["moves"]) < 2:
            message = ws.receive_json()
            if message["type"] == "view":
                pushed.append(message["view"])
    revisions = [v["revision"] for v in pushed]
    assert revisions == sorted(set(revisions))  # strictly increasing
    assert answered["thinking"] and len(answered["moves"]) == 1
    assert pushed[-1]["revision"] > answered["revision"] >= first["revision"]


def test_a_change_while_the_feed_opens_is_never_pushed_before_or_after_a_newer_view(
        client, monkeypatch):
    # a change that lands between the page's subscription and the first view (the agent's
    # worker getting ready while the WebSocket handshake runs) must not reach the page as a
    # view older than, or as old as, the one it already got
    games = client.app.state.games
    subscribe = games.subscribe

    def subscribe_then_change(session):
        queue = subscribe(session)
        games._changed(games.games[session.id])  # lands while the socket is being accepted
        return queue

    monkeypatch.setattr(games, "subscribe", subscribe_then_change)
    gid = new_game(client, game="tictactoe")["id"]
    with client.websocket_connect(f"/api/games/{gid}/live", headers=ORIGIN) as ws:
        pushed = [ws.receive_json()["view"]]
        post(client, f"/api/games/{gid}/move", {"action": 4, "ply": 0})
        while len(pushed[-1]["moves"]) < 2:
            message = ws.receive_json()
            if message["type"] == "view":
                pushed.append(message["view"])
    revisions = [v["revision"] for v in pushed]
    assert revisions == sorted(set(revisions)), revisions


def test_the_view_says_which_games_have_an_exact_solver_for_the_page_to_explain_its_wait(
        client):
    # alpha-beta and MCTS run Connect Four's and Othello's solver first, reporting nothing
    # meanwhile
    solvers = {name: new_game(client, game=name)["game"]["exact_solver"]
               for name in ("connect_four", "othello", "go")}
    assert solvers == {"connect_four": True, "othello": True, "go": False}


def test_swap_sides_makes_the_agent_move(client):
    game = new_game(client, game="connect_four")
    gid = game["id"]
    swapped = post(client, f"/api/games/{gid}/swap").json()
    assert swapped["human_seat"] == 1
    view = wait_for(client, gid, lambda v: len(v["moves"]) == 1)
    assert view["board"]["to_play"] == 1 and not view["thinking"]
    assert sum(map(sum, view["board"]["cells"])) == 1  # one player_0 disc
    # a click anywhere in a column plays that column (actions are columns)
    assert view["board"]["clicks"]["0"] == 0 and view["board"]["clicks"]["35"] == 0


def test_go_captures_are_shown_and_counted(client):
    # 5x5: white's c2 stone is surrounded by b2, c1, d2; black c3 captures it
    moves = ["b2", "c2", "c1", "a5", "d2", "b5"]
    record = json.dumps({"opening": [], "moves": moves})
    game = new_game(client, game="go", options={"board_size": "5"}, record=record)
    gid = game["id"]
    assert game["moves"] == [m.upper() for m in moves] and game["board"]["to_play"] == 0
    c3 = game["board"]["clicks"][str(2 * 5 + 2)]  # row 2 from the top, column c
    view = post(client, f"/api/games/{gid}/move", {"action": c3, "ply": 6}).json()
    assert view["captures"] == [1, 0]
    assert view["changed"] == [3 * 5 + 2]  # the captured stone on c2
    assert view["board"]["cells"][3][2] == 0 and view["board"]["counts"][1] == 2
    assert [b["label"] for b in view["board"]["buttons"]] == ["pass"]


def test_records_download_and_load_back(client):
    game = new_game(client, game="go", options={"board_size": "5"})
    gid = game["id"]
    for ply in (0, 2):
        view = client.get(f"/api/games/{gid}").json()
        action = int(next(iter(view["board"]["clicks"].values())))
        post(client, f"/api/games/{gid}/move", {"action": action, "ply": ply})
        view = wait_for(client, gid, lambda v, n=ply + 2: len(v["moves"]) == n)
    line = client.get(f"/api/games/{gid}/record?format=jsonl")
    assert line.headers["content-disposition"].endswith('.jsonl"')
    record = json.loads(line.text)
    assert len(record["moves"]) == 4 and record["agent_a_seat"] == 0
    sgf = client.get(f"/api/games/{gid}/record?format=sgf").text.strip()
    assert sgf.startswith("(;") and "SZ[5]" in sgf
    from_record = new_game(client, game="go", options={"board_size": "5"}, record=line.text)
    assert from_record["moves"] == view["moves"]  # replayed: undo reaches the start
    from_sgf = new_game(client, game="go", options={"board_size": "5"}, record=sgf)
    assert from_sgf["board"]["cells"] == view["board"]["cells"]
    tictactoe = new_game(client, game="tictactoe")
    assert client.get(f"/api/games/{tictactoe['id']}/record?format=sgf").status_code == 400
    assert client.get(f"/api/games/{gid}/record?format=pdf").status_code == 400


def test_a_pasted_position_starts_the_game_there(client):
    game = new_game(client, game="nim", options={"heaps": "3,4,5", "max_take": "none"},
                    record="1,0,2 0")
    assert game["board"]["cells"] == [[1, 0, 0, 0, 0], [0] * 5, [1, 1, 0, 0, 0]]
    assert game["start"] == "1,0,2 0"
    # clicking the second stone of heap 3 takes it and every stone to its right
    action = game["board"]["clicks"][str(2 * 5 + 1)]
    assert game["board"]["legal"][str(action)] == "3:1"


def test_idle_games_are_cleaned_up(client):
    game = new_game(client, game="nim")
    games = client.app.state.games
    closed = client.portal.call(games.sweep, time.monotonic() + 10 * games.idle_seconds)
    assert game["id"] in closed
    assert client.get(f"/api/games/{game['id']}").status_code == 404


def test_too_many_games_is_a_429():
    app = create_app(["testserver"], max_games=1, spare_workers=0)
    with TestClient(app, base_url="http://testserver") as small:
        assert new_game(small, game="nim")["id"]
        refused = post(small, "/api/games", {"game": "nim"})
        assert refused.status_code == 429 and "games are open" in refused.json()["error"]


def test_serve_refuses_a_bad_port(capsys):
    from boardzoo.cli import main

    assert main(["serve", "--port", "70000"]) == 2
    assert "--port 70000" in capsys.readouterr().err


# ------------------------------------------------------------ live search, clocks, ponder
def test_the_search_is_live_the_server_answers_and_move_now_stops_it(client):
    game = new_game(client, game="othello", agent="mcts", human_seat=1,
                    agent_options={"time_limit": "60"})
    gid = game["id"]
    nodes = []
    with client.websocket_connect(f"/api/games/{gid}/live", headers=ORIGIN) as ws:
        while len(nodes) < 3:
            message = ws.receive_json()
            if message["type"] == "analysis":
                nodes.append(message["analysis"]["nodes"])
                assert message["analysis"]["final"] is False
        while_thinking = client.get(f"/api/games/{gid}")  # the event loop is not searching
        assert while_thinking.status_code == 200 and while_thinking.json()["thinking"]
        asked = time.monotonic()
        assert post(client, f"/api/games/{gid}/stop").status_code == 200
        while True:
            message = ws.receive_json()
            if message["type"] == "view" and message["view"]["moves"]:
                break
    answered = time.monotonic() - asked
    assert nodes == sorted(nodes) and nodes[-1] > nodes[0]  # visits grow between reports
    assert answered < 5.0, answered  # stopped, not the 60 s time limit
    view = message["view"]
    assert view["analysis"]["final"] is True and view["analysis"]["move"] == view["moves"][0]
    assert view["analysis"]["nodes"] >= nodes[-1]
    assert post(client, f"/api/games/{gid}/stop").status_code == 400  # not thinking now


def test_a_go_search_reports_an_ownership_map(client):
    game = new_game(client, game="go", options={"board_size": "5"}, agent="mcts",
                    human_seat=1, agent_options={"simulations": "300", "time_limit": ""})
    view = wait_for(client, game["id"], lambda v: len(v["moves"]) == 1)
    ownership = view["analysis"]["ownership"]
    assert len(ownership) == 25 and all(-1 <= v <= 1 for v in ownership)


def test_a_clock_that_runs_out_loses_the_game(client):
    game = new_game(client, game="tictactoe", time_control="0.3/move")
    assert game["clock"]["control"] == "0.3/move" and game["clock"]["running"] == 0
    view = wait_for(client, game["id"], lambda v: v["clock"]["flagged"] is not None, timeout=10)
    assert view["clock"]["flagged"] == 0 and view["clock"]["running"] is None
    late = post(client, f"/api/games/{game['id']}/move", {"action": 4, "ply": 0})
    assert late.status_code == 400 and "game is over" in late.json()["error"]
    record = client.get(f"/api/games/{game['id']}/record").json()
    assert record["returns"] == [-1.0, 1.0] and record["score"] == 0.0


def test_the_agent_moves_on_its_clock(client):
    game = new_game(client, game="connect_four", agent="mcts", human_seat=1,
                    agent_options={"time_limit": ""}, time_control="20+1")
    view = wait_for(client, game["id"], lambda v: len(v["moves"]) == 1)
    clock = view["clock"]
    assert clock["running"] == 1 and clock["flagged"] is None
    spent = view_seconds = client.get(f"/api/games/{game['id']}/record").json()["seconds"][0]
    assert 0 < spent < 20 and view_seconds == spent
    # main time left = 20 - spent + the 1 s increment
    assert abs(clock["seats"][0]["remaining"] - (21 - spent)) < 1e-6


@pytest.mark.parametrize("control", ["fast", "-5", "60+x", "0/move"])
def test_a_malformed_time_control_is_a_400(client, control):
    response = post(client, "/api/games", {"game": "nim", "time_control": control})
    assert response.status_code == 400 and "time control" in response.json()["error"]


def test_a_pondering_agent_still_answers(client):
    game = new_game(client, game="tictactoe", agent="mcts", ponder=True,
                    agent_options={"simulations": "300", "time_limit": ""})
    post(client, f"/api/games/{game['id']}/move", {"action": 0, "ply": 0})
    view = wait_for(client, game["id"], lambda v: len(v["moves"]) == 2)
    post(client, f"/api/games/{game['id']}/move",
         {"action": int(next(iter(view["board"]["clicks"].values()))), "ply": 2})
    assert len(wait_for(client, game["id"], lambda v: len(v["moves"]) == 4)["moves"]) == 4


def test_a_go_suicide_is_clicked_at_its_own_point():
    # suicide allowed: black's B1 takes its own A1 with it; the click is B1, not A1
    from boardzoo.envs import make_game
    from boardzoo.web.board import action_targets

    game = make_game("go", board_size=5, suicide=True)
    state = game.parse_position("(;GM[1]FF[4]SZ[5]KM[7.5]AB[ae]AW[ad][bd][ce]PL[B])")
    b1 = game.str_to_action("B1")
    assert game.cells(game.step(state, b1))[4].tolist() == [0, 0, 2, 0, 0]  # both gone
    targets = action_targets(game, state)
    assert targets[b1] == 4 * 5 + 1
    assert len({t for t in targets.values() if t is not None}) == len(
        [t for t in targets.values() if t is not None])  # one action per cell


# ----------------------------------------------------------- the limits of the API
@pytest.mark.parametrize("agent, options, words", [
    ("mcts", {"threads": "256"}, "unknown option 'threads' for mcts"),
    ("mcts", {"time_limit": "1e9"}, "from 0.01 to 60"),
    ("mcts", {"time_limit": "nan"}, "number of seconds"),
    ("mcts", {"simulations": "3000000"}, "from 1 to 2e+06"),
    ("alphabeta", {"depth": "100"}, "from 1 to 40"),
    ("alphazero", {"checkpoint": "tictactoe", "simulations": "1000000"}, "from 1 to 50000"),
    ("random", {"seed": "1"}, "the page offers: none"),
])
def test_the_api_takes_only_what_the_form_offers(client, agent, options, words):
    response = post(client, "/api/games", {"game": "tictactoe", "agent": agent,
                                           "agent_options": options})
    assert response.status_code == 400 and words in response.json()["error"]


def test_the_forms_bounds_are_in_the_catalog_and_the_spec_carries_the_tree_limit(client):
    from boardzoo.web.catalog import TREE_NODES

    mcts = next(a for a in client.get("/api/catalog").json()["agents"] if a["name"] == "mcts")
    assert {(o["name"], o["low"], o["high"]) for o in mcts["options"]} == {
        ("time_limit", 0.01, 60.0), ("simulations", 1, 2_000_000)}
    game = new_game(client, game="nim", agent="mcts", agent_options={"time_limit": "0.5"})
    assert game["agent"] == f"mcts:time_limit=0.5,max_nodes={TREE_NODES}"
    assert game["agent_info"]["settings"] == [["time_limit", "0.5"],
                                              ["max_nodes", str(TREE_NODES)]]


@pytest.mark.parametrize("body, words", [
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper"),
    (b'{"game": "nim", "options": {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}}',
     "nested deeper"),
    (b'{"game": "nim", "human_seat": ' + b"9" * 5000 + b"}", "5000 digits"),
    (b'{"game": "go", "options": {"komi": "1e300"}}', "komi"),
    (b'{"game": "go", "options": {"komi": 1e300}}', "komi"),
    (b'{"game": "tictactoe", "record": "{\\"moves\\": ' + b"[" * 5000 + b"]" * 5000 + b'}"}',
     "record"),
    (b'{"game": "' + b"x" * 200_000 + b'"}', "unknown game"),
    (b'{"game": "nim", "agent": "' + b"y" * 200_000 + b'"}', "unknown opponent"),
])
def test_hostile_bodies_get_a_short_one_line_4xx(client, body, words):
    response = client.post("/api/games", content=body,
                           headers={**ORIGIN, "Content-Type": "application/json"})
    message = response.json()["error"]
    assert response.status_code == 400 and words in message, message
    assert len(message) <= 300 and "\n" not in message


def test_serving_beyond_loopback_needs_an_explicit_opt_in(capsys):
    from boardzoo.cli import main
    from boardzoo.web.security import check_bind, is_loopback

    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "--allow-remote NAME" in capsys.readouterr().err
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    check_bind("0.0.0.0", ["mybox.lan"])  # opted in: no error
    check_bind("127.0.0.1", [])


def test_a_connection_dribbling_its_headers_is_closed():
    """Through uvicorn with the page's protocol: a request head not complete within
    HEAD_SECONDS closes the connection; a normal request on another is answered."""
    import socket
    import threading

    import uvicorn

    from boardzoo.web.security import HeadTimeoutProtocol

    class Quick(HeadTimeoutProtocol):
        head_seconds = 0.5

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(loopback_hosts("127.0.0.1", port), spare_workers=0)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, http=Quick,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        with socket.create_connection(("127.0.0.1", port)) as slow:
            slow.sendall(b"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1")  # never finished
            slow.settimeout(5)
            started = time.monotonic()
            assert slow.recv(1024) == b""  # closed by the server
            assert time.monotonic() - started < 3
        with socket.create_connection(("127.0.0.1", port)) as fast:
            fast.sendall(f"GET /api/catalog HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         "Connection: close\r\n\r\n".encode())
            fast.settimeout(10)
            assert fast.recv(64).startswith(b"HTTP/1.1 200")
    finally:
        server.should_exit = True
        thread.join(30)


# ------------------------------------------------------ games that live with their page
@pytest.fixture(scope="module")
def quick():
    """A server whose games end 0.5 s after their last page goes."""
    app = create_app(["testserver"], spare_workers=0, idle_workers=1, page_grace=0.5)
    with TestClient(app, base_url="http://testserver") as test_client:
        yield test_client


def test_a_game_ends_when_its_page_goes_and_its_worker_serves_the_next_game(quick):
    pool = quick.app.state.games.pool
    first = new_game(quick, game="tictactoe")
    wait_for(quick, first["id"], lambda v: v["warm"])
    worker = quick.app.state.games.games[first["id"]].worker
    with quick.websocket_connect(f"/api/games/{first['id']}/live", headers=ORIGIN) as ws:
        assert ws.receive_json()["type"] == "view"
    deadline = time.monotonic() + 10
    while quick.get(f"/api/games/{first['id']}").status_code != 404:
        assert time.monotonic() < deadline, "the game outlived its page"
        time.sleep(0.1)
    while worker not in pool.idle:
        assert time.monotonic() < deadline, "the worker was not released"
        time.sleep(0.05)
    second = new_game(quick, game="tictactoe")
    assert quick.app.state.games.games[second["id"]].worker is worker  # warm: reused
    assert wait_for(quick, second["id"], lambda v: v["warm"], timeout=5)["warm"]
    assert [w.pid for w in pool.processes()] == [worker.pid]


def test_a_new_game_asked_for_right_after_closing_one_gets_its_warm_worker(quick):
    pool = quick.app.state.games.pool
    first = new_game(quick, game="nim")
    wait_for(quick, first["id"], lambda v: v["warm"])
    before = {w.pid for w in pool.processes()}
    worker = quick.app.state.games.games[first["id"]].worker
    assert post(quick, f"/api/games/{first['id']}/close").status_code == 200
    second = new_game(quick, game="nim")  # at once, as the page's New game does
    assert quick.app.state.games.games[second["id"]].worker is worker
    assert {w.pid for w in pool.processes()} == before
    post(quick, f"/api/games/{second['id']}/close")


def test_a_page_back_within_the_grace_keeps_its_game(quick):
    game = new_game(quick, game="nim")
    for _ in range(3):  # reconnects, as a page does after a dropped connection
        with quick.websocket_connect(f"/api/games/{game['id']}/live", headers=ORIGIN) as ws:
            assert ws.receive_json()["view"]["id"] == game["id"]
        time.sleep(0.2)
        assert quick.get(f"/api/games/{game['id']}").status_code == 200


def test_the_full_message_says_how_many_are_open_and_how_to_free_one():
    app = create_app(["testserver"], max_games=2, spare_workers=0, page_grace=3)
    with TestClient(app, base_url="http://testserver") as small:
        first, _ = new_game(small, game="nim"), new_game(small, game="nim")
        with small.websocket_connect(f"/api/games/{first['id']}/live", headers=ORIGIN) as ws:
            ws.receive_json()
            refused = post(small, "/api/games", {"game": "nim"})
        message = refused.json()["error"]
        assert refused.status_code == 429
        assert message.startswith("2 games are open") and "1 in open pages" in message
        assert "1 without a page" in message and "Close one of those tabs" in message


# ------------------------------------------------------------ interrupts and results
def test_closing_a_game_mid_search_frees_its_worker_within_a_second(quick):
    """Connect Four MCTS with 60 s a move (its exact solver once ignored stop and close)."""
    pool = quick.app.state.games.pool
    game = new_game(quick, game="connect_four", agent="mcts", human_seat=1,
                    agent_options={"time_limit": "60"})
    wait_for(quick, game["id"], lambda v: v["searching"])
    worker = quick.app.state.games.games[game["id"]].worker
    asked = time.monotonic()
    post(quick, f"/api/games/{game['id']}/close")
    while worker not in pool.idle:
        assert time.monotonic() - asked < 1.0, "the search did not stop"
        time.sleep(0.02)
    assert worker.alive() and not worker.pending


def test_move_now_answers_within_a_second_and_says_what_happened(client):
    game = new_game(client, game="connect_four", agent="mcts", human_seat=1,
                    agent_options={"time_limit": "60"})
    gid = game["id"]
    wait_for(client, gid, lambda v: v["searching"])
    time.sleep(0.5)
    asked = time.monotonic()
    assert post(client, f"/api/games/{gid}/stop").status_code == 200
    view = wait_for(client, gid, lambda v: len(v["moves"]) == 1, timeout=1.0)
    assert time.monotonic() - asked < 1.0
    assert "plays its best move so far" in view["notice"]
    assert view["analysis"]["final"] and view["analysis"]["move"] == view["moves"][0]


def test_move_now_during_the_warm_up_plays_a_quick_move_at_once():
    app = create_app(["testserver"], spare_workers=0, idle_workers=0)
    with TestClient(app, base_url="http://testserver") as fresh:
        # X to move on b2.. : X wins at once on c1 (the quick move finds it)
        game = new_game(fresh, game="tictactoe", agent="mcts", human_seat=1,
                        record="XX.OO....")
        assert not game["warm"] and game["thinking"]  # a fresh process: still starting
        view = post(fresh, f"/api/games/{game['id']}/stop").json()
        assert view["moves"] == ["c1"] and view["result"]["winner"] == 0
        assert "without searching" in view["notice"] and not view["thinking"]


@pytest.mark.slow
def test_the_status_line_says_what_the_warm_up_compiles(tmp_path, monkeypatch):
    """A worker with an empty compile cache: the view names what compiles while the agent
    warms up, and nothing once it is warm."""
    monkeypatch.setenv("BOARDZOO_CACHE_DIR", str(tmp_path))  # the spawned worker's cache
    app = create_app(["testserver"], spare_workers=0, idle_workers=0)
    with TestClient(app, base_url="http://testserver") as fresh:
        game = new_game(fresh, game="nim", agent="mcts", human_seat=1)
        view = wait_for(fresh, game["id"],
                        lambda v: "compiling nim: the MCTS search" in (v["compiling"] or ""))
        assert not view["warm"]
        assert wait_for(fresh, game["id"], lambda v: v["warm"])["compiling"] is None


def test_undo_during_a_search_stops_it_and_clears_the_analysis(client):
    game = new_game(client, game="othello", agent="mcts", agent_options={"time_limit": "60"})
    gid = game["id"]
    action = int(next(iter(game["board"]["clicks"].values())))
    post(client, f"/api/games/{gid}/move", {"action": action, "ply": 0})
    wait_for(client, gid, lambda v: v["analysis"] is not None)  # a progress report
    undone = post(client, f"/api/games/{gid}/undo").json()
    assert undone["moves"] == [] and undone["analysis"] is None and not undone["thinking"]
    assert "search was stopped" in undone["notice"]
    time.sleep(0.5)  # the stopped search's last reports are dropped, not shown
    assert client.get(f"/api/games/{gid}").json()["analysis"] is None


def test_resigning_ends_the_game_for_the_agent(client):
    game = new_game(client, game="connect_four")
    view = post(client, f"/api/games/{game['id']}/resign").json()
    assert view["result"] == {"winner": 1, "reason": "resignation", "detail": None}
    assert post(client, f"/api/games/{game['id']}/undo").status_code == 400
    assert post(client, f"/api/games/{game['id']}/resign").status_code == 400
    record = client.get(f"/api/games/{game['id']}/record").json()
    assert record["returns"] == [-1.0, 1.0] and record["score"] == 0.0


def test_stepping_through_a_finished_game_shows_each_position(client):
    moves = [3, 2, 3, 2, 3, 2, 3]  # Connect Four: a vertical four in column d
    game = new_game(client, game="connect_four", record=json.dumps({"moves": moves}))
    gid = game["id"]
    assert game["result"] == {"winner": 0, "reason": "rules", "detail": None}
    assert game["line"] == [17, 24, 31, 38] and game["last_move"]["cell"] == 17
    for ply in range(len(moves) + 1):
        position = client.get(f"/api/games/{gid}/position?ply={ply}").json()
        cells = sum(row.count(1) + row.count(2) for row in position["board"]["cells"])
        assert position["ply"] == ply and cells == ply
        assert position["line"] == ([17, 24, 31, 38] if ply == len(moves) else [])
    assert client.get(f"/api/games/{gid}/position?ply=8").status_code == 400
    for ply in ("x", "%C2%B2", "%D9%A1", "1_0"):  # "²" and "١" pass str.isdigit()
        refused = client.get(f"/api/games/{gid}/position?ply={ply}")
        assert refused.status_code == 400 and "give 0..7" in refused.json()["error"]


def test_a_policy_agent_shows_its_move_probabilities(client):
    game = new_game(client, game="tictactoe", agent="ppo", human_seat=1,
                    agent_options={"checkpoint": "tictactoe"})
    view = wait_for(client, game["id"], lambda v: len(v["moves"]) == 1)
    analysis = view["analysis"]
    assert view["agent_info"]["values"] == "policy" and analysis["engine"] == "policy"
    assert analysis["move"] == view["moves"][0] == analysis["moves"][0]["move"]
    probabilities = [m["prior"] for m in analysis["moves"]]
    assert probabilities == sorted(probabilities, reverse=True)
    assert 0.99 < sum(probabilities) <= 1.0 + 1e-6  # all 9 moves are listed


def test_a_go_game_ended_by_passes_shows_its_score_and_dead_stones(client):
    # 5x5: Black's wall on column c, White's on d; White's a3 sits alone in Black's side.
    # Area scoring counts it (and makes a-b neutral): B 5, W 11 + 7.5 komi = W+13.5;
    # without the dead stone Black owns a-b: B 15, W 10 + 7.5 = W+2.5 (GTP's final_score)
    moves = ["c1", "d1", "c2", "d2", "c3", "d3", "c4", "d4", "c5", "d5", "pass", "a3", "pass",
             "pass"]
    game = new_game(client, game="go", options={"board_size": "5"},
                    record=json.dumps({"moves": moves}))
    assert game["result"] == {"winner": 1, "reason": "rules", "detail": "W+13.5"}
    view = wait_for(client, game["id"], lambda v: v["go_end"] is not None)
    assert view["go_end"] == {"dead": [2 * 5 + 0], "score": "W+2.5"}
