"""How far the LLM judge itself can be trusted (docs/metrics.md#the-judges-own-quality-bench-judge); its reading
bands are in `metrics.bands`.

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

from benchmarks.metrics.classification import Ratio

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
