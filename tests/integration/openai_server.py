"""A small OpenAI-compatible server on 127.0.0.1 for tests: the real openai client, real HTTP.

Embeddings are deterministic hashed bags of words, so retrieval over them is meaningful without a
model. The server can be told to fail its first requests, to exercise the client's retries.

Chat completions are scripted per test: queued `Reply`s are served first, then `responder` (a
function of the request body) if set, then a fixed default text. Every request is logged, and the
most requests ever handled at once is recorded, so tests can check bench's concurrency bound.
`latency` delays every chat reply, to measure throughput against a slow endpoint.

Embeddings can be made slow like a CPU server (`embedding_delay_per_text` seconds per text of a
request, slept even when the client has hung up, as a server busy with an abandoned request is), and
made to fail (HTTP 500) on every /embeddings request after the first `fail_embeddings_after`;
`on_embeddings(n)` is called as the nth /embeddings request comes in (e.g. to press Ctrl-C).
`dimension` may be changed between runs, as a server that now serves another model would.

A reply that must come too late for any client timeout does not sleep a guessed number of seconds: it waits
until the client hangs up (`Reply(until_hang_up=True)`; `late_embeddings(texts)` for /embeddings, which also
says how long the server goes on working on the abandoned request), so it times out however fast or slow
the machine is. A reply is never held longer than `HANG_UP_LIMIT_S`: a client that never gives up then gets
it late, and the test sees that.

`GET /v1/models` answers `models` (the list's entries) and `GET /props` (llama.cpp's, at the root) answers
`props`; either is a 404 while None, as on a server that does not implement it, and `get_status` makes both
answer that status instead. Their paths are logged in `get_requests`, apart from the POSTs in `requests`.
"""

from __future__ import annotations

import hashlib
import json
import re
import select
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

import numpy as np

from tests.integration.http_service import Listener, listen_afresh

DEFAULT_TEXT = "OK"
HANG_UP_LIMIT_S = 60.0  # the longest a held reply waits for its client to hang up: only a client that hangs


def hashed_embedding(text: str, dimension: int) -> list[float]:
    vector = np.zeros(dimension)
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dimension] += 1.0
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).tolist()


@dataclass
class Reply:
    """One scripted chat reply: a completion of `text`, or an error when `status` is not 200."""

    text: str = DEFAULT_TEXT
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # sent as is instead of the completion or error built here
    delay: float = 0.0  # seconds before replying, e.g. longer than the client's timeout
    usage: tuple[int, int] | None = None  # (prompt, completion) tokens; default: word counts
    message: str | None = None  # the error message of a non-200 reply
    finish_reason: str = "stop"  # "length": the text was cut off by max_tokens
    until_hang_up: bool = False  # no reply before the client hangs up: a timeout, however long it is
    system_fingerprint: str | None = None  # sent when set, as OpenAI and vLLM send theirs
    # the first token's alternatives as (token, logprob), sent when the request asks for logprobs
    top_logprobs: list[tuple[str, float]] | None = None


class _Server(Listener):
    def handle_error(self, request, client_address):
        # a client that hung up mid-request (a cancelled call, a killed bench) is no error of the server's
        if not isinstance(sys.exc_info()[1], (ConnectionError, json.JSONDecodeError)):
            super().handle_error(request, client_address)


