"""The one record every tier writes for an item (a line of items.jsonl), as a declared model: what `bench
compare` validates when it loads a run, so that it reads every tier the same way and knows no tier's layout.
(The report beside it is `benchmarks.report.Report`.)

An item record says what the item gave the system under test (`inputs`), what the system answered
(`answer`), and how each metric scored it, by whom: `scores[metric][scorer]`, one Outcome each (value,
status, explanation). The scorer is the judge model that graded it ("offline" for bench's offline proxies),
or BENCH for what bench computes itself (retrieval and text metrics, a decision checked against its truth).
A metric is keyed as its report names it, so a mean in report.json is the mean of that metric's per-item
values, each item's value being the mean over the scorers that scored it. `cluster` names the source
document the item is about, when it has one: several items on one document are not independent, and
compare resamples documents.

A tier may keep detail of its own beside these fields (the ranked scores, every repeated answer, the raw
completions a resumed run restores); compare never reads it.

The record is a TypedDict, not a pydantic model as the report is: a run can have a million items, and a model
instance for each would more than double what loading them costs compare (measured: about 12 s against 29 s
for a million items of three metrics); a TypedDict is checked by pydantic-core and leaves each row a plain
dict, read by key.

This module sits at the bottom with `outcome`: it imports nothing else from bench.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired

from pydantic import ConfigDict, TypeAdapter, with_config
from typing_extensions import TypedDict

from benchmarks.outcome import ERRORS, Outcome, Status

BENCH = "bench"  # the scorer of what bench computes itself
MISSING: Any = object()  # an item's value for a metric that does not apply, or that every scorer left undetermined


@with_config(ConfigDict(extra="allow"))
class Score(TypedDict):
    """An Outcome as a record holds it: the value or why there is none (outcome.Outcome's first three fields;
    the context a producer adds, such as calls and latencies, may ride along)."""

    value: float | str | None
    status: Status
    explanation: NotRequired[str]


@with_config(ConfigDict(extra="allow"))
class ItemRecord(TypedDict):
    id: str
    inputs: dict[str, Any]
    answer: NotRequired[Any]
    scores: dict[str, dict[str, Score]]
    cluster: NotRequired[str | None]


# the check itself: a typed dict validates at pydantic-core's speed and leaves the row a plain dict
ITEM_RECORD: TypeAdapter[ItemRecord] = TypeAdapter(ItemRecord)


def score(value: float | str | None, status: Status = "ok", explanation: str = "") -> dict[str, Any]:
    """One scorer's outcome as a record holds it."""
    return {"value": value, "status": status, "explanation": explanation}


def outcome_score(outcome: Outcome) -> dict[str, Any]:
    """An Outcome as a record holds it (a failed one has no value, by Outcome's own rule)."""
    return score(outcome.value, outcome.status, outcome.explanation)


def record(item_id: str, inputs: dict[str, Any], answer: Any, scores: dict[str, dict[str, dict[str, Any]]], *,
           cluster: str | None = None, **detail: Any) -> dict[str, Any]:
    """An item's line of items.jsonl: the shared fields first, then the tier's own detail."""
    return {"id": item_id, "inputs": inputs, "answer": answer, "scores": scores, "cluster": cluster, **detail}


def value_of(scores: dict[str, Any] | None) -> Any:
    """An item's value for a metric: the mean of its scorers' ok numbers (a float); None (failed) when none
    scored it and one failed (an error, or no answer to grade); MISSING when every scorer found it undetermined,
    or the metric does not apply to the item (it has no scores for it)."""
    if not scores:
        return MISSING
    if len(scores) == 1:  # the common case, one scorer with a number: no lists (compare reads millions)
        (only,) = scores.values()
        if only["status"] == "ok" and type(only["value"]) in (float, int):
            return float(only["value"])
    numbers = [float(s["value"]) for s in scores.values()
               if s["status"] == "ok" and isinstance(s["value"], (int, float)) and not isinstance(s["value"], bool)]
    if numbers:
        return sum(numbers) / len(numbers)
    return None if any(s["status"] in ERRORS or s["status"] == "no_answer" for s in scores.values()) else MISSING


def outcome_of(scores: dict[str, Any] | None) -> tuple[float | None, str]:
    """An item's value on a metric and its outcome, as readers list items: ("ok", a number), "failed" (an error,
    or no answer to grade), "undetermined" (every scorer said so), or "" when the metric does not apply to it."""
    if not scores:
        return None, ""
    value = value_of(scores)
    if isinstance(value, float):
        return value, "ok"
    return None, "undetermined" if value is MISSING else "failed"


def top_document(relevant: Mapping[str, int]) -> str | None:
    """The document an item is about, for `cluster`: that of its most relevant chunk (or page), the lowest id
    of equals; None when nothing is judged relevant (grade ≥ 1). Several questions on one document are not
    independent."""
    judged = {doc: grade for doc, grade in relevant.items() if grade > 0}
    if not judged:
        return None
    return document_of(min(judged, key=lambda doc: (-judged[doc], doc)))


def document_of(chunk_id: str) -> str:
    """The document a chunk belongs to: its id before '#' (a page's url, before any fragment)."""
    return chunk_id.split("#", 1)[0]
