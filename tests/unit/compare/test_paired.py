"""The paired bootstrap against a slow reference and Student's t, its p-value against its interval, per-item
extraction and clustering."""

import math

import numpy as np
import pytest
from scipy import stats

from benchmarks.compare.paired import clusters_of, item_value, paired_bootstrap
from benchmarks.item_record import ITEM_RECORD, MISSING, ItemRecord, score


def reference(diffs, valid, clusters, resamples, seed):
    """One resample at a time, in plain Python, from the same draws; the expanded percentile interval read off
    by hand (Student's t quantile, stretched by √(n/(n−1)), at normal levels)."""
    n = len(diffs)
    units = n if clusters is None else max(clusters) + 1
    members = [[i for i in range(n) if (i if clusters is None else clusters[i]) == u] for u in range(units)]
    draws = np.random.default_rng(seed).integers(0, units, size=(resamples, units))
    means = []
    for row in draws:
        picked = [diffs[i] for u in row for i in members[u] if valid[i]]
        if picked:
            means.append(sum(picked) / len(picked))
    scored = sum(any(valid[i] for i in m) for m in members)
    reach = math.sqrt(scored / (scored - 1)) * stats.t.ppf(0.975, scored - 1)
    levels = [stats.norm.cdf(-reach), stats.norm.cdf(reach)]
    return tuple(np.quantile(means, levels, method="inverted_cdf")), scored


@pytest.mark.parametrize("clustered", [False, True])
def test_matches_the_slow_reference(clustered):
    rng = np.random.default_rng(3)
    n = 40
    diffs = rng.normal(0.05, 0.2, n)
    valid = rng.random(n) > 0.1
    clusters = np.arange(n) // 4 if clustered else None
    got = paired_bootstrap(diffs[None, :], valid[None, :], clusters=clusters, resamples=300, seed=7,
                           block_rows=300)[0]
    (low, high), units = reference(list(diffs), list(valid), None if clusters is None else list(clusters),
                                   300, 7)
    assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12)
    assert got.units == units == (int(valid.sum()) if clusters is None else 10)


def test_same_seed_same_interval_and_several_metrics_share_draws():
    rng = np.random.default_rng(0)
    d = rng.normal(0, 1, (3, 500))
    v = np.ones_like(d, dtype=bool)
    a = paired_bootstrap(d, v, resamples=1000, seed=1)
    b = paired_bootstrap(d, v, resamples=1000, seed=1)
    assert a == b and all(ci is not None for ci in a)
    single = paired_bootstrap(d[1:2], v[1:2], resamples=1000, seed=1)[0]
    assert (single.low, single.high, single.p) == pytest.approx((a[1].low, a[1].high, a[1].p))


def test_cluster_bootstrap_is_wider_when_items_of_a_document_move_together():
    rng = np.random.default_rng(5)
    documents = np.repeat(np.arange(20), 10)
    diffs = np.repeat(rng.normal(0, 0.2, 20), 10) + rng.normal(0, 0.01, 200)
    valid = np.ones(200, dtype=bool)
    plain = paired_bootstrap(diffs[None], valid[None], resamples=2000, seed=0)[0]
    clustered = paired_bootstrap(diffs[None], valid[None], clusters=documents, resamples=2000, seed=0)[0]
    assert (clustered.high - clustered.low) > 2 * (plain.high - plain.low)
    assert (plain.units, clustered.units) == (200, 20)


@pytest.mark.parametrize("seed", range(4))
def test_expanded_interval_and_p_value_agree_with_the_t_test_on_normal_data(seed):
    """On normal differences the expanded percentile interval is Student's t interval, up to the bootstrap's
    Monte Carlo error and the sample's skew: each end within 4% of the interval's width, p within 0.02."""
    d = np.random.default_rng(seed).normal(0.04, 0.2, 30)
    got = paired_bootstrap(d[None], np.ones((1, 30), dtype=bool), resamples=20_000, seed=seed)[0]
    t = stats.ttest_1samp(d, 0.0)
    ci = t.confidence_interval()
    width = ci.high - ci.low
    assert got.low == pytest.approx(ci.low, abs=0.04 * width)
    assert got.high == pytest.approx(ci.high, abs=0.04 * width)
    assert got.p == pytest.approx(t.pvalue, abs=0.02)
    plain = paired_bootstrap(d[None], np.ones((1, 30), dtype=bool), resamples=20_000, seed=seed,
                             method="percentile")[0]
    assert got.high - got.low > 1.04 * (plain.high - plain.low)  # √(30/29)·t(29)/1.96 = 1.059


