"""answer_correctness: weighted factual F1 and semantic similarity of the response against the reference.

3 calls, as RAGAS: the statements of the response and of the reference (the shared call), then one
classification of them into TP, FP and FN; and two embeddings for the similarity part.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any, ClassVar

from pydantic import model_validator

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import STATEMENTS, judge_call, statements_block
from benchmarks.judge.llm.shapes import Reason, Shape, Text, counted
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class ClassifiedStatement(Shape):
    """One statement placed in TP, FP or FN, and why."""

    statement: Text
    reason: Reason


class StatementClassification(Shape):
    """Response statements as TP (supported by the reference) or FP (not), and reference statements the
    response misses as FN. Lists may be empty individually; every response statement must land in TP or
    FP, so `expecting` checks |TP| + |FP| and that FN does not exceed the reference's statements.
    """

    expected: ClassVar[int | None] = None
    reference_total: ClassVar[int | None] = None

    TP: list[ClassifiedStatement]
    FP: list[ClassifiedStatement]
    FN: list[ClassifiedStatement]

    @model_validator(mode="after")
    def _every_statement_classified(self) -> StatementClassification:
        classified = len(self.TP) + len(self.FP)
        if self.expected is not None and classified != self.expected:
            raise ValueError(
                f"expected {self.expected} response statements in TP and FP together, got {classified}"
            )
        if self.reference_total is not None and len(self.FN) > self.reference_total:
            raise ValueError(
                f"FN holds {len(self.FN)} statements, the reference has only {self.reference_total}"
            )
        return self

    @classmethod
    def tighten(cls, schema: dict[str, Any]) -> None:
        if cls.reference_total is not None:
            schema["properties"]["FN"]["maxItems"] = cls.reference_total

    @classmethod
    def expecting(cls, response: int, reference: int) -> type[StatementClassification]:
        """The shape for `response` response statements against `reference` reference ones."""
        return _classification_for(response, reference)


@cache
def _classification_for(response: int, reference: int) -> type[StatementClassification]:
    if reference < 0:
        raise ValueError(f"StatementClassification: reference count must be >= 0, got {reference}")
    name = f"Of{response}And{reference}"
    return counted(StatementClassification, response, name, reference_total=reference)  # type: ignore[return-value]


STATEMENT_CLASSIFICATION = judge_call(
    "statement_classification",
    StatementClassification,
    "question",
    "response_statements",
    "reference_statements",
    tokens=160,
    echoes=("response_statements", "reference_statements"),
)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None and s.reference is not None
    response, reference = await asyncio.gather(
        judge.statements(s.user_input, s.response, model, trace),
        judge.statements(s.user_input, s.reference, model, trace),
    )
    if response or reference:
        answer = await judge.ask(
            STATEMENT_CLASSIFICATION,
            {"question": s.user_input, "response_statements": statements_block(response),
             "reference_statements": statements_block(reference)},
            model, trace, StatementClassification.expecting(len(response), len(reference)),
        )
        counts = judged.ClaimCounts(tp=len(answer.TP), fp=len(answer.FP), fn=len(answer.FN))
    else:
        counts = judged.ClaimCounts(tp=0, fp=0, fn=0)
    if judge.options.claim_counting == "ragas":  # RAGAS: F1 in floats, unrounded; no statement at all is 1.0
        factual = Outcome.scored(judged.ragas_fbeta(counts, 1.0) if response or reference else 1.0)
    else:
        factual = judged.factual_correctness(counts, mode="f1")
    (response_vector, reference_vector), scale = judge.vectors([s.response, s.reference])
    similarity = judged.semantic_similarity(response_vector, reference_vector, scale=scale)
    explanation = f"TP {counts.tp}, FP {counts.fp}, FN {counts.fn}; similarity {similarity.value}"
    return judged.answer_correctness(factual, similarity, weights=judge.options.weights), explanation


METRIC = JudgedMetric(
    name="answer_correctness",
    help="weighted factual F1 and semantic similarity of the response against the reference",
    needs=("user_input", "response", "reference"),
    calls=(STATEMENTS, STATEMENT_CLASSIFICATION),
    planned_calls=fixed(3),
    score=score,
    embeds=("response", "reference"),
    offline=OfflineProxy(("response", "reference"), proxies.answer_correctness,
                         "offline proxy: 0.75 x claim-support F1 (as factual_correctness offline) + 0.25 x "
                         "calibrated embedding similarity of response and reference, not LLM-classified statements"),
)
