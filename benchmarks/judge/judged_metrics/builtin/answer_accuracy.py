"""answer_accuracy, NVIDIA style (RAGAS's AnswerAccuracy): how closely the response matches the reference,
rated 0, 2 or 4 by the judge twice with the roles swapped, the mean of the two ratings divided by 4.

Two calls of one template at NVIDIA's temperature: the response rated against the reference as the truth,
then the reference rated against the response. Asking both ways evens out a judge that is lenient to
whichever text it is told is the answer. Unlike RAGAS, a call that fails (after one repair) makes the
sample an error rather than leaving the score to the other rating.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Literal

import numpy as np
from pydantic import BeforeValidator

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Shape
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

TEMPERATURE = 0.1  # NVIDIA's setting for its judges


def _not_bool(value: object) -> object:
    """JSON true is not a rating: pydantic would read it as 1, and 1 is no rating either."""
    if isinstance(value, bool):
        raise ValueError("a rating is the number 0, 2 or 4, not true/false")  # noqa: TRY004
    return value


class AccuracyRating(Shape):
    """The rating alone, as NVIDIA's judges give it: 4 matches the reference, 2 partly, 0 not."""

    rating: Annotated[Literal[0, 2, 4], BeforeValidator(_not_bool)]


ANSWER_ACCURACY = judge_call("answer_accuracy", AccuracyRating, "question", "answer", "reference", tokens=16)


def answer_accuracy(response_rating: int, reference_rating: int) -> Outcome:
    """How closely the response and the reference match, from the judge's two 0/2/4 ratings.

    Formula (RAGAS's AnswerAccuracy): (r_1 / 4 + r_2 / 4) / 2, computed as (r_1 + r_2) / 8, with r_1 the
    rating of the response against the reference and r_2 that of the reference against the response
    (4 match, 2 partial, 0 none); every value is a multiple of 0.25, exact in floating point.
    LLM calls: 2.
    Degenerate: none; a rating off the scale is a parsing bug (the answer's shape rejects it) and raises
    ValueError. RAGAS keeps the one rating it got when the other call fails; here a failed call is the
    sample's error status, as for every metric.
    """
    for r in (response_rating, reference_rating):
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)) or r not in (0, 2, 4):
            raise ValueError(f"answer_accuracy: a rating must be 0, 2 or 4, got {r!r}")
    return Outcome.scored(int(response_rating + reference_rating) / 8)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None and s.reference is not None
    forward, backward = await asyncio.gather(*(
        judge.ask(ANSWER_ACCURACY, {"question": s.user_input, "answer": answer, "reference": truth}, model, trace,
                  temperature=TEMPERATURE)
        for answer, truth in ((s.response, s.reference), (s.reference, s.response))
    ))
    explanation = (f"response against the reference: {forward.rating}; "
                   f"reference against the response: {backward.rating}")
    return answer_accuracy(forward.rating, backward.rating), explanation


METRIC = JudgedMetric(
    name="answer_accuracy",
    help="the response rated 0/2/4 against the reference and the reference against the response, mean / 4",
    needs=("user_input", "response", "reference"),
    calls=(ANSWER_ACCURACY,),
    planned_calls=fixed(2),
    score=score,
    no_offline="it is a judge's overall rating of one answer against another; the claim-support test already "
               "stands in for factual_correctness and answer_correctness, and mapping it onto 0/2/4 would rest "
               "on cut-offs with nothing behind them",
)
