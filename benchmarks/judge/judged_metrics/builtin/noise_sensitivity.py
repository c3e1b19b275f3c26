"""noise_sensitivity: the share of wrong response statements traceable to relevant (or irrelevant)
contexts; lower is better.

3 + 2 calls per context, all shared calls: the statements of the response and of the reference, the
response's against the reference, and per context both lists against it.
"""

from __future__ import annotations

import asyncio

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_context
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, rejected
from benchmarks.judge.llm.prompts import STATEMENT_VERDICTS, STATEMENTS
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None
    assert s.reference is not None and s.retrieved_contexts is not None
    response, reference = await asyncio.gather(
        judge.statements(s.user_input, s.response, model, trace),
        judge.statements(s.user_input, s.reference, model, trace),
    )
    contexts = list(s.retrieved_contexts)
    in_reference = await judge.verdicts(s.reference, response, model, trace)
    per_context_verdicts = await asyncio.gather(*(
        asyncio.gather(judge.verdicts(c, reference, model, trace), judge.verdicts(c, response, model, trace))
        for c in contexts
    ))
    verdicts = judged.NoiseSensitivityVerdicts(
        response_in_reference=tuple(v.verdict for v in in_reference),
        reference_in_context=tuple(tuple(v.verdict for v in ref) for ref, _ in per_context_verdicts),
        response_in_context=tuple(tuple(v.verdict for v in resp) for _, resp in per_context_verdicts),
    )
    return judged.noise_sensitivity(verdicts, judge.options.noise_mode), rejected(in_reference, "verdict")


METRIC = JudgedMetric(
    name="noise_sensitivity",
    help="share of wrong response statements traceable to relevant (or irrelevant) contexts; lower is better",
    needs=("user_input", "response", "reference", "retrieved_contexts"),
    calls=(STATEMENTS, STATEMENT_VERDICTS),
    planned_calls=lambda sample, options: 3 + 2 * per_context(sample, options),
    score=score,
    higher_is_better=False,
    no_offline="it counts wrong statements, exactly the near-copies with a swapped detail that the support "
               "test lets through, so a proxy would report almost no noise whatever the system",
)
