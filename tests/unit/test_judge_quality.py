"""Judge repeatability, error rate and the §11.2 bands, by hand and on their boundaries."""

import math

import pytest

from benchmarks.metrics.classification import Ratio
from benchmarks.metrics.judge_quality import (
    THRESHOLDS,
    RepeatStat,
    consistency_score,
    error_rate,
    mean_repeat_difference,
    rate_against_thresholds,
)

N = None


def test_consistency_by_hand():
    # differences 0, 0.5, 1.0, 0.25 → three of four within δ = 0.5
    first, second = [1.0, 1.0, 0.0, 0.5], [1.0, 0.5, 1.0, 0.75]
    assert consistency_score(first, second) == RepeatStat(0.75, compared=4)
    assert mean_repeat_difference(first, second) == RepeatStat(1.75 / 4, compared=4)


def test_difference_of_exactly_delta_counts_despite_binary_rounding():
    summed = 0.1 + 0.2 + 0.3
    assert summed - 0.1 > 0.5  # the float trap the tolerance exists for
    assert consistency_score([summed], [0.1]).value == 1.0
    assert consistency_score([0.8], [0.29]).value == 0.0


def test_delta_is_a_parameter():
    first, second = [1.0, 0.0, 0.5], [0.8, 0.3, 0.5]
    assert consistency_score(first, second, delta=0.0).value == pytest.approx(1 / 3)
    assert consistency_score(first, second, delta=0.2).value == pytest.approx(2 / 3)
    assert consistency_score(first, second, delta=0.3).value == 1.0


def test_missing_scores_are_counted_and_left_out():
    first, second = [1.0, N, 0.0, math.nan, 0.5], [1.0, 0.5, N, 0.0, 0.0]
    assert consistency_score(first, second) == RepeatStat(1.0, compared=2, missing=3)
    assert mean_repeat_difference(first, second) == RepeatStat(0.25, compared=2, missing=3)


def test_nothing_scored_twice():
    for stat in (consistency_score([N, 1.0], [0.0, N]), mean_repeat_difference([], [])):
        assert stat.value is None and stat.compared == 0 and stat.reason


@pytest.mark.parametrize(
    ("first", "second", "delta"),
    [([1.0], [1.0, 0.0], 0.5), ([math.inf], [1.0], 0.5), ([N], [-math.inf], 0.5), ([1.0], [1.0], -0.1)],
)
def test_malformed_scores(first, second, delta):
    with pytest.raises(ValueError):
        consistency_score(first, second, delta)


def test_error_rate():
    assert error_rate(3, 12) == Ratio(0.25)
    assert error_rate(0, 5) == Ratio(0.0)
    assert error_rate(0, 0).value is None and error_rate(0, 0).reason
    with pytest.raises(ValueError):
        error_rate(5, 4)
    with pytest.raises(ValueError):
        error_rate(-1, 4)


@pytest.mark.parametrize(
    ("metric", "value", "band"),
    [
        ("hit_rate@1", 0.81, "excellent"),
        ("HitRate@1", 0.8, "good"),
        ("mrr", 0.5, "good"),
        ("MRR", 0.49, "attention"),
        ("NDCG@10", 0.8000000000000002, "good"),
        ("ndcg@10", 0.95, "excellent"),
        ("Faithfulness", 0.9, "good"),
        ("faithfulness", 0.91, "excellent"),
        ("faithfulness", 0.7, "good"),
        ("faithfulness", 0.69, "attention"),
        ("E2E Score", 0.6, "good"),
        ("e2e_score", 0.59, "attention"),
        ("e2e_score", 0.85, "excellent"),
        ("Accuracy (Judge Pipeline)", 0.96, "excellent"),
        ("accuracy", 0.95, "good"),
        ("judge_pipeline_accuracy", 0.85, "good"),
        ("judge_pipeline_accuracy", 0.84, "attention"),
        ("Consistency", 0.97, "excellent"),
        ("consistency_score", 0.9, "good"),
        ("consistency", 0.8, "attention"),
    ],
)
def test_bands(metric, value, band):
    assert rate_against_thresholds(metric, value) == band


def test_every_row_of_the_table_is_known():
    assert set(THRESHOLDS) == {
        "hit_rate@1", "mrr", "ndcg@10", "faithfulness", "e2e_score", "judge_pipeline_accuracy", "consistency",
    }  # fmt: skip


@pytest.mark.parametrize(("metric", "value"), [("rouge_l", 0.5), ("hit_rate@3", 0.5), ("mrr", math.nan)])
def test_unknown_metric_or_non_number(metric, value):
    with pytest.raises(ValueError):
        rate_against_thresholds(metric, value)
