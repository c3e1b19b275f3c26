"""Agreement with human labels: each statistic by hand and against scikit-learn / scipy, intervals, edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from benchmarks.metrics.label_agreement import (
    Statistic,
    accuracy,
    agreement,
    cohen_kappa,
    label_kind,
    labelled_entry,
    pairwise_accuracy,
    report_entry,
    roc_auc,
)


def test_roc_auc_by_hand_with_a_tie_counted_half():
    # positives 0.9, 0.5; negatives 0.5, 0.1: pairs (0.9>0.5), (0.9>0.1), (0.5=0.5 → ½), (0.5>0.1) → 3.5 / 4
    scores, labels = np.array([0.9, 0.5, 0.5, 0.1]), np.array([1, 1, 0, 0])
    assert roc_auc(scores, labels) == 0.875
    assert roc_auc(np.array([0.2, 0.3]), np.array([1, 1])) is None  # one class: undefined, not 0.5


def test_roc_auc_and_kappa_agree_with_scikit_learn():
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 2, 200)
    scores = np.round(rng.random(200) * 0.6 + labels * 0.3, 2)  # rounded: many ties
    assert roc_auc(scores, labels) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert cohen_kappa(scores, labels, 0.5, kind="binary") == pytest.approx(
        cohen_kappa_score(scores >= 0.5, labels >= 0.5), abs=1e-12)


def test_pairwise_accuracy_compares_answers_to_the_same_question_only():
    # q1: right 0.9 > partial 0.4 > hallucinated 0.2 (3 of 3); q2: right 0.3 < hallucinated 0.6 (0 of 1);
    # the q1 right vs q2 hallucinated pair is never formed
    scores = np.array([0.9, 0.4, 0.2, 0.3, 0.6])
    labels = np.array([1.0, 0.5, 0.0, 1.0, 0.0])
    groups = np.array(["q1", "q1", "q1", "q2", "q2"])
    assert pairwise_accuracy(scores, labels, groups) == 3 / 4
    assert pairwise_accuracy(scores, labels, np.array(["a", "b", "c", "d", "e"])) is None


def test_graded_labels_get_rank_correlations_as_scipy_computes_them():
    scores = [0.9, 0.4, 0.2, 0.3, 0.6, 0.8]
    labels = [1.0, 0.5, 0.0, 1.0, 0.0, 0.5]
    groups = ["q1", "q1", "q1", "q2", "q2", "q2"]
    found = agreement(scores, labels, groups, threshold=0.5, resamples=200, seed=0)
    assert found["labels"] == "graded" and found["n"] == 6 and "roc_auc" not in found
    assert found["spearman"].value == pytest.approx(stats.spearmanr(scores, labels).statistic, abs=1e-12)
    assert found["kendall"].value == pytest.approx(stats.kendalltau(scores, labels).statistic, abs=1e-12)
    # verdicts at 0.5: judge T F F F T T, labels T T F T F T → 3 of 6 agree
    assert found["accuracy"].value == 0.5 and found["accuracy"].n == 6
    # q1 orders its 3 pairs right; q2 (labels 1.0, 0.0, 0.5 scored 0.3, 0.6, 0.8) only (0.5 over 0.0): 4 of 6
    assert (found["pairwise_accuracy"].value, found["pairwise_accuracy"].n) == (4 / 6, 6)
    low, high = found["spearman"].ci95
    assert low <= found["spearman"].value <= high


def test_binary_labels_and_unscored_samples():
    scores = [0.9, None, 0.1, 0.8, 0.2]
    labels = [1, 1, 0, 1, 0]
    found = agreement(scores, labels, ["a", "a", "a", "b", "b"], threshold=0.5, resamples=100, seed=1)
    assert found["labels"] == "binary" and found["n"] == 4  # the unscored sample is left out
    assert found["roc_auc"] == Statistic(1.0, (1.0, 1.0), 4)
    assert found["pairwise_accuracy"].value == 1.0 and found["pairwise_accuracy"].n == 2
    assert found["cohen_kappa"].value == 1.0
    assert label_kind([0, 1, 1.0]) == "binary" and label_kind([0, 0.5]) == "graded"


def test_the_bootstrap_is_seeded_and_needs_two_groups():
    scores, labels = [0.9, 0.2, 0.7, 0.6, 0.3, 0.4], [1, 0, 1, 0, 1, 0]
    groups = ["a", "a", "b", "b", "c", "c"]
    first = agreement(scores, labels, groups, threshold=0.5, resamples=300, seed=3)
    assert first == agreement(scores, labels, groups, threshold=0.5, resamples=300, seed=3)
    one_group = agreement(scores, labels, ["a"] * 6, threshold=0.5, resamples=300, seed=3)
    assert one_group["roc_auc"].value is not None and one_group["roc_auc"].ci95 is None


def test_nothing_scored_is_measured_as_nothing():
    found = agreement([None, None, None], [1.0, 0.5, 0.0], ["a", "a", "a"], threshold=0.5, resamples=50, seed=0)
    assert found["labels"] == "graded" and found["n"] == 0  # the kind the labels have, not that of no labels
    assert all(found[name] == Statistic(None, None, 0) for name in ("spearman", "kendall", "pairwise_accuracy",
                                                                      "accuracy", "cohen_kappa"))


def test_a_binary_label_is_its_own_verdict_on_any_scale():
    # a 1–5 scale, threshold 3: the judge's yes, no, yes, no, yes against the people's 1, 0, 1, 0, 0 agree 4 of 5
    # (read as grades, labels 1 and 0 would both be "no" and the judge's yeses all wrong)
    scores, labels = [5.0, 2.0, 4.0, 1.0, 3.0], [1, 0, 1, 0, 0]
    found = agreement(scores, labels, ["a", "a", "b", "b", "c"], threshold=3.0, resamples=100, seed=0)
    assert found["labels"] == "binary" and found["accuracy"].value == 0.8
    assert found["cohen_kappa"].value == pytest.approx((0.8 - 0.48) / 0.52)
    # graded labels on that scale are verdicts from the threshold up: 5, 4, 3 yes; 2, 1 no
    assert accuracy(np.array(scores), np.array([5.0, 2.0, 4.0, 1.0, 1.0]), 3.0, kind="graded") == 0.8
    # the kind is told once from all the labels: graded 1s are "no" even where only 1s are looked at
    assert accuracy(np.array([4.0]), np.array([1.0]), 3.0, kind="graded") == 0.0
    assert accuracy(np.array([4.0]), np.array([1.0]), 3.0, kind="binary") == 1.0
    # on 0–1 both readings give the same verdicts
    s, y = np.array([0.9, 0.2, 0.6]), np.array([1.0, 0.0, 0.0])
    assert accuracy(s, y, 0.5, kind="binary") == accuracy(s, y, 0.5, kind="graded") == 2 / 3


def test_report_entry_is_the_agreement_as_plain_data_with_the_labelled_count():
    scores, labels, groups = [0.9, None, 0.1, 0.8], [1, 1, 0, 0], ["a", "a", "b", "b"]
    entry = report_entry(scores, labels, groups, threshold=0.5, resamples=50, seed=2)
    found = agreement(scores, labels, groups, threshold=0.5, resamples=50, seed=2)
    assert entry["labelled"] == 4 and entry["n"] == 3  # the unscored one is labelled but left out
    assert entry["roc_auc"] == {"value": found["roc_auc"].value, "ci95": found["roc_auc"].ci95,
                                "n": found["roc_auc"].n}
    assert set(entry) == {*found, "labelled"}


def test_labelled_entry_reads_only_the_labelled_units_and_none_when_there_is_none():
    """A tier passes every unit in its order: scores NaN where the judge gave none, labels None where people did."""
    values, labels, groups = [0.9, math.nan, 0.1, 0.8, 0.7], [1, 1, 0, 0, None], ["a", "a", "b", "b", "c"]
    entry = labelled_entry(values, labels, groups, threshold=0.5, resamples=50, seed=2)
    assert entry == report_entry([0.9, None, 0.1, 0.8], [1, 1, 0, 0], ["a", "a", "b", "b"], threshold=0.5,
                                 resamples=50, seed=2)
    assert labelled_entry(values, [None] * 5, groups, threshold=0.5, resamples=50, seed=2) is None