@pytest.mark.parametrize("clustered", [False, True])
def test_p_value_inverts_the_interval(clustered):
    """p ≤ 0.05 exactly when the 95% interval excludes 0: shifting every difference by c moves the interval by
    c on the same draws, so 0 is walked across both ends."""
    rng = np.random.default_rng(11)
    diffs = rng.choice([-1.0, 0.0, 0.0, 1.0], 60) * 0.3 + rng.normal(0, 0.05, 60)
    valid = np.ones((1, 60), dtype=bool)
    clusters = np.arange(60) // 3 if clustered else None
    centre = paired_bootstrap(diffs[None], valid, clusters=clusters, resamples=2000, seed=3)[0]
    for c in np.linspace(centre.low - 0.02, centre.high + 0.02, 301):
        got = paired_bootstrap(diffs[None] - c, valid, clusters=clusters, resamples=2000, seed=3)[0]
        assert (got.p <= 0.05) == (got.low > 0 or got.high < 0), c


def test_a_metric_identical_in_both_runs_has_p_one_and_an_interval_at_zero():
    got = paired_bootstrap(np.zeros((1, 50)), np.ones((1, 50), dtype=bool), resamples=500)[0]
    assert (got.low, got.high, got.p) == (0.0, 0.0, 1.0)


def test_fewer_than_two_units_give_no_interval():
    valid = np.zeros((1, 5), dtype=bool)
    valid[0, 2] = True
    assert paired_bootstrap(np.ones((1, 5)), valid, resamples=50) == [None]
    with pytest.raises(ValueError, match="interval method"):
        paired_bootstrap(np.ones((1, 5)), valid, method="bca")


def test_no_valid_item_gives_no_interval():
    assert paired_bootstrap(np.zeros((1, 5)), np.zeros((1, 5), dtype=bool), resamples=50) == [None]


def test_clusters_only_when_items_share_a_document():
    assert clusters_of(["a", "b", None]) is None
    assert list(clusters_of(["a", "b", "a", None])) == [0, 1, 0, 2]


def record_of(scores: dict) -> ItemRecord:
    return ITEM_RECORD.validate_python({"id": "i1", "inputs": {}, "scores": scores})


def test_an_items_value_is_the_mean_over_the_scorers_that_scored_it():
    """The one reading of every tier's items: a number per scorer, failed when none scored and one failed,
    missing when the metric does not apply or every scorer left it undetermined."""
    assert item_value(record_of({"mrr": {"bench": score(0.5)}}), "mrr") == 0.5
    assert item_value(record_of({}), "mrr") is MISSING
    two = record_of({"faithfulness": {"a": score(0.5), "b": score(1.0)}})
    assert item_value(two, "faithfulness") == 0.75
    assert item_value(two, "faithfulness/b") == 1.0
    assert item_value(two, "faithfulness/c") is MISSING
    one_failed = record_of({"faithfulness": {"a": score(None, "api_error", "503"), "b": score(1.0)}})
    assert item_value(one_failed, "faithfulness") == 1.0
    assert item_value(one_failed, "faithfulness/a") is None
    for status in ("parse_error", "truncated", "api_error", "no_answer"):
        assert item_value(record_of({"bleu": {"bench": score(None, status, "why")}}), "bleu") is None
    undetermined = record_of({"faithfulness": {"a": score(None, "undetermined", "no statements")}})
    assert item_value(undetermined, "faithfulness") is MISSING
