"""What a person sees: the metrics table and where the files went, and progress when stderr is no terminal."""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions
from rich.progress import TaskID
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from benchmarks.errors import BenchError

if TYPE_CHECKING:
    from benchmarks.report_model import Report


class _TableTitle(Text):
    """A table's title wrapped at the console's width when it is wider than its table: rich wraps a title at
    the table's width, so a narrow table folded its title into lines even in a 1000-column pipe."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Segment]:
        if self.cell_len > options.max_width:
            options = options.update(width=console.width, justify="default")
        yield from super().__rich_console__(console, options)


def titled_table(title: str) -> Table:
    """A table of bench's, its title in the table.title style as rich gives a plain one."""
    return Table(title=_TableTitle(title, style="table.title"))


def print_summary(report: Report, directory: Path, console: Console) -> None:
    # imported here: the report package loads pydantic, which `bench --help` (it imports this module) must not
    from benchmarks.report.markdown import (
        CALIBRATED_MARK,
        CALIBRATED_NOTE,
        OUTCOMES_HEADER,
        dataset_counts,
        format_ci,
        format_outcomes,
        format_value,
        log_counts,
        metric_band,
    )

    ds, log, notes, provenance, volatile = (report.dataset, report.log, report.notes, report.provenance,
                                            report.volatile)
    logged = f" · log {log.name} ({log_counts(log)})" if log else ""
    table = titled_table(f"{report.title} · {ds.name} ({dataset_counts(ds, log)}){logged}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    bands = {name: metric_band(report, name) for name in report.metrics}
    if any(bands.values()):
        table.add_column("band")
    table.add_column("95% CI")
    table.add_column("n", justify="right")
    table.add_column(OUTCOMES_HEADER, justify="right")
    for name, m in report.metrics.items():
        label = f"[bold]{name}[/bold] ★" if name == report.main_metric else name
        band = (bands[name],) if any(bands.values()) else ()
        table.add_row(label, format_value(m.value), *band, format_ci(m.ci95), str(m.n),
                      format_outcomes(report, name))
    console.print(table)
    if any(band.endswith(CALIBRATED_MARK) for band in bands.values()):
        console.print(CALIBRATED_NOTE, soft_wrap=True)
    latency = volatile.retrieval.latency_ms if volatile.retrieval else None
    if latency and latency.n:
        console.print(f"retrieval latency: p50 {latency.p50:.2f} ms, p95 {latency.p95:.2f} ms "
                      f"({latency.n} single queries)")
    timing = volatile.latency_ms
    if timing and timing.n:
        console.print(f"latency: avg {timing.avg:.1f} ms, p95 {timing.p95:.1f} ms ({timing.n} calls)")
    confusion = notes.confusion
    if confusion:
        console.print("confusion (truth → decision): " + ", ".join(f"{k} {v}" for k, v in confusion.items()))
    embedder = provenance.embedder
    if embedder:
        index = provenance.index
        console.print(f"embedder: {embedder.id} ({embedder.dimension} d)"
                      + (f" · index: {index.type}" if index else ""))
    for name, metric in report.metrics.items():
        found = metric.agreement
        if found:
            shown = [f"{stat} {statistic.value:.3f}" for stat in ("roc_auc", "spearman", "pairwise_accuracy")
                     if (statistic := getattr(found, stat)) and statistic.value is not None]
            console.print(f"{name}: agreement with {found.n} {found.labels} labels: {', '.join(shown)}"
                          if shown else f"{name}: agreement not measured: {found.n} of {found.labelled} "
                          f"labelled samples scored", soft_wrap=True)
    scale = provenance.similarity
    if scale and scale.metrics:
        console.print(f"similarities calibrated: baseline {scale.baseline:.4f} ({scale.model}, "
                      f"{scale.language}; 0 = as alike as unrelated texts)", soft_wrap=True)
    generator = provenance.generator
    if generator:
        console.print(f"system under test: {generator.adapter}"
                      + (f" ({generator.model})" if generator.model else "")
                      + (f" at {generator.url}" if generator.url else ""), soft_wrap=True)
    judge = provenance.judge
    if judge:
        models = judge.models or [judge.model or judge.backend]
        console.print(f"judge: {judge.backend} ({', '.join(map(str, models))})"
                      + (f" at {judge.url}" if judge.url else "") + f", language {judge.language}",
                      soft_wrap=True)
    for name, timing in (("generation", volatile.generation_latency_ms), ("judge", volatile.judge_latency_ms)):
        if timing and timing.n:
            console.print(f"{name} latency: avg {timing.avg:.1f} ms, p95 {timing.p95:.1f} ms "
                          f"({timing.n} calls)")
    llm = volatile.llm
    if llm:
        console.print(f"LLM calls: {llm.calls} made, {llm.cache_hits} from cache, {llm.api_errors} failed; "
                      f"tokens {llm.prompt_tokens} in / {llm.completion_tokens} out")
    indexing = volatile.indexing
    if indexing:
        reuse = "reused the stored chunks" if indexing.reused else (
            f"indexed {indexing.chunks_added} new, {indexing.chunks_updated} changed, "
            f"{indexing.chunks_removed} removed chunks")
        build = indexing.hnsw_build
        if build:
            reuse += (f"; built the HNSW index in {build.seconds:.1f} s ({build.index_megabytes} MB, "
                      f"maintenance_work_mem {build.maintenance_work_mem}, "
                      f"parallel workers {build.parallel_workers})")
        cache = volatile.embedding_cache
        embeddings = (f"; embeddings: {cache.embedded} computed, {cache.cache_hits} from cache"
                      if cache else "")
        console.print(f"{reuse}{embeddings}")
    queries = notes.queries
    if queries and queries.without_relevant:
        console.print(f"{queries.without_relevant} questions without a relevant document are excluded from "
                      "the means (see report notes)")
    for warning in report.warnings:
        console.print(f"[yellow]warning[/yellow] {warning.code} ×{warning.count}: {warning.message}")
    console.print(f"report: {directory / 'report.json'}", soft_wrap=True)


def print_plan(models: Sequence[str], rows: Sequence[dict[str, Any]], console: Console) -> None:
    """`bench evaluate --dry-run`: the judge calls and prompt tokens a run would need, per metric."""
    table = titled_table(f"dry run: {', '.join(models)} (no call made)")
    for column in ("metric", "calls", "estimated prompt tokens"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in rows:
        table.add_row(row["metric"], str(row["calls"]), str(row["estimated_prompt_tokens"]))
    table.add_row("total", str(sum(r["calls"] for r in rows)), str(sum(r["estimated_prompt_tokens"] for r in rows)))
    console.print(table)
    for row in rows:
        console.print(f"{row['metric']}: {row['what']}", highlight=False, soft_wrap=True)


# --- stdout that is not a terminal ------------------------------------------------------------------------

PIPED_WIDTH = 1000  # wide enough that no table or line of bench's is wrapped in a pipe or a file


def stdout_console() -> Console:
    """stdout as rich draws it: a terminal's own width, else (a pipe, a file, cron) no 80-column wrapping
    of tables and paths, unless COLUMNS says otherwise."""
    piped = not sys.stdout.isatty() and not os.environ.get("COLUMNS", "").isdigit()
    return Console(width=PIPED_WIDTH if piped else None)


# --- progress on a stderr that is not a terminal ----------------------------------------------------------

PROGRESS_INTERVAL_ENV = "BENCH_PROGRESS_INTERVAL_S"
DEFAULT_PROGRESS_INTERVAL_S = 10.0


def progress_interval(environ: dict[str, str] | None = None) -> float:
    """Seconds between progress lines (BENCH_PROGRESS_INTERVAL_S, default 10): tests make it short."""
    raw = (os.environ if environ is None else environ).get(PROGRESS_INTERVAL_ENV, "")
    if not raw:
        return DEFAULT_PROGRESS_INTERVAL_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise BenchError(f"environment variable {PROGRESS_INTERVAL_ENV}: expected seconds above 0, got {raw!r}")
    return seconds


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float
    started: float
    ended: bool = False


class ProgressLines:
    """rich.progress.Progress's API as the tiers use it (add_task, advance, update, remove_task), written as
    plain timestamped lines: one when a phase starts, one when it ends, and every `interval` seconds one per
    running phase, so a cron log or a CI page shows the run is alive and how far it is."""

    def __init__(self, file: IO[str], label: str, interval: float):
        self.file, self.label, self.interval = file, label, interval
        self._tasks: dict[TaskID, _Task] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker = threading.Thread(target=self._tick, name="bench-progress", daemon=True)

    def __enter__(self) -> ProgressLines:
        self._ticker.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._stop.set()
        self._ticker.join()
        if kind is None:  # a phase the tier left open ends with the run; a failed run's phases did not end
            for task_id in list(self._tasks):
                self.remove_task(task_id)

    def add_task(self, description: str, total: float | None = None, completed: float = 0,
                 **_: Any) -> TaskID:
        with self._lock:
            task_id = TaskID(next(self._ids))
            task = self._tasks[task_id] = _Task(description, total, completed, time.monotonic())
            self._write(task, "started")
            return task_id

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(self, task_id: TaskID, *, total: float | None = None, completed: float | None = None,
               advance: float | None = None, description: str | None = None, **_: Any) -> None:
        with self._lock:
            task = self._tasks[task_id]
            task.total = task.total if total is None else total
            task.completed = task.completed if completed is None else completed
            task.completed += advance or 0
            task.description = description or task.description
            if not task.ended and task.total is not None and task.completed >= task.total:
                self._end(task)

    def remove_task(self, task_id: TaskID) -> None:
        with self._lock:
            task = self._tasks.pop(task_id)
            if not task.ended:
                self._end(task)

    def _end(self, task: _Task) -> None:
        task.ended = True
        self._write(task, f"done in {time.monotonic() - task.started:.1f} s")

    def _tick(self) -> None:
        while not self._stop.wait(self.interval):
            with self._lock:
                for task in self._tasks.values():
                    if not task.ended:
                        self._write(task, f"{time.monotonic() - task.started:.0f} s")

    def _write(self, task: _Task, state: str) -> None:
        """One line: `2026-11-24T03:12:09Z tier1: embedding corpus 1200/4000 (started)`."""
        moment = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        count = "" if task.total is None else f" {task.completed:g}/{task.total:g}"
        self.file.write(f"{moment} {self.label}: {task.description}{count} ({state})\n")
        self.file.flush()
