"""The project's test LLM server in a child process, for perf scripts that time bench end to end.

In bench's own process the server's threads would compete with bench for the interpreter, and the
timing would include the fake's own cost.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.integration.openai_server import FakeOpenAI, Reply


@contextmanager
def llm_server(latency_s: float, respond: Callable[[dict[str, Any]], Reply]) -> Iterator[tuple[str, Callable[[], int]]]:
    """Its base URL, and a function counting the chat calls it served. `respond` must be a module-level
    function (the child process is spawned, not forked)."""
    parent, child = multiprocessing.Pipe()
    process = multiprocessing.get_context("spawn").Process(target=_serve, args=(child, latency_s, respond),
                                                           daemon=True)
    process.start()
    try:
        def served() -> int:
            parent.send("count")
            return int(parent.recv())

        yield str(parent.recv()), served
    finally:
        parent.send("stop")
        process.join(10)


def _serve(pipe: Any, latency_s: float, respond: Callable[[dict[str, Any]], Reply]) -> None:
    with FakeOpenAI(latency=latency_s) as server:
        server.responder = respond
        pipe.send(server.base_url)
        while (command := pipe.recv()) != "stop":
            assert command == "count"
            pipe.send(len(server.chat_requests))
