"""The runs a reports folder holds, as the viewer lists them: every report.json under the folder, and every line
of the nightly index, joined on the report's path, so a run that failed before writing a report still shows.

A run's status is the index's when the index has the run ("ok" or "failed"), else what its report says: "ok"
when its main metric has a value, "measured nothing" when it has none (the exit 3 of the run itself).
Two runs are compared when they are consecutive runs of one tier on one dataset and bench compare's identity
check finds nothing that tells them apart (`compare.core.identity_diff`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from benchmarks.compare.core import identity_diff
from benchmarks.compare.load import load_report
from benchmarks.errors import BenchError
from benchmarks.report_model import Report
from benchmarks.run_files.index import index_path, read_index
from benchmarks.run_files.index_line import IndexLine

REPORT_FILE = "report.json"


@dataclass(frozen=True)
class RunEntry:
    """One run of the index page: from its report when it has one, else from its index line."""

    key: str  # the run folder relative to the reports folder, "/"-separated: the run page's own folder in the site
    tier: str
    dataset: str
    run_id: str
    started_at: str
    status: str
    main_metric: str | None
    main_value: float | None
    ci95: tuple[float, float] | None
    folder: Path | None = None  # None: the run failed before it wrote a report
    report: Report | None = None
    error: str = ""  # why the run failed, or why its report could not be read


def discover(reports_dir: Path, *, skip: Path | None = None) -> list[RunEntry]:
    """Every run under `reports_dir`, oldest first (ties by key), the site's own folder (`skip`) left out."""
    lines = read_index(index_path(reports_dir))
    by_report = {report: line for line in lines if (report := line["report"]) is not None}
    entries = [_from_report(reports_dir, folder, by_report.pop(_key(reports_dir, folder) + "/" + REPORT_FILE, None))
               for folder in _run_folders(reports_dir, skip)]
    entries += [_from_line(line) for line in lines if line["report"] is None or line["report"] in by_report]
    return sorted(entries, key=lambda e: (e.started_at, e.key))


def comparable_pairs(entries: Sequence[RunEntry]) -> list[tuple[RunEntry, RunEntry]]:
    """(base, candidate) for each run and the run before it of the same tier and dataset, when comparable."""
    last: dict[tuple[str, str], RunEntry] = {}
    pairs = []
    for entry in entries:
        if entry.report is None:
            continue
        group = (entry.tier, entry.dataset)
        before = last.get(group)
        if before is not None and before.report is not None and not identity_diff(before.report, entry.report):
            pairs.append((before, entry))
        last[group] = entry
    return pairs


def _run_folders(reports_dir: Path, skip: Path | None) -> list[Path]:
    """Folders holding a report.json, found without following links (a `latest` link is not another run)."""
    skipped = skip.resolve() if skip is not None else None
    found = []
    for root, folders, files in os.walk(reports_dir):
        here = Path(root)
        folders[:] = sorted(f for f in folders if skipped is None or (here / f).resolve() != skipped)
        if REPORT_FILE in files:
            found.append(here)
    return found


def _key(reports_dir: Path, folder: Path) -> str:
    return folder.relative_to(reports_dir).as_posix()


def _from_report(reports_dir: Path, folder: Path, line: IndexLine | None) -> RunEntry:
    key = _key(reports_dir, folder)
    try:
        _, report = load_report(folder)  # as bench compare reads it
    except BenchError as exc:  # a broken report, or one of another schema version: listed, with why
        return RunEntry(key=key, tier=line["tier"] if line else "?", dataset=line["dataset"] if line else "?",
                        run_id=folder.name, started_at=(line["started_at"] or "") if line else "", status="unreadable",
                        main_metric=None, main_value=None, ci95=None, folder=folder, error=str(exc))
    main = report.metrics.get(report.main_metric)
    value = None if main is None or main.value is None else float(main.value)
    status = line["status"] if line else "ok" if value is not None else "measured nothing"
    return RunEntry(key=key, tier=report.tier, dataset=report.dataset.name,
                    run_id=report.volatile.run_id or folder.name, started_at=report.volatile.started_at or "",
                    status=status, main_metric=report.main_metric, main_value=value,
                    ci95=(float(main.ci95[0]), float(main.ci95[1])) if main is not None and main.ci95 else None,
                    folder=folder, report=report, error=(line["error"] or "") if line else "")


def _from_line(line: IndexLine) -> RunEntry:
    """A run the index names and no report stands for: it failed before writing one, or its folder is gone."""
    value = line["main_value"]
    return RunEntry(key="", tier=line["tier"], dataset=line["dataset"], run_id=line["run_id"] or "",
                    started_at=line["started_at"] or "", status=line["status"], main_metric=line["main_metric"],
                    main_value=None if value is None else float(value), ci95=None,
                    error=line["error"] or ("its report is gone" if line["report"] else ""))
