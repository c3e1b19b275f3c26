"""Tier 1: retrieval from pgvector against ground truth (docs/metrics.md#retrieval-tier-1), with trec_eval semantics."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.config import Settings
from benchmarks.corpus_index import EXACT_SEARCH, IndexedCorpus, open_index
from benchmarks.dataset import Dataset
from benchmarks.errors import BenchError
from benchmarks.metrics import retrieval
from benchmarks.metrics.stats import percentile, summarize
from benchmarks.report_model import Latency, Notes, Queries, RetrievalTiming
from benchmarks.store.vectors import Hit
from benchmarks.tiers.base import Metric, RunContext, TierResult

URL_OVERSAMPLE = 4  # chunks fetched per wanted result when results are pages, so k distinct pages remain

WITHOUT_RELEVANT = (
    "excluded from every mean (trec_eval convention: recall and nDCG are undefined without a relevant "
    "document); they are still retrieved, written to run.trec and items.jsonl, and counted here"
)


def run(ctx: RunContext[Dataset]) -> TierResult:
    s, dataset = ctx.settings, ctx.inputs
    if s.relevance == "url" and not any(c.url for c in dataset.chunks):
        raise BenchError(f"dataset '{dataset.name}' has no urls in its corpus: --relevance url cannot be used")
    qrels = dataset.url_qrels() if s.relevance == "url" else dataset.chunk_qrels()
    with open_index(s, dataset, ctx.progress) as corpus:
        vectors = corpus.embed([q.text for q in dataset.questions], purpose="questions", progress=ctx.progress)
        corpus.exact_space(ctx.progress)  # exact search and ANN recall's ground truth read the vectors once
        started = time.perf_counter()
        repeats = [_retrieve(corpus, vectors, ctx, repeat) for repeat in range(s.consistency_runs)]
        retrieval_seconds = (time.perf_counter() - started) / s.consistency_runs
        latencies = _latencies(corpus, vectors, ctx)
        ann = _ann_recall(corpus, vectors, repeats[0], ctx) if s.index == "hnsw" else None
        provenance = corpus.provenance()
        warnings = corpus.warnings()
        volatile = corpus.volatile()
    qids = [q.id for q in dataset.questions]
    ranked = [[rank_results(hits, s.relevance, s.top_k) for hits in repeat] for repeat in repeats]
    run_map = dict(zip(qids, ranked[0], strict=True))
    per_query = retrieval.evaluate(run_map, qrels)
    metrics = {
        name: Metric.from_summary(summarize(values, resamples=s.bootstrap_resamples, seed=s.seed))
        for name, values in per_query.values.items()
    }
    consistency = None
    if s.consistency_runs > 1:
        consistency = retrieval.ranking_consistency([[[doc for doc, _ in r] for r in rep] for rep in ranked])
        metrics["retrieval_consistency"] = Metric.from_summary(
            summarize(consistency, resamples=s.bootstrap_resamples, seed=s.seed)
        )
    if ann is not None:
        metrics[f"ann_recall@{s.top_k}"] = Metric.from_summary(
            summarize([r for r in ann[0] if r is not None], resamples=s.bootstrap_resamples, seed=s.seed))
    volatile.retrieval = RetrievalTiming(
        search="pgvector HNSW, batched" if s.index == "hnsw" else "numpy exact (benchmarks.nearest)",
        vectors_read_seconds=round(corpus.vectors_read_seconds or 0.0, 4),
        seconds_per_pass=round(retrieval_seconds, 4),
        queries_per_second=round(len(qids) / retrieval_seconds, 1) if retrieval_seconds else None,
        latency_ms=Latency(
            p50=_ms(percentile(latencies, 50)),
            p95=_ms(percentile(latencies, 95)),
            n=int(latencies.size),
            what="one question per SQL round trip on PostgreSQL, query embedding excluded",
            limits=f"{s.latency_queries} questions or {s.latency_seconds:g} s, whichever came first",
        ),
    )
    if corpus.vectors_read_from:
        volatile.retrieval.vectors_read_from = corpus.vectors_read_from
    if ann:
        volatile.retrieval.exact_queries_per_second = round(len(qids) / ann[1], 1) if ann[1] else None
    return TierResult(
        metrics=metrics,
        items=_items(dataset, qrels, run_map, per_query, consistency,
                     (f"ann_recall@{s.top_k}", ann[0]) if ann else None),
        notes=_notes(s, len(qids), per_query, consistency is not None, ann is not None),
        provenance=provenance,
        volatile=volatile,
        warnings=warnings,
        files={"run.trec": _trec(run_map, tag=f"bench-{s.index}")},
    )


def _notes(s: Settings, questions: int, per_query: retrieval.PerQuery, consistency: bool, ann: bool) -> Notes:
    notes = Notes(
        relevance=s.relevance,
        depth=s.top_k,
        mrr_cutoff=s.top_k,
        ties="score descending, then document id descending (trec_eval)",
        queries=Queries(total=questions, evaluated=len(per_query.qids),
                        without_relevant=len(per_query.without_relevant), without_relevant_handling=WITHOUT_RELEVANT),
        retrieval_consistency=(
            f"share of {s.consistency_runs - 1} repeated retrievals whose ordered top-{s.top_k} equals the "
            "first, over all questions" if consistency else "not measured (consistency_runs = 1)"),
        confidence_intervals=f"95% percentile bootstrap over questions, {s.bootstrap_resamples} resamples, "
        f"seed {s.seed}",
    )
    if ann:
        notes.ann_recall = (f"share of exact search's top {s.top_k} the index returned, per question; exact search: "
                            f"{EXACT_SEARCH}")
    return notes


def _retrieve(corpus: IndexedCorpus, vectors: np.ndarray, ctx: RunContext[Dataset], repeat: int) -> list[list[Hit]]:
    s = ctx.settings
    depth = s.top_k * URL_OVERSAMPLE if s.relevance == "url" else s.top_k
    label = "retrieving" if repeat == 0 else f"retrieving again ({repeat + 1}/{s.consistency_runs})"
    return corpus.retrieve(vectors, depth, progress=ctx.progress, label=label)


def _ann_recall(corpus: IndexedCorpus, vectors: np.ndarray, approximate: list[list[Hit]], ctx: RunContext[Dataset]
                ) -> tuple[list[float | None], float]:
    """Per question, the share of exact search's top-k chunks the index returned in its top k (as
    ann-benchmarks measures an index; None when exact search found nothing, so there is nothing to recall),
    and the seconds of the exact pass, for its throughput beside the index's."""
    k = ctx.settings.top_k
    started = time.perf_counter()
    exact = corpus.retrieve(vectors, k, progress=ctx.progress, label="exact search (for ANN recall)", exact=True)
    seconds = time.perf_counter() - started
    recalls = [len({h.chunk_id for h in found[:k]} & {h.chunk_id for h in truth}) / len(truth)
               if truth else None for found, truth in zip(approximate, exact, strict=True)]
    return recalls, seconds


