"""Show/don't-show classification metrics: by hand, degenerate cases, and against sklearn."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from benchmarks.metrics.classification import Confusion, Ratio, classification_report, confusion_matrix

N = None


def test_hand_computed():
    predicted = ["yes", "yes", "yes", "no", "no", "no", "yes", N, N, "no"]
    truth = ["yes", "yes", "no", "no", "yes", "no", "yes", "yes", "no", "no"]
    report = classification_report(predicted, truth)
    assert report.confusion == Confusion(
        tp=3, fp=1, tn=3, fn=1, unparseable_truth_yes=1, unparseable_truth_no=1
    )
    assert report.confusion.parseable == 8 and report.confusion.unparseable == 2
    assert report.accuracy == Ratio(6 / 10)  # unparseable counted as wrong
    assert report.accuracy_parseable == Ratio(6 / 8)
    assert report.precision == Ratio(3 / 4)
    assert report.recall == Ratio(3 / 4)
    assert report.f1.value == pytest.approx(0.75)
    assert report.unparseable_rate == Ratio(0.2)


def test_seed_formulas_on_a_perfect_judge():
    report = classification_report(["yes", "no", "yes"], ["yes", "no", "yes"])
    assert [r.value for r in (report.accuracy, report.precision, report.recall, report.f1)] == [1.0] * 4


def test_no_predicted_yes_leaves_precision_undefined_and_f1_zero():
    report = classification_report(["no", "no"], ["yes", "no"])
    assert report.precision.value is None and "predicted no 'yes'" in report.precision.reason
    assert report.recall == Ratio(0.0)
    assert report.f1 == Ratio(0.0)


def test_no_true_yes_leaves_recall_undefined():
    report = classification_report(["yes", "no"], ["no", "no"])
    assert report.recall.value is None and report.recall.reason
    assert report.precision == Ratio(0.0) and report.f1 == Ratio(0.0)


def test_no_positive_anywhere_leaves_f1_undefined():
    report = classification_report(["no", "no"], ["no", "no"])
    assert report.f1.value is None and report.precision.value is None and report.recall.value is None
    assert report.accuracy == Ratio(1.0)


def test_all_unparseable():
    report = classification_report([N, N, N], ["yes", "no", "yes"])
    assert report.accuracy == Ratio(0.0)
    assert report.accuracy_parseable.value is None and report.accuracy_parseable.reason
    assert report.unparseable_rate == Ratio(1.0)
    assert report.confusion == Confusion(unparseable_truth_yes=2, unparseable_truth_no=1)


def test_no_items():
    report = classification_report([], [])
    assert report.accuracy.value is None and report.unparseable_rate.value is None


@pytest.mark.parametrize(
    ("predicted", "truth"),
    [(["yes"], ["yes", "no"]), (["maybe"], ["yes"]), (["yes"], [None]), (["yes"], [True])],
)
def test_malformed_input(predicted, truth):
    with pytest.raises(ValueError):
        confusion_matrix(predicted, truth)


def _same(ours: Ratio, theirs: float) -> bool:
    return math.isnan(theirs) if ours.value is None else ours.value == pytest.approx(theirs)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["yes", "no", None]), st.sampled_from(["yes", "no"])), max_size=40))
def test_against_sklearn(pairs):
    predicted = [p for p, _ in pairs]
    truth = [t for _, t in pairs]
    report = classification_report(predicted, truth)
    kept = [(p, t) for p, t in pairs if p is not None]
    if not kept:
        assert report.accuracy_parseable.value is None
        return
    y_pred = [p for p, _ in kept]
    y_true = [t for _, t in kept]
    labelled = {"pos_label": "yes", "zero_division": np.nan}
    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred, labels=["no", "yes"]).ravel()
    c = report.confusion
    assert (c.tp, c.fp, c.tn, c.fn) == (tp, fp, tn, fn)
    assert _same(report.accuracy_parseable, skm.accuracy_score(y_true, y_pred))
    assert _same(report.precision, skm.precision_score(y_true, y_pred, **labelled))
    assert _same(report.recall, skm.recall_score(y_true, y_pred, **labelled))
    assert _same(report.f1, skm.f1_score(y_true, y_pred, **labelled))
    # Over all items, an unparseable answer is a label that never matches the truth.
    filled = [p if p is not None else "unparseable" for p in predicted]
    assert _same(report.accuracy, skm.accuracy_score(truth, filled))
