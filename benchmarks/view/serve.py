"""`bench view --serve`: the built site over HTTP on 127.0.0.1, for a browser that will not open local files
(some block scripts on file:// pages) and for looking at a CI machine's site through a tunnel.

Port 0 lets the system pick a free port as the server binds, so two viewers never collide; the server answers
only this machine, and stops on Ctrl-C.
"""

from __future__ import annotations

import functools
import webbrowser
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"


class _Quiet(SimpleHTTPRequestHandler):
    """The standard handler without a line on stderr for every file a page loads."""

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the standard library's name)
        pass


def serve(site: Path, *, announce: Callable[[str], None], open_browser: bool = True) -> None:
    """Serve `site` until interrupted; `announce` gets the address as soon as the server listens."""
    handler = functools.partial(_Quiet, directory=str(site))
    with ThreadingHTTPServer((HOST, 0), handler) as server:
        url = f"http://{HOST}:{server.server_address[1]}/index.html"
        announce(url)
        if open_browser:
            webbrowser.open(url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:  # how a person stops it: not a failure
            return
