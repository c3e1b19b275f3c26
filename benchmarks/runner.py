"""Run one tier: dataset -> services -> tier.run -> report files. The CLI only parses options."""

from __future__ import annotations

import time
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

from benchmarks import report as report_doc
from benchmarks.config import Settings, Source
from benchmarks.dataset import Dataset, ReportedData
from benchmarks.errors import BenchError, RunInterrupted
from benchmarks.services import reports
from benchmarks.services.datasets import load_dataset, resolve
from benchmarks.services.run_journal import RunIdentity, RunJournal
from benchmarks.tiers import TIERS
from benchmarks.tiers.base import ReportKind, RunContext, Tier, TierResult


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
    """Run a tier and write its report. A resumable tier journals each finished item into its run folder
    from the start, and with `resume` (a stopped run's folder) does only the items not finished there."""
    tier = TIERS[tier_name]
    if resume is not None and not tier.resumable:
        raise BenchError(f"{tier_name} has nothing to resume: its items cost no calls, run it again")
    dataset = load_dataset(dataset_spec)
    clock = RunClock.start()
    journal = _journal(tier, dataset, settings, clock, output_dir, resume) if tier.resumable else None
    if journal is not None:
        clock = replace(clock, run_id=journal.manifest["run_id"],
                        started_at=datetime.fromisoformat(journal.manifest["started_at"]))
    try:
        with progress_bar(stderr or Console(stderr=True)) as progress:
            result = tier.run(RunContext(settings=settings, dataset=dataset, progress=progress,
                                         dataset_dir=resolve(dataset_spec), journal=journal))
    except BaseException as exc:
        if journal is None:
            raise
        if resume is None and journal.finished == 0:
            journal.discard()
            raise
        journal.close()
        if isinstance(exc, KeyboardInterrupt):
            raise RunInterrupted(journal.directory, journal.finished, tier_name, dataset_spec) from None
        raise
    if journal is None:
        return publish(tier, result, dataset, settings, sources, clock, output_dir)
    journal.close()
    if journal.restored:
        result.volatile["resumed"] = {"restored_items": len(journal.restored)}
    outcome = publish(tier, result, dataset, settings, sources, clock, journal.directory,
                      point_latest=journal.manifest["point_latest"])
    journal.finish()
    return outcome


def _journal(tier: Tier, dataset: Dataset, settings: Settings, clock: RunClock, output_dir: Path | None,
             resume: Path | None) -> RunJournal:
    identity = RunIdentity.of(tier.name, tier.version, dataset.name, dataset.content_sha256, settings.redacted())
    if resume is not None:
        return RunJournal.resume(resume, identity)
    directory = output_dir or reports.run_directory(settings.reports_dir, dataset.name, tier.name, clock.run_id)
    return RunJournal.start(directory, identity, run_id=clock.run_id,
                            started_at=clock.started_at.isoformat(timespec="seconds"),
                            point_latest=output_dir is None)


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
