"""Agreement between judge models that scored the same items.

A judged metric is only as trustworthy as its judge; when several models judge the same samples,
how far they agree says how much a single model's score can be trusted. Two statistics:
- `mean_absolute_difference`: the plain, scale-bound one (same units as the scores);
- `krippendorff_alpha`: chance-corrected, any number of judges, missing ratings allowed.

Ratings come as one row per judge model and one column per item (Krippendorff's "reliability
data" layout). A missing rating is None or NaN; infinity is rejected as malformed. Where the
statistic is undefined the result carries value None and the reason, never NaN.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

Level = Literal["nominal", "ordinal", "interval", "ratio"]
Ratings = Sequence[Sequence[float | None]] | np.ndarray


@dataclass(frozen=True)
class Agreement:
    """An agreement statistic, the items it rests on, and why it is None when it is."""

    value: float | None
    units: int
    skipped: int = 0
    reason: str = ""


def _ratings(matrix: Ratings) -> np.ndarray:
    """Judges × items as floats, None → NaN (missing); ragged rows or infinities are errors."""
    rows = [list(row) for row in matrix]
    if len({len(row) for row in rows}) > 1:
        raise ValueError("every judge needs one entry per item (None for a missing rating)")
    data = np.array(rows, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError("ratings must be a judges × items matrix")
    if np.isinf(data).any():
        raise ValueError("ratings hold an infinity")
    return data


def mean_absolute_difference(scores_by_model: Mapping[str, Sequence[float | None]]) -> Agreement:
    """Mean over items of the mean |a − b| over every pair of models that scored the item.

    Missing scores: an item enters with the models that did score it (its pairs are averaged
    first, so an item scored by 4 models weighs as much as one scored by 2); an item scored by
    fewer than two models cannot show (dis)agreement and is left out, counted in `skipped`.
    0.0 is perfect agreement; the scale is the scores' own (for 0–1 scores, at most 1).
    Degenerate: fewer than two models, or no item scored by two → value None with the reason.
    """
    if len(scores_by_model) < 2:
        return Agreement(None, units=0, reason="fewer than two models")
    data = _ratings(list(scores_by_model.values()))
    per_item = []
    for column in data.T:
        values = column[~np.isnan(column)]
        k = values.size
        if k >= 2:
            per_item.append(np.abs(values[:, None] - values[None, :]).sum() / (k * (k - 1)))
    skipped = data.shape[1] - len(per_item)
    if not per_item:
        return Agreement(None, units=0, skipped=skipped, reason="no item was scored by two models")
    return Agreement(float(np.mean(per_item)), units=len(per_item), skipped=skipped)


def _squared_distances(domain: np.ndarray, n_c: np.ndarray, level: Level) -> np.ndarray:
    """Krippendorff's δ²(c, k) for every pair of values in the (sorted) domain."""
    c, k = domain[:, None], domain[None, :]
    distances: np.ndarray  # numpy types arithmetic on an array of any dtype as Any
    if level == "nominal":
        distances = (c != k).astype(np.float64)
    elif level == "interval":
        distances = (c - k) ** 2
    elif level == "ratio":
        total = c + k
        distances = np.divide((c - k) ** 2, total**2, out=np.zeros((domain.size, domain.size)), where=total != 0)
    else:
        idx = np.arange(domain.size)
        lo, hi = np.minimum.outer(idx, idx), np.maximum.outer(idx, idx)
        cumulative = np.cumsum(n_c)
        between = cumulative[hi] - cumulative[lo] + n_c[lo]
        distances = (between - (n_c[lo] + n_c[hi]) / 2) ** 2
    return distances


def krippendorff_alpha(matrix: Ratings, level: Level = "interval") -> Agreement:
    """Krippendorff's alpha, 1 − D_o / D_e, from the coincidence matrix.

    Only pairable values count: those of items rated by at least two judges. With c_u the value
    counts of item u and m_u its number of ratings, the coincidences are
    o = Σ_u (c_u c_uᵀ − diag c_u) / (m_u − 1), the value totals n_c = Σ_k o_ck, n = Σ n_c, and
    α = 1 − (n − 1) · Σ o_ck δ²_ck / Σ n_c n_k δ²_ck, with δ² the level's squared distance:
    nominal [c ≠ k]; interval (c − k)²; ratio ((c − k)/(c + k))² (values must be ≥ 0);
    ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)². 1.0 is perfect agreement (exactly: the observed
    disagreement is then exactly 0), 0 is chance level, below 0 systematic disagreement.
    Degenerate: fewer than two pairable values → None; zero expected disagreement (every
    pairable value the same, so chance and judges cannot be told apart) → None.
    """
    if level not in ("nominal", "ordinal", "interval", "ratio"):
        raise ValueError(f"level must be nominal, ordinal, interval or ratio, got {level!r}")
    data = _ratings(matrix)
    present = ~np.isnan(data)
    if level == "ratio" and (data[present] < 0).any():
        raise ValueError("ratio level needs non-negative values")
    domain = np.unique(data[present])
    counts = (data.T[:, :, None] == domain[None, None, :]).sum(axis=1)
    per_unit = counts.sum(axis=1)
    pairable = per_unit >= 2
    skipped = int((~pairable).sum())
    counts, per_unit = counts[pairable].astype(np.float64), per_unit[pairable]
    n = int(per_unit.sum())
    if n < 2:
        return Agreement(None, units=0, skipped=skipped, reason="fewer than two pairable values")
    weights = 1.0 / (per_unit - 1)
    coincidences = (counts * weights[:, None]).T @ counts - np.diag(counts.T @ weights)
    n_c = counts.sum(axis=0)
    delta = _squared_distances(domain, n_c, level)
    observed = float((coincidences * delta).sum())
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n - 1)
    units = int(pairable.sum())
    if expected == 0:
        return Agreement(
            None,
            units=units,
            skipped=skipped,
            reason="no variation in the pairable values: expected disagreement is 0",
        )
    return Agreement(1.0 - observed / expected, units=units, skipped=skipped)


def mean_over_models(table: np.ndarray) -> np.ndarray:
    """Per item (column), the mean over the models (rows) that scored it; NaN where none did."""
    counts = (~np.isnan(table)).sum(axis=0)
    sums = np.nansum(table, axis=0)
    means: np.ndarray = np.divide(sums, counts, out=np.full(table.shape[1], np.nan), where=counts > 0)
    return means


def model_agreement(table: np.ndarray, models: Sequence[str]) -> dict[str, Any]:
    """Both statistics for a models × items table of scores (NaN where a model has none), as reports show them."""
    scores = {m: [None if np.isnan(v) else float(v) for v in table[row]] for row, m in enumerate(models)}
    mad = mean_absolute_difference(scores)
    alpha = krippendorff_alpha([[None if np.isnan(v) else float(v) for v in row] for row in table], level="interval")
    return {"mean_absolute_difference": mad.value, "krippendorff_alpha_interval": alpha.value,
            "units": alpha.units, "reason": alpha.reason or mad.reason}
