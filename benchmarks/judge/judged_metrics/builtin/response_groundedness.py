"""response_groundedness, NVIDIA style (RAGAS's ResponseGroundedness): how far the response as a whole is
supported by the retrieved contexts, rated 0 (not grounded), 1 (partly) or 2 (fully), divided by 2.

The third of NVIDIA's judge metrics beside context_relevance and answer_accuracy. One call on the whole
response against the joined contexts, at NVIDIA's temperature: faithfulness asks one question per claim and
is the finer measure; this is the cheap one (one call whatever the response's length), which a judge gives
in the same time for a long answer as for a short one. RAGAS asks two differently worded prompts and
averages them; here one prompt is asked once, so the number costs half and rests on that prompt alone. Unlike
RAGAS's, the prompt shows the user's question where the sample gives one ("—" where not): a short answer is
grounded only as an answer to what was asked.
"""

from __future__ import annotations

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, joined
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Rating, Reason, Shape
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

TEMPERATURE = 0.1  # NVIDIA's setting for its judges


class GroundednessRating(Shape):
    """How far the contexts support the response: 0 not, 1 partly, 2 fully."""

    reason: Reason
    rating: Rating


GROUNDEDNESS = judge_call("response_groundedness", GroundednessRating, "context", "question", "answer", tokens=256)


def groundedness(rating: int) -> Outcome:
    """The judge's 0/1/2 rating on 0–1: rating / 2 (RAGAS's ResponseGroundedness over one prompt). A pure
    formula of this metric alone, so it lives with it."""
    if isinstance(rating, bool) or rating not in (0, 1, 2):
        raise ValueError(f"response_groundedness: a rating must be 0, 1 or 2, got {rating!r}")
    return Outcome.scored(rating / 2)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.response is not None
    answer = await judge.ask(GROUNDEDNESS, {"context": joined(s.retrieved_contexts), "question": s.user_input or "—",
                                            "answer": s.response}, model, trace, temperature=TEMPERATURE)
    return groundedness(answer.rating), f"{answer.rating}: {answer.reason}"


METRIC = JudgedMetric(
    name="response_groundedness",
    help="the whole response rated 0-2 for how far the retrieved contexts support it, divided by 2 (one call)",
    needs=("response", "retrieved_contexts"),
    calls=(GROUNDEDNESS,),
    planned_calls=fixed(1),
    score=score,
    no_offline="the offline judge's claim-support test is faithfulness's proxy already; a 0/1/2 rating of the "
               "whole response from it would rest on cut-offs with nothing behind them",
)
