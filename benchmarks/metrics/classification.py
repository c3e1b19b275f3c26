"""Binary classification quality of the production judge's show/don't-show decision
(docs/metrics.md#the-production-judge-bench-judge-pipeline).

The positive class is "yes" (show the answer): a false positive shows an answer that should have
been held back, a false negative hides one that should have been shown.

An unparseable judge answer (predicted None) is never dropped silently:
- `accuracy` is over all items, an unparseable answer counting as wrong: what the judge delivers
  as a production component, where an answer nobody can read is no decision;
- `accuracy_parseable`, `precision`, `recall` and `f1` are over the parseable items only (the four
  cells of the confusion matrix), so they describe the judge's decisions, not its formatting;
- the unparseable items are counted next to them, split by their ground truth, so a reader can see
  how many would-be shows and would-be blocks were lost.

A ratio whose denominator is zero is None with the reason, never a silent 0: precision with no
predicted "yes", recall with no true "yes", an accuracy over no items. F1 is 2·TP / (2·TP + FP + FN),
the harmonic mean of precision and recall where both exist; it is also defined (0.0) when only one of
them is, since then the judge got no positive right, and undefined only without a single positive
among predictions and truths. These are sklearn's values with `zero_division=np.nan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Label = Literal["yes", "no"]
_LABELS = ("yes", "no")


@dataclass(frozen=True)
class Ratio:
    """A metric's value and, when it is None, why it is undefined."""

    value: float | None
    reason: str = ""


@dataclass(frozen=True)
class Confusion:
    """Counts over parseable items for the positive class "yes", plus the unparseable ones by truth."""

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    unparseable_truth_yes: int = 0
    unparseable_truth_no: int = 0

    @property
    def parseable(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    @property
    def unparseable(self) -> int:
        return self.unparseable_truth_yes + self.unparseable_truth_no

    @property
    def total(self) -> int:
        return self.parseable + self.unparseable


@dataclass(frozen=True)
class ClassificationReport:
    confusion: Confusion
    accuracy: Ratio
    accuracy_parseable: Ratio
    precision: Ratio
    recall: Ratio
    f1: Ratio
    unparseable_rate: Ratio


def confusion_matrix(predicted: Sequence[Label | None], truth: Sequence[Label]) -> Confusion:
    """Tally (prediction, truth) pairs; labels other than "yes"/"no" (or None predicted) are errors."""
    if len(predicted) != len(truth):
        raise ValueError(f"{len(predicted)} predictions for {len(truth)} ground-truth labels")
    counts = dict.fromkeys(("tp", "fp", "tn", "fn", "unparseable_truth_yes", "unparseable_truth_no"), 0)
    for guess, actual in zip(predicted, truth, strict=True):
        if actual not in _LABELS:
            raise ValueError(f"ground truth must be 'yes' or 'no', got {actual!r}")
        if guess is None:
            counts[f"unparseable_truth_{actual}"] += 1
        elif guess not in _LABELS:
            raise ValueError(f"a prediction must be 'yes', 'no' or None, got {guess!r}")
        else:
            correct = "t" if guess == actual else "f"
            counts[correct + ("p" if guess == "yes" else "n")] += 1
    return Confusion(**counts)


def _ratio(numerator: int, denominator: int, undefined: str) -> Ratio:
    return Ratio(numerator / denominator) if denominator else Ratio(None, undefined)


def classification_report(predicted: Sequence[Label | None], truth: Sequence[Label]) -> ClassificationReport:
    """Accuracy over all items and the parseable-item metrics of the module docstring."""
    c = confusion_matrix(predicted, truth)
    return ClassificationReport(
        confusion=c,
        accuracy=_ratio(c.tp + c.tn, c.total, "no items"),
        accuracy_parseable=_ratio(c.tp + c.tn, c.parseable, "no parseable judge answer"),
        precision=_ratio(c.tp, c.tp + c.fp, "the judge predicted no 'yes' (nothing shown)"),
        recall=_ratio(c.tp, c.tp + c.fn, "no parseable item has ground truth 'yes'"),
        f1=_ratio(2 * c.tp, 2 * c.tp + c.fp + c.fn, "no 'yes' among predictions or ground truth"),
        unparseable_rate=_ratio(c.unparseable, c.total, "no items"),
    )
