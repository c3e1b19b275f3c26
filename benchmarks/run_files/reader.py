"""Read a finished run's files back, for `bench compare`: its report.json and its items.jsonl.

Only reading and parsing happen here; what makes a report a bench report is checked by
`benchmarks.compare.load`, which raises the same BrokenRun.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError


class BrokenRun(BenchError):
    """A run that cannot be read: missing or malformed report.json or items.jsonl."""

    exit_code = 3


def read_report(path: Path | str) -> tuple[Path, Any]:
    """A run folder (holding report.json) or a report.json path -> (the report.json path, its parsed JSON).

    A path that does not exist, or a folder without report.json (no finished run: the reports folder, a run
    still in progress), is a usage error (exit 2); a report that exists but cannot be read is a broken run
    (exit 3)."""
    path = Path(path)
    if not path.exists():
        raise BenchError(f"{path}: no such run folder or report file")
    report_path = path / "report.json" if path.is_dir() else path
    if not report_path.exists():
        raise BenchError(f"{path}: no report.json in this folder; give a run's folder or its report.json")
    try:
        return report_path, json.loads(report_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BrokenRun(f"{report_path}: unreadable report: {exc}") from None


def read_items(path: Path) -> list[tuple[int, str]] | None:
    """The lines of an items.jsonl with their numbers (blank lines skipped), None without the file; what makes
    a line an item is checked by `benchmarks.compare.load`."""
    if not path.exists():
        return None
    try:
        with path.open(encoding="utf-8") as lines:
            return [(number, line) for number, line in enumerate(lines, 1) if line.strip()]
    except (OSError, UnicodeDecodeError) as exc:
        raise BrokenRun(f"{path}: unreadable items: {exc}") from None
