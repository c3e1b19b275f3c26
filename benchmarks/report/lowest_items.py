"""The items a metric scored worst, read from the item records a run wrote (items.jsonl), for report.md.

A mean hides which items pulled it down; a reader fixing a system wants those first, with the judge's why.
The choice is deterministic (worst first, ties by id), so the same run renders the same section. Items with
no value are not ranked but counted, never hidden: undetermined ones (nothing to grade) apart from failed
ones (the call or the answer failed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from benchmarks.item_record import outcome_of

WHY_LENGTH = 120  # characters of an explanation kept on its one line


@dataclass(frozen=True)
class Listed:
    """One ranked item: its value (the mean over its scorers, as the report's mean takes it), each scorer's
    value where several scored it, and why, on one line."""

    id: str
    value: float
    by_scorer: tuple[tuple[str, float], ...]
    why: str


@dataclass(frozen=True)
class Lowest:
    """A metric's worst items, how many items it scored, and the ids of those it could not rank."""

    metric: str
    scored: int
    listed: tuple[Listed, ...]
    undetermined: tuple[str, ...]
    failed: tuple[str, ...]
    alike: bool  # every scored item has the same value: none is lower than another


def lowest_items(items: Iterable[Mapping[str, Any]], metric: str, *, higher_is_better: bool,
                 count: int = 5) -> Lowest | None:
    """The `count` items `metric` scored worst (lowest, or highest where lower is better), ties by id; None when
    no item has a score for it."""
    ranked: list[Listed] = []
    undetermined: list[str] = []
    failed: list[str] = []
    for item in items:
        scores = item.get("scores", {}).get(metric)
        value, outcome = outcome_of(scores)
        if outcome == "undetermined":
            undetermined.append(item["id"])
        elif outcome == "failed":
            failed.append(item["id"])
        elif value is not None:
            ranked.append(_listed(item["id"], value, scores, higher_is_better))
    if not (ranked or undetermined or failed):
        return None
    sign = 1 if higher_is_better else -1
    worst = sorted(ranked, key=lambda row: (sign * row.value, row.id))[:count]
    alike = len({row.value for row in ranked}) <= 1
    return Lowest(metric, len(ranked), tuple(worst), tuple(sorted(undetermined)), tuple(sorted(failed)), alike)


def _listed(item_id: str, value: float, scores: Mapping[str, Mapping[str, Any]], higher_is_better: bool) -> Listed:
    """The item's row; why is the worst scorer's explanation (named when several scored), since the worst score
    is what pulled the item down."""
    numbers = {scorer: float(s["value"]) for scorer, s in sorted(scores.items())
               if s["status"] == "ok" and isinstance(s["value"], (int, float)) and not isinstance(s["value"], bool)}
    sign = 1 if higher_is_better else -1
    scorer = min(numbers, key=lambda name: (sign * numbers[name], name))
    why = one_line(str(scores[scorer].get("explanation") or ""))
    if len(numbers) > 1:
        return Listed(item_id, value, tuple(numbers.items()), f"{scorer}: {why}" if why else "")
    return Listed(item_id, value, (), why)


def one_line(text: str, length: int = WHY_LENGTH) -> str:
    """`text` on one line, cut to `length` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= length else flat[:length - 1].rstrip() + "…"
