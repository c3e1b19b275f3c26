"""Real-Users tier (docs/metrics.md#real-users): retrieval on logged questions, and what the sources cover.

Ground truth is the proxy the seed names: `confluence_url`, the page the production system showed
for that turn. Results are ranked as pages (tier 1's `--relevance url`): each url once, at its best
chunk's score, so a logged question is answered when its page comes back. A turn without a url has
no ground truth; it is counted and left out of the retrieval means, but it still counts for chunk
utilisation and topic coverage, which need no labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.corpus_index import open_index
from benchmarks.dataset import Dataset
from benchmarks.errors import BenchError
from benchmarks.metrics import retrieval
from benchmarks.metrics.sources import chunk_utilization, topic_coverage
from benchmarks.metrics.stats import summarize
from benchmarks.readers.log_sources import load_logs
from benchmarks.report_model import ChunkUtilization, LogEntries, Notes, Topic, TopicCoverage
from benchmarks.tiers.base import Metric, RunContext, TierResult
from benchmarks.tiers.tier1 import URL_OVERSAMPLE, rank_results, retrieval_scores

WEAK = ("a topic with at least the median question count whose unique chunks per question are below half "
        "the median over topics: many questions answered from few chunks")
PROXY = ("a logged turn's confluence_url (the page production showed) is its one relevant page; pages are "
         "ranked by their best chunk")


def run(ctx: RunContext[Dataset]) -> TierResult:
    s = ctx.settings
    logs = load_logs(s, s.logs, ctx.dataset_dir)
    entries = logs.entries
    if not entries:
        raise BenchError(f"log '{logs.name}' has no entries")
    if not any(c.url for c in ctx.inputs.chunks):
        raise BenchError(f"dataset '{ctx.inputs.name}' has no urls in its corpus: logged confluence_urls "
                         "cannot be matched to chunks")
    with open_index(s, ctx.inputs, ctx.progress) as corpus:
        vectors = corpus.embed([e.question for e in entries], purpose="log questions", progress=ctx.progress)
        found = corpus.retrieve(vectors, s.top_k * URL_OVERSAMPLE, progress=ctx.progress)
        provenance, warnings, volatile = corpus.provenance(), corpus.warnings(), corpus.volatile()
    run_map = {e.id: rank_results(hits, "url", s.top_k) for e, hits in zip(entries, found, strict=True)}
    labelled = [e for e in entries if e.url]
    qrels = {e.id: {str(e.url): 1} for e in labelled}
    per_query = retrieval.evaluate(run_map, qrels)
    metrics = {name: Metric.from_summary(summarize(values, resamples=s.bootstrap_resamples, seed=s.seed))
               for name, values in per_query.values.items()}
    top_chunks = [[h.chunk_id for h in hits[: s.top_k]] for hits in found]
    top_urls = [[url for url, _ in run_map[e.id]] for e in entries]
    usage = chunk_utilization(top_chunks, [c.id for c in ctx.inputs.chunks])
    metrics["chunk_utilization"] = Metric(usage.rate, usage.total, higher_is_better=None)
    coverage = _coverage(vectors, top_chunks, top_urls, s.topics, s.seed)
    known_urls = {c.url for c in ctx.inputs.chunks if c.url}
    return TierResult(
        metrics=metrics,
        items=_items(entries, run_map, per_query, coverage),
        notes=Notes(
            ground_truth=PROXY,
            depth=s.top_k,
            log_entries=LogEntries(
                total=len(entries),
                with_url=len(labelled),
                without_url=len(entries) - len(labelled),
                without_url_handling="no ground truth: excluded from the retrieval metrics, kept for chunk "
                                     "utilisation and topic coverage",
                url_not_in_corpus=sum(1 for e in labelled if e.url not in known_urls),
                evaluated=len(per_query.qids),
            ),
            chunk_utilization=ChunkUtilization(total_chunks=usage.total, used_chunks=usage.used,
                                               unused_chunks=usage.unused, utilization_rate=usage.rate,
                                               what=f"chunks in the top-{s.top_k} of at least one logged question"),
            topic_coverage=_coverage_notes(coverage),
        ),
        provenance=provenance,
        volatile=volatile,
        warnings=warnings,
        log=logs,
    )


def _coverage(vectors: np.ndarray, chunks: list[list[str]], urls: list[list[str]], topics: int, seed: int) -> Any:
    try:
        return topic_coverage(vectors, chunks, urls, topics, seed)
    except ValueError as exc:
        raise BenchError(f"--topics {topics}: {exc}") from None


def _coverage_notes(coverage: Any) -> TopicCoverage:
    return TopicCoverage(
        n_topics=coverage.n_topics,
        total_questions=coverage.total_questions,
        avg_chunks_per_topic=coverage.avg_chunks_per_topic,
        weak=WEAK,
        topics=[Topic(topic_id=t.topic_id, question_count=t.question_count, unique_chunks=t.unique_chunks,
                      unique_urls=t.unique_urls, weak=t.weak) for t in coverage.topics],
    )


def _items(entries: Any, run_map: dict[str, list[tuple[str, float]]], per_query: retrieval.PerQuery,
           coverage: Any) -> list[dict[str, Any]]:
    """One record per logged turn: its ranked pages are the answer, its confluence_url the ground truth and
    the document it is about; a turn without a url has no retrieval scores (it is left out of the means)."""
    row_of = {qid: i for i, qid in enumerate(per_query.qids)}
    items = [item_record.record(
        entry.id, {"question": entry.question}, [[url, score] for url, score in run_map[entry.id]],
        retrieval_scores(per_query, row_of.get(entry.id)), cluster=entry.url or None,
        session_id=entry.session_id, confluence_url=entry.url, topic=int(coverage.labels[index]))
        for index, entry in enumerate(entries)]
    return sorted(items, key=lambda item: item["id"])
