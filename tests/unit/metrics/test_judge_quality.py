"""Judge repeatability and error rate, by hand and on their boundaries (the bands: test_bands.py)."""

import math

import pytest

from benchmarks.metrics.classification import Ratio
from benchmarks.metrics.judge_quality import (
    RepeatStat,
    consistency_score,
    error_rate,
    mean_repeat_difference,
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
