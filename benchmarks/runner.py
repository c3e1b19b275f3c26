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
from benchmarks.services import reports
from benchmarks.services.datasets import load_dataset
from benchmarks.tiers import TIERS
from benchmarks.tiers.base import RunContext


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
    run_id = reports.new_run_id()
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    with progress_bar(stderr or Console(stderr=True)) as progress:
        result = tier.run(RunContext(settings=settings, dataset=dataset, progress=progress))
    volatile = {
        "run_id": run_id,
        "started_at": started_at.isoformat(timespec="seconds"),
        "duration_s": round(time.perf_counter() - started, 3),
    }
    report = report_doc.build(tier, result, dataset, settings, sources, volatile)
    directory = output_dir or reports.run_directory(settings.reports_dir, dataset.name, tier.name, run_id)
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
