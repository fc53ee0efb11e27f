"""``boardzoo serve``: play any game against any agent in the browser (the ``web`` extra).

The page (``static/``, plain ES modules, no build step) talks to a Starlette app
(:mod:`.app`) served by uvicorn on loopback; every opponent thinks in its own worker process
(:mod:`.worker`) and its analysis is pushed live over a WebSocket. See docs/web.md.
"""

from __future__ import annotations

__all__ = ["create_app", "serve"]


def create_app(*args, **kwargs):  # noqa: ANN002, ANN003 - forwards to app.create_app
    """See :func:`boardzoo.web.app.create_app` (imported on use: it needs the web extra)."""
    from boardzoo.web.app import create_app as build

    return build(*args, **kwargs)


def serve(host: str = "127.0.0.1", port: int = 8000, open_browser: bool = False,
          allowed_hosts: list[str] | None = None) -> None:
    """Serve the page on ``host:port`` until interrupted; ``open_browser`` opens it in the
    default browser. ``allowed_hosts`` replace the default ``Host`` values (the bound name
    and the loopback names with ``port``)."""
    import threading
    import webbrowser

    import uvicorn

    from boardzoo.web.security import loopback_hosts

    app = create_app(allowed_hosts or loopback_hosts(host, port))
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/"
    print(f"boardzoo serve: open {url} (Ctrl-C stops)", flush=True)
    if open_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(app, host=host, port=port, log_level="warning", ws="websockets")
