"""Run one tier: dataset -> services -> tier.run -> report files. The CLI only parses options."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from benchmarks import __version__
from benchmarks import report as report_doc
from benchmarks.config import Settings, Source
from benchmarks.dataset import ReportedData
from benchmarks.errors import BenchError, RunInterrupted
from benchmarks.services import reports
from benchmarks.services.datasets import load_dataset, resolve
from benchmarks.services.run_journal import RunIdentity, RunJournal
from benchmarks.tiers import TIERS
from benchmarks.tiers.base import ReportKind, RunContext, TierResult


@dataclass(frozen=True)
class RunOutcome:
    report: dict[str, Any]
    directory: Path


def run_tier(
    tier_name: str,
    dataset_spec: str,
    settings: Settings,
    sources: dict[str, Source],
    *,
    output_dir: Path | None = None,
    resume: Path | None = None,
    stderr: Console | None = None,
) -> RunOutcome:
    """Run a tier and write its report; a resumable tier journals its items (see `journaled_run`)."""
    tier = TIERS[tier_name]
    if resume is not None and not tier.resumable:
        raise BenchError(f"{tier_name} has nothing to resume: its items cost no calls, run it again")
    dataset = load_dataset(dataset_spec)
    console = stderr or Console(stderr=True)
    context = functools.partial(RunContext, settings=settings, dataset=dataset, dataset_dir=resolve(dataset_spec))
    if not tier.resumable:
        clock = RunClock.start()
        with progress_bar(console) as progress:
            result = tier.run(context(progress=progress))
        return publish(tier, result, dataset, settings, sources, clock, output_dir)
    with journaled_run(tier, dataset, settings, spec=dataset_spec, output_dir=output_dir, resume=resume) as run:
        with progress_bar(console) as progress:
            result = tier.run(context(progress=progress, journal=run.journal))
        return run.publish(result, sources)


@dataclass(frozen=True)
class JournaledRun:
    """A run whose finished items are on disk as they finish: the journal, and the run's (first) clock."""

    kind: ReportKind
    data: ReportedData
    settings: Settings
    journal: RunJournal
    clock: RunClock

    def publish(self, result: TierResult, sources: dict[str, Source]) -> RunOutcome:
        if self.journal.restored:
            result.volatile["resumed"] = {"restored_items": len(self.journal.restored)}
        self.journal.close()
        outcome = publish(self.kind, result, self.data, self.settings, sources, self.clock, self.journal.directory,
                          point_latest=self.journal.manifest["point_latest"])
        self.journal.finish()
        return outcome


@contextmanager
def journaled_run(kind: ReportKind, data: ReportedData, settings: Settings, *, spec: str, output_dir: Path | None,
                  resume: Path | None, options: dict[str, Any] | None = None,
                  command: str | None = None) -> Iterator[JournaledRun]:
    """The run folder exists from the start, with run.json and the items journal; `resume` (a stopped run's
    folder) continues that run instead, when nothing that decides its numbers differs. Ctrl-C becomes
    RunInterrupted (where the items are, how to go on); a run that stops before its first item leaves no
    folder behind. `options` are the command's own choices that settings do not hold (e.g. --metrics);
    `command` is the bench command that resumes it, when it is not named like the report kind."""
    clock = RunClock.start()
    # bench's own version too: items judged by one release are not mixed with another's
    identity = RunIdentity.of(kind.name, f"{kind.version} (bench {__version__})", data.report_block(),
                              settings.redacted(), options)
    if resume is not None:
        journal = RunJournal.resume(resume, identity)
        clock = replace(clock, run_id=journal.manifest["run_id"],
                        started_at=datetime.fromisoformat(journal.manifest["started_at"]))
    else:
        directory = output_dir or reports.run_directory(settings.reports_dir, data.name, kind.name, clock.run_id)
        journal = RunJournal.start(directory, identity, run_id=clock.run_id,
                                   started_at=clock.started_at.isoformat(timespec="seconds"),
                                   point_latest=output_dir is None)
    try:
        yield JournaledRun(kind, data, settings, journal, clock)
    except BaseException as exc:
        if resume is None and journal.finished == 0:
            journal.discard()
            raise
        journal.close()
        if isinstance(exc, KeyboardInterrupt) and not isinstance(exc, RunInterrupted):
            raise RunInterrupted(journal.directory, journal.finished, command or kind.name, spec) from None
        raise


@dataclass(frozen=True)
class RunClock:
    """When a run started, for the report's volatile block; its id names the run folder."""

    run_id: str
    started_at: datetime
    started: float

    @classmethod
    def start(cls) -> RunClock:
        return cls(reports.new_run_id(), datetime.now(UTC), time.perf_counter())

    def volatile(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "started_at": self.started_at.isoformat(timespec="seconds"),
                "duration_s": round(time.perf_counter() - self.started, 3)}


def publish(kind: ReportKind, result: TierResult, dataset: ReportedData, settings: Settings,
            sources: dict[str, Source], clock: RunClock, output_dir: Path | None, *,
            point_latest: bool | None = None) -> RunOutcome:
    """Build the report and write the run's files: into output_dir, or a new run folder plus `latest`."""
    report = report_doc.build(kind, result, dataset, settings, sources, clock.volatile())
    directory = output_dir or reports.run_directory(settings.reports_dir, dataset.name, kind.name, clock.run_id)
    reports.write_run(directory, report, result.items, result.files)
    if point_latest is None:
        point_latest = output_dir is None  # a folder the user named is theirs; run folders get `latest`
    if point_latest:
        reports.point_latest(directory)
    return RunOutcome(report=report, directory=directory)


def progress_bar(console: Console) -> Progress:
    return Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
