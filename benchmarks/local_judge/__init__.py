"""`--judge local`: a real LLM judge on this machine, started by bench for one run and stopped with it.

The run asks it as it asks any OpenAI-compatible judge (the same client, retries, prompts and reading of
verdicts); what differs is who starts the server and what the report names: not a URL, which is a new port
every run, but the weights by file and sha256, the runtime by version and the context size (`describe`), so
that another model, runtime or context makes judged metrics not comparable in `bench compare`.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from benchmarks.errors import BenchError, RunInterrupted
from benchmarks.local_judge import server, weights
from benchmarks.local_judge.server import INSTALL, ServerPlan
from benchmarks.local_judge.weights import DEFAULT_MODEL, KNOWN_MODELS, Weights
from benchmarks.report_model import LocalJudgeBlock

__all__ = ["DEFAULT_MODEL", "INSTALL", "KNOWN_MODELS", "LocalJudge", "check_model", "started"]

WATCH_INTERVAL_S = 0.5


@dataclass(frozen=True)
class LocalJudge:
    """A served local judge: where it listens, what it loaded, and how."""

    base_url: str  # http://127.0.0.1:PORT/v1
    weights: Weights
    plan: ServerPlan
    runtime_version: str

    def settings(self, settings: Any) -> Any:
        """The run's settings with the judge's endpoint and model: the ones the tier's services open."""
        return replace(settings, llm_base_url=self.base_url, llm_api_key=None, llm_model=self.plan.alias,
                       judge_model=self.plan.alias, llm_models=None)

    def describe(self) -> LocalJudgeBlock:
        """The report's `provenance.judge.local`: everything but the verdict reading (beside it) that decides the
        numbers. Slots and threads do not: one token of one call is the same whichever slot computes it."""
        return LocalJudgeBlock(model_file=self.weights.path.name, sha256=self.weights.sha256,
                               runtime=f"{server.RUNTIME} {self.runtime_version}", context_size=self.plan.ctx_per_slot)


def check_model(value: str) -> str | None:
    """Why the `local_model` setting cannot be used, or None: checked with the other settings, before any work."""
    return weights.check_value(value)


@contextmanager
def started(model: str, models_dir: Any, *, say: Callable[[str], None]) -> Iterator[LocalJudge]:
    """The local judge for one run: its runtime checked first (one line naming the extra), its weights found or
    fetched, its server ready; stopped when the block ends, however it ends. A server that dies during the run
    stops it as Ctrl-C would, so the finished items are kept, and is then said in one line."""
    version = server.runtime_version()
    found = weights.resolve(model, models_dir, say=say)
    plan = server.plan(found.path, found.name)
    with server.serving(plan, say=say) as running:
        watching = threading.Event()
        threading.Thread(target=_watch, args=(running, watching), name="bench-local-judge-watch", daemon=True).start()
        try:
            yield LocalJudge(f"{running.address}/v1", found, plan, version)
        except KeyboardInterrupt as interrupted:
            code = running.died()
            if code is None:
                raise
            kept = (f"; {interrupted.finished} finished item(s) are kept in {interrupted.directory}: rerun the "
                    f"command with --resume {interrupted.directory}" if isinstance(interrupted, RunInterrupted)
                    else "")
            raise BenchError(f"llama.cpp's server stopped during the run (exit code {code}){kept}") from None
        finally:
            watching.set()


def _watch(running: server.LocalServer, done: threading.Event) -> None:
    """Stop the run, as Ctrl-C does, when the server's process ends before the run does."""
    while not done.wait(WATCH_INTERVAL_S):
        if running.died() is not None:
            _thread.interrupt_main()
            return
