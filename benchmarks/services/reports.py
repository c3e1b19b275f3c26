"""Write a run's files: atomically, so a crash never leaves a half-written report behind."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from benchmarks import report as report_doc
from benchmarks.report_markdown import render
from benchmarks.services.files import atomic_write


def new_run_id(now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"{moment}-{uuid4().hex[:6]}"


def run_directory(reports_dir: Path, dataset: str, tier: str, run_id: str) -> Path:
    return reports_dir / dataset.replace("/", "_") / tier / run_id


def write_run(directory: Path, report: dict[str, Any], items: Iterable[dict[str, Any]],
              files: dict[str, str]) -> None:
    """report.json, report.md (rendered from the JSON text itself), items.jsonl and extra files."""
    directory.mkdir(parents=True, exist_ok=True)
    text = report_doc.dumps(report)
    rows = "".join(json.dumps(report_doc.normalise(i), ensure_ascii=False, sort_keys=True) + "\n" for i in items)
    written = {
        "items.jsonl": rows,
        **files,
        "report.json": text,
        "report.md": render(json.loads(text)),
    }
    for name, content in written.items():
        atomic_write(directory / name, content)


def point_latest(directory: Path) -> None:
    """A `latest` symlink beside the run folders, replaced atomically."""
    link = directory.parent / "latest"
    temporary = directory.parent / f".latest-{uuid4().hex[:8]}"
    os.symlink(directory.name, temporary)
    os.replace(temporary, link)
