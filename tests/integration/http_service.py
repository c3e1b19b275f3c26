"""A user's own JSON service on 127.0.0.1 for tests: the real HTTP client, real sockets, scripted replies.

Queued `ServiceReply`s are served first, then `responder` (a function of the request's JSON body) if
set, then `{"answer": "OK"}`. Every request is logged with its headers and parsed body, and the most
requests ever handled at once is recorded, to check the client's concurrency bound.

A reply meant to time out waits until the client hangs up (`until_hang_up`), rather than a guessed number of
seconds, so it times out on any machine; it is never held longer than `HANG_UP_LIMIT_S`.
"""

from __future__ import annotations

import json
import select
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HANG_UP_LIMIT_S = 60.0  # the longest a held reply waits for its client to hang up: only a client that hangs


@dataclass
class ServiceReply:
    """`payload` is sent as JSON; `raw` (bytes) instead, as is, for bodies that are not JSON."""

    payload: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay: float = 0.0
    until_hang_up: bool = False  # no reply before the client hangs up: a timeout, however long it is


class Listener(ThreadingHTTPServer):
    """A test server's listening socket. `generation` counts the sockets a server has listened on (see
    `listen_afresh`), so a request is known by the one that accepted its connection."""

    request_queue_size = 128  # a burst of concurrent connections must not overflow the listen backlog
    generation = 0


def listen_afresh(httpd: Listener) -> tuple[Listener, threading.Thread]:
    """A new listening socket on the same port, the old one closed: a run that stopped can reach the server no
    more (a connection of its still waiting to be accepted is refused), while a request it had already sent
    is still served, under the old generation. So the next run's requests are exactly those of the new
    generation, however late the stopped run's last request is handled."""
    address = httpd.server_address
    httpd.shutdown()
    httpd.server_close()
    fresh = type(httpd)(address, httpd.RequestHandlerClass)
    fresh.generation = httpd.generation + 1
    thread = threading.Thread(target=fresh.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    return fresh, thread


class JsonService:
    def __init__(self) -> None:
        self.responder: Callable[[Any], ServiceReply] | None = None
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[ServiceReply] = deque()
        self._lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                body = json.loads(raw)
                with service._lock:
                    service.requests.append({"path": self.path, "raw": raw, "body": body,
                                             "headers": {k.lower(): v for k, v in self.headers.items()},
                                             "generation": self.server.generation})
                    service.in_flight += 1
                    service.max_in_flight = max(service.max_in_flight, service.in_flight)
                try:
                    self._answer(service._next_reply(body))
                finally:
                    with service._lock:
                        service.in_flight -= 1

            def _answer(self, reply: ServiceReply) -> None:
                if reply.until_hang_up:  # a closed connection reads as at its end
                    select.select([self.connection], [], [], HANG_UP_LIMIT_S)
                time.sleep(reply.delay)
                data = reply.raw if reply.raw is not None else json.dumps(reply.payload).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json" if reply.raw is None else "text/html")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and hung up
                    pass

        self.httpd = Listener(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/answer"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    def script(self, *replies: ServiceReply) -> None:
        with self._lock:
            self._script.extend(replies)

    def _next_reply(self, body: Any) -> ServiceReply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return self.responder(body) if self.responder else ServiceReply({"answer": "OK"})

    def listen_afresh(self) -> int:
        """See `listen_afresh`; the new generation, whose requests are the next run's."""
        self.httpd, self.thread = listen_afresh(self.httpd)
        return self.httpd.generation

    def __enter__(self) -> JsonService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
