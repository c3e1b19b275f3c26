"""A run for `bench compare`: its report.json, checked, and, when present, its items.jsonl.

The files are read by `benchmarks.services.report_files`; BrokenRun lives there and is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.services import report_files
from benchmarks.services.report_files import BrokenRun

__all__ = ["REQUIRED", "BrokenRun", "Run", "load_run"]

REQUIRED = ("tier", "tier_version", "dataset", "metrics", "main_metric")


@dataclass
class Run:
    path: Path
    report: dict[str, Any]
    items: list[dict[str, Any]] | None = field(default=None)  # None: no items.jsonl beside the report


def load_run(path: Path | str) -> Run:
    """A run folder (holding report.json) or a report.json path; items.jsonl is read from beside it.

    A path that does not exist is a usage error (exit 2); a run that exists but cannot be read is a
    broken run (exit 3)."""
    report_path, report = report_files.read_report(path)
    if not isinstance(report, dict) or any(key not in report for key in REQUIRED):
        missing = [k for k in REQUIRED if not isinstance(report, dict) or k not in report]
        raise BrokenRun(f"{report_path}: not a bench report (missing {', '.join(missing)})")
    if not isinstance(report["metrics"], dict) or not isinstance(report["dataset"], dict):
        raise BrokenRun(f"{report_path}: not a bench report (metrics and dataset must be objects)")
    for name, metric in report["metrics"].items():
        if not isinstance(metric, dict) or "value" not in metric:
            raise BrokenRun(f"{report_path}: metric '{name}' has no value")
    return Run(report_path, report, report_files.read_items(report_path.parent / "items.jsonl"))

