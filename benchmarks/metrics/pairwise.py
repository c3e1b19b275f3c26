"""Pairwise verdicts (docs/metrics.md#pairwise-verdicts): a judge asked which of two answers is better, in both orders.

A judge that follows the position rather than the answers shows it as inconsistent preferences and
a first-position rate away from 0.5; labelled pairs also give its accuracy; several judges, how far
their preferences agree. Pure functions: verdicts in, numbers out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from benchmarks.metrics.inter_rater import krippendorff_alpha

Verdict = Literal["A", "B", "Tie"]
Better = Literal["a", "b", "tie"]
Preference = Literal["a", "b", "tie", "inconsistent"]
Position = Literal["first", "second", "tie", "inconsistent"]
_PREFERENCES: dict[str, Preference] = {"first": "a", "second": "b", "tie": "tie", "inconsistent": "inconsistent"}


def pairwise_outcome(original: Verdict, swapped: Verdict) -> Position:
    """Combine the verdict on (first, second) with the verdict on (second, first).

    A consistent judge names the same answer both times (A then B), or Tie both times; any other
    pair means the verdict followed the position, not the answers, and is `inconsistent`.
    """
    if original == "A" and swapped == "B":
        return "first"
    if original == "B" and swapped == "A":
        return "second"
    if original == swapped == "Tie":
        return "tie"
    return "inconsistent"


def preference(original: Verdict, swapped: Verdict) -> Preference:
    """The judge's choice between answer_a and answer_b, from its verdicts on (a, b) and on (b, a)."""
    return _PREFERENCES[pairwise_outcome(original, swapped)]


@dataclass(frozen=True)
class PairwiseIndicators:
    """0/1 per unit, so each rate is a mean with a bootstrap interval."""

    consistent: list[float]  # per pair judged in both orders: its preference survived the swap
    first: list[float]  # per decisive (A or B) verdict: it chose the answer shown first
    tie: list[float]  # per valid verdict: Tie
    correct: list[float]  # per labelled pair judged in both orders: its preference equals the label


def pairwise_indicators(verdicts: Sequence[tuple[Verdict | None, Verdict | None]],
                        labels: Sequence[Better | None]) -> PairwiseIndicators:
    """Per pair the verdicts on (answer_a, answer_b) and on (answer_b, answer_a), None where the call
    failed, and the pair's label. A failed verdict takes its pair out of consistency and accuracy; the
    other verdict still counts for the first-position and tie rates. A tie names no position, so
    the first-position rate is over decisive verdicts: 0.5 for a judge the order does not sway."""
    consistent, first, tie, correct = [], [], [], []
    for (original, swapped), label in zip(verdicts, labels, strict=True):
        valid = [v for v in (original, swapped) if v is not None]
        tie += [float(v == "Tie") for v in valid]
        first += [float(v == "A") for v in valid if v != "Tie"]
        if original is None or swapped is None:
            continue
        chosen = preference(original, swapped)
        consistent.append(float(chosen != "inconsistent"))
        if label is not None:
            correct.append(float(chosen == label))
    return PairwiseIndicators(consistent, first, tie, correct)


PREFERENCE_CODES = {"a": 0.0, "b": 1.0, "tie": 2.0, "inconsistent": 3.0}


def preference_agreement(preferences: Sequence[Sequence[Preference | None]]) -> dict[str, Any]:
    """How far several judge models agree on pairs (one row per model): the share of pairs every model judged
    whose preferences are all the same, and Krippendorff's nominal alpha over the preferences (a, b, tie, and
    inconsistent, a preference that flipped with the order), pairs a model could not judge left out."""
    judged = [column for column in zip(*preferences, strict=True) if None not in column]
    alpha = krippendorff_alpha([[None if p is None else PREFERENCE_CODES[p] for p in row] for row in preferences],
                               level="nominal")
    return {"same_preference_rate": sum(len(set(c)) == 1 for c in judged) / len(judged) if judged else None,
            "pairs_judged_by_every_model": len(judged),
            "krippendorff_alpha_nominal": alpha.value}
