"""Measure bench's chat-call path against a slow endpoint, and its judge cost against RAGAS's.

    python -m perf.llm            (make perf, after perf.run)

The endpoint is the project's local OpenAI-compatible test server on 127.0.0.1, answering every
chat call after a fixed delay, so throughput is compared with the ideal a concurrency bound allows
and any shortfall is bench's own overhead, not a model's. Replies are cached in a temporary data
folder, so the cached rerun starts from nothing this script did not write. Writes only its own
section of BENCHMARKS.md, so it can run after `perf.run` rewrites the rest.
"""

from __future__ import annotations

import asyncio
import platform
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchmarks.chat.client import Completion, LLMService
from benchmarks.chat.request import ChatRequest
from benchmarks.config import Settings, load_settings
from perf.sections import figures_section, write_section
from tests.integration.openai_server import FakeOpenAI

LATENCY_S = 0.1
CONCURRENCY = 16
CALLS = 480  # 30 rounds of 16: connection set-up is a small part of the time, as in a real run
SERIAL_CALLS = 48  # the one-at-a-time baseline takes 0.1 s a call, so a tenth of the calls
RUN_LIMIT_S = 30.0  # no run may stall the benchmark, whatever the server does
CONTEXTS = 3  # the sample size for per-context counts in the table
MARK, END_MARK = "<!-- llm -->", "<!-- /llm -->"
THROUGHPUT_GOAL, CACHE_GOAL = 0.8, 50.0

# RAGAS's LLM calls per sample as (fixed, per context), for the metrics bench implements too.
RAGAS_CALLS: dict[str, tuple[str, int, int]] = {
    "faithfulness": ("Faithfulness", 2, 0),
    "context_precision": ("ContextPrecision", 0, 1),
    "context_recall": ("ContextRecall", 1, 0),
    "factual_correctness": ("FactualCorrectness (F1)", 4, 0),
    "answer_correctness": ("AnswerCorrectness", 3, 0),
    "noise_sensitivity": ("NoiseSensitivity", 3, 2),
}


@dataclass(frozen=True)
class Run:
    seconds: float
    results: list[Completion]
    server_calls: int  # chat requests the server saw during the run


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-perf-llm-") as scratch, FakeOpenAI(latency=LATENCY_S) as server:
        work = Path(scratch)
        parallel = _settings(server, work / "parallel", CONCURRENCY)
        first = _run(parallel, server, _requests("parallel", CALLS))
        in_flight = server.max_in_flight
        rerun = _run(parallel, server, _requests("parallel", CALLS))
        serial = _run(_settings(server, work / "serial", 1), server, _requests("serial", SERIAL_CALLS))
    _check(first, rerun, serial, in_flight)
    rows = _rows(first, rerun, serial, in_flight)
    write_section(_section(rows, _calls_table()), MARK, END_MARK)


def _settings(server: FakeOpenAI, data_dir: Path, concurrency: int) -> Settings:
    """One try and a short timeout: a failing call must show up as a failure, not as slow retries."""
    environ = {
        "BENCH_DATA_DIR": str(data_dir),
        "BENCH_LLM_BASE_URL": server.base_url,
        "BENCH_LLM_MODEL": "perf-model",
        "BENCH_LLM_CONCURRENCY": str(concurrency),
        "BENCH_LLM_CACHE": "true",
        "BENCH_LLM_MAX_ATTEMPTS": "1",
        "BENCH_LLM_TIMEOUT_S": "10",
    }
    return load_settings(environ=environ)[0]


def _requests(label: str, count: int) -> list[ChatRequest]:
    """Distinct prompts, so no call of a first run is served from the cache."""
    return [ChatRequest(messages=[{"role": "user", "content": f"{label} question {i}: is the sky blue?"}],
                        role="judge") for i in range(count)]


def _run(settings: Settings, server: FakeOpenAI, requests: list[ChatRequest]) -> Run:
    """A fresh service per run, as a new `bench` process would have: only the disk cache carries over."""
    async def timed() -> tuple[float, list[Completion]]:
        async with asyncio.timeout(RUN_LIMIT_S), LLMService(settings) as service:
            started = time.perf_counter()
            results = await service.complete_many(requests)
            return time.perf_counter() - started, results

    before = len(server.chat_requests)
    seconds, results = asyncio.run(timed())
    return Run(seconds, results, len(server.chat_requests) - before)


def _check(first: Run, rerun: Run, serial: Run, in_flight: int) -> None:
    failed = [r.error for run in (first, rerun, serial) for r in run.results if r.status != "ok"]
    if failed:
        raise SystemExit(f"{len(failed)} chat calls failed, e.g. {failed[0]}")
    if first.server_calls != CALLS or serial.server_calls != SERIAL_CALLS:
        raise SystemExit(f"first runs sent {first.server_calls} and {serial.server_calls} calls; "
                         f"expected {CALLS} and {SERIAL_CALLS}")
    if rerun.server_calls or not all(r.cached for r in rerun.results):
        raise SystemExit(f"the cached rerun sent {rerun.server_calls} calls to the server; it must send none")
    if in_flight > CONCURRENCY:
        raise SystemExit(f"the server saw {in_flight} calls at once; the bound is {CONCURRENCY}")


