"""Tier 3: end to end (docs/commands/tier2-tier3.md): retrieve from pgvector, answer from what was retrieved, judge.

Retrieval is tier 1's (same index, same embedder, exact or HNSW), at depth `e2e_top_k` (1 by
default, the seed's production setting). Each item records whether retrieval found a relevant
chunk, so the report can show how retrieval errors carry into answer quality: the e2e score of
items where retrieval hit next to those where it missed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from benchmarks.config import Origins, Settings
from benchmarks.corpus_index import IndexedCorpus, open_index
from benchmarks.dataset import Dataset, Question
from benchmarks.embedding.similarity_calibration import require_calibratable, similarity_scale
from benchmarks.metrics import text
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.report_model import EndToEndRetrieval, QuestionCounts, RetrievalGroup, RetrievalSplit
from benchmarks.tiers.answering import cases, checks, grading, report_blocks, summaries
from benchmarks.tiers.answering.cases import Case, Graded, Plan
from benchmarks.tiers.base import Metric, RunContext, TierResult

RATINGS = ("e2e_score",)


def check(settings: Settings, origins: Origins) -> None:
    checks.check_local_judge(settings)


def run(ctx: RunContext[Dataset]) -> TierResult:
    s, dataset = ctx.settings, ctx.inputs
    plan = Plan(RATINGS, s.extra_metrics or ())
    checks.check_plan(s, plan)
    needed = {"reference_answer": lambda q: q.reference_answer is not None}
    if s.generator == "precomputed":
        needed["response or responses"] = lambda q: bool(q.responses)
    cases.require_fields(dataset, "tier 3", needed)
    # one event loop for the run: its probes, then its answering; the corpus is indexed between them while the
    # loop is idle, so that Ctrl-C stops the indexing at once
    with asyncio.Runner() as runner:
        runner.run(checks.require_reachable_services(s))  # before embedding and indexing the corpus
        language, scale_language = cases.language_of(dataset), cases.scale_language(dataset)
        require_calibratable(s, scale_language)  # before the corpus is indexed
        with open_index(s, dataset, ctx.progress) as corpus:
            todo = _retrieve(corpus, dataset, ctx)
            scale = similarity_scale(corpus.embedder, s, scale_language)
            graded, usage, generator = grading.answer_and_grade(ctx, todo, plan, corpus.embedder, scale, runner)
            similarity_metrics, similarity_rows = _similarities(graded, corpus, s, scale)
            text_metrics, text_rows = summaries.text_metrics(graded, s)
            repeat_metrics, repeat_rows = summaries.repeat_metrics(graded, corpus.embedder, s, scale)
            provenance = report_blocks.judge_provenance(s, plan, language, generator, corpus.provenance())
            warnings = corpus.warnings()
            volatile = corpus.volatile()
    hits = [_hit(g.case) for g in graded]
    hit_name = f"retrieval_hit_rate@{s.e2e_top_k}"
    hit_rows = [{} if hit is None else {hit_name: Outcome.scored(float(hit))} for hit in hits]
    metrics = {
        **summaries.grade_metrics(graded, plan, s),
        **similarity_metrics,
        **repeat_metrics,
        **text_metrics,
        **summaries.summaries(hit_rows, [hit_name], s),
    }
    provenance.similarity = scale.describe(summaries.calibrated_metrics(metrics, plan, s))
    notes = report_blocks.judge_notes(s, plan, graded)
    notes.retrieval = EndToEndRetrieval(depth=s.e2e_top_k, index=s.index,
                                        hit="a retrieved chunk is judged relevant (grade > 0); questions with no "
                                            "relevant chunk have no hit value and are left out of the hit rate")
    notes.e2e_by_retrieval = e2e_by_retrieval(hits, [g.grades["e2e_score"].number for g in graded])
    notes.questions = QuestionCounts(total=len(dataset.questions))
    notes.scales = {"avg_e2e_score": "0–1",
                    "avg_semantic_similarity": "calibrated similarity, 0 (as alike as unrelated texts) to 1 "
                                               "(identical): provenance.similarity",
                    "avg_dot_similarity": "raw dot product of the embeddings: its scale is the embedder's",
                    "avg_euclidean_distance": "raw distance, lower is closer: its scale is the embedder's",
                    "avg_bleu": "0–100 (sentence BLEU)"}
    volatile.llm = usage
    judge = report_blocks.scorer(s)
    items = [_item(g, report_blocks.item_scores(summaries.grade_scores(g, plan), {**sim, **t, **r, **h}, judge))
             for g, sim, t, r, h in zip(graded, similarity_rows, text_rows, repeat_rows, hit_rows, strict=True)]
    return TierResult(
        metrics=metrics,
        items=sorted(items, key=lambda item: item["id"]),
        notes=notes,
        provenance=provenance,
        volatile=report_blocks.latency_block(graded, volatile),
        warnings=warnings,
    )


def _retrieve(corpus: IndexedCorpus, dataset: Dataset, ctx: RunContext[Dataset]) -> list[Case]:
    s = ctx.settings
    vectors = corpus.embed([q.text for q in dataset.questions], purpose="questions", progress=ctx.progress)
    found = corpus.retrieve(vectors, s.e2e_top_k, progress=ctx.progress)
    text_of = {c.id: c.text for c in dataset.chunks}
    return [Case(q, tuple(text_of[h.chunk_id] for h in hits), tuple(h.chunk_id for h in hits))
            for q, hits in zip(dataset.questions, found, strict=True)]


def _hit(case: Case) -> bool | None:
    relevant = {cid for cid, grade in case.question.relevant.items() if grade > 0}
    return bool(relevant.intersection(case.context_ids)) if relevant else None


def e2e_by_retrieval(hits: list[bool | None], scores: list[float | None]) -> RetrievalSplit:
    """Mean e2e score where retrieval hit, where it missed, and how many questions had no relevant chunk."""
    def group(flag: bool) -> RetrievalGroup:
        values = [v for h, v in zip(hits, scores, strict=True) if h is flag and v is not None]
        return RetrievalGroup(questions=sum(h is flag for h in hits), scored=len(values),
                              avg_e2e_score=float(np.mean(values)) if values else None)

    return RetrievalSplit(hit=group(True), miss=group(False), no_relevant_chunk=sum(h is None for h in hits))


SIMILARITY_METRICS = ("avg_semantic_similarity", "avg_dot_similarity", "avg_euclidean_distance")


def _similarities(graded: list[Graded], corpus: IndexedCorpus, settings: Settings, scale: SimilarityScale
                  ) -> tuple[dict[str, Metric], list[summaries.Scores]]:
    """Calibrated similarity (its raw cosine in the explanation), dot product and euclidean distance between
    each first answer and its reference (docs/metrics.md#answer-against-reference-in-embedding-space: the last
    two are raw geometry, as the seed defines them), and each case's outcomes (the pairs embedded in one call)."""
    pairs = [(str(g.first.text), str(cases.reference_answer(g.case))) for g in graded
             if g.first.status == "ok" and cases.reference_answer(g.case) is not None]
    texts = [t for pair in pairs for t in pair]
    vector = dict(zip(texts, corpus.embedder.encode(texts, purpose="answers"), strict=True)) if texts else {}

    def similarity(answer: str, reference: str) -> summaries.Scores:
        sim = text.embedding_similarity(vector[answer], vector[reference])
        cosine = (Outcome.undetermined("an embedding is the zero vector") if sim.cosine is None
                  else Outcome.scored(scale(sim.cosine), scale.explain(sim.cosine)))
        return {"avg_semantic_similarity": cosine, "avg_dot_similarity": Outcome.scored(sim.dot),
                "avg_euclidean_distance": Outcome.scored(sim.euclidean)}

    rows = [summaries.answer_scores(g, SIMILARITY_METRICS, similarity) for g in graded]
    metrics = summaries.summaries(rows, SIMILARITY_METRICS, settings, lower_is_better={"avg_euclidean_distance"})
    return metrics, rows


def _item(graded: Graded, scores: dict[str, Any]) -> dict[str, Any]:
    """The case's record: the question with its reference and judgments, the graded (first) answer, every
    metric's score; what retrieval returned and every repeated answer beside them."""
    q: Question = graded.case.question
    inputs = {"question": q.text, "reference_answer": q.reference_answer, "relevant": q.relevant}
    return report_blocks.case_record(graded, inputs, scores, retrieved_ids=list(graded.case.context_ids))
