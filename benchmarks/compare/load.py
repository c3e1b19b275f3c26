"""A run for `bench compare`: its report.json and, when present, its items.jsonl, validated against their
declared models (`report.Report`, `item_record.ItemRecord`), so compare reads every tier the same way.

The files are read by `benchmarks.run_files.reader`; BrokenRun lives there and is re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from benchmarks.errors import BenchError, first_problem, problem_path
from benchmarks.item_record import ITEM_RECORD, ItemRecord
from benchmarks.report_model import READABLE_VERSIONS, SCHEMA_VERSION, Report, upgrade
from benchmarks.run_files import reader as report_files
from benchmarks.run_files.reader import BrokenRun

__all__ = ["BrokenRun", "LoadedRun", "load_report", "load_run"]


@dataclass
class LoadedRun:
    path: Path
    report: Report
    items: list[ItemRecord] | None = field(default=None)  # None: no items.jsonl beside the report


def load_run(path: Path | str) -> LoadedRun:
    """A run folder (holding report.json) or a report.json path; items.jsonl is read from beside it.

    A path that does not exist, or a report another bench wrote in an older schema, is a usage error (exit 2);
    a run that exists but cannot be read is a broken run (exit 3)."""
    report_path, validated = load_report(path)
    rows = report_files.read_items(report_path.parent / "items.jsonl")
    return LoadedRun(report_path, validated, None if rows is None else _items(report_path.parent / "items.jsonl", rows))


def load_report(path: Path | str) -> tuple[Path, Report]:
    """A run's report.json, validated: the report.json path and the report (its items are not read). A report of
    schema version 2 is read as this version lays it out (`report_model.upgrade`). An older schema version, or a key
    no block declares, is a usage error (exit 2); a file that is no bench report a broken run (exit 3)."""
    report_path, report = report_files.read_report(path)
    version = report.get("schema_version") if isinstance(report, dict) else None
    if isinstance(version, int) and version not in READABLE_VERSIONS:
        raise BenchError(f"{report_path}: a report of schema version {version}, and this bench reads versions "
                         f"{', '.join(map(str, READABLE_VERSIONS))}; run it again with this bench to compare it")
    try:
        return report_path, Report.model_validate(upgrade(report) if isinstance(report, dict) else report)
    except ValidationError as exc:
        undeclared = [e for e in exc.errors() if e["type"] == "extra_forbidden"]
        if undeclared and len(undeclared) == exc.error_count():  # a report but for a key of its own (a misspelling)
            raise BenchError(f"{report_path}: {problem_path(undeclared[0])}: a key no block of report schema "
                             f"{SCHEMA_VERSION} declares (benchmarks/report/report.schema.json lists them)") from None
        raise BrokenRun(f"{report_path}: not a bench report ({first_problem(exc)})") from None


def _items(path: Path, lines: list[tuple[int, str]]) -> list[ItemRecord]:
    """Each line parsed and checked in one pass (pydantic's JSON reader)."""
    items: list[ItemRecord] = []
    for number, line in lines:
        try:
            items.append(ITEM_RECORD.validate_json(line))
        except ValidationError as exc:
            raise BrokenRun(f"{path}:{number}: not an item record ({first_problem(exc)})") from None
    return items