def _rows(first: Run, rerun: Run, serial: Run, in_flight: int) -> list[dict[str, str]]:
    ideal = CONCURRENCY / LATENCY_S
    rate, serial_rate = CALLS / first.seconds, SERIAL_CALLS / serial.seconds
    return [
        {
            "what": f"chat calls/s at concurrency {CONCURRENCY}, {CALLS} distinct calls, "
                    f"{LATENCY_S * 1000:.0f} ms a call",
            "bench": f"{rate:.1f} (at most {in_flight} in flight on the server)",
            "baseline": f"{ideal:.0f} (ideal: {CONCURRENCY} / {LATENCY_S:g} s)",
            "ratio": f"{rate / ideal:.2f} of ideal (goal ≥ {THROUGHPUT_GOAL:.2f})",
        },
        {
            "what": f"chat calls/s at concurrency 1, {SERIAL_CALLS} distinct calls, "
                    f"{LATENCY_S * 1000:.0f} ms a call",
            "bench": f"{serial_rate:.1f}",
            "baseline": f"{1 / LATENCY_S:.0f} (ideal: 1 / {LATENCY_S:g} s)",
            "ratio": f"{serial_rate * LATENCY_S:.2f} of ideal; concurrency {CONCURRENCY} is "
                     f"{rate / serial_rate:.1f}× faster",
        },
        {
            "what": f"cached rerun of the same {CALLS} calls, new service, same data folder (seconds)",
            "bench": f"{rerun.seconds:.3f} ({rerun.server_calls} calls reached the server)",
            "baseline": f"{first.seconds:.3f} (first run, {first.server_calls} calls)",
            "ratio": f"{first.seconds / rerun.seconds:.0f}× faster (goal ≥ {CACHE_GOAL:.0f}×)",
        },
    ]


def _bench_calls() -> dict[str, tuple[int, int]]:
    """(fixed, per context) calls per sample, from each metric's declaration (`JudgedMetric.planned_calls`) in
    the forms RAGAS computes (statements verdicts, F1): what `--dry-run` counts, so this comparison cannot drift
    from what the metrics make."""
    from benchmarks.judge.catalog import BUILTINS
    from benchmarks.judge.options import JudgeOptions
    from benchmarks.samples import Sample

    options = JudgeOptions(verdicts="statements", factual_mode="f1")

    def planned(name: str, contexts: int) -> int:
        return BUILTINS[name].planned_calls(Sample(id="s", retrieved_contexts=("c",) * contexts), options)

    return {name: (planned(name, 0), planned(name, 1) - planned(name, 0)) for name in RAGAS_CALLS}


def _formula(fixed: int, per_context: int) -> str:
    parts = ([str(fixed)] if fixed or not per_context else []) + ([f"{per_context} per context"] if per_context else [])
    total = fixed + per_context * CONTEXTS
    return f"{' + '.join(parts)} = {total}" if per_context else str(total)


def _calls_table() -> list[str]:
    """Bench may never make more calls than RAGAS for any number of contexts, so both terms are compared."""
    lines = [
        f"| metric | bench calls per sample ({CONTEXTS} contexts) | RAGAS ({CONTEXTS} contexts) | never more? |",
        "|---|---|---|---|",
    ]
    bench = _bench_calls()
    worse = []
    for name, (ragas_name, ragas_fixed, ragas_per) in RAGAS_CALLS.items():
        fixed, per_context = bench[name]
        ok = fixed <= ragas_fixed and per_context <= ragas_per
        if not ok:
            worse.append(name)
        lines.append(f"| {name} | {_formula(fixed, per_context)} | {ragas_name}: "
                     f"{_formula(ragas_fixed, ragas_per)} | {'yes' if ok else 'NO'} |")
    if worse:
        print("\n".join(lines))
        raise SystemExit(f"bench makes more LLM calls than RAGAS for {', '.join(worse)}")
    return lines


def _section(rows: list[dict[str, str]], calls: list[str]) -> str:
    return figures_section((MARK, END_MARK), "LLM calls", [
        "Written by `python -m perf.llm` (run by `make perf` after `perf.run`): bench's LLM service against",
        "the project's local OpenAI-compatible test server on 127.0.0.1, which answers every chat call after",
        f"{LATENCY_S * 1000:.0f} ms, so the ideal rate is the concurrency bound divided by that delay and any "
        "shortfall is",
        "bench's overhead. Replies are cached in a temporary data folder.",
    ], rows, measured=f"Measured {datetime.now(UTC).date().isoformat()}, Python {platform.python_version()}.", after=[
        f"LLM (judge) calls per sample of each metric; per-context terms worked out for {CONTEXTS} contexts:",
        "",
        *calls,
    ])


if __name__ == "__main__":
    main()
