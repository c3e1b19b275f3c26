"""context_precision: whether the contexts that helped were ranked first (average precision).

One call per context: was it useful to arrive at the reference (or, without one, at the response)?
"""

from __future__ import annotations

import asyncio

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_context
from benchmarks.judge.llm.asking import JudgeFailed, Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Binary, Reason, Shape
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class ContextUsefulness(Shape):
    """Whether one retrieved context helped to arrive at the given answer."""

    reason: Reason
    verdict: Binary


CONTEXT_USEFULNESS = judge_call("context_usefulness", ContextUsefulness, "question", "context", "reference",
                                tokens=256)


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    """Reference-based or response-based; auto takes the reference when the sample has one."""
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.retrieved_contexts is not None
    side = judge.options.precision_against
    if side == "auto":
        side = "reference" if s.reference is not None else "response"
    against = getattr(s, side)
    if against is None:
        raise JudgeFailed("undetermined", f"missing field(s): {side}")
    answers = await asyncio.gather(*(
        judge.ask(CONTEXT_USEFULNESS, {"question": s.user_input, "context": c, "reference": against}, model, trace)
        for c in s.retrieved_contexts
    ))
    explanation = " | ".join(f"#{i + 1}: {a.verdict} ({a.reason})" for i, a in enumerate(answers))
    return judged.context_precision([a.verdict for a in answers]), explanation


METRIC = JudgedMetric(
    name="context_precision",
    help="average precision of the contexts judged useful (against the reference or the response)",
    needs=("user_input", "retrieved_contexts"),
    calls=(CONTEXT_USEFULNESS,),
    planned_calls=per_context,
    score=score,
    offline=OfflineProxy(("reference", "retrieved_contexts"), proxies.context_precision,
                         "offline proxy: average precision in rank order, a context counting as relevant when it "
                         "supports some reference sentence, not an LLM usefulness verdict"),
)
