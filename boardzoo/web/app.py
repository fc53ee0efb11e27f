"""The ASGI app behind ``boardzoo serve``: the page's files, a JSON API and a WebSocket.

Routes (every one behind :class:`~boardzoo.web.security.HostOriginGuard`; nothing but GET
reads, every change is a POST with a JSON body)::

    GET  /                              the page
    GET  /static/<file>                 its files (only the package's static folder)
    GET  /api/catalog                   games, their options, the opponents, the checkpoints
    POST /api/games                     {game, options, agent, agent_options, human_seat,
                                         record?, time_control?, ponder?} -> a game (201)
    GET  /api/games/<id>                the game's view
    POST /api/games/<id>/move           {action, ply}: the person's move
    POST /api/games/<id>/undo | swap | stop | resign | close
    GET  /api/games/<id>/position?ply=N the position after N moves (stepping through)
    GET  /api/games/<id>/record?format=jsonl|sgf|pgn  the record as a download
    WS   /api/games/<id>/live           the view and the live analysis, pushed; the game
                                        lives while a page holds this open

Every malformed request is a 4xx with ``{"error": message}`` (one line, quoting at most a
short excerpt of what was sent): bad JSON or fields 400 (JSON nested deeper than
:data:`MAX_DEPTH` or a number longer than :data:`MAX_DIGITS` digits included), an unknown
id 404, a body over :data:`MAX_BODY` 413, not JSON 415, a stale move 409, too many games 429.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from boardzoo.errors import BoardzooError
from boardzoo.options import parse_int
from boardzoo.timecontrol import TimeControl
from boardzoo.web.catalog import agent_for, catalog, game_from_text
from boardzoo.web.games import Games, TooManyGamesError, UnknownGameIdError
from boardzoo.web.pool import WorkerPool
from boardzoo.web.security import HostOriginGuard
from boardzoo.web.session import StaleMoveError, load_record

__all__ = ["MAX_BODY", "MAX_DEPTH", "MAX_DIGITS", "create_app"]

MAX_BODY = 256 * 1024  # bytes of a request body (a long SGF record fits many times over)
MAX_DEPTH = 8  # nesting of a request body's JSON (the API's deepest is 2: options)
MAX_DIGITS = 20  # digits of a number in a request body
MAX_MESSAGE = 300  # characters of an error message
STATIC = Path(str(resources.files("boardzoo.web") / "static"))
_PAGE_HEADERS = {
    # the page runs only its own scripts, talks only to this server, is never framed
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class RequestError(Exception):
    """A request the API refuses: ``status`` and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(allowed_hosts: list[str], idle_seconds: float = 1800.0, max_games: int = 8,
               spare_workers: int = 1, idle_workers: int = 2,
               page_grace: float = 10.0) -> Starlette:
    """The app; ``allowed_hosts`` are the ``Host`` values it answers (``"127.0.0.1:8000"``,
    see :func:`~boardzoo.web.security.loopback_hosts`). At most ``max_games`` are open at
    once, each with its agent's process; a game ends ``page_grace`` seconds after its last
    page went away (unless one comes back), a game without a page after ``idle_seconds``
    without a request. ``idle_workers`` processes of closed games wait, warm, for the next
    game of their kind; ``spare_workers`` fresh ones are started ahead
    (:class:`~boardzoo.web.pool.WorkerPool`)."""
    games = Games(idle_seconds=idle_seconds, max_games=max_games, page_grace=page_grace,
                  pool=WorkerPool(idle=idle_workers, spares=spare_workers))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        games.start(asyncio.get_running_loop())
        try:
            yield
        finally:
            await games.close_all()

    routes = [
        Route("/", page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Route("/api/catalog", catalog_endpoint),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", show_game),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/{command:str}", command, methods=["POST"]),
        Route("/api/games/{id}/position", position),
        Route("/api/games/{id}/record", record),
        WebSocketRoute("/api/games/{id}/live", live),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={RequestError: _refused, BoardzooError: _bad_input,
                                        HTTPException: _http_error, Exception: _crashed})
    app.state.games = games
    app.add_middleware(HostOriginGuard, allowed_hosts=allowed_hosts)
    return app


