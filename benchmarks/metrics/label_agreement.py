"""How far a judge agrees with human labels: the numbers that say how much to trust it.

Given one metric's scores and the labels people gave the same samples, on the metric's scale:

- binary labels (every label 0 or 1): `roc_auc`, the probability that a sample labelled 1 scores above
  one labelled 0 (Mann–Whitney, ties counted half), and `pairwise_accuracy`;
- graded labels: `spearman` and `kendall` (tau-b) rank correlations, and `pairwise_accuracy`;
- both: `accuracy` and `cohen_kappa` of the verdicts at the metric's threshold (the judge's score ≥ t
  against the person's verdict), kappa correcting accuracy for the agreement two raters would reach by
  chance. A binary label is its own verdict (1 is yes): on a 1–5 scale, whose threshold is 3, a 1 is a
  "yes", not a low grade. A graded label is a yes from the threshold up (label ≥ t), as a score is. On a
  0–1 scale the two readings agree.

`pairwise_accuracy` compares answers to the same question only (the samples of a group, e.g. one
`user_input`): of every two with different labels, the share the judge orders as the labels do, ties
half. It is the question a user choosing a judge asks ("does it prefer the right answer to the
hallucinated one?") and, unlike AUC over the whole set, it is not moved by questions that are easy or
hard for every answer.

Each statistic comes with a 95% percentile-bootstrap interval over groups (a question's answers are
resampled together, since they are not independent) and the n it rests on (samples, or pairs).
A statistic the data leave undefined (one class only, constant scores, no pair) is None, never 0.
Samples the judge did not score are left out, and counted by the caller (`report_entry`, the metric's
`agreement` in a report, counts them as `labelled` beside `n`). Pure: no I/O; the bootstrap is seeded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

LabelKind = Literal["binary", "graded"]
BINARY_STATISTICS = ("roc_auc", "pairwise_accuracy", "accuracy", "cohen_kappa")
GRADED_STATISTICS = ("spearman", "kendall", "pairwise_accuracy", "accuracy", "cohen_kappa")


@dataclass(frozen=True)
class Statistic:
    value: float | None
    ci95: tuple[float, float] | None
    n: int  # what it rests on: samples, or pairs for pairwise_accuracy


def label_kind(labels: Sequence[float]) -> LabelKind:
    return "binary" if all(label in (0, 1) for label in labels) else "graded"


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    positive = labels == 1
    n1, n0 = int(positive.sum()), int((~positive).sum())
    if n1 == 0 or n0 == 0:
        return None
    from scipy import stats  # imported on use: scipy.stats costs whatever imports this module about a second

    ranks = stats.rankdata(scores)  # average ranks: a tie counts half
    return float((ranks[positive].sum() - n1 * (n1 + 1) / 2) / (n1 * n0))


def ordered_pairs(scores: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> tuple[float, int]:
    """(credit, pairs) over pairs of one group with different labels: 1 when the scores order them as the
    labels do, 0.5 for a tie, 0 otherwise."""
    credit, pairs = 0.0, 0
    for group in np.unique(groups):
        members = np.flatnonzero(groups == group)
        for i, a in enumerate(members):
            for b in members[i + 1:]:
                if labels[a] == labels[b]:
                    continue
                better, worse = (a, b) if labels[a] > labels[b] else (b, a)
                credit += 1.0 if scores[better] > scores[worse] else 0.5 if scores[better] == scores[worse] else 0.0
                pairs += 1
    return credit, pairs


def pairwise_accuracy(scores: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> float | None:
    credit, pairs = ordered_pairs(scores, labels, groups)
    return credit / pairs if pairs else None


def spearman(scores: np.ndarray, labels: np.ndarray) -> float | None:
    from scipy import stats

    return _defined(stats.spearmanr(scores, labels).statistic) if scores.size > 1 else None


def kendall(scores: np.ndarray, labels: np.ndarray) -> float | None:
    from scipy import stats

    return _defined(stats.kendalltau(scores, labels).statistic) if scores.size > 1 else None


def human_verdicts(labels: np.ndarray, threshold: float, kind: LabelKind) -> np.ndarray:
    """A person's yes/no. `kind` is told once from all the labels, never from a bootstrap draw: a draw of
    graded 1–5 labels holding only 1s would otherwise turn those low grades into yeses."""
    return labels == 1 if kind == "binary" else labels >= threshold


def accuracy(scores: np.ndarray, labels: np.ndarray, threshold: float, *, kind: LabelKind) -> float | None:
    if scores.size == 0:
        return None
    return float(np.mean((scores >= threshold) == human_verdicts(labels, threshold, kind)))


def cohen_kappa(scores: np.ndarray, labels: np.ndarray, threshold: float, *, kind: LabelKind) -> float | None:
    """(p_o − p_e) / (1 − p_e) of the two raters' verdicts at the threshold; None when chance agreement is
    certain (both raters always give the same verdict)."""
    if scores.size == 0:
        return None
    judge, human = scores >= threshold, human_verdicts(labels, threshold, kind)
    observed = float(np.mean(judge == human))
    expected = float(np.mean(judge) * np.mean(human) + np.mean(~judge) * np.mean(~human))
    return None if expected == 1.0 else (observed - expected) / (1.0 - expected)


def _defined(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def agreement(scores: Sequence[float | None], labels: Sequence[float], groups: Sequence[str], *, threshold: float,
              resamples: int, seed: int) -> dict[str, Any]:
    """Every statistic of the labels' kind (told from all the labels given), with its interval and n, for the
    samples the judge scored."""
    kept = [i for i, score in enumerate(scores) if score is not None]
    s = np.array([scores[i] for i in kept], dtype=float)
    y = np.array([labels[i] for i in kept], dtype=float)
    g = np.array([groups[i] for i in kept], dtype=object)
    kind = label_kind(labels)
    computed: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], float | None]] = {
        "roc_auc": lambda s_, y_, g_: roc_auc(s_, y_),
        "spearman": lambda s_, y_, g_: spearman(s_, y_),
        "kendall": lambda s_, y_, g_: kendall(s_, y_),
        "pairwise_accuracy": pairwise_accuracy,
        "accuracy": lambda s_, y_, g_: accuracy(s_, y_, threshold, kind=kind),
        "cohen_kappa": lambda s_, y_, g_: cohen_kappa(s_, y_, threshold, kind=kind),
    }
    names = BINARY_STATISTICS if kind == "binary" else GRADED_STATISTICS
    found: dict[str, Any] = {"labels": kind, "threshold": threshold, "n": int(s.size)}
    for name in names:
        value = computed[name](s, y, g)
        n = ordered_pairs(s, y, g)[1] if name == "pairwise_accuracy" else int(s.size)
        interval = _bootstrap(computed[name], s, y, g, resamples=resamples, seed=seed) if value is not None else None
        found[name] = Statistic(value, interval, n)
    return found


def report_entry(scores: Sequence[float | None], labels: Sequence[float], groups: Sequence[str], *,
                 threshold: float, resamples: int, seed: int) -> dict[str, Any]:
    """A metric's `agreement` as every tier's report holds it: `agreement`'s numbers as plain data, and
    `labelled`, the labelled samples scored or not, so a reader sees how many of them `n` left out."""
    found = agreement(scores, labels, groups, threshold=threshold, resamples=resamples, seed=seed)
    return {**found, "labelled": len(labels),
            **{name: asdict(stat) for name, stat in found.items() if isinstance(stat, Statistic)}}


def labelled_entry(values: np.ndarray | Sequence[float], labels: Sequence[float | None], groups: Sequence[str], *,
                   threshold: float, resamples: int, seed: int) -> dict[str, Any] | None:
    """`report_entry` over the units people labelled, None when none is: from every unit's score (NaN where the
    judge gave none), label (None where people gave none) and group, in one order, as a tier holds them."""
    kept = [(i, label) for i, label in enumerate(labels) if label is not None]
    if not kept:
        return None
    return report_entry([None if math.isnan(values[i]) else float(values[i]) for i, _ in kept],
                        [float(label) for _, label in kept], [groups[i] for i, _ in kept],
                        threshold=threshold, resamples=resamples, seed=seed)


def group_resamples(groups: np.ndarray, *, resamples: int, seed: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Seeded bootstrap draws of whole groups: per draw, the rows of the drawn groups' samples (a group's
    samples together) and a group code per row, fresh for each draw, so a group drawn twice pairs only with
    itself. None drawn with fewer than two groups: an interval from one question would be a fiction."""
    unique = np.unique(groups)
    if unique.size < 2:
        return
    members = [np.flatnonzero(groups == group) for group in unique]
    rng = np.random.Generator(np.random.PCG64(seed))
    for _ in range(resamples):
        drawn = rng.integers(0, unique.size, size=unique.size)
        yield (np.concatenate([members[d] for d in drawn]),
               np.concatenate([np.full(members[d].size, k) for k, d in enumerate(drawn)]))


def percentile_interval(values: Sequence[float]) -> tuple[float, float] | None:
    """The 95% percentile interval of bootstrap values; None when no draw gave one."""
    if not values:
        return None
    low, high = np.quantile(np.array(values), [0.025, 0.975])
    return float(low), float(high)


def _bootstrap(statistic: Callable[[np.ndarray, np.ndarray, np.ndarray], float | None], scores: np.ndarray,
               labels: np.ndarray, groups: np.ndarray, *, resamples: int, seed: int) -> tuple[float, float] | None:
    """Percentile interval of the statistic over resampled groups (`group_resamples`)."""
    values = [value for rows, codes in group_resamples(groups, resamples=resamples, seed=seed)
              if (value := statistic(scores[rows], labels[rows], codes)) is not None]
    return percentile_interval(values)
