"""Run one tier: dataset -> services -> tier.run -> report files. The CLI only parses options."""

from __future__ import annotations

import time
from dataclasses import dataclass
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
from benchmarks.dataset import ReportedData
from benchmarks.services import reports
from benchmarks.services.datasets import load_dataset, resolve
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
    stderr: Console | None = None,
) -> RunOutcome:
    tier = TIERS[tier_name]
    dataset = load_dataset(dataset_spec)
    clock = RunClock.start()
    with progress_bar(stderr or Console(stderr=True)) as progress:
        result = tier.run(RunContext(settings=settings, dataset=dataset, progress=progress,
                                     dataset_dir=resolve(dataset_spec)))
    return publish(tier, result, dataset, settings, sources, clock, output_dir)


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
            sources: dict[str, Source], clock: RunClock, output_dir: Path | None) -> RunOutcome:
    """Build the report and write the run's files: into output_dir, or a new run folder plus `latest`."""
    report = report_doc.build(kind, result, dataset, settings, sources, clock.volatile())
    directory = output_dir or reports.run_directory(settings.reports_dir, dataset.name, kind.name, clock.run_id)
    reports.write_run(directory, report, result.items, result.files)
    if output_dir is None:
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
