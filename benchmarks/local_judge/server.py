"""llama.cpp's OpenAI-compatible server, started by bench in a child process for one run.

The runtime is the `xllamacpp` wheel (the `local` extra): llama.cpp's server built for every CPU, nothing to
compile. It runs in a child process (`python -m benchmarks.local_judge.child`), so that a crash of llama.cpp
(an abort, the kernel's OOM killer) ends the server, not bench: the run says so in one line and keeps its
finished items (`LocalServer.died`). No server outlives its run: the child stops when the block of `serving`
ends (normally, on an error, on Ctrl-C), when bench exits (its stdin closes), and when bench is killed outright
(the kernel sends it SIGTERM as its parent dies, Linux's PR_SET_PDEATHSIG).

What it is started with:
- port 0 on 127.0.0.1: the system picks a free port as the server binds, so two runs never collide;
- one slot per usable core, each with `CTX_PER_SLOT` tokens: bench sends at most as many calls as there are
  slots (`/props` `total_slots`), and a claim's check reuses the slot's cache of the knowledge before it;
- prompt threads on every usable core, generation threads on one fewer: a verdict is one generated token, so
  the prompt is the work, while a generating thread kept off its core by bench stalls the others at each step.
"""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError
from benchmarks.machine import usable_cores

RUNTIME = "xllamacpp"
INSTALL = "pip install 'tierbench[local]'"
# Per slot: the longest judge prompt bench sends (a template of up to ~4 KB, the Russian ones the longest, and
# a sample's joined contexts) and the answer's budget fit with room to spare. Qwen2.5 is trained on 32K tokens;
# a slot costs ~115 MB of KV cache on the 1.5B model.
CTX_PER_SLOT = 4096
HEALTH_TIMEOUT_S = 120.0
LOG_VERBOSITY = 1  # llama.cpp's errors only: no per-request lines on bench's stderr


@dataclass(frozen=True)
class ServerPlan:
    model: Path
    alias: str
    slots: int
    ctx_per_slot: int
    threads: int  # generation
    batch_threads: int  # prompt processing
    host: str = "127.0.0.1"
    port: int = 0
    metrics: bool = False  # llama.cpp's Prometheus /metrics, for perf's token counts

    @property
    def n_ctx(self) -> int:
        return self.slots * self.ctx_per_slot  # llama.cpp gives each slot n_ctx / n_parallel


def plan(model: Path, alias: str, *, slots: int | None = None, ctx_per_slot: int = CTX_PER_SLOT,
         threads: int | None = None, metrics: bool = False) -> ServerPlan:
    """The plan for this machine (see the module docstring); `threads` pins both kinds, for measurements."""
    cores = usable_cores()
    if slots is not None and slots < 1:
        raise ValueError(f"slots must be at least 1, not {slots}")
    return ServerPlan(model=model, alias=alias, slots=slots or cores, ctx_per_slot=ctx_per_slot,
                      threads=threads or max(1, cores - 1), batch_threads=threads or cores, metrics=metrics)


def runtime_version() -> str:
    """The installed runtime's version; a missing runtime stops the run in one line naming the extra."""
    try:
        return importlib.metadata.version(RUNTIME)
    except importlib.metadata.PackageNotFoundError:
        raise BenchError(f"--judge local needs llama.cpp's server, which is not installed: {INSTALL}") from None


def start(p: ServerPlan) -> Any:
    """xllamacpp's server for the plan, bound and loading; it stops when the returned object is released."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(p.model)
    params.model_alias = {p.alias}
    params.hostnames = [p.host]
    params.port = p.port
    params.n_parallel = p.slots
    params.n_ctx = p.n_ctx
    params.cpuparams.n_threads = p.threads
    params.cpuparams_batch.n_threads = p.batch_threads
    params.endpoint_metrics = p.metrics
    params.use_jinja = True  # the chat template the GGUF carries
    params.verbosity = LOG_VERBOSITY
    return xllamacpp.Server(params)


@dataclass
class LocalServer:
    """The running server as the run sees it: its address, and whether its process has died."""

    address: str
    process: subprocess.Popen[str]

    def died(self) -> int | None:
        """The exit code of a server process that ended before it was told to stop, else None."""
        return self.process.poll()


def wait_healthy(address: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while True:
        try:
            with urllib.request.urlopen(f"{address}/health", timeout=5) as reply:
                if json.loads(reply.read() or b"{}").get("status") == "ok":
                    return
                last = f"HTTP {reply.status}"
        except urllib.error.HTTPError as error:  # 503 while the model loads
            last = f"HTTP {error.code}"
        except (OSError, ValueError) as error:
            last = str(error)
        if time.monotonic() > deadline:
            raise BenchError(f"llama.cpp's server at {address} was not ready after {timeout_s:.0f} s ({last})")
        time.sleep(0.1)


@contextmanager
def serving(p: ServerPlan, *, say: Callable[[str], None], health_timeout_s: float = HEALTH_TIMEOUT_S
            ) -> Iterator[LocalServer]:
    """The server, ready, until the block ends; its address is `http://127.0.0.1:PORT` (no `/v1`). A child
    process of its own (`local_judge.child`), not multiprocessing's, which would run the caller's main script
    again."""
    runtime_version()
    started = time.monotonic()
    plan_json = json.dumps({**dataclasses.asdict(p), "model": str(p.model)})
    process = subprocess.Popen([sys.executable, "-m", "benchmarks.local_judge.child", plan_json], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True, start_new_session=False)
    try:
        assert process.stdout is not None
        ready = _first_line(process, health_timeout_s)
        if ready is None:
            code = process.poll()
            raise BenchError(f"llama.cpp's server did not start on {p.model} "
                             + (f"(its process ended, exit code {code})" if code is not None
                                else f"in {health_timeout_s:.0f} s"))
        if "failed" in ready:
            raise BenchError(f"llama.cpp's server did not start on {p.model}: {ready['failed']}")
        address = str(ready["listening"])
        wait_healthy(address, max(1.0, health_timeout_s - (time.monotonic() - started)))
        say(f"local judge: {p.model.name} ready at {address} in {time.monotonic() - started:.1f} s "
            f"({p.slots} slots of {p.ctx_per_slot} tokens, {p.batch_threads} threads)")
        yield LocalServer(address, process)
    finally:
        _stop(process)


def _first_line(process: subprocess.Popen[str], timeout_s: float) -> dict[str, Any] | None:
    """The child's one JSON line, or None when it ended or said nothing in time."""
    assert process.stdout is not None
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(process.stdout.readline() if process.stdout else ""),
                              daemon=True)
    reader.start()
    reader.join(timeout_s)
    if not found or not found[0].strip():
        return None
    try:
        line = json.loads(found[0])
    except ValueError:
        return None
    return line if isinstance(line, dict) else None


def _stop(process: subprocess.Popen[str]) -> None:
    """Close the server's stdin (it stops), then make sure: terminated, then killed, if it lingers."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()

