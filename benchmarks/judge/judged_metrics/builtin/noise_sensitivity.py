"""noise_sensitivity: the share of wrong response statements traceable to relevant (or irrelevant)
contexts; lower is better.

3 + 2 calls per context, all shared calls: the statements of the response and of the reference, the
response's against the reference, and per context both lists against it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_context
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, rejected
from benchmarks.judge.llm.prompts import STATEMENT_VERDICTS, STATEMENTS
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


@dataclass(frozen=True)
class NoiseSensitivityVerdicts:
    """Every judge verdict noise sensitivity needs, one row per retrieved context.

    response_in_reference[j]: response statement j is supported by the reference.
    reference_in_context[c][i]: reference statement i is supported by context c.
    response_in_context[c][j]: response statement j is supported by context c.
    """

    response_in_reference: tuple[bool, ...]
    reference_in_context: tuple[tuple[bool, ...], ...]
    response_in_context: tuple[tuple[bool, ...], ...]

    def __post_init__(self) -> None:
        answer = judged.flags(self.response_in_reference, "response_in_reference")
        reference = tuple(judged.flags(row, "reference_in_context") for row in self.reference_in_context)
        response = tuple(judged.flags(row, "response_in_context") for row in self.response_in_context)
        if len(reference) != len(response):
            raise ValueError("reference_in_context and response_in_context need one row per context")
        if len({len(row) for row in reference}) > 1:
            raise ValueError("every reference_in_context row needs one verdict per reference statement")
        if any(len(row) != len(answer) for row in response):
            raise ValueError("every response_in_context row needs one verdict per response statement")
        object.__setattr__(self, "response_in_reference", answer)
        object.__setattr__(self, "reference_in_context", reference)
        object.__setattr__(self, "response_in_context", response)


def noise_sensitivity(verdicts: NoiseSensitivityVerdicts, mode: judged.NoiseMode = "relevant") -> Outcome:
    """Share of the response's statements that are wrong and traceable to a (ir)relevant context.

    Lower is better. RAGAS's definition, matrix by matrix:
    - a response statement j is incorrect when the reference does not support it;
    - a context c is relevant when it supports at least one reference statement;
    - "relevant" mode: j counts when it is incorrect and some relevant context supports it;
    - "irrelevant" mode: j counts when it is incorrect, some irrelevant context supports it and
      no relevant context does (the two modes never count the same statement).
    Formula: (number of counted statements) / (number of response statements).
    LLM calls: 3 + 2 per context (statements of the reference and of the response, response vs
    reference; per context, reference statements vs it and response statements vs it).
    Degenerate: no response statement → undetermined; no context → 0.0, since no error can be
    traced to a context; no reference statement → undetermined, since without one no context can
    be classed relevant or irrelevant (RAGAS fails there, taking a max over an empty axis).
    """
    if mode not in ("relevant", "irrelevant"):
        raise ValueError(f"mode must be 'relevant' or 'irrelevant', got {mode!r}")
    statements = len(verdicts.response_in_reference)
    if statements == 0:
        return Outcome.undetermined("the response has no statements")
    if not verdicts.response_in_context:
        return Outcome.scored(0.0, explanation="no context was retrieved")
    if not verdicts.reference_in_context[0]:
        return Outcome.undetermined("the reference has no statements, so no context can be classed relevant")
    relevant = [any(row) for row in verdicts.reference_in_context]
    counted = 0
    for j, correct in enumerate(verdicts.response_in_reference):
        via_relevant = any(row[j] for row, rel in zip(verdicts.response_in_context, relevant, strict=False) if rel)
        via_irrelevant = any(row[j] for row, rel in zip(verdicts.response_in_context, relevant, strict=False)
                             if not rel)
        traced = via_relevant if mode == "relevant" else via_irrelevant and not via_relevant
        if traced and not correct:
            counted += 1
    return Outcome.scored(judged.share(counted, statements))


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
    verdicts = NoiseSensitivityVerdicts(
        response_in_reference=tuple(v.verdict for v in in_reference),
        reference_in_context=tuple(tuple(v.verdict for v in ref) for ref, _ in per_context_verdicts),
        response_in_context=tuple(tuple(v.verdict for v in resp) for _, resp in per_context_verdicts),
    )
    return noise_sensitivity(verdicts, judge.options.noise_mode), rejected(in_reference, "verdict")


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
