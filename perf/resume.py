"""Measure what a stopped-and-resumed run costs over an uninterrupted one.

    python -m perf.resume         (make perf)

A 5,000-item `bench tier2` (the dataset's answers, the LLM judge's three ratings per item on the
project's test server, no reply cache) runs in one process: uninterrupted (the baseline, once
before and once after the rest, averaged); interrupted by SIGINT once half its items are in
items.jsonl, as Ctrl-C would; and resumed from that folder. The overhead is
(interrupted + resumed − uninterrupted) / uninterrupted:
the items in flight that the interruption threw away, the second start (dataset, database, judge
set-up) and reading the journal back. The journaling itself is timed apart: appending the run's
5,000 rows to a journal, as a share of the uninterrupted run (it is inside every run, so the first
figure cannot show it). The resumed report must equal the uninterrupted one outside `volatile`.
Writes only its own section of BENCHMARKS.md.
"""

from __future__ import annotations

import json
import os
import platform
import signal
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.config import Origins, Settings, load_settings
from benchmarks.errors import RunInterrupted
from benchmarks.run_files.journal import RunIdentity, RunJournal
from benchmarks.runner import run_tier
from perf.llm_server import llm_server
from perf.sections import figures_section, write_section
from perf.tier2 import policy_dataset, respond, warm_up

ITEMS = 5000
LATENCY_S = 0.05
CONCURRENCY = 16
CALLS_PER_ITEM = 3  # the three ratings; answers come from the dataset
GOAL = 0.05
MARK, END_MARK = "<!-- resume -->", "<!-- /resume -->"


@dataclass(frozen=True)
class Timed:
    seconds: float
    calls: int


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-perf-resume-") as scratch, \
            llm_server(LATENCY_S, respond) as (base_url, served):
        work = Path(scratch)
        dataset = str(policy_dataset(work / "perf-resume", ITEMS, answered=True))
        settings, sources = load_settings(environ={
            "BENCH_DATA_DIR": str(work / "data"),
            "BENCH_REPORTS_DIR": str(work / "reports"),
            "BENCH_LLM_BASE_URL": base_url,
            "BENCH_LLM_MODEL": "perf-model",
            "BENCH_LLM_CONCURRENCY": str(CONCURRENCY),
            "BENCH_LLM_MAX_ATTEMPTS": "1",
            "BENCH_LLM_CACHE": "false",
            "BENCH_GENERATOR": "precomputed",
            "BENCH_REPEATS": "1",
            "BENCH_BOOTSTRAP_RESAMPLES": "200",
        })
        quiet = Console(stderr=True, quiet=True)
        warm_up(settings, sources, work, quiet)

        # the uninterrupted run before and after the stopped pair, so drift of a shared machine evens out
        before = _timed(served, lambda: run_tier("tier2", dataset, settings, sources, output_dir=work / "full",
                                                 stderr=quiet))
        stopped, kept = _interrupted(served, dataset, settings, sources, work / "stopped", quiet)
        resumed = _timed(served, lambda: run_tier("tier2", dataset, settings, sources, resume=work / "stopped",
                                                  stderr=quiet))
        after = _timed(served, lambda: run_tier("tier2", dataset, settings, sources, output_dir=work / "again",
                                                stderr=quiet))
        full = Timed((before.seconds + after.seconds) / 2, before.calls)
        _check(work / "full", work / "stopped", full, stopped, resumed)
        journaling = _journaling_seconds(work / "full" / "items.jsonl", work / "journal")
    overhead = (stopped.seconds + resumed.seconds - full.seconds) / full.seconds
    lost = stopped.calls + resumed.calls - full.calls
    rows = [
        {"what": f"`bench tier2`, {ITEMS} items, stopped by SIGINT after {kept} and resumed (seconds, both "
                 "sessions)",
         "bench": f"{stopped.seconds + resumed.seconds:.2f} ({stopped.seconds:.2f} + {resumed.seconds:.2f}; "
                  f"{lost} calls of items in flight redone)",
         "baseline": f"{full.seconds:.2f} (uninterrupted, {full.calls} calls; mean of {before.seconds:.2f} before "
                     f"and {after.seconds:.2f} after)",
         "ratio": f"{overhead:+.1%} overhead (goal < {GOAL:.0%})"},
        {"what": f"journaling {ITEMS} finished items (one unbuffered line each; seconds)",
         "bench": f"{journaling:.3f}",
         "baseline": f"{full.seconds:.2f} (uninterrupted run)",
         "ratio": f"{journaling / full.seconds:.2%} of the run"},
    ]
    write_section(_section(rows), MARK, END_MARK)


