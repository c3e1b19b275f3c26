"""Where bench keeps its state and writes its reports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import platformdirs

from benchmarks.config.declare import setting


@dataclass(frozen=True)
class StorageSettings:
    data_dir: Path = setting(
        Path(platformdirs.user_data_dir("bench")),
        "Folder for bench's own state: the embedded PostgreSQL data directory lives here, so the "
        "index and the embedding cache survive between runs.",
    )
    database_url: str | None = setting(
        None,
        "PostgreSQL with pgvector to use instead of the embedded server "
        "(postgresql://user:password@host:5432/db).",
        env=("DATABASE_URL", "BENCH_DATABASE_URL"),
        secret=True,
        url=True,
    )
    reports_dir: Path = setting(Path("reports"), "Where run folders are written: <dir>/<dataset>/<tier>/<run-id>.")
