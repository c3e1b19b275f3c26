"""A small OpenAI-compatible server on 127.0.0.1 for tests: the real openai client, real HTTP.

Embeddings are deterministic hashed bags of words, so retrieval over them is meaningful without a
model. The server can be told to fail its first requests, to exercise the client's retries.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np


def hashed_embedding(text: str, dimension: int) -> list[float]:
    vector = np.zeros(dimension)
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dimension] += 1.0
    norm = np.linalg.norm(vector)
    return (vector / norm if norm else vector).tolist()


class FakeOpenAI:
    def __init__(self, *, dimension: int = 64, api_key: str = "", fail_first: int = 0):
        self.dimension = dimension
        self.api_key = api_key
        self.fail_first = fail_first
        self.requests: list[dict] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body,
                                        "authorization": self.headers.get("Authorization")})
                if server.fail_first > 0:
                    server.fail_first -= 1
                    return self._reply(500, {"error": {"message": "temporarily unavailable"}})
                if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
                    return self._reply(401, {"error": {"message": "bad key"}})
                if self.path.endswith("/embeddings"):
                    texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    size = body.get("dimensions") or server.dimension
                    data = [{"object": "embedding", "index": i, "embedding": hashed_embedding(t, size)}
                            for i, t in enumerate(texts)]
                    return self._reply(200, {"object": "list", "data": data, "model": body["model"],
                                             "usage": {"prompt_tokens": 0, "total_tokens": 0}})
                return self._reply(404, {"error": {"message": "not found"}})

            def _reply(self, status, payload):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
