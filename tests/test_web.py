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
    (b'{"game": "chess"}', "application/json", 400, "unknown game 'chess'"),
    (b'{"game": "go", "options": {"board_size": "40"}}', "application/json", 400, "board_size"),
    (b'{"game": "go", "options": {"colour": "red"}}', "application/json", 400,
     "unexpected keyword argument 'colour'"),
    (b'{"game": "go", "options": [1]}', "application/json", 400, "game options"),
    (b'{"game": "nim", "agent": "deep-blue"}', "application/json", 400, "unknown opponent"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"simulations": "a,b=c"}}',
     "application/json", 400, "no ','"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"simulations": "-5"}}',
     "application/json", 400, "simulations"),
    (b'{"game": "nim", "agent": "mcts", "agent_options": {"speed": "9"}}',
     "application/json", 400, "unexpected keyword argument 'speed'"),
    (b'{"game": "tictactoe", "agent": "alphazero", "agent_options": {"checkpoint": "/etc/passwd"}}',
     "application/json", 400, "does not play"),
    (b'{"game": "nim", "human_seat": 2}', "application/json", 400, "human_seat"),
    (b'{"game": "tictactoe", "record": "XXXXXXXXX"}', "application/json", 400, "position"),
    (b'{"game": "tictactoe", "record": "{\\"moves\\": [4, 4]}"}', "application/json", 400,
     "move 2"),
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
