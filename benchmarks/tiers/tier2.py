"""Tier 2: generation on a fixed context (docs/commands/tier2-tier3.md).

Each question with relevant chunks is answered from those chunks (highest grade first): the
"ideal context" of the seed, so retrieval errors are out of the picture and what is measured is
how the system under test turns a right context into an answer. Questions without a relevant
chunk (unanswerable ones) have no fixed context and are left out, counted in notes.
"""

from __future__ import annotations

from typing import Any

from benchmarks.config import Origins, Settings
from benchmarks.dataset import Dataset
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.similarity_calibration import require_calibratable, similarity_scale
from benchmarks.report_model import Provenance, QuestionCounts, Volatile
from benchmarks.tiers.answering import cases, checks, grading, report_blocks, summaries
from benchmarks.tiers.answering.cases import Case, Plan
from benchmarks.tiers.base import RunContext, TierResult

RATINGS = ("faithfulness", "answer_relevance", "answer_correctness")


def fixed_context_cases(dataset: Dataset) -> list[Case]:
    text_of = {c.id: c.text for c in dataset.chunks}
    found = []
    for q in dataset.questions:
        ids = tuple(sorted((cid for cid, grade in q.relevant.items() if grade > 0 and cid in text_of),
                           key=lambda cid: (-q.relevant[cid], cid)))
        if ids:
            found.append(Case(q, tuple(text_of[cid] for cid in ids), ids))
    return found


def check(settings: Settings, origins: Origins) -> None:
    checks.check_local_judge(settings)


def run(ctx: RunContext[Dataset]) -> TierResult:
    s, dataset = ctx.settings, ctx.inputs
    plan = Plan(RATINGS, s.extra_metrics or ())
    checks.check_plan(s, plan)
    needed = {"relevant (a chunk with grade > 0, the fixed context)": lambda q: any(g > 0 for g in q.relevant.values()),
              "reference_answer": lambda q: q.reference_answer is not None}
    if s.generator == "precomputed":
        needed["response or responses"] = lambda q: bool(q.responses)
    cases.require_fields(dataset, "tier 2", needed)
    todo = fixed_context_cases(dataset)
    language, scale_language = cases.language_of(dataset), cases.scale_language(dataset)
    require_calibratable(s, scale_language)
    with open_embedder(s) as embedder:
        scale = similarity_scale(embedder, s, scale_language)
        graded, usage, generator = grading.answer_and_grade(ctx, todo, plan, embedder, scale)
        text_metrics, text_rows = summaries.text_metrics(graded, s)
        repeat_metrics, repeat_rows = summaries.repeat_metrics(graded, embedder, s, scale)
        embedder_info = embedder.provenance()
    metrics = {**summaries.grade_metrics(graded, plan, s), **text_metrics, **repeat_metrics}
    judge = report_blocks.scorer(s)
    items = [_item(g, report_blocks.item_scores(summaries.grade_scores(g, plan), {**t, **r}, judge))
             for g, t, r in zip(graded, text_rows, repeat_rows, strict=True)]
    provenance = report_blocks.judge_provenance(s, plan, language, generator, Provenance(
        embedder=embedder_info, similarity=scale.describe(summaries.calibrated_metrics(metrics, plan, s))))
    notes = report_blocks.judge_notes(s, plan, graded)
    notes.context = "the question's relevant chunks, highest grade first (the dataset's fixed context)"
    notes.questions = QuestionCounts(total=len(dataset.questions), answered=len(todo),
                                     without_context=len(dataset.questions) - len(todo))
    notes.scales = {"avg_faithfulness": "0–1", "avg_answer_relevance": "0–1", "avg_answer_correctness": "1–5",
                    "avg_bleu": "0–100 (sentence BLEU, sacreBLEU intl tokenizer)"}
    return TierResult(
        metrics=metrics,
        items=sorted(items, key=lambda item: item["id"]),
        notes=notes,
        provenance=provenance,
        volatile=report_blocks.latency_block(graded, Volatile(llm=usage)),
    )


def _item(graded: cases.Graded, scores: dict[str, Any]) -> dict[str, Any]:
    """The case's record: the question with its fixed context and reference, the graded (first) answer, every
    metric's score; every repeated answer beside them."""
    q = graded.case.question
    inputs = {"question": q.text, "context_ids": list(graded.case.context_ids), "reference_answer": q.reference_answer}
    return report_blocks.case_record(graded, inputs, scores)
