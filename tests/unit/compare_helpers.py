"""Crafted runs for the compare tests: a report.json and items.jsonl written into a folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.item_record import BENCH, record, score, value_of
from benchmarks.report_model import SCHEMA_VERSION


def write_run(folder: Path, items: list[dict[str, Any]] | None, metrics: dict[str, dict[str, Any]] | None = None, *,
              tier: str = "tier1", tier_version: str = "1.0", sha: str = "a" * 64, main: str = "ndcg@10",
              settings: dict[str, Any] | None = None, provenance: dict[str, Any] | None = None,
              notes: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if metrics is None:
        metrics = {}
        for name in sorted({k for item in items or [] for k in item["scores"]}):
            values = [v for it in items or [] if name in it["scores"]
                      for v in [value_of(it["scores"][name])] if isinstance(v, float)]
            metrics[name] = {"value": float(np.mean(values)) if values else None, "n": len(values), "errors": 0,
                             "ci95": None, "higher_is_better": True}
    report = {"schema_version": SCHEMA_VERSION, "tier": tier, "tier_version": tier_version, "title": tier,
              "main_metric": main, "dataset": {"name": "crafted", "content_sha256": sha, "version": "1"},
              "provenance": {"bench_version": "0.1.0", "git_commit": None, **(provenance or {})},
              "settings": settings or {"top_k": 10}, "metrics": metrics, "notes": notes or {}, "warnings": [],
              "volatile": {}}
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    if items is not None:
        (folder / "items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return folder


def item(item_id: str, values: dict[str, Any], *, cluster: str | None = None, scorer: str = BENCH,
         inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """An item record (benchmarks.item_record): per metric a number (ok), None (an api_error) or, as is, a
    {scorer: outcome} mapping."""
    def scored(value: Any) -> dict[str, Any]:
        if isinstance(value, dict):
            return value
        return {scorer: score(value) if value is not None else score(None, "api_error", "the call failed")}
    return record(item_id, inputs or {"question": f"question {item_id}"}, None,
                  {name: scored(value) for name, value in values.items()}, cluster=cluster)


def tier1_items(values: dict[str, list[float]], *, ids: list[str] | None = None,
                documents: list[str] | None = None) -> list[dict[str, Any]]:
    n = len(next(iter(values.values())))
    ids = ids or [f"q{i:05d}" for i in range(n)]
    return [item(ids[i], {k: v[i] for k, v in values.items()}, cluster=documents[i] if documents else None)
            for i in range(n)]


def shifted(n: int, shift: float, *, seed: int = 1, noise: float = 0.05) -> tuple[list[float], list[float]]:
    """Base values and candidate values moved by `shift` with small per-item noise (clipped to 0–1)."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.3, 0.7, n)
    cand = np.clip(base + shift + rng.normal(0, noise, n), 0, 1)
    return [round(float(v), 6) for v in base], [round(float(v), 6) for v in cand]
