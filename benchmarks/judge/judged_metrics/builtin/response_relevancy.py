"""response_relevancy: how well questions written back from the response match the question asked.

n calls (`--questions`, 3 by default), each a question generated from the response with a
noncommittal flag, then 1 + n embeddings read on the embedder's similarity scale.
"""

from __future__ import annotations

import asyncio

from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Binary, Reason, Shape, Text
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class GeneratedQuestion(Shape):
    """A question the response answers, and whether the response is noncommittal (evasive)."""

    question: Text
    reason: Reason
    noncommittal: Binary


QUESTION_GENERATION = judge_call("question_generation", GeneratedQuestion, "response", tokens=256)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None
    # distinct seeds make the n questions n distinct requests (and cache entries), as RAGAS's n samples
    answers = await asyncio.gather(*(
        judge.ask(QUESTION_GENERATION, {"response": s.response}, model, trace, seed=i)
        for i in range(judge.options.questions)
    ))
    vectors, scale = judge.vectors([s.user_input, *(a.question for a in answers)])
    generated = [judged.GeneratedQuestion(embedding=v, noncommittal=bool(a.noncommittal))
                 for v, a in zip(vectors[1:], answers, strict=True)]
    explanation = " | ".join(a.question for a in answers)
    return judged.response_relevancy(vectors[0], generated, scale=scale), explanation


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