# ------------------------------------------------------------------------------ handlers
async def page(request: Request) -> Response:
    return FileResponse(STATIC / "index.html", headers=_PAGE_HEADERS)


def catalog_endpoint(request: Request) -> Response:
    """Sync on purpose: Starlette runs it in a thread (the first call reads checkpoints)."""
    return JSONResponse(catalog())


async def new_game(request: Request) -> Response:
    body = await _json_body(request)
    game = game_from_text(body.get("game"), body.get("options", {}))
    spec = agent_for(game, body.get("agent", "random"), body.get("agent_options", {}))
    seat = body.get("human_seat", 0)
    if seat not in (0, 1) or isinstance(seat, bool):
        raise RequestError(400, f"human_seat={seat!r}: 0 (you move first) or 1")
    text = body.get("record")
    if text is not None and not isinstance(text, str):
        raise RequestError(400, "record must be text: a position or an arena record")
    start, moves = load_record(game, text) if text and text.strip() else (None, [])
    control = body.get("time_control") or None
    if control is not None and not isinstance(control, str):
        raise RequestError(400, 'time_control must be text such as "5/move" or "60+1"')
    ponder = body.get("ponder", False)
    if not isinstance(ponder, bool):
        raise RequestError(400, "ponder must be true or false")
    session = await _games(request).open(game, spec, seat, start, moves,
                                         TimeControl.parse(control) if control else None,
                                         ponder)
    return JSONResponse(_games(request).view(session), status_code=201)


async def show_game(request: Request) -> Response:
    games = _games(request)
    return JSONResponse(games.view(_session(request)))


async def move(request: Request) -> Response:
    body = await _json_body(request)
    games, session = _games(request), _session(request)
    try:
        games.human_move(session, body.get("action"), body.get("ply"))
    except StaleMoveError as err:
        raise RequestError(409, str(err)) from None
    return JSONResponse(games.view(session))


async def command(request: Request) -> Response:
    await _json_body(request)  # the same checks as every POST, though no field is read
    games, session = _games(request), _session(request)
    name = request.path_params["command"]
    actions = {"undo": games.undo, "swap": games.swap, "stop": games.stop,
               "resign": games.resign, "close": games.close}
    if name not in actions:
        raise RequestError(404, f"no command {name[:20]!r}; commands: move, "
                                f"{', '.join(actions)}")
    await actions[name](session)
    return JSONResponse(games.view(session) if name != "close" else {"closed": session.id})


async def position(request: Request) -> Response:
    text = request.query_params.get("ply", "")
    number = parse_int(text, MAX_DIGITS)
    ply = text if number is None else number
    return JSONResponse(_games(request).position(_session(request), ply))


async def record(request: Request) -> Response:
    session = _session(request)
    kind = request.query_params.get("format", "jsonl")
    stem = f"boardzoo-{session.game.name}-{session.id[:6]}"
    if kind == "jsonl":
        text = json.dumps(session.record()) + "\n"
        media = "application/jsonl"
    elif kind == "sgf":
        sgf = session.sgf()
        if sgf is None:
            raise RequestError(400, f"{session.game.name} has no SGF records (Go and Gomoku "
                                    "do); download format=jsonl")
        text, media = sgf + "\n", "application/x-go-sgf"
    elif kind == "pgn":
        pgn = session.pgn()
        if pgn is None:
            raise RequestError(400, f"{session.game.name} has no PGN records (chess does); "
                                    "download format=jsonl")
        text, media = pgn, "application/x-chess-pgn"
    else:
        raise RequestError(400, f"format={kind[:20]!r}: use jsonl (every game), sgf (Go, "
                                "Gomoku) or pgn (chess)")
    return Response(text, media_type=media, headers={
        "Content-Disposition": f'attachment; filename="{stem}.{kind}"'})


