"""factual_correctness: claim-level F-beta (or precision, or recall) of the response against the reference.

The claims of each side the mode needs, then verdicts on them against the other side (the shared
verdict call): 2 calls for precision or recall, 4 for F1, and 4 for recall too with RAGAS's counting,
which counts the response's claims in every mode.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, rejected, statement_bound
from benchmarks.judge.llm.prompts import STATEMENT_VERDICTS, judge_call
from benchmarks.judge.llm.shapes import Bounded, Text
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class Claims(Bounded):
    """Atomic claims of a text. Empty is valid: an evasive answer makes no claim."""

    listed: ClassVar[str] = "claims"
    claims: list[Text]


CLAIMS = judge_call("claims", Claims, "question", "text", tokens=64, echoes=("text",))


async def _claims(judge: LLMJudge, question: str | None, text: str, model: str, trace: Trace) -> list[str]:
    """The text's claims, a short answer completed with the question it answers ("—" where the sample gives none)."""
    return list((await judge.ask(CLAIMS, {"question": question or "—", "text": text}, model, trace,
                                 Claims.at_most(statement_bound(text)))).claims)


async def _none() -> None:
    return None


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.response is not None and s.reference is not None
    mode, ragas = judge.options.factual_mode, judge.options.claim_counting == "ragas"
    response_claims, reference_claims = await asyncio.gather(  # RAGAS counts the response's claims in every mode
        _claims(judge, s.user_input, s.response, model, trace) if mode != "recall" or ragas else _none(),
        _claims(judge, s.user_input, s.reference, model, trace) if mode != "precision" else _none(),
    )
    precision_side, recall_side = await asyncio.gather(
        judge.verdicts(s.reference, response_claims, model, trace) if response_claims is not None else _none(),
        judge.verdicts(s.response, reference_claims, model, trace) if reference_claims is not None else _none(),
    )
    verdicts = judged.ClaimVerdicts(
        response_supported=None if precision_side is None else tuple(v.verdict for v in precision_side),
        reference_supported=None if recall_side is None else tuple(v.verdict for v in recall_side),
    )
    outcome = judged.factual_correctness(verdicts, mode=mode, beta=judge.options.beta,
                                         counting=judge.options.claim_counting)
    return outcome, rejected([*(precision_side or []), *(recall_side or [])], "verdict")


def _planned(sample: Sample, options: JudgeOptions) -> int:
    both_sides = options.factual_mode == "f1" or (
        options.claim_counting == "ragas" and options.factual_mode == "recall"
    )
    return 4 if both_sides else 2


METRIC = JudgedMetric(
    name="factual_correctness",
    help="claim-level F-beta (or precision, recall) of the response against the reference",
    needs=("response", "reference"),
    calls=(CLAIMS, STATEMENT_VERDICTS),
    planned_calls=_planned,
    score=score,
    offline=OfflineProxy(("response", "reference"), proxies.factual_correctness,
                         "offline proxy: F1 of response claims supported by the reference and reference "
                         "claims supported by the response, bench's clauses standing in for LLM-extracted claims"),
)
