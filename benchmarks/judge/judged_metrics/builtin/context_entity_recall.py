"""context_entity_recall: the share of the reference's named entities found in the retrieved contexts.

Two calls: the entities of the reference, and those of the joined contexts, compared under
`judged.normalise_entity`.
"""

from __future__ import annotations

import asyncio

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, joined
from benchmarks.judge.llm.prompts import judge_call
from benchmarks.judge.llm.shapes import Shape, Text
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


class Entities(Shape):
    """Named entities of a text in canonical form. Empty is valid: a reference without entities makes
    the recall undetermined, contexts without them score 0.
    """

    entities: list[Text]


ENTITIES = judge_call("entities", Entities, "text", tokens=64, echoes=("text",))


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.reference is not None
    reference, contexts = await asyncio.gather(
        judge.ask(ENTITIES, {"text": s.reference}, model, trace),
        judge.ask(ENTITIES, {"text": joined(s.retrieved_contexts)}, model, trace),
    )
    found = {judged.normalise_entity(e) for e in contexts.entities}
    missed = [e for e in reference.entities if judged.normalise_entity(e) not in found]
    explanation = f"missing from the contexts: {', '.join(missed)}" if missed else ""
    return judged.context_entity_recall(reference.entities, contexts.entities), explanation


METRIC = JudgedMetric(
    name="context_entity_recall",
    help="share of the reference's entities found in the retrieved contexts",
    needs=("retrieved_contexts", "reference"),
    calls=(ENTITIES,),
    planned_calls=fixed(2),
    score=score,
    no_offline="it needs entity extraction; capitalised words are no entity detector (Russian sentence "
               "starts, English titles) and numbers alone are too few",
)