class FakeOpenAI:
    def __init__(self, *, dimension: int = 64, api_key: str = "", fail_first: int = 0, latency: float = 0.0,
                 default_text: str = DEFAULT_TEXT, embedding_delay_per_text: float = 0.0,
                 fail_embeddings_after: int | None = None):
        self.dimension = dimension
        self.embedding_delay_per_text = embedding_delay_per_text
        self.fail_embeddings_after = fail_embeddings_after
        self.embedding_requests = 0
        self.on_embeddings: Callable[[int], None] | None = None
        # None (or no function): /embeddings answered as usual; a number s: no reply to this request's texts
        # before the client hangs up, then s seconds more of work on the abandoned request
        self.late_embeddings: Callable[[list[str]], float | None] | None = None
        self.api_key = api_key
        self.fail_first = fail_first
        self.latency = latency
        self.default_text = default_text
        self.responder: Callable[[dict[str, Any]], Reply] | None = None
        self.models: list[dict[str, Any]] | None = None
        self.props: dict[str, Any] | None = None
        self.get_status: int | None = None
        self.get_requests: list[str] = []
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            # keep-alive, and headers and body not held back by Nagle's algorithm waiting for a delayed ACK
            # (40 ms a reply): otherwise the server, not the client, would limit a throughput benchmark
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                with server._lock:
                    server.get_requests.append(self.path)
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self._reply(401, {"error": {"message": "bad key"}})
                if server.get_status is not None:
                    return self._reply(server.get_status, {"error": {"message": f"scripted {server.get_status}"}})
                if self.path == "/v1/models" and server.models is not None:
                    return self._reply(200, {"object": "list", "data": server.models})
                if self.path == "/props" and server.props is not None:
                    return self._reply(200, server.props)
                return self._reply(404, {"error": {"message": "not found"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                headers = {name.lower(): value for name, value in self.headers.items()}
                with server._lock:
                    server.requests.append({"path": self.path, "body": body, "headers": headers,
                                            "authorization": self.headers.get("Authorization"),
                                            "generation": self.server.generation})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._answer(body)
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _answer(self, body):
                with server._lock:
                    failing = server.fail_first > 0
                    if failing:
                        server.fail_first -= 1
                if failing:
                    return self._reply(500, {"error": {"message": "temporarily unavailable"}})
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self._reply(401, {"error": {"message": "bad key"}})
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    with server._lock:
                        server.embedding_requests += 1
                        number = server.embedding_requests
                        gone = (server.fail_embeddings_after is not None
                                and server.embedding_requests > server.fail_embeddings_after)
                    if server.on_embeddings:
                        server.on_embeddings(number)
                    if gone:
                        return self._reply(500, {"error": {"message": "embedding worker crashed"}})
                    late = server.late_embeddings(texts) if server.late_embeddings else None
                    if late is not None:
                        self._until_hang_up()
                        time.sleep(late)  # still busy with the request nobody waits for any more
                        return None
                    time.sleep(server.embedding_delay_per_text * len(texts))
                    size = body.get("dimensions") or server.dimension
                    data = [{"object": "embedding", "index": i, "embedding": hashed_embedding(t, size)}
                            for i, t in enumerate(texts)]
                    return self._reply(200, {"object": "list", "data": data, "model": body["model"],
                                             "usage": {"prompt_tokens": 0, "total_tokens": 0}})
                if self.path.endswith("/chat/completions"):
                    reply = server._next_reply(body)
                    if reply.until_hang_up:
                        self._until_hang_up()
                    time.sleep(server.latency + reply.delay)
                    return self._reply(reply.status, server._payload(reply, body), reply.headers)
                return self._reply(404, {"error": {"message": "not found"}})

            def _until_hang_up(self):
                """Until the client closes the connection (its timeout gave up on this request): the socket
                then reads as at its end. At most HANG_UP_LIMIT_S."""
                select.select([self.connection], [], [], HANG_UP_LIMIT_S)

            def _reply(self, status, payload, headers=None):
                raw = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and hung up
                    pass

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        # a short poll interval: shutdown() waits for it, at the end of every test
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                       daemon=True)

    def script(self, *replies: Reply) -> None:
        """Queue replies for the next chat requests, in order."""
        with self._lock:
            self._script.extend(replies)

    @property
    def embedded_texts(self) -> list[str]:
        """Every text the /embeddings requests carried, in order of arrival (failed requests' included)."""
        with self._lock:
            requests = [r for r in self.requests if r["path"].endswith("/embeddings")]
        return [t for r in requests for t in (r["body"]["input"] if isinstance(r["body"]["input"], list)
                                               else [r["body"]["input"]])]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r["path"].endswith("/chat/completions")]

    def _next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._script:
                return self._script.popleft()
        return self.responder(body) if self.responder else Reply(text=self.default_text)

    @staticmethod
    def _payload(reply: Reply, request: dict[str, Any]) -> dict[str, Any]:
        if reply.body is not None:
            return reply.body
        if reply.status != 200:
            message = reply.message or f"scripted HTTP {reply.status}"
            return {"error": {"message": message, "type": "scripted"}}
        words = sum(len(str(m.get("content", "")).split()) for m in request["messages"])
        prompt, completion = reply.usage or (words, len(reply.text.split()))
        fingerprint = {"system_fingerprint": reply.system_fingerprint} if reply.system_fingerprint else {}
        logprobs = {}
        if request.get("logprobs") and reply.top_logprobs:
            first = reply.top_logprobs[0]
            logprobs = {"logprobs": {"content": [{"token": first[0], "logprob": first[1], "bytes": None,
                                                  "top_logprobs": [{"token": t, "logprob": lp, "bytes": None}
                                                                   for t, lp in reply.top_logprobs]}]}}
        return {
            **fingerprint,
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": request["model"],
            "choices": [{"index": 0, "finish_reason": reply.finish_reason, **logprobs,
                         "message": {"role": "assistant", "content": reply.text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion},
        }

    def listen_afresh(self) -> int:
        """See http_service.listen_afresh; the new generation, whose requests are the next run's."""
        self.httpd, self.thread = listen_afresh(self.httpd)
        return self.httpd.generation

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
