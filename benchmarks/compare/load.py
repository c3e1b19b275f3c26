"""Read a run for `bench compare`: its report.json and, when present, its items.jsonl (the only I/O)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError

REQUIRED = ("tier", "tier_version", "dataset", "metrics", "main_metric")


class BrokenRun(BenchError):
    """A run that cannot be read: missing or malformed report.json or items.jsonl."""

    exit_code = 3


@dataclass
class Run:
    path: Path
    report: dict[str, Any]
    items: list[dict[str, Any]] | None = field(default=None)  # None: no items.jsonl beside the report


def load_run(path: Path | str) -> Run:
    """A run folder (holding report.json) or a report.json path; items.jsonl is read from beside it.

    A path that does not exist is a usage error (exit 2); a run that exists but cannot be read is a
    broken run (exit 3)."""
    path = Path(path)
    if not path.exists():
        raise BenchError(f"{path}: no such run folder or report file")
    report_path = path / "report.json" if path.is_dir() else path
    try:
        report = json.loads(report_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BrokenRun(f"{path}: no report.json in this run folder") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BrokenRun(f"{report_path}: unreadable report: {exc}") from None
    if not isinstance(report, dict) or any(key not in report for key in REQUIRED):
        missing = [k for k in REQUIRED if not isinstance(report, dict) or k not in report]
        raise BrokenRun(f"{report_path}: not a bench report (missing {', '.join(missing)})")
    if not isinstance(report["metrics"], dict) or not isinstance(report["dataset"], dict):
        raise BrokenRun(f"{report_path}: not a bench report (metrics and dataset must be objects)")
    for name, metric in report["metrics"].items():
        if not isinstance(metric, dict) or "value" not in metric:
            raise BrokenRun(f"{report_path}: metric '{name}' has no value")
    items_path = report_path.parent / "items.jsonl"
    items = _items(items_path) if items_path.exists() else None
    return Run(report_path, report, items)


def _items(path: Path) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise BrokenRun(f"{path}:{number}: malformed item: {exc.msg}") from None
                if not isinstance(row, dict) or "id" not in row:
                    raise BrokenRun(f"{path}:{number}: an item needs an 'id'")
                items.append(row)
    except (OSError, UnicodeDecodeError) as exc:
        raise BrokenRun(f"{path}: unreadable items: {exc}") from None
    return items
