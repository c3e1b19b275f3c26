"""`bench compare` speed: two crafted tier-1 runs of 10,000 items, 15 metrics, 10,000 paired bootstrap resamples.

Times loading (report.json + items.jsonl), comparing (per-item extraction, one clustered bootstrap
shared by every metric) and rendering the Markdown, best of three. Goal: under 2 seconds.
Run: python -m perf.compare
"""

from __future__ import annotations

import json
import platform
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.compare import compare, load_run, render
from benchmarks.compare.gates import Gates
from benchmarks.item_record import BENCH, record, score
from benchmarks.report_model import SCHEMA_VERSION
from perf.sections import write_section

MARK, END_MARK = "<!-- compare -->", "<!-- /compare -->"
ITEMS, RESAMPLES, DOCUMENTS, GOAL_S = 10_000, 10_000, 2_000, 2.0
METRICS = ("ndcg@10", "ndcg@5", "mrr", *(f"{m}@{k}" for m in ("recall", "precision", "hit_rate") for k in (1, 5, 10)),
           "recall@3", "precision@3", "hit_rate@3")


def _write(folder: Path, shift: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True)
    values = {m: np.clip(rng.uniform(0, 1, ITEMS) + shift, 0, 1).round(6) for m in METRICS}
    with (folder / "items.jsonl").open("w") as out:
        for i in range(ITEMS):
            out.write(json.dumps(record(f"q{i:05d}", {"question": f"question {i}"}, None,
                                        {m: {BENCH: score(float(values[m][i]))} for m in METRICS},
                                        cluster=f"doc{i % DOCUMENTS}")) + "\n")
    report = {"schema_version": SCHEMA_VERSION, "tier": "tier1", "tier_version": "1.0", "title": "Tier 1",
              "main_metric": "ndcg@10",
              "dataset": {"name": "perf", "content_sha256": "0" * 64}, "provenance": {}, "settings": {},
              "metrics": {m: {"value": float(values[m].mean()), "n": ITEMS, "errors": 0, "ci95": None,
                              "higher_is_better": True} for m in METRICS}}
    (folder / "report.json").write_text(json.dumps(report))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        _write(Path(tmp) / "base", 0.0, 1)
        _write(Path(tmp) / "cand", -0.01, 2)
        best: dict[str, float] = {}
        for _ in range(3):
            t0 = time.perf_counter()
            base, cand = load_run(Path(tmp) / "base"), load_run(Path(tmp) / "cand")
            t1 = time.perf_counter()
            result = compare(base, cand, Gates(), resamples=RESAMPLES, seed=0)
            t2 = time.perf_counter()
            text = render(result)
            t3 = time.perf_counter()
            for key, value in (("load", t1 - t0), ("compare", t2 - t1), ("render", t3 - t2), ("total", t3 - t0)):
                best[key] = min(best.get(key, float("inf")), value)
    verdict = "met" if best["total"] < GOAL_S else "missed"
    section = "\n".join([
        MARK,
        "## bench compare",
        "",
        f"Two crafted tier-1 runs of {ITEMS:,} items × {len(METRICS)} metrics, paired bootstrap with "
        f"{RESAMPLES:,} resamples clustered over {DOCUMENTS:,} source documents (`python -m perf.compare`, "
        f"best of three, Python {platform.python_version()}, numpy {np.__version__}).",
        "",
        "| step | seconds |",
        "|---|---:|",
        *(f"| {key} | {value:.3f} |" for key, value in best.items()),
        "",
        f"Goal under {GOAL_S:g} s: {verdict}. Markdown: {len(text):,} characters.",
        END_MARK,
    ])
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
