"""The guard in front of every request: ``Host`` and ``Origin`` checked before routing.

A server on loopback is still reachable from any web page the user opens: through DNS
rebinding (a foreign name that resolves to 127.0.0.1, so the browser sends that name as
``Host``) and through cross-site requests and WebSockets (which carry the foreign page's
``Origin``). So every HTTP request and every WebSocket handshake must name one of the
server's own hosts in ``Host``; an ``Origin``, where present, must be the server's own; and
requests that change state (every method but GET/HEAD) and WebSocket handshakes must carry
one. Refusals are a 403 with the reason (HTTP) or a handshake closed with code 1008.

Serving beyond this machine is an explicit choice (:func:`check_bind`), and a connection that
does not finish its request head within :data:`HEAD_SECONDS` is closed
(:class:`HeadTimeoutProtocol`), so half-open connections dribbling headers cannot pile up.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from boardzoo.errors import InvalidOptionError

__all__ = ["HEAD_SECONDS", "HeadTimeoutProtocol", "HostOriginGuard", "check_bind",
           "is_loopback", "loopback_hosts"]

#: seconds a connection has to send a complete request head (from its start, or from the
#: previous response on a kept-alive connection)
HEAD_SECONDS = 5.0

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_SAFE_METHODS = ("GET", "HEAD")
POLICY_VIOLATION = 1008  # WebSocket close code for a refused handshake


def loopback_hosts(host: str, port: int) -> list[str]:
    """The ``Host`` values a browser sends for a server bound to ``host:port``: the bound
    name and, for a loopback or wildcard bind, every loopback spelling."""
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {bound, *_LOOPBACK_NAMES}
    return sorted(f"{name}:{port}" for name in names)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or "localhost") is reachable from this machine only."""
    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, remote_names: list[str]) -> None:
    """Refuse (InvalidOptionError) a bind beyond loopback unless ``remote_names`` (the names
    browsers will use for this machine) opt in; a loopback bind needs none."""
    if not is_loopback(host) and not remote_names:
        raise InvalidOptionError(
            f"--host {host[:60]} would let any computer that can reach this one open games "
            "here, each starting an agent process; to do that on purpose add --allow-remote "
            "NAME (the name or address browsers will use for this machine)")


class HeadTimeoutProtocol(H11Protocol):
    """uvicorn's HTTP protocol, closing a connection whose request head is not complete
    within HEAD_SECONDS of its start or of the previous response."""

    head_seconds = HEAD_SECONDS
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # noqa: D102 - uvicorn's hook
        super().connection_made(transport)
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:  # noqa: D102 - uvicorn's hook
        super().data_received(data)
        if self.conn.their_state is not h11.IDLE and self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def on_response_complete(self) -> None:  # noqa: D102 - uvicorn's hook
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:  # noqa: D102 - uvicorn's hook
        if self._head_timer is not None:
            self._head_timer.cancel()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_overdue)

    def _head_overdue(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


class HostOriginGuard:
    """ASGI middleware: refuse any request whose ``Host`` is not in ``allowed_hosts`` or whose
    ``Origin`` is not ``http://<allowed host>`` (see the module docstring)."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in allowed_hosts}
        self.origins = {f"http://{h}" for h in self.hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        reason = self.refusal(scope)
        if reason is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await receive()  # the websocket.connect event
            await send({"type": "websocket.close", "code": POLICY_VIOLATION, "reason": reason})
        else:
            await _forbidden(send, reason)

    def refusal(self, scope: Scope) -> str | None:
        """Why the request is refused, or None to let it through."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").lower()
        if host not in self.hosts:
            return (f"Host {host!r} is not this server's; use one of "
                    f"{', '.join(sorted(self.hosts))}")
        origin = headers.get("origin")
        needs_origin = scope["type"] == "websocket" or scope.get("method") not in _SAFE_METHODS
        if origin is None:
            return "this request must come from the boardzoo page (no Origin header)" if (
                needs_origin) else None
        if origin.lower() not in self.origins:
            return f"Origin {origin!r} is not this server's page; cross-site requests are refused"
        return None


async def _forbidden(send: Send, reason: str) -> None:
    body = json.dumps({"error": reason}).encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