def _timed(served: Any, run: Any) -> Timed:
    calls = served()
    started = time.perf_counter()
    run()
    return Timed(time.perf_counter() - started, served() - calls)


def _interrupted(served: Any, dataset: str, settings: Settings, sources: Origins, folder: Path,
                 quiet: Console) -> tuple[Timed, int]:
    """Run until half the items are journaled, then SIGINT this process, as Ctrl-C would."""
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            path = folder / "items.jsonl"
            if path.exists() and path.read_bytes().count(b"\n") >= ITEMS // 2:
                os.kill(os.getpid(), signal.SIGINT)
                return

    watcher = threading.Thread(target=watch, daemon=True)
    calls = served()
    started = time.perf_counter()
    watcher.start()
    try:
        run_tier("tier2", dataset, settings, sources, output_dir=folder, stderr=quiet)
    except RunInterrupted as stop:
        kept = stop.finished
    else:
        raise SystemExit("the run finished before the interruption: nothing to resume")
    finally:
        done.set()
    return Timed(time.perf_counter() - started, served() - calls), kept


def _journaling_seconds(items: Path, scratch: Path) -> float:
    """Append the finished run's rows to a new journal, journal-sized: its answers, and its scores in place of the
    grades (the same outcomes, under their report names)."""
    rows = [json.loads(line) for line in items.read_text(encoding="utf-8").splitlines()]
    journal = RunJournal.start(scratch, RunIdentity.of("tier2", "1.0", {}, {}), run_id="perf",
                               started_at="", point_latest=False)
    started = time.perf_counter()
    for row in rows:
        journal.append(row["id"], {"answers": row["answers"], "grades": row["scores"]})
    seconds = time.perf_counter() - started
    journal.close()
    return seconds


def _check(full: Path, resumed: Path, first: Timed, stopped: Timed, second: Timed) -> None:
    reports = [json.loads((folder / "report.json").read_text()) for folder in (full, resumed)]
    for report in reports:
        report.pop("volatile")
        errors = {name: m["errors"] for name, m in report["metrics"].items() if m["errors"]}
        if errors:
            raise SystemExit(f"the perf run had errors: {errors}")
    if reports[0] != reports[1]:
        raise SystemExit("the resumed report differs from the uninterrupted one")
    if first.calls != ITEMS * CALLS_PER_ITEM:
        raise SystemExit(f"the uninterrupted run sent {first.calls} calls; expected {ITEMS * CALLS_PER_ITEM}")
    if stopped.calls + second.calls - first.calls > 2 * CONCURRENCY * CALLS_PER_ITEM:
        raise SystemExit("the resumed run redid more than the items that can be in flight")


def _section(rows: list[dict[str, str]]) -> str:
    return figures_section((MARK, END_MARK), "Resuming a stopped run", [
        "Written by `python -m perf.resume` (run by `make perf`): `bench tier2` on 5,000 items with the",
        "dataset's own answers and the LLM judge's three ratings, on the project's local test server",
        f"({LATENCY_S * 1000:.0f} ms a call, concurrency {CONCURRENCY}, no reply cache), in one process after a "
        "warm-up",
        "start of PostgreSQL. The uninterrupted baseline runs before and after the rest (mean of the two).",
        "The interrupted run is stopped by SIGINT once half its items are journaled; the resumed one reads",
        "them back and does the rest; its report equals the uninterrupted run's outside `volatile`",
        "(checked). The overhead counts the items in flight that were thrown away and the second start",
        "(about 0.3 s in process); a new process adds Python's start-up and imports on top (a few seconds).",
    ], rows, measured=f"Measured {datetime.now(UTC):%Y-%m-%d}, Python {platform.python_version()}.")


if __name__ == "__main__":
    main()
