"""Per-item values behind a report's metrics, and a vectorised paired (cluster) bootstrap of their mean difference
(expanded percentile intervals and the p-values that invert them).

A metric has per-item values when the report's value is a mean over items.jsonl rows:

- tier1 (and any tier whose items carry a `metrics` object): `item["metrics"][name]`; in bench evaluate's
  items that is one row per judge model, and the value is the mean over the judges that scored it
  (`name/model` picks one judge);
- tier2/tier3: `item["grades"]["ragas:" + name]` (a --metrics metric) or `item["grades"][name]` (or
  without an `avg_` prefix) when its status is `ok`; `item["retrieval_hit"]` for retrieval_hit_rate@k;
  else the unprefixed name in `item["text"]` / `item["similarity"]` / `item["repeats"]` (exact_match,
  semantic_consistency for the response_* metrics); failed when the item's first answer failed;
- judge-pipeline `accuracy`: 1.0 when `decision` equals `ground_truth_show`, 0.0 when it differs,
  missing when the endpoint failed or the reply was unparseable.

An item that has the metric's field but no usable value counts as failed (None); an item without
the field at all has no value for that metric (tier1 questions without a relevant document).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri, stdtr, stdtrit

MISSING = object()  # the item does not carry this metric at all
# tiers 2 and 3: the item block holding each answer metric (under its name without avg_), and the
# per-item key of each repeatability metric
ANSWER_BLOCKS = {"rouge1_f": "text", "rouge2_f": "text", "rougeL_f": "text", "bleu": "text",
                 "semantic_similarity": "similarity", "dot_similarity": "similarity",
                 "euclidean_distance": "similarity", "exact_match": "repeats", "semantic_consistency": "repeats"}
REPEAT_KEYS = {"response_exact_match_rate": "exact_match", "response_semantic_consistency": "semantic_consistency"}
BLOCK_CELLS = 4_000_000  # index-matrix cells per block: bounds memory (about 32 MB of float64 weights)


def item_value(item: dict[str, Any], metric: str, tier: str) -> Any:
    """The item's value for `metric`: a float, None (failed) or MISSING."""
    if tier == "judge-pipeline" and metric == "accuracy":
        if "decision" not in item:
            return MISSING
        if item.get("status", "ok") != "ok" or item.get("decision") is None:
            return None
        return 1.0 if item["decision"] == item.get("ground_truth_show") else 0.0
    metrics = item.get("metrics")
    if isinstance(metrics, dict):
        if metric in metrics:
            value = metrics[metric]
            return _over_judges(value) if isinstance(value, dict) else _number(value)
        base, _, model = metric.partition("/")  # bench evaluate's per-model metric "<metric>/<model>"
        judged = metrics.get(base)
        if model and isinstance(judged, dict) and isinstance(judged.get(model), dict):
            return _over_judges({model: judged[model]})
    grades = item.get("grades")
    if isinstance(grades, dict):
        # a `bench evaluate` metric added with --metrics is kept under "ragas:<name>", apart from the seed
        # rating of the same name, which its report key "avg_<name>" reaches
        for key in (f"ragas:{metric}", metric, metric.removeprefix("avg_")):
            if key in grades:
                grade = grades[key]
                if isinstance(grade, dict):
                    status = grade.get("status", "ok")
                    if status == "undetermined":  # no reference answer, no offline proxy: no value, no error
                        return MISSING
                    return _number(grade.get("value")) if status == "ok" else None
                return _number(grade)
    if metric.startswith("retrieval_hit_rate@") and "retrieval_hit" in item:
        hit = item["retrieval_hit"]
        return MISSING if hit is None else float(bool(hit))
    key = REPEAT_KEYS.get(metric, metric.removeprefix("avg_"))
    block = item.get(ANSWER_BLOCKS.get(key, ""))
    if isinstance(block, dict):
        if block.get(key) is not None:
            return _number(block[key])
        return None if _answer_failed(item, over_repeats=ANSWER_BLOCKS[key] == "repeats") else MISSING
    return MISSING


def _answer_failed(item: dict[str, Any], *, over_repeats: bool) -> bool:
    """As tiers 2 and 3 count errors: a failed first answer fails the answer's metrics; a failed call among
    the repeats fails the repeatability metrics (a repeat the dataset lacks leaves them undetermined)."""
    answers = [a for a in item.get("answers") or () if isinstance(a, dict)]
    if over_repeats:
        return any(a.get("status") == "api_error" for a in answers)
    return bool(answers) and answers[0].get("status") != "ok"


def _over_judges(by_model: dict[str, Any]) -> Any:
    """bench evaluate's sample value: the mean over the judges that scored it (as its report takes it); failed
    when none did and a call failed, MISSING when every judge found it undetermined."""
    rows = [r for r in by_model.values() if isinstance(r, dict)]
    scored = [float(r["value"]) for r in rows if r.get("status") == "ok" and _number(r.get("value")) is not None]
    if scored:
        return sum(scored) / len(scored)
    return MISSING if rows and all(r.get("status") == "undetermined" for r in rows) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def cluster_key(item: dict[str, Any]) -> str | None:
    """The source document an item is about, when it names one: several questions on one document are
    not independent, so the bootstrap resamples documents, not questions."""
    for field in ("cluster", "source", "document_id", "url", "confluence_url"):
        value = item.get(field)
        if isinstance(value, str) and value:
            return value
    relevant = item.get("relevant")
    if isinstance(relevant, dict) and relevant:
        return _document(sorted(relevant, key=lambda c: (-_grade(relevant[c]), c))[0])
    contexts = item.get("context_ids")
    if isinstance(contexts, list) and contexts and isinstance(contexts[0], str):
        return _document(contexts[0])
    return None


def _grade(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


def _document(chunk_id: str) -> str:
    return chunk_id.split("#", 1)[0]


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
