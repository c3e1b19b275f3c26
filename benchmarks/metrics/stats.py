"""Summary statistics shared by every tier: means with bootstrap intervals, percentiles."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.report_model import Latency

_BOOTSTRAP_CHUNK = 250


@dataclass(frozen=True)
class Summary:
    """A mean over items with its sample size, error count and 95% interval."""

    value: float | None
    n: int
    errors: int
    ci95: tuple[float, float] | None


def bootstrap_ci(
    values: np.ndarray, *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean; seeded so a rerun gives the same bounds.

    None when there are fewer than two values: an interval from one item would be a fiction.
    """
    values = np.asarray(values, dtype=float)
    n = values.size
    if n < 2 or resamples < 1:
        return None
    rng = np.random.Generator(np.random.PCG64(seed))
    means = np.empty(resamples)
    for start in range(0, resamples, _BOOTSTRAP_CHUNK):
        stop = min(start + _BOOTSTRAP_CHUNK, resamples)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = values[idx].mean(axis=1)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return float(low), float(high)


def summarize(values: np.ndarray | Sequence[float], *, errors: int = 0, resamples: int = 1000, seed: int = 0
              ) -> Summary:
    """Mean, n, errors and CI; an empty sample has no value rather than a made-up zero."""
    values = np.asarray(values, dtype=float)
    if values.size == 0:
        return Summary(value=None, n=0, errors=errors, ci95=None)
    return Summary(
        value=float(values.mean()),
        n=int(values.size),
        errors=errors,
        ci95=bootstrap_ci(values, resamples=resamples, seed=seed),
    )


def percentile(values: np.ndarray, q: float) -> float | None:
    """Linear-interpolated percentile (numpy's default); None for no data."""
    values = np.asarray(values, dtype=float)
    return float(np.percentile(values, q)) if values.size else None


def latency_summary(latencies_ms: np.ndarray | Sequence[float], what: str | None = None) -> Latency:
    """Average and p95 of call latencies in ms (rounded to the microsecond), and how many calls they rest on.

    The caller chooses the calls: a report's latency means calls an endpoint answered, so cached replies
    (answered in microseconds) must be left out or they would flatter a slow endpoint.
    """
    values = np.asarray(latencies_ms, dtype=float)
    p95 = percentile(values, 95)
    summary = Latency(avg=round(float(values.mean()), 3) if values.size else None,
                      p95=None if p95 is None else round(p95, 3), n=int(values.size))
    if what is not None:
        summary.what = what
    return summary
