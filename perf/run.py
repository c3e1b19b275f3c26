"""Measure bench's hot paths against named baselines on the same data, in the same run.

    python -m perf.run            (make perf)

Writes its section of BENCHMARKS.md. The corpus is the synthetic generator at a scale that gives at least 10,000
chunks and 2,000 questions; the embedded PostgreSQL runs in a temporary data folder, so every
figure starts from an empty index and an empty embedding cache.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from perf.sections import best_time, figures_section, measured_on, write_section

ROOT = Path(__file__).resolve().parent.parent
MARK, END_MARK = "<!-- perf.run -->", "<!-- /perf.run -->"
MODEL = "all-MiniLM-L6-v2"  # a sentence-transformers model, so plain SentenceTransformer.encode is the baseline
SCALE = 28  # the smallest scale with at least 10,000 chunks
MIN_CHUNKS, QUESTIONS = 10_000, 2_000
SINGLE_QUERY_SAMPLE = 500  # one-round-trip-per-question baselines are timed on this many questions


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-perf-") as scratch:
        work = Path(scratch)
        dataset = _big_dataset(work)
        from benchmarks.readers.datasets import load_dataset

        data = load_dataset(str(dataset))
        if len(data.chunks) < MIN_CHUNKS or len(data.questions) != QUESTIONS:
            raise SystemExit(f"scale {SCALE} gives {len(data.chunks)} chunks / {len(data.questions)} questions")
        rows = []
        rows += _embedding(data, work / "embed-data")
        rows += _retrieval(data, work / "embed-data")
        rows += _metrics()
        rows += _second_run(dataset, work / "cli-data")
    _write(rows, data)


def _big_dataset(work: Path) -> Path:
    """The scaled corpus with a seeded sample of 2,000 of its questions, in bench's format."""
    subprocess.run([sys.executable, "-m", "benchmarks.synthetic", "--out", str(work / "generated"), "--scale",
                    str(SCALE), "--languages", "en"], check=True, cwd=ROOT)
    source = next(p for p in (work / "generated").iterdir() if (p / "questions.jsonl").exists())
    target = work / "synthetic-perf"
    target.mkdir()
    shutil.copy(source / "corpus.jsonl", target / "corpus.jsonl")
    lines = (source / "questions.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    keep = np.sort(np.random.default_rng(0).choice(len(lines), size=QUESTIONS, replace=False))
    (target / "questions.jsonl").write_text("".join(lines[i] for i in keep), encoding="utf-8")
    return target


def _settings(data_dir: Path) -> Any:
    from benchmarks.config import load_settings

    return load_settings({"data_dir": data_dir, "embedding_model": MODEL}, environ={})[0]


def _embedding(data: Any, data_dir: Path) -> list[dict[str, Any]]:
    """bench's indexing path (hash, cache lookup, encode, cache write, COPY) vs plain encode."""
    from sentence_transformers import SentenceTransformer

    from benchmarks.embedding.backends import build_embedder
    from benchmarks.store.database import connect
    from benchmarks.store.vectors import VectorStore

    texts = [c.text for c in data.chunks]
    settings = _settings(data_dir)
    database = connect(settings)
    store = VectorStore(database.engine)
    embedder = build_embedder(settings, store)
    plain_model = SentenceTransformer(embedder.inner.location, device="cpu")
    plain_model.encode(texts[:256], batch_size=settings.embedding_batch_size)  # warm both up
    embedder.inner.model.encode(texts[:256], batch_size=settings.embedding_batch_size)
    started = time.perf_counter()
    plain_model.encode(texts, batch_size=settings.embedding_batch_size, convert_to_numpy=True)
    plain = time.perf_counter() - started
    space = store.create_space("perf", embedder.model_id, embedder.dimension)
    started = time.perf_counter()
    store.sync(space, embedder.model_id, data.chunks, lambda batch: [embedder.encode(batch, purpose="corpus")])
    ours = time.perf_counter() - started
    database.engine.dispose()
    n = len(texts)
    return [{
        "what": f"embedding throughput, {n} chunks (texts/s)",
        "bench": f"{n / ours:.1f} (indexing path: hash, cache, encode, store)",
        "baseline": f"{n / plain:.1f} (plain SentenceTransformer.encode)",
        "ratio": f"{plain / ours:.2f}× of baseline (goal ≥ 0.90)",
    }]


def _retrieval(data: Any, data_dir: Path) -> list[dict[str, Any]]:
    """Batched retrieval (one LATERAL statement per batch) vs one round trip per question."""
    from benchmarks.embedding.backends import build_embedder
    from benchmarks.store.database import connect
    from benchmarks.store.vectors import VectorStore

    settings = _settings(data_dir)
    database = connect(settings)
    store = VectorStore(database.engine)
    embedder = build_embedder(settings, store)
    space, dimension = store.find_space("perf", embedder.model_id)
    vectors = embedder.encode([q.text for q in data.questions], purpose="questions")
    store.ensure_hnsw(space, dimension, settings.hnsw_m, settings.hnsw_ef_construction)
    sample = vectors[:SINGLE_QUERY_SAMPLE]
    rows = []
    for label, ef in (("exact", None), ("hnsw", settings.ef_search)):
        def batched(ef: int | None = ef) -> None:
            store.search_many(space, dimension, vectors, 10, batch_size=settings.retrieval_batch_size,
                              workers=settings.retrieval_workers, hnsw_ef_search=ef)

        def single(ef: int | None = ef) -> None:
            for row in range(len(sample)):
                store.search(space, dimension, sample[row : row + 1], 10, hnsw_ef_search=ef)

        batch_qps = len(vectors) / best_time(2, batched)
        single_qps = len(sample) / best_time(2, single)
        rows.append({
            "what": f"retrieval throughput on PostgreSQL, {label}, {len(data.chunks)} chunks (questions/s)",
            "bench": f"{batch_qps:.1f} (batches of {settings.retrieval_batch_size} on "
                     f"{settings.retrieval_workers} connections, {len(vectors)} questions)",
            "baseline": f"{single_qps:.1f} (one round trip per question, {len(sample)} questions)",
            "ratio": f"{batch_qps / single_qps:.2f}× of baseline",
        })
    database.engine.dispose()
    return rows


def _metrics() -> list[dict[str, Any]]:
    """Tier-1 metrics for 10,000 queries × 100 results vs pytrec-eval-terrier, with identical values."""
    import pytrec_eval

    from benchmarks.metrics.retrieval import evaluate

    rng = np.random.default_rng(0)
    run, qrels = {}, {}
    for q in range(10_000):
        docs = rng.choice(100_000, size=100, replace=False)
        scores = np.round(rng.random(100), 3)  # three decimals: ties occur, as in real runs
        run[f"q{q}"] = [(f"d{d}", float(s)) for d, s in zip(docs, scores, strict=True)]
        judged = np.concatenate([docs[: rng.integers(0, 4)], rng.choice(100_000, size=3)])
        qrels[f"q{q}"] = {f"d{d}": int(rng.integers(0, 3)) for d in judged}
    measures = {"success.1,5,10", "recip_rank", "recall.1,3,5,10", "P.1,3,5,10", "ndcg_cut.5,10"}

    def reference() -> dict[str, dict[str, float]]:
        return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({q: dict(r) for q, r in run.items()})

    ours_s = best_time(3, lambda: evaluate(run, qrels))
    ref_s = best_time(3, reference)
    ours, ref = evaluate(run, qrels), reference()
    names = {"hit_rate@1": "success_1", "hit_rate@5": "success_5", "hit_rate@10": "success_10",
             "mrr": "recip_rank", "ndcg@5": "ndcg_cut_5", "ndcg@10": "ndcg_cut_10",
             **{f"recall@{k}": f"recall_{k}" for k in (1, 3, 5, 10)},
             **{f"precision@{k}": f"P_{k}" for k in (1, 3, 5, 10)}}
    worst = max(
        float(np.max(np.abs(ours.values[name] - np.array([ref[q][trec] for q in ours.qids]))))
        for name, trec in names.items()
    )
    return [{
        "what": "tier-1 metrics, 10,000 queries × 100 results (seconds)",
        "bench": f"{ours_s:.3f}",
        "baseline": f"{ref_s:.3f} (pytrec-eval-terrier, same run and qrels)",
        "ratio": f"{ours_s / ref_s:.2f}× of baseline time (goal ≤ 1.0); largest difference {worst:.1e}",
    }]


def _second_run(dataset: Path, data_dir: Path) -> list[dict[str, Any]]:
    """`bench tier1` twice on an unchanged corpus: the second run must embed nothing."""
    import json

    timings, reports = [], []
    for attempt in range(2):
        out = data_dir.parent / f"second-run-{attempt}"
        env = {**os.environ, "BENCH_DATA_DIR": str(data_dir)}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "benchmarks.cli", "tier1", "--dataset", str(dataset), "--embedding-model",
                        MODEL, "-o", str(out)],
                       check=True, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
        timings.append(time.perf_counter() - started)
        reports.append(json.loads((out / "report.json").read_text()))
    embedded = reports[1]["volatile"]["embedding_cache"]["embedded"]
    if embedded or not reports[1]["volatile"]["indexing"]["reused"]:
        raise SystemExit(f"the second run embedded {embedded} texts; it must embed none")
    return [{
        "what": "`bench tier1`, second run on an unchanged corpus (seconds, whole command)",
        "bench": f"{timings[1]:.1f} (embedded {embedded} texts, index reused)",
        "baseline": f"{timings[0]:.1f} (first run: embeds "
                    f"{reports[0]['volatile']['embedding_cache']['embedded']} texts and indexes)",
        "ratio": f"{timings[1] / timings[0]:.2f}× of baseline time; {timings[0] - timings[1]:.1f} s saved",
    }]


def _write(rows: list[dict[str, Any]], data: Any) -> None:
    measured = (f"{measured_on()}; corpus: synthetic generator at scale {SCALE} ({len(data.chunks)} chunks, a seeded "
                f"sample of {len(data.questions)} questions), model all-MiniLM-L6-v2 on CPU, embedded PostgreSQL 18 "
                "with pgvector 0.8.")
    section = figures_section((MARK, END_MARK), "Hot paths", [
        "Written by `python -m perf.run` (`make perf`), on the same data as its baselines.",
    ], rows, measured=measured)
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
