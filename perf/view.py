"""`bench view` speed and size: a reports folder of 100 runs, and one run of a million items.

- 100 runs: 10 datasets × 10 tier-1 runs of 100 items × 15 metrics, so 90 comparisons (bench compare's
  defaults, 10,000 resamples each). Goal: the site built in at most 5 s.
- A million items: one tier-1 run of 1,000,000 items × 15 metrics; the site's pages of 500 items each.

Each build is timed in-process, median of three (one for the million), from nothing (a new site folder) and
again over its own last build (which keeps bench compare's results), beside its baseline measured in the same
run: reading every report.json and every items.jsonl line with `json.loads`, the least any viewer must do.
Run: python -m perf.view
"""

from __future__ import annotations

import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.item_record import BENCH, record, score
from benchmarks.report_model import SCHEMA_VERSION
from benchmarks.view import build
from benchmarks.view.pages import PAGE_SIZE
from perf.sections import write_section

MARK, END_MARK = "<!-- view -->", "<!-- /view -->"
DATASETS, RUNS_EACH, ITEMS, MILLION, GOAL_S = 10, 10, 100, 1_000_000, 5.0
METRICS = ("ndcg@10", "ndcg@5", "mrr", *(f"{m}@{k}" for m in ("recall", "precision", "hit_rate") for k in (1, 5, 10)),
           "recall@3", "precision@3", "hit_rate@3")


def _write_run(folder: Path, dataset: str, items: int, seed: int, started: str) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    values = {m: rng.uniform(0, 1, items).round(6) for m in METRICS}
    ranked = [[f"doc{j}#1", 0.9 - j / 100] for j in range(10)]
    with (folder / "items.jsonl").open("w") as out:
        for i in range(items):
            row = record(f"q{i:07d}", {"question": f"How does one do task number {i}?"}, ranked,
                         {m: {BENCH: score(float(values[m][i]))} for m in METRICS}, cluster=f"doc{i % 500}")
            row["relevant"] = {f"doc{i % 10}#1": 1}
            out.write(json.dumps(row) + "\n")
    report = {"schema_version": SCHEMA_VERSION, "tier": "tier1", "tier_version": "1.0", "title": "Tier 1",
              "main_metric": "ndcg@10", "dataset": {"name": dataset, "content_sha256": dataset.ljust(64, "0")},
              "provenance": {}, "settings": {"top_k": 10},
              "metrics": {m: {"value": float(values[m].mean()), "n": items, "errors": 0,
                              "ci95": [float(values[m].mean()) - 0.05, float(values[m].mean()) + 0.05],
                              "higher_is_better": True} for m in METRICS},
              "volatile": {"run_id": folder.name, "started_at": started}}
    (folder / "report.json").write_text(json.dumps(report))


def _read_everything(reports: Path) -> None:
    """The baseline: every report and every item parsed, nothing rendered."""
    for path in reports.rglob("report.json"):
        json.loads(path.read_text())
        with (path.parent / "items.jsonl").open() as lines:
            for line in lines:
                json.loads(line)


def _timed(function, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        function()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _size(folder: Path) -> tuple[int, int, int]:
    """Files, total bytes, and the largest HTML page's bytes."""
    files = [p for p in folder.rglob("*") if p.is_file()]
    pages = [p.stat().st_size for p in files if p.suffix == ".html"]
    return len(files), sum(p.stat().st_size for p in files), max(pages)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        many = Path(tmp) / "many"
        for d in range(DATASETS):
            for r in range(RUNS_EACH):
                _write_run(many / f"set{d}" / "tier1" / f"run{r:02d}", f"set{d}", ITEMS, d * 100 + r,
                           f"2026-01-{r + 1:02d}T03:00:00+00:00")
        fresh = iter(range(100))
        view_s = _timed(lambda: build(many, Path(tmp) / f"cold{next(fresh)}"), 3)  # no earlier build to reuse
        built = build(many)
        warm_s = _timed(lambda: build(many), 3)  # the same folder again: every comparison from the last build
        read_s = _timed(lambda: _read_everything(many), 3)
        files, total, largest = _size(built.site)
        rows.append((f"{DATASETS * RUNS_EACH} runs × {ITEMS} items, {built.compare_pages} comparisons", view_s,
                     read_s, files, total, largest))
        rows.append(("the same, rebuilt (comparisons from the last build)", warm_s, read_s, files, total, largest))
        command = [sys.executable, "-m", "benchmarks.cli", "view", str(many)]
        whole_s = _timed(lambda: (shutil.rmtree(many / "site"), subprocess.run(command, check=True,
                                                                                capture_output=True)), 3)
        rows.append(("the same from nothing, as a whole `bench view` process (start-up included)", whole_s, read_s,
                     files, total, largest))
        verdict = "met" if view_s <= GOAL_S else "missed"

        big = Path(tmp) / "big"
        _write_run(big / "million" / "tier1" / "run", "million", MILLION, 7, "2026-01-01T03:00:00+00:00")
        read_big = _timed(lambda: _read_everything(big), 1)
        view_big = _timed(lambda: build(big), 1)
        files, total, largest = _size(big / "site")
        rows.append((f"1 run × {MILLION:,} items ({-(-MILLION // PAGE_SIZE):,} pages)", view_big, read_big, files,
                     total, largest))
    section = "\n".join([
        MARK,
        "## bench view",
        "",
        f"The static site of a reports folder (`python -m perf.view`, Python {platform.python_version()}): crafted "
        f"tier-1 runs of {len(METRICS)} metrics, with ten ranked chunks an item; bench compare on each pair of "
        "consecutive runs of a dataset at its defaults (10,000 resamples). Median of three builds (one for the "
        "million); the baseline is reading every report.json and items.jsonl line with `json.loads`, measured in "
        "the same run.",
        "",
        "| reports folder | build s | baseline s | × baseline | files | site MB | largest page KB |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *(f"| {name} | {view:.2f} | {read:.2f} | {view / read:.1f} | {files:,} | {total / 1e6:,.1f} | "
          f"{largest / 1e3:,.0f} |" for name, view, read, files, total, largest in rows),
        "",
        f"Goal at 100 runs, at most {GOAL_S:g} s from nothing: {verdict}. Each site includes plotly.min.js once "
        "(4.6 MB). A rebuild reuses every comparison whose runs, gates file and bench are unchanged, so a nightly "
        "rebuild compares only the night's new runs.",
        END_MARK,
    ])
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
