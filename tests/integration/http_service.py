"""A user's own JSON service on 127.0.0.1 for tests: the real HTTP client, real sockets, scripted replies.

Queued `ServiceReply`s are served first, then `responder` (a function of the request's JSON body) if
set, then `{"answer": "OK"}`. Every request is logged with its headers and parsed body, and the most
requests ever handled at once is recorded, to check the client's concurrency bound.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class ServiceReply:
    """`payload` is sent as JSON; `raw` (bytes) instead, as is, for bodies that are not JSON."""

    payload: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    delay: float = 0.0


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # a burst of concurrent connections must not overflow the listen backlog


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
                                             "headers": {k.lower(): v for k, v in self.headers.items()}})
                    service.in_flight += 1
                    service.max_in_flight = max(service.max_in_flight, service.in_flight)
                try:
                    self._answer(service._next_reply(body))
                finally:
                    with service._lock:
                        service.in_flight -= 1

            def _answer(self, reply: ServiceReply) -> None:
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

        self.httpd = _Server(("127.0.0.1", 0), Handler)
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

    def __enter__(self) -> JsonService:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
