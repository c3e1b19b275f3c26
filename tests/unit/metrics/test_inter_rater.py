"""Judge agreement: Krippendorff's alpha by hand and against published values, and MAD by hand.

The published values are those of Krippendorff's "Computing Krippendorff's Alpha-Reliability"
(2011) 4-judge × 12-item example and of the Wikipedia 3-judge × 15-item example, both with
missing ratings; the `krippendorff` package (PyPI, 0.9.0) reproduces them to the digits below.
"""

import math

import numpy as np
import pytest

from benchmarks.metrics.inter_rater import krippendorff_alpha, mean_absolute_difference

N = None

KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]

WIKIPEDIA = [
    [N, N, N, N, N, 3, 4, 1, 2, 1, 1, 3, 3, N, 3],
    [1, N, 2, 1, 3, 3, 4, 3, N, N, N, N, N, N, N],
    [N, N, 2, 1, 3, 4, 4, N, 2, 1, 1, 3, 3, N, 4],
]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_example(level, published):
    result = krippendorff_alpha(KRIPPENDORFF_2011, level)
    assert round(result.value, 3) == published
    assert result.units == 11 and result.skipped == 1  # item 12 has a single rating


def test_krippendorff_2011_exact_values():
    """Nominal and interval alpha are rationals here: 113/152 and 951/1120."""
    assert krippendorff_alpha(KRIPPENDORFF_2011, "nominal").value == pytest.approx(113 / 152, abs=1e-15)
    assert krippendorff_alpha(KRIPPENDORFF_2011, "interval").value == pytest.approx(951 / 1120, abs=1e-15)


def test_wikipedia_example():
    assert krippendorff_alpha(WIKIPEDIA, "nominal").value == pytest.approx(56 / 81, abs=1e-15)
    assert round(krippendorff_alpha(WIKIPEDIA, "interval").value, 6) == 0.810845


def test_nan_and_none_are_both_missing():
    as_nan = np.array(KRIPPENDORFF_2011, dtype=float)
    assert krippendorff_alpha(as_nan, "interval") == krippendorff_alpha(KRIPPENDORFF_2011, "interval")


def test_nominal_by_hand():
    """Items (0,0), (1,1), (1,0): o00 = o11 = 2, o01 = o10 = 1, n0 = n1 = 3, n = 6.

    alpha = 1 − (n − 1)·(o01 + o10) / (2·n0·n1) = 1 − 5·2/18 = 4/9.
    """
    assert krippendorff_alpha([[0, 1, 1], [0, 1, 0]], "nominal").value == pytest.approx(4 / 9, abs=1e-15)


def test_interval_by_hand():
    """Items (1,1), (2,2), (3,4): observed Σ o δ² = 2, Σ n_c n_k δ² = 82, so alpha = 1 − 5·2/82."""
    assert krippendorff_alpha([[1, 2, 3], [1, 2, 4]], "interval").value == pytest.approx(36 / 41, abs=1e-15)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_perfect_agreement_is_exactly_one(level):
    ratings = [[0.0, 0.5, 1.0, 0.5], [0.0, 0.5, 1.0, N], [0.0, N, 1.0, 0.5]]
    assert krippendorff_alpha(ratings, level).value == 1.0


def test_systematic_disagreement_is_negative():
    assert krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]], "nominal").value < 0


def test_no_pairable_values_is_undetermined():
    result = krippendorff_alpha([[1, N], [N, 2]], "interval")
    assert result.value is None and result.reason == "fewer than two pairable values"
    assert result.skipped == 2


def test_zero_expected_disagreement_is_undetermined():
    result = krippendorff_alpha([[3, 3, 3], [3, 3, N]], "nominal")
    assert result.value is None and "expected disagreement is 0" in result.reason


def test_malformed_ratings_raise():
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2], [1]], "nominal")
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, math.inf], [1, 2]], "interval")
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, -2], [1, 2]], "ratio")
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2], [1, 2]], "cardinal")


def test_mad_by_hand():
    """Item 1: |0.2−0.4|, |0.2−1.0|, |0.4−1.0| → mean 1.6/3; item 2: all 0.5 → 0; item 3: one pair 0.25."""
    result = mean_absolute_difference(
        {"judge-a": [0.2, 0.5, 0.75], "judge-b": [0.4, 0.5, N], "judge-c": [1.0, 0.5, 0.5]}
    )
    assert result.value == pytest.approx((1.6 / 3 + 0 + 0.25) / 3)
    assert (result.units, result.skipped) == (3, 0)


def test_mad_skips_items_scored_by_one_model():
    result = mean_absolute_difference({"a": [1.0, 0.0, N], "b": [0.0, N, N]})
    assert result.value == 1.0
    assert (result.units, result.skipped) == (1, 2)


def test_mad_perfect_agreement_is_zero():
    assert mean_absolute_difference({"a": [0.1, 0.7], "b": [0.1, 0.7]}).value == 0.0


def test_mad_degenerate_cases():
    one_model = mean_absolute_difference({"a": [0.1, 0.7]})
    assert one_model.value is None and one_model.reason == "fewer than two models"
    no_pairs = mean_absolute_difference({"a": [0.1, N], "b": [N, 0.7]})
    assert no_pairs.value is None and no_pairs.reason == "no item was scored by two models"
    assert no_pairs.skipped == 2
