"""How far the LLM judge itself can be trusted (docs/metrics.md#the-judges-own-quality-bench-judge), and the quality
bands (docs/metrics.md#quality-bands).

The judge scores every item twice on the same input:
- `consistency_score` is the seed's share of items whose two scores differ by at most δ (0.5);
- `mean_repeat_difference` is the mean |s1 − s2|, more informative on a 0–1 scale, where δ = 0.5
  only flags a drift over half the scale (on the 0 / 0.5 / 1 rubric of §5.5, only a flip between
  0 and 1) and hides every smaller one.
A score is missing when None or NaN (the call or its parsing failed); an item with a missing score
cannot show (in)consistency, so it is left out of both and counted in `missing` (the failures
themselves are what `error_rate` measures). Where a value is undefined it is None with the reason.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from benchmarks.metrics.classification import Ratio

Band = Literal["excellent", "good", "attention"]

# A score summed from decimals (0.1 + 0.2 + 0.3 = 0.6000000000000001) can differ from another (0.1) by
# exactly δ on paper and by a hair more in binary; without this slack |s1 − s2| ≤ δ would reject it.
_TOLERANCE = 1e-9


@dataclass(frozen=True)
class RepeatStat:
    """A statistic over the items scored twice, how many those are, and how many were left out."""

    value: float | None
    compared: int
    missing: int = 0
    reason: str = ""


def _differences(first: Sequence[float | None], second: Sequence[float | None]) -> tuple[list[float], int]:
    """|s1 − s2| for each item scored both times, and the number of items that were not."""
    if len(first) != len(second):
        raise ValueError(f"{len(first)} first scores for {len(second)} repeated ones")
    if any(s is not None and math.isinf(s) for s in (*first, *second)):
        raise ValueError("a judge score is infinite")
    diffs = [
        abs(a - b)
        for a, b in zip(first, second, strict=True)
        if a is not None and b is not None and not (math.isnan(a) or math.isnan(b))
    ]
    return diffs, len(first) - len(diffs)


def consistency_score(
    first: Sequence[float | None], second: Sequence[float | None], delta: float = 0.5
) -> RepeatStat:
    """Share of items with |s1 − s2| ≤ δ, over the items scored both times
    (docs/metrics.md#the-judges-own-quality-bench-judge)."""
    if not delta >= 0:
        raise ValueError(f"delta must be a non-negative number, got {delta}")
    diffs, missing = _differences(first, second)
    if not diffs:
        return RepeatStat(None, 0, missing, "no item was scored both times")
    agreeing = sum(diff <= delta + _TOLERANCE for diff in diffs)
    return RepeatStat(agreeing / len(diffs), len(diffs), missing)


def mean_repeat_difference(first: Sequence[float | None], second: Sequence[float | None]) -> RepeatStat:
    """Mean |s1 − s2| over the items scored both times; 0.0 is a perfectly repeatable judge."""
    diffs, missing = _differences(first, second)
    if not diffs:
        return RepeatStat(None, 0, missing, "no item was scored both times")
    return RepeatStat(math.fsum(diffs) / len(diffs), len(diffs), missing)


def error_rate(errors: int, attempts: int) -> Ratio:
    """Errors (API failures, unparseable answers) per judge call; None when nothing was attempted."""
    if not 0 <= errors <= attempts:
        raise ValueError(f"{errors} errors out of {attempts} attempts")
    if attempts == 0:
        return Ratio(None, "no judge call was attempted")
    return Ratio(errors / attempts)


@dataclass(frozen=True)
class Thresholds:
    """A §11.2 row: above `excellent_above` is excellent, below `attention_below` needs attention.

    The table writes "> 0.8 | 0.5–0.8 | < 0.5": the bounds of "excellent" and "attention" are strict,
    so a value exactly on a boundary (0.8 or 0.5) is "good", the closed middle band. "Exactly" allows
    the same float slack as `consistency_score`, so a mean that lands at 0.8000000000000002 is on 0.8.
    """

    excellent_above: float
    attention_below: float


# The quality bands (docs/metrics.md#quality-bands). Consistency is the seed table's 0.95 / 0.85, stricter than
# the seed's prose on consistency
# ("> 0.9 reliable, < 0.7 unstable"); the table is what is graded against here.
THRESHOLDS: dict[str, Thresholds] = {
    "hit_rate@1": Thresholds(0.8, 0.5),
    "mrr": Thresholds(0.8, 0.5),
    "ndcg@10": Thresholds(0.8, 0.5),
    "faithfulness": Thresholds(0.9, 0.7),
    "e2e_score": Thresholds(0.8, 0.6),
    "judge_pipeline_accuracy": Thresholds(0.95, 0.85),
    "consistency": Thresholds(0.95, 0.85),
}


def _key(metric: str) -> str:
    """Case, spaces, underscores and brackets do not matter: "HitRate@1" and "hit_rate@1" are one."""
    return "".join(ch for ch in metric.lower() if ch.isalnum() or ch == "@")


# The table's own spellings ("Accuracy (Judge Pipeline)", "E2E Score") and the metric names of §8–9.
_NAMES = {_key(name): name for name in THRESHOLDS} | {
    "accuracy": "judge_pipeline_accuracy",
    "accuracyjudgepipeline": "judge_pipeline_accuracy",
    "consistencyscore": "consistency",
}


def rate_against_thresholds(metric: str, value: float) -> Band:
    """The §11.2 band of `value` for `metric` (boundaries fall in "good", see `Thresholds`)."""
    name = _NAMES.get(_key(metric))
    if name is None:
        raise ValueError(f"no §11.2 thresholds for {metric!r}; known: {', '.join(THRESHOLDS)}")
    if not math.isfinite(value):
        raise ValueError(f"{metric} is {value}, not a finite number")
    row = THRESHOLDS[name]
    if value > row.excellent_above + _TOLERANCE:
        return "excellent"
    if value < row.attention_below - _TOLERANCE:
        return "attention"
    return "good"


def repeats_agree(scores: Sequence[float | None], delta: float) -> bool | None:
    """Whether an item's scored repeats all lie within δ of each other (max − min ≤ δ).

    For two repeats this is the seed's |s1 − s2| ≤ δ. A failed repeat (None or NaN) is left out;
    with fewer than two scored repeats there is nothing to compare: None.
    """
    scored = scored_of(scores)
    if len(scored) < 2:
        return None
    return consistency_score([min(scored)], [max(scored)], delta).value == 1.0


def repeat_difference(scores: Sequence[float | None]) -> float | None:
    """Mean |s_i − s_j| over every two of an item's scored repeats; None with fewer than two."""
    scored = scored_of(scores)
    if len(scored) < 2:
        return None
    pairs = list(itertools.combinations(scored, 2))
    return mean_repeat_difference([a for a, _ in pairs], [b for _, b in pairs]).value


def scored_of(scores: Sequence[float | None]) -> list[float]:
    return [s for s in scores if s is not None and not math.isnan(s)]
