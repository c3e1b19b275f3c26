"""The judge tier's pure parts: repeat agreement over any number of repeats, and pairwise rates."""

from __future__ import annotations

import math

import pytest

from benchmarks.metrics.judge_quality import repeat_difference, repeats_agree
from benchmarks.metrics.pairwise import pairwise_indicators, preference, preference_agreement
from benchmarks.metrics.stats import latency_summary


def test_two_repeats_agree_as_the_seed_says():
    assert repeats_agree([0.9, 0.3], 0.5) is False  # |0.6| > 0.5
    assert repeats_agree([0.5, 0.0], 0.5) is True  # exactly δ agrees
    assert repeats_agree([0.1 + 0.2 + 0.3, 0.1], 0.5) is True  # 0.5000000000000001 on paper is 0.5
    assert repeats_agree([1.0, 1.0], 0.0) is True


def test_three_repeats_agree_when_the_widest_two_do():
    assert repeats_agree([0.2, 0.6, 0.7], 0.5) is True  # max − min = 0.5
    assert repeats_agree([0.0, 1.0, 0.5], 0.5) is False  # 0 and 1 differ by 1.0, though each is 0.5 from 0.5
    assert repeats_agree([0.0, 0.4, 0.8], 0.5) is False  # neighbours within δ, ends 0.8 apart


def test_failed_repeats_are_left_out_and_one_score_compares_nothing():
    assert repeats_agree([0.9, None, 0.8], 0.5) is True
    assert repeats_agree([0.9, None], 0.5) is None
    assert repeats_agree([math.nan, 0.9, None], 0.5) is None
    assert repeat_difference([None, 0.4]) is None


def test_repeat_difference_is_the_mean_over_every_two_repeats():
    assert repeat_difference([0.9, 0.3]) == pytest.approx(0.6)
    assert repeat_difference([0.2, 0.6, 0.7]) == pytest.approx((0.4 + 0.5 + 0.1) / 3)
    assert repeat_difference([0.0, 1.0, 0.5, None]) == pytest.approx((1.0 + 0.5 + 0.5) / 3)
    assert repeat_difference([3.0, 3.0]) == 0.0


def test_preference_survives_the_swap_or_is_inconsistent():
    assert preference("A", "B") == "a"  # answer_a chosen first shown and second shown
    assert preference("B", "A") == "b"
    assert preference("Tie", "Tie") == "tie"
    assert preference("A", "A") == "inconsistent"  # whatever came first
    assert preference("A", "Tie") == "inconsistent"


def test_a_judge_that_always_says_a():
    units = pairwise_indicators([("A", "A")] * 4, ["a", "b", "tie", None])
    assert units.consistent == [0.0] * 4
    assert units.first == [1.0] * 8
    assert units.tie == [0.0] * 8
    assert units.correct == [0.0] * 3  # inconsistent counts as wrong; the unlabelled pair is not scored


def test_a_judge_that_follows_the_answers():
    units = pairwise_indicators([("A", "B"), ("B", "A"), ("Tie", "Tie"), ("A", "B")], ["a", "b", "tie", "b"])
    assert units.consistent == [1.0] * 4
    assert sum(units.first) / len(units.first) == 0.5  # 6 decisive verdicts, 3 for the first shown
    assert sum(units.tie) / len(units.tie) == 2 / 8
    assert units.correct == [1.0, 1.0, 1.0, 0.0]


def test_a_failed_verdict_leaves_its_pair_but_keeps_the_other_verdict():
    units = pairwise_indicators([("B", None), (None, None), ("A", "B")], ["b", "a", "a"])
    assert units.consistent == [1.0]
    assert units.first == [0.0, 1.0, 0.0]
    assert units.tie == [0.0, 0.0, 0.0]
    assert units.correct == [1.0]


def test_latency_summary():
    assert latency_summary([10.0, 20.0, 30.0, 40.0]).written() == {"avg": 25.0, "p95": 38.5, "n": 4}
    assert latency_summary([]).written() == {"avg": None, "p95": None, "n": 0}


def test_preference_agreement_by_hand():
    # pair 4 has one judge only: left out of both. Pairs 1-3 give values (0,0) (1,1) (2,0): coincidences
    # o00 = 2, o11 = 2, o02 = o20 = 1; n = 6, n_c = 3, 2, 1; alpha = 1 - 5 * 2 / (36 - 14) = 6/11
    found = preference_agreement([["a", "b", "tie", "a"], ["a", "b", "a", None]])
    assert found["same_preference_rate"] == pytest.approx(2 / 3)
    assert found["pairs_judged_by_every_model"] == 3
    assert found["krippendorff_alpha_nominal"] == pytest.approx(6 / 11, abs=1e-12)
    assert preference_agreement([[None], ["a"]]) == {"same_preference_rate": None, "pairs_judged_by_every_model": 0,
                                                     "krippendorff_alpha_nominal": None}
