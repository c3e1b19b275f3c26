"""response_relevancy: how well questions written back from the response match the question asked.

n calls (`--questions`, 3 by default), each a question generated from the response with a
noncommittal flag, then 1 + n embeddings read on the embedder's similarity scale.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, cast

from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Binary, Reason, Shape, Text
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class GeneratedQuestion(Shape):
    """A question the response answers, and whether the response is noncommittal (evasive)."""

    question: Text
    reason: Reason
    noncommittal: Binary


QUESTION_GENERATION = judge_call("question_generation", GeneratedQuestion, "response", tokens=256)


@dataclass(frozen=True)
class EmbeddedQuestion:
    """One question the judge wrote for the response, embedded, with its noncommittal flag."""

    embedding: judged.Vector
    noncommittal: bool


def response_relevancy(
    question: judged.Vector,
    generated: Sequence[EmbeddedQuestion],
    *,
    scale: SimilarityScale,
    zero_when: Literal["all", "any"] = "all",
) -> Outcome:
    """How well questions reconstructed from the response match the question actually asked.

    Formula: mean_i s(cos(e(q), e(g_i))) × m, where m = 0 when the response is judged noncommittal
    and 1 otherwise, and s is the embedder's similarity scale (`similarity_scale`: 0 for texts as alike
    as unrelated ones, 1 for identical; RAGAS averages raw cosines, which mean another thing under
    each embedder). With `zero_when="all"` (default) the response is noncommittal when every
    generation is flagged: the seed's rule and today's RAGAS (`np.all`). With "any", one flag is
    enough, as in earlier RAGAS releases (`np.any`), for comparison with numbers they produced.
    The explanation keeps the raw cosines.
    LLM calls: n (one generated question each; n defaults to 3). Embeddings: 1 + n.
    Degenerate: no generated question (the caller drops empty ones) → undetermined (RAGAS gives
    NaN or 0.0 depending on version); a noncommittal response → 0.0 even if an embedding is
    degenerate; a zero-vector embedding → undetermined.
    """
    if zero_when not in ("all", "any"):
        raise ValueError(f"zero_when must be 'all' or 'any', got {zero_when!r}")
    if not generated:
        return Outcome.undetermined("no question was generated from the response")
    flags = judged.flags((g.noncommittal for g in generated), "noncommittal")
    if (all if zero_when == "all" else any)(flags):
        return Outcome.scored(0.0, explanation="the response is noncommittal")
    cosines = [judged.cosine(question, g.embedding) for g in generated]
    if any(c is None for c in cosines):
        return Outcome.undetermined("an embedding is the zero vector")
    raw = cast(list[float], cosines)
    return Outcome.scored(math.fsum(scale(c) for c in raw) / len(raw),
                          "; ".join(scale.explain(c) for c in raw))


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None
    # distinct seeds make the n questions n distinct requests (and cache entries), as RAGAS's n samples
    answers = await asyncio.gather(*(
        judge.ask(QUESTION_GENERATION, {"response": s.response}, model, trace, seed=i)
        for i in range(judge.options.questions)
    ))
    vectors, scale = judge.vectors([s.user_input, *(a.question for a in answers)])
    generated = [EmbeddedQuestion(embedding=v, noncommittal=bool(a.noncommittal))
                 for v, a in zip(vectors[1:], answers, strict=True)]
    explanation = " | ".join(a.question for a in answers)
    return response_relevancy(vectors[0], generated, scale=scale), explanation


METRIC = JudgedMetric(
    name="response_relevancy",
    help="mean calibrated similarity of the question and questions generated from the response; 0 if "
         "noncommittal",
    needs=("user_input", "response"),
    calls=(QUESTION_GENERATION,),
    planned_calls=lambda sample, options: options.questions,
    score=score,
    embeds=("user_input",),  # and the questions the judge writes, known only then
    no_offline="it compares the question with questions generated from the answer and zeroes noncommittal "
               "answers; a question-to-answer cosine lives on another scale and sees no evasion",
)
