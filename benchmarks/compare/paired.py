"""Per-item values behind a report's metrics, and a vectorised paired (cluster) bootstrap of their mean difference
(expanded percentile intervals and the p-values that invert them).

A metric has per-item values when the items carry scores for it (`item_record`): every tier writes the same
record, so the value of an item is `item_record.value_of` of its scores for the metric (the mean over the
scorers that scored it; failed when none did and one failed; missing when none applies), and a report's
"<name>/<model>" is one scorer's own. compare knows no tier's layout.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri, stdtr, stdtrit

from benchmarks.item_record import ItemRecord, value_of

BLOCK_CELLS = 4_000_000  # index-matrix cells per block: bounds memory (about 32 MB of float64 weights)


def item_value(item: ItemRecord, metric: str) -> Any:
    """The item's value for `metric`: a float, None (failed) or MISSING."""
    scores = item["scores"].get(metric)
    if scores is None and "/" in metric:  # one scorer's own mean, "<name>/<model>"
        name, _, scorer = metric.partition("/")
        own = item["scores"].get(name, {}).get(scorer)
        scores = {scorer: own} if own is not None else None
    return value_of(scores)


def clusters_of(keys: Sequence[str | None]) -> np.ndarray | None:
    """Cluster codes (0..C-1) when at least two items share a key; items without a key are their own
    cluster. None when there is nothing to cluster (plain item bootstrap)."""
    codes: dict[str, int] = {}
    out = np.empty(len(keys), dtype=np.int64)
    shared = False
    for i, key in enumerate(keys):
        label = f"\0item{i}" if key is None else key
        if label in codes:
            shared = True
        out[i] = codes.setdefault(label, len(codes))
    return out if shared else None


@dataclass(frozen=True)
class Paired:
    """One metric's paired bootstrap: the 95% interval of Δ, the two-sided p-value of Δ = 0 that inverts it
    (p ≤ 0.05 exactly when the interval excludes 0, so a row never reads "significant" against its own
    interval), and how many resampling units carry a value — the interval's real sample size."""
    low: float
    high: float
    p: float
    units: int


def paired_bootstrap(
    diffs: np.ndarray,
    valid: np.ndarray,
    *,
    clusters: np.ndarray | None = None,
    resamples: int = 10_000,
    seed: int = 0,
    block_rows: int | None = None,
    method: str = "expanded",
) -> list[Paired | None]:
    """95% intervals of the mean paired difference, one per metric, from one shared resampling; None for a
    metric with fewer than two units (items, or clusters) with a value: an interval from one is a fiction.

    `diffs` and `valid` are (metrics × items): candidate minus base, and whether both runs have a
    value. Each resample draws items (or, with `clusters`, whole clusters) with replacement; its
    mean for a metric is the mean of the drawn valid differences. The index matrix (resamples × units)
    is drawn block by block from one seeded generator and turned into draw counts per unit; with
    per-unit sums of differences and of valid items, every metric's means are two matrix products.

    `method` "expanded" (the default) is the expanded percentile interval: the percentile interval is too
    narrow over few units — on bounded metrics over 20 units it covered Δ 86–92% of the time instead of 95,
    BCa 84–92%, the expanded one 87–93% (perf/compare_coverage.py, BENCHMARKS.md). "percentile" is the plain
    interval, kept as that measurement's reference."""
    if method not in ("expanded", "percentile"):
        raise ValueError(f"unknown interval method {method!r} (expanded or percentile)")
    diffs = np.where(valid, diffs, 0.0).astype(float)
    weights_valid = valid.astype(float)
    n = diffs.shape[1]
    if n == 0 or resamples <= 0:
        return [None] * diffs.shape[0]
    if clusters is None:
        totals, kept = diffs, weights_valid
    else:  # a cluster's draw weighs all its items: sum them once, then work on clusters only
        units = int(clusters.max()) + 1
        totals = np.zeros((diffs.shape[0], units))
        kept = np.zeros((diffs.shape[0], units))
        for row in range(diffs.shape[0]):
            totals[row] = np.bincount(clusters, weights=diffs[row], minlength=units)
            kept[row] = np.bincount(clusters, weights=weights_valid[row], minlength=units)
    means = _resampled_means(totals, kept, resamples, seed, block_rows)
    return [_interval(column, int(np.count_nonzero(count)), method)
            for column, count in zip(means.T, kept, strict=True)]


def _resampled_means(totals: np.ndarray, kept: np.ndarray, resamples: int, seed: int,
                     block_rows: int | None) -> np.ndarray:
    """(resamples × metrics) means, drawing at most BLOCK_CELLS indices at a time: memory stays bounded
    however many resamples and units there are."""
    units = totals.shape[1]
    rows = block_rows or max(1, BLOCK_CELLS // units)
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, totals.shape[0]))
    done = 0
    while done < resamples:
        b = min(rows, resamples - done)
        draws = rng.integers(0, units, size=(b, units))
        offsets = (draws + (np.arange(b) * units)[:, None]).ravel()
        counts = np.bincount(offsets, minlength=b * units).reshape(b, units).astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            means[done:done + b] = (counts @ totals.T) / (counts @ kept.T)
        done += b
    return means


def _interval(means: np.ndarray, units: int, method: str) -> Paired | None:
    """The interval from one metric's resampled means, and the p-value that inverts it: the one-sided tails
    at which 0 would be an end of the interval, doubled. Quantiles are order statistics (numpy's
    "inverted_cdf"), so 0 lies below the interval exactly when the share of means ≤ 0 is under the lower
    level, and above it exactly when the share of means < 0 reaches the upper level."""
    finite = np.sort(means[np.isfinite(means)])
    if finite.size == 0 or units < 2:
        return None
    reach = _reach(units, method)
    low, high = np.quantile(finite, [ndtr(-reach), ndtr(reach)], method="inverted_cdf")
    at_or_below = np.count_nonzero(finite <= 0) / finite.size
    below_zero = np.count_nonzero(finite < 0) / finite.size
    p = 2 * min(_tail(ndtri(at_or_below), units, method), 1 - _tail(ndtri(below_zero), units, method))
    return Paired(float(low), float(high), min(1.0, p), units)


def _reach(units: int, method: str) -> float:
    """The normal quantile at which the interval reads the resampled means: 1.96 for the percentile interval.

    The bootstrap spreads a mean as the plug-in variance does (dividing by n, not n − 1) and with the normal's
    tails, not Student's, so over n units the percentile interval is about x̄ ± 1.96·s·√((n−1)/n)/√n where the
    t interval is x̄ ± t(n−1)·s/√n. The expanded percentile interval (Hesterberg 2015, "What teachers should
    know about the bootstrap", The American Statistician 69(4)) reads them at √(n/(n−1))·t(n−1, 0.975)
    instead: the small-sample correction cluster-robust inference makes (n/(n−1), Student's t with n − 1
    degrees of freedom, n the clusters), keeping the asymmetry the bootstrap distribution has."""
    if method == "percentile":
        return float(ndtri(0.975))
    return math.sqrt(units / (units - 1)) * float(stdtrit(units - 1, 0.975))


def _tail(z: float, units: int, method: str) -> float:
    """_reach's inverse: the one-sided probability whose interval end is read at the normal quantile z."""
    if method == "percentile":
        return float(ndtr(z))
    return float(stdtr(units - 1, z / math.sqrt(units / (units - 1))))