async def live(websocket: WebSocket) -> None:
    """Push the view on every change and the analysis while the agent thinks."""
    games = websocket.app.state.games
    try:
        session = games.get(websocket.path_params["id"])
    except UnknownGameIdError:
        await websocket.close(code=4404, reason="no such game")
        return
    queue = games.subscribe(session)  # before any await: the game cannot close in between
    try:
        await websocket.accept()
        first = games.view(session)
        await websocket.send_json({"type": "view", "view": first})
        sent = first["revision"]  # never push a view as old as one the page has
        listener = asyncio.ensure_future(_until_closed(websocket))
        while not listener.done():
            getter = asyncio.ensure_future(queue.get())
            done, _ = await asyncio.wait({getter, listener}, return_when=asyncio.FIRST_COMPLETED)
            if getter not in done:
                getter.cancel()
                continue
            message = getter.result()
            if message["type"] == "view":
                if message["view"]["revision"] <= sent:  # queued while the feed opened
                    continue
                sent = message["view"]["revision"]
            await websocket.send_json(message)
    except (WebSocketDisconnect, RuntimeError):
        pass
    except UnknownGameIdError:  # the game closed while the page connected
        await websocket.close(code=4404, reason="no such game")
    finally:
        games.unsubscribe(session, queue)


async def _until_closed(websocket: WebSocket) -> None:
    """Read (and ignore) what the page sends until it goes."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await websocket.receive_text()


# ------------------------------------------------------------------------------ helpers
def _games(request: Request) -> Games:
    return request.app.state.games


def _session(request: Request) -> Any:
    try:
        return _games(request).get(request.path_params["id"])
    except UnknownGameIdError as err:
        raise RequestError(404, str(err)) from None


async def _json_body(request: Request) -> dict[str, Any]:
    """The body as a JSON object, at most MAX_BODY bytes (counted as it arrives)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise RequestError(415, f"send JSON (Content-Type: application/json), not {kind!r}")
    declared = request.headers.get("content-length")
    size = None if declared is None else parse_int(declared, MAX_DIGITS)
    if declared is not None and (size is None or size > MAX_BODY):
        raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise RequestError(413, f"the body is over {MAX_BODY} bytes")
    try:
        body = json.loads(data or b"{}", parse_int=_short_int)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise RequestError(400, f"the body is not valid JSON: {err}") from None
    except ValueError as err:  # a number over MAX_DIGITS digits
        raise RequestError(400, str(err)) from None
    except RecursionError:
        raise RequestError(400, f"the body's JSON is nested deeper than {MAX_DEPTH} levels") \
            from None
    if not isinstance(body, dict):
        raise RequestError(400, "the body must be a JSON object")
    if _depth(body) > MAX_DEPTH:
        raise RequestError(400, f"the body's JSON is nested deeper than {MAX_DEPTH} levels")
    return body


def _short_int(text: str) -> int:
    """A JSON integer of at most MAX_DIGITS digits (Python refuses 4300 and more anyway)."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number in the body has {len(text)} digits; at most {MAX_DIGITS}")
    return int(text)


def _depth(value: Any, level: int = 1) -> int:
    """How deeply ``value`` nests (stops counting past MAX_DEPTH)."""
    if level > MAX_DEPTH or not isinstance(value, (dict, list)):
        return level
    items = value.values() if isinstance(value, dict) else value
    return max((_depth(item, level + 1) for item in items), default=level)


async def _refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestError)
    return _error(str(exc), exc.status)


async def _bad_input(request: Request, exc: Exception) -> Response:
    return _error(str(exc), 429 if isinstance(exc, TooManyGamesError) else 400)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(str(exc.detail), exc.status_code)


async def _crashed(request: Request, exc: Exception) -> Response:
    return _error(f"internal error: {type(exc).__name__}: {exc}", 500)


def _error(message: str, status: int) -> Response:
    """``{"error": message}`` on one line, at most MAX_MESSAGE characters."""
    line = " ".join(message.split())
    if len(line) > MAX_MESSAGE:
        line = line[:MAX_MESSAGE - 3] + "..."
    return JSONResponse({"error": line}, status_code=status)
