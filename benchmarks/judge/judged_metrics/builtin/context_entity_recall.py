"""context_entity_recall: the share of the reference's named entities found in the retrieved contexts.

Two calls: the entities of the reference, and those of the joined contexts, compared under
`normalise_entity`.
"""

from __future__ import annotations

import asyncio
import unicodedata
from collections.abc import Iterable

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


def normalise_entity(entity: str) -> str:
    """The form under which two extracted entities count as the same one.

    NFKC (so full-width digits and ligatures match their plain forms), case folding and collapsed
    whitespace (non-breaking spaces included: "21 196 km" equals "21 196 km"). Inflection is left
    alone ("Париже" is not "Париж"): the extraction prompt is what asks for canonical forms.
    """
    return " ".join(unicodedata.normalize("NFKC", entity).casefold().split())


def context_entity_recall(reference_entities: Iterable[str], context_entities: Iterable[str]) -> Outcome:
    """Share of the reference's entities that the retrieved contexts also contain.

    Formula: |R ∩ C| / |R|, with R and C the sets of `normalise_entity` forms (duplicates count
    once; entities empty after normalisation are dropped).
    LLM calls: 2 (entities of the reference, entities of the joined contexts).
    Degenerate: no reference entity → undetermined (RAGAS divides by |R| + 1e-8 and reports 0,
    which would blame the retriever for a reference with nothing to find); no context entity
    with reference entities → 0.0, every reference entity is missed.
    """
    reference = {normalise_entity(e) for e in reference_entities} - {""}
    context = {normalise_entity(e) for e in context_entities} - {""}
    if not reference:
        return Outcome.undetermined("the reference has no entities")
    return Outcome.scored(judged.share(len(reference & context), len(reference)))


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.reference is not None
    reference, contexts = await asyncio.gather(
        judge.ask(ENTITIES, {"text": s.reference}, model, trace),
        judge.ask(ENTITIES, {"text": joined(s.retrieved_contexts)}, model, trace),
    )
    found = {normalise_entity(e) for e in contexts.entities}
    missed = [e for e in reference.entities if normalise_entity(e) not in found]
    explanation = f"missing from the contexts: {', '.join(missed)}" if missed else ""
    return context_entity_recall(reference.entities, contexts.entities), explanation


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
