"""Measure `bench tier2` end to end against a slow endpoint: wall time against the ideal.

    python -m perf.tier2          (make perf, after perf.run)

500 questions, each answered twice (repeats) and rated three times (faithfulness, answer relevance,
answer correctness): 5 chat calls per item, every one answered by the project's local
OpenAI-compatible test server after 100 ms. The ideal is items × calls per item × 0.1 s /
concurrency: what a perfect scheduler would need for the calls alone. The measured time is the
whole tier (dataset loading, generation, judging, ROUGE/BLEU, embeddings for semantic consistency,
the report), so the ratio includes everything bench adds. A rerun in the same data folder must be
served from the cache entirely. The server runs in its own process (perf.llm_server).
Writes only its own section of BENCHMARKS.md.
"""

from __future__ import annotations

import json
import platform
import re
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.config import load_settings
from benchmarks.report_model import Report
from benchmarks.runner import run_tier
from perf.llm_server import llm_server
from perf.sections import figures_section, write_section
from tests.integration.openai_server import Reply

ITEMS = 500
LATENCY_S = 0.1
CONCURRENCY = 16
CALLS_PER_ITEM = 5  # 2 generations (repeats) + 3 ratings
GOAL = 1.25
MARK, END_MARK = "<!-- tier2 -->", "<!-- /tier2 -->"


def main() -> None:
    with (tempfile.TemporaryDirectory(prefix="bench-perf-tier2-") as scratch,
          llm_server(LATENCY_S, respond) as (base_url, served)):
        work = Path(scratch)
        dataset = policy_dataset(work / "perf-tier2", ITEMS)
        settings, sources = load_settings(environ={
            "BENCH_DATA_DIR": str(work / "data"),
            "BENCH_REPORTS_DIR": str(work / "reports"),
            "BENCH_LLM_BASE_URL": base_url,
            "BENCH_LLM_MODEL": "perf-model",
            "BENCH_LLM_CONCURRENCY": str(CONCURRENCY),
            "BENCH_LLM_MAX_ATTEMPTS": "1",
            "BENCH_BOOTSTRAP_RESAMPLES": "200",
        })
        quiet = Console(stderr=True, quiet=True)
        warm_up(settings, sources, work, quiet)
        started = time.perf_counter()
        first = run_tier("tier2", str(dataset), settings, sources, output_dir=work / "first", stderr=quiet)
        seconds = time.perf_counter() - started
        calls = served()
        started = time.perf_counter()
        rerun = run_tier("tier2", str(dataset), settings, sources, output_dir=work / "rerun", stderr=quiet)
        rerun_seconds = time.perf_counter() - started
        rerun_calls = served() - calls
    _check(first.report, rerun.report, calls, rerun_calls)
    ideal = ITEMS * CALLS_PER_ITEM * LATENCY_S / CONCURRENCY
    rows = [
        {"what": f"`bench tier2`, {ITEMS} items × {CALLS_PER_ITEM} calls, {LATENCY_S * 1000:.0f} ms a call, "
                 f"concurrency {CONCURRENCY} (seconds, whole tier)",
         "bench": f"{seconds:.2f} ({calls} calls)",
         "baseline": f"{ideal:.2f} (ideal: {ITEMS} × {CALLS_PER_ITEM} × {LATENCY_S:g} s / {CONCURRENCY})",
         "ratio": f"{seconds / ideal:.2f}× of ideal (goal ≤ {GOAL:.2f})"},
        {"what": "the same run again, same data folder (seconds, whole tier)",
         "bench": f"{rerun_seconds:.2f} ({rerun_calls} calls reached the server)",
         "baseline": f"{seconds:.2f} (first run)",
         "ratio": f"{seconds / rerun_seconds:.1f}× faster"},
    ]
    write_section(_section(rows), MARK, END_MARK)


def policy_dataset(root: Path, items: int, *, answered: bool = False) -> Path:
    """`items` questions on one policy chunk each, with reference answers; `answered` adds the system's
    answer (`response`) for the precomputed generator."""
    root.mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as corpus, (root / "questions.jsonl").open("w") as questions:
        for i in range(items):
            corpus.write(json.dumps({"id": f"c{i}", "text": f"Policy {i}: requests of type {i} are approved "
                                                            f"within {i % 9 + 1} working days by team {i % 13}."})
                         + "\n")
            question = {"id": f"q{i}", "question": f"How long does a type {i} request take?",
                        "relevant": {f"c{i}": 1}, "reference_answer": f"{i % 9 + 1} working days."}
            if answered:
                question["response"] = f"Type {i} requests take {i % 7 + 1} working days."
            questions.write(json.dumps(question) + "\n")
    return root


def respond(body: dict[str, Any]) -> Reply:
    """Generator prompts get an answer naming the question's number; judge prompts a valid score."""
    prompt = body["messages"][-1]["content"]
    if '"score"' in prompt:
        return Reply(text='{"score": 4}' if "from 1 to 5" in prompt else '{"score": 0.8}')
    number = re.search(r"type (\d+) request", prompt)
    return Reply(text=f"Type {number.group(1) if number else '?'} requests take a few working days.")


def warm_up(settings: Any, sources: Any, work: Path, quiet: Console) -> None:
    """Start PostgreSQL and load the embedding model once, as any earlier bench command would have."""
    root = work / "warm-up"
    root.mkdir()
    (root / "corpus.jsonl").write_text(json.dumps({"id": "c", "text": "warm up"}) + "\n")
    (root / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "warm up?", "relevant": {"c": 1},
                                                      "reference_answer": "yes"}) + "\n")
    run_tier("tier2", str(root), replace(settings, generator="extractive", judge_backend="offline"), sources,
             output_dir=work / "warm-up-report", stderr=quiet)


def _check(first: Report, rerun: Report, calls: int, rerun_calls: int) -> None:
    errors = {name: m.errors for name, m in first.metrics.items() if m.errors}
    if errors:
        raise SystemExit(f"the perf run had errors: {errors}")
    if calls != ITEMS * CALLS_PER_ITEM:
        raise SystemExit(f"the first run sent {calls} calls; expected {ITEMS * CALLS_PER_ITEM}")
    if rerun_calls:
        raise SystemExit(f"the rerun sent {rerun_calls} calls to the server; it must send none")
    if first.metrics != rerun.metrics:
        raise SystemExit("the cached rerun reported different metrics")


def _section(rows: list[dict[str, str]]) -> str:
    return figures_section((MARK, END_MARK), "Tier 2 against a slow endpoint", [
        "Written by `python -m perf.tier2` (run by `make perf`): `bench tier2` with the openai generator and the",
        "LLM judge on the project's local OpenAI-compatible test server, which answers every call after",
        f"{LATENCY_S * 1000:.0f} ms. PostgreSQL and the embedding model are started by a warm-up run first, as any",
        "earlier command would have; the timed runs include everything else. What separates the first run",
        "from the ideal: the chat calls themselves run at the LLM service's rate (the LLM calls section: the",
        "openai client and its HTTP stack cost a few ms of CPU a call, which at 160 calls/s on two cores",
        "queues replies), then every answer is embedded for semantic consistency (a few seconds for 500",
        "answers). Embedding in a background thread during the calls was tried and made the run slower:",
        "the thread starves the event loop that is waiting for replies.",
    ], rows, measured=f"Measured {datetime.now(UTC):%Y-%m-%d}, Python {platform.python_version()}.")


if __name__ == "__main__":
    main()
