"""``boardzoo serve``: play any game against any agent in the browser (the ``web`` extra).

The page (``static/``, plain ES modules, no build step) talks to a Starlette app
(:mod:`.app`) served by uvicorn on loopback; every opponent thinks in its own worker process
(:mod:`.worker`) and its analysis is pushed live over a WebSocket. See docs/web.md.
"""

from __future__ import annotations

__all__ = ["LIMIT_CONCURRENCY", "create_app", "serve"]

#: connections (and tasks) served at once; more are answered 503 at once
LIMIT_CONCURRENCY = 200


def create_app(*args, **kwargs):  # noqa: ANN002, ANN003 - forwards to app.create_app
    """See :func:`boardzoo.web.app.create_app` (imported on use: it needs the web extra)."""
    from boardzoo.web.app import create_app as build

    return build(*args, **kwargs)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
          allow_remote: list[str] | None = None) -> None:
    """Serve the page on ``host:port`` until interrupted; ``open_browser`` opens it in the
    default browser. A ``host`` beyond loopback needs ``allow_remote``: the names (or
    addresses) browsers will use for this machine, the only ``Host`` values answered besides
    the loopback ones; it prints a warning."""
    import sys
    import threading
    import webbrowser

    import uvicorn

    from boardzoo.web.security import (
        HeadTimeoutProtocol,
        check_bind,
        is_loopback,
        loopback_hosts,
    )

    remote = list(allow_remote or [])
    check_bind(host, remote)
    app = create_app(loopback_hosts(host, port) + [f"{name}:{port}" for name in remote])
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    if not is_loopback(host):
        print(f"boardzoo serve: WARNING: serving beyond this machine on {host}:{port}: anyone "
              f"who can reach it as {', '.join(remote)} can open games (each starts an agent "
              "process; at most 8 at once) and nothing is encrypted", file=sys.stderr,
              flush=True)
    print(f"boardzoo serve: open {url} (Ctrl-C stops)", flush=True)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning", ws="websockets-sansio",
                http=HeadTimeoutProtocol, limit_concurrency=LIMIT_CONCURRENCY)