def _latencies(corpus: IndexedCorpus, vectors: np.ndarray, ctx: RunContext[Dataset]) -> np.ndarray:
    """Time single-question round trips on PostgreSQL, the production path: what one user waits for, unlike the
    batched passes. Questions in a seeded order, until `latency_queries` are timed or the next one, taking as
    long as the slowest so far, would end past `latency_seconds`, so a large exact scan (seconds a question at a
    million chunks) does not decide the run's length; any run times the same questions first, and at least one
    (a budget smaller than one round trip still measures something)."""
    s = ctx.settings
    count = min(s.latency_queries, len(vectors))
    order = np.random.Generator(np.random.PCG64(s.seed)).permutation(len(vectors))[:count]
    task = ctx.progress.add_task("timing single queries", total=count)
    timings: list[float] = []
    deadline = time.perf_counter() + s.latency_seconds
    for row in order:
        started = time.perf_counter()
        corpus.store.search(corpus.space_id, corpus.dimension, vectors[row : row + 1], s.top_k,
                            hnsw_ef_search=corpus.ef_search)
        finished = time.perf_counter()
        timings.append(finished - started)
        ctx.progress.advance(task)
        if finished + max(timings) > deadline:
            break
    ctx.progress.remove_task(task)
    return np.asarray(timings)


def rank_results(hits: list[Hit], relevance: str, k: int) -> list[tuple[str, float]]:
    """The ranking that is scored: chunk ids, or pages (each url once, at its best chunk's score)."""
    if relevance == "chunk":
        return retrieval.trec_order([(h.chunk_id, h.score) for h in hits])[:k]
    best: dict[str, float] = {}
    for h in hits:  # a url whose every chunk scores NaN is still listed, last, as trec_order ranks NaN
        if h.url and (h.url not in best or retrieval.score_key(h.score) > retrieval.score_key(best[h.url])):
            best[h.url] = h.score
    return retrieval.trec_order(list(best.items()))[:k]


def _items(
    dataset: Dataset,
    qrels: dict[str, dict[str, int]],
    run_map: dict[str, list[tuple[str, float]]],
    per_query: retrieval.PerQuery,
    consistency: np.ndarray | None,
    ann: tuple[str, list[float | None]] | None,
) -> list[dict[str, Any]]:
    """One record per question: its ranking is the answer; the retrieval metrics score only questions with a
    relevant document (as the report's means), consistency and ANN recall each question they measured."""
    row_of = {qid: i for i, qid in enumerate(per_query.qids)}
    items = []
    for index, question in enumerate(dataset.questions):
        scores = retrieval_scores(per_query, row_of.get(question.id))
        if consistency is not None:
            scores["retrieval_consistency"] = _bench(float(consistency[index]))
        if ann is not None and (recall := ann[1][index]) is not None:
            scores[ann[0]] = _bench(recall)
        relevant = qrels[question.id]
        items.append(item_record.record(
            question.id, {"question": question.text}, [[doc, score] for doc, score in run_map[question.id]],
            scores, cluster=item_record.top_document(relevant), relevant=relevant))
    return sorted(items, key=lambda item: item["id"])


def retrieval_scores(per_query: retrieval.PerQuery, row: int | None) -> dict[str, dict[str, dict[str, Any]]]:
    """A question's retrieval metrics as bench computed them; none for a question left out of the means
    (no relevant document: the metrics do not apply to it)."""
    if row is None:
        return {}
    return {name: _bench(float(values[row])) for name, values in per_query.values.items()}


def _bench(value: float) -> dict[str, dict[str, Any]]:
    """A value bench computed itself, so its scorer is bench, not a judge."""
    return {item_record.BENCH: item_record.score(value)}


def _trec(run_map: dict[str, list[tuple[str, float]]], tag: str) -> str:
    lines = [
        f"{qid} Q0 {doc} {rank} {score!r} {tag}"
        for qid in sorted(run_map)
        for rank, (doc, score) in enumerate(run_map[qid], start=1)
    ]
    return "\n".join(lines) + ("\n" if lines else "")


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 3)
