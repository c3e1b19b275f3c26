"""context_recall: the share of the reference's sentences attributable to the retrieved contexts.

Yes-no verdicts (the default): one question per claim of the reference against the joined contexts, each read
as an answer to the user's question, scored as faithfulness scores its claims (the mean probability of Yes, or
the share of Yes answers). Statements verdicts: one call, the judge splits the reference into sentences and
classifies each against the joined contexts, so the number of sentences is its own; bench's splitter only bounds
it.
"""

from __future__ import annotations

from typing import ClassVar

from benchmarks.judge.claims import split_claims, split_sentences
from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_claim
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import SENTENCE_SLACK, LLMJudge, claims_supported, joined, rejected
from benchmarks.judge.llm.prompts import CLAIM_SUPPORT, KNOWLEDGE_ANSWER, judge_call
from benchmarks.judge.llm.shapes import Binary, Bounded, Reason, Shape, Text
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class SentenceAttribution(Shape):
    """Whether one sentence of the reference can be attributed to the retrieved contexts."""

    statement: Text
    reason: Reason
    attributed: Binary


class Attributions(Bounded):
    """The reference split into sentences, each classified. Empty is valid only for an empty reference,
    which the score function reports as undetermined; the number of sentences is the judge's to decide,
    so there is no expected count, only a bound.
    """

    listed: ClassVar[str] = "classifications"
    classifications: list[SentenceAttribution]


REFERENCE_ATTRIBUTION = judge_call(
    "reference_attribution", Attributions, "question", "context", "reference", tokens=160,
    echoes=("reference",),
)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.reference is not None
    if judge.options.verdicts == "yes-no":
        return await claims_supported(judge, s.user_input, split_claims(s.reference), joined(s.retrieved_contexts),
                                      model, trace, nothing="the reference has no statements")
    answer = await judge.ask(REFERENCE_ATTRIBUTION, {"question": s.user_input, "context": joined(s.retrieved_contexts),
                                                     "reference": s.reference}, model, trace,
                             Attributions.at_most(len(split_sentences(s.reference)) + SENTENCE_SLACK))
    classified = list(answer.classifications)
    return judged.context_recall([c.attributed for c in classified]), rejected(classified, "attributed")


METRIC = JudgedMetric(
    name="context_recall",
    help="share of the reference's sentences attributable to the retrieved contexts",
    needs=("user_input", "retrieved_contexts", "reference"),
    calls=(REFERENCE_ATTRIBUTION,),
    yes_no=(KNOWLEDGE_ANSWER, CLAIM_SUPPORT),
    planned_calls=per_claim("reference", statements=1),
    score=score,
    offline=OfflineProxy(("reference", "retrieved_contexts"), proxies.context_recall,
                         "offline proxy: share of reference claims supported by the retrieved contexts read together "
                         f"({proxies.SUPPORT_TEST}), not LLM-attributed claims"),
)
