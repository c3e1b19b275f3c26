"""Build the report: the one source every output (JSON, Markdown, console) renders from.

Stable parts (metrics, notes, provenance that identifies the run's inputs) are separated from the
volatile part (times, caches, machine-local paths), keys are sorted (metrics keep their tier's
reading order, which is fixed in code) and floats rounded, so the same code on the same data gives
the same stable block byte for byte and PR diffs stay quiet. The document is rounded here, then
validated into the model, whose dump (`model.py`) keeps that order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

from benchmarks._version import __version__
from benchmarks.config import Source
from benchmarks.inputs import InputSet
from benchmarks.report import markdown
from benchmarks.report_model import SCHEMA_VERSION, Report, Volatile
from benchmarks.tiers.base import Metric, ReportKind, TierResult

DIGITS = 6
LOCAL_SETTINGS = ("data_dir", "reports_dir")  # machine-specific: kept out of the stable block
ENVIRONMENT_KEYS = ("git_commit", "git_dirty", "python", "packages", "numeric_path")  # provenance.environment()


def build(
    tier: ReportKind,
    result: TierResult,
    dataset: InputSet,
    settings: Mapping[str, Any],
    sources: Mapping[str, Source],
    volatile: Volatile,
    *,
    environment: Mapping[str, Any],
) -> Report:
    """The report. `environment` holds ENVIRONMENT_KEYS (git commit and dirtiness, Python version,
    package versions, the floating-point path), as `run_files.provenance.environment()` gives them: building does
    no I/O. `settings` are the redacted settings the tier reads (and the local ones, shown apart as
    machine-specific)."""
    shown = dict(settings)
    local = {name: shown.pop(name) for name in LOCAL_SETTINGS if name in shown}
    report = {
        "schema_version": SCHEMA_VERSION,
        "tier": tier.name,
        "tier_version": tier.version,
        "title": tier.title,
        "main_metric": result.main_metric or tier.main_metric,
        "dataset": dataset.report_block(),
        **({"log": result.log.report_block()} if result.log is not None else {}),
        "provenance": {
            "bench_version": __version__,
            **{key: environment[key] for key in ENVIRONMENT_KEYS},
            **result.provenance.written(),
        },
        "settings": shown,
        "settings_sources": {k: v for k, v in sorted(sources.items()) if v != "default" and k not in local},
        "metrics": {name: _metric(metric) for name, metric in result.metrics.items()},
        "notes": result.notes.written(),
        "warnings": [asdict(w) for w in (*dataset.warnings, *(result.log.warnings if result.log else ()),
                                         *result.warnings)],
        "volatile": {**volatile.written(), **result.volatile.written(), "local_settings": local},
    }
    metrics = normalise(report.pop("metrics"), sort=False)
    return Report.model_validate({**normalise(report), "metrics": metrics})


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


def dumps(document: dict[str, Any]) -> str:
    """Canonical text: key order is already fixed (by `normalise`, or the model's dump), so dumps must not
    re-sort."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


def document(report: Report) -> dict[str, Any]:
    """What report.json holds: the fields as the report was given them (a block a tier did not write stays
    out, rather than becoming a null), in the model's canonical key order."""
    return report.written()


def render_files(report: Report, items: Iterable[dict[str, Any]],
                 extra_files: Mapping[str, str], *, lowest_items: bool = False) -> dict[str, str]:
    """Every file of a run, name -> text, in the order to write them: items.jsonl, the extra files, then
    report.json and report.md (rendered from the JSON text itself, and with `lowest_items` from items.jsonl's
    text too), so a crash never leaves a report.json beside stale items."""
    text = dumps(document(report))
    rows = "".join(json.dumps(normalise(i), ensure_ascii=False, sort_keys=True) + "\n" for i in items)
    records = [json.loads(row) for row in rows.splitlines()] if lowest_items else []
    return {
        "items.jsonl": rows,
        **extra_files,
        "report.json": text,
        "report.md": markdown.render(Report.model_validate_json(text), records),
    }


def _metric(metric: Metric) -> dict[str, Any]:
    """A metric's entry: its agreement with labels only when it has one, so unlabelled reports keep their shape."""
    entry = asdict(metric)
    if entry["agreement"] is None:
        del entry["agreement"]
    return entry
