"""context_relevance, NVIDIA style: each context rated 0-2 for relevance to the question, normalised by
2, averaged. One call per context, at NVIDIA's temperature.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_context
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Rating, Reason, Shape
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

TEMPERATURE = 0.1  # NVIDIA's setting for its context-relevance judges


class ContextRating(Shape):
    """Relevance of one context to the question: 0 none, 1 partial, 2 full."""

    reason: Reason
    rating: Rating


CONTEXT_RATING = judge_call("context_rating", ContextRating, "question", "context", tokens=256)


def context_relevance(ratings: Sequence[int]) -> Outcome:
    """Mean relevance of the retrieved contexts to the question, on the judge's 0/1/2 scale.

    Formula (docs/metrics.md#context-relevance): (1/N) · Σ r_i / 2, r_i ∈ {0, 1, 2} the rating of context i; computed as
    Σ r_i / (2N). One rating per context as the seed specifies; RAGAS's NVIDIA-style metric rates the
    joined contexts twice with two prompts and averages the judges, which the seed does not do.
    LLM calls: 1 per context.
    Degenerate: no context retrieved → 0.0 with a reason (a retrieval failure, as for
    context_precision).
    """
    values = list(ratings)
    for r in values:
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)) or r not in (0, 1, 2):
            raise ValueError(f"context_relevance: a rating must be 0, 1 or 2, got {r!r}")
    if not values:
        return Outcome.scored(0.0, explanation="no context was retrieved")
    return Outcome.scored(judged.share(int(sum(values)), 2 * len(values)))


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.retrieved_contexts is not None
    answers = await asyncio.gather(*(
        judge.ask(CONTEXT_RATING, {"question": s.user_input, "context": c}, model, trace, temperature=TEMPERATURE)
        for c in s.retrieved_contexts
    ))
    explanation = " | ".join(f"#{i + 1}: {a.rating} ({a.reason})" for i, a in enumerate(answers))
    return context_relevance([a.rating for a in answers]), explanation


METRIC = JudgedMetric(
    name="context_relevance",
    help="each context rated 0-2 for relevance to the question, normalised by 2, averaged",
    needs=("user_input", "retrieved_contexts"),
    calls=(CONTEXT_RATING,),
    planned_calls=per_context,
    score=score,
    no_offline="mapping a question-to-context cosine onto the judge's 0/1/2 ratings would rest on cut-offs "
               "with nothing behind them",
)
