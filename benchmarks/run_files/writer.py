"""Write a run's files: atomically, so a crash never leaves a half-written report behind."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

from benchmarks.run_files.atomic import atomic_write

LAST = ("report.json", "report.md")  # written after everything else: never a report beside stale items


def new_run_id(now: datetime | None = None) -> str:
    moment = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    return f"{moment}-{uuid4().hex[:6]}"


def run_directory(reports_dir: Path, dataset: str, tier: str, run_id: str) -> Path:
    return reports_dir / dataset.replace("/", "_") / tier / run_id


def write_run(directory: Path, files: Mapping[str, str]) -> None:
    """Write a run's files (name -> text, as `report.render_files` gives them), each atomically, in the
    given order except that report.json and report.md always come last."""
    directory.mkdir(parents=True, exist_ok=True)
    order = [name for name in files if name not in LAST] + [name for name in LAST if name in files]
    for name in order:
        atomic_write(directory / name, files[name])


def point_latest(directory: Path) -> None:
    """A `latest` symlink beside the run folders, replaced atomically."""
    link = directory.parent / "latest"
    temporary = directory.parent / f".latest-{uuid4().hex[:8]}"
    os.symlink(directory.name, temporary)
    os.replace(temporary, link)
