import numpy as np
import pytest

from benchmarks.metrics.stats import bootstrap_ci, percentile, summarize


def test_bootstrap_is_seeded_and_brackets_the_mean():
    values = np.random.default_rng(0).random(200)
    first = bootstrap_ci(values, resamples=500, seed=3)
    assert first == bootstrap_ci(values, resamples=500, seed=3)
    assert first != bootstrap_ci(values, resamples=500, seed=4)
    low, high = first
    assert low < values.mean() < high
    assert high - low < 0.2


def test_constant_values_have_a_degenerate_interval():
    assert bootstrap_ci(np.ones(10)) == (1.0, 1.0)


def test_no_interval_from_fewer_than_two_values():
    assert bootstrap_ci(np.array([0.5])) is None
    assert summarize(np.array([0.5])).ci95 is None


def test_empty_sample_has_no_value_not_zero():
    summary = summarize(np.array([]), errors=3)
    assert summary.value is None and summary.n == 0 and summary.errors == 3


def test_summary_mean_and_n():
    summary = summarize(np.array([0.0, 1.0, 1.0, 1.0]))
    assert summary.value == 0.75 and summary.n == 4


def test_percentile_matches_numpy_and_handles_empty():
    values = np.arange(1, 101, dtype=float)
    assert percentile(values, 95) == pytest.approx(np.percentile(values, 95))
    assert percentile(np.array([]), 50) is None
