"""The one outcome type: its rules, its helpers, and a journaled outcome coming back equal."""

import json
import math
from dataclasses import asdict

import pytest

from benchmarks.outcome import ERRORS, JUDGE_STATUSES, STATUSES, Outcome, status_counts
from benchmarks.resumable import revive

RAW = ({"call": "rate_faithfulness", "attempt": "first", "status": "ok", "text": '{"score": 1}', "cached": False},
       {"call": "rate_faithfulness", "attempt": "repair", "status": "ok", "text": '{"score": 0.5}', "cached": True})


def test_every_status_of_today_is_known():
    assert set(STATUSES) == {"ok", "undetermined", "parse_error", "truncated", "api_error", "no_answer"}
    assert JUDGE_STATUSES == ("ok", "undetermined", "parse_error", "truncated", "api_error")
    assert ERRORS == {"parse_error", "truncated", "api_error"}


@pytest.mark.parametrize(("value", "status", "explanation"), [
    (None, "ok", ""),  # ok needs a value
    (float("nan"), "ok", ""),
    (float("inf"), "ok", ""),
    (0.5, "parse_error", "bad JSON"),  # only ok has a value
    ("A", "api_error", "HTTP 500"),
    (None, "undetermined", ""),  # undetermined must say why
    (None, "cut_off", "cut off"),  # not a status
])
def test_invalid_outcomes_raise(value, status, explanation):
    with pytest.raises(ValueError):
        Outcome(value, status, explanation)


def test_helpers():
    scored = Outcome.scored(1, "all supported")
    assert scored == Outcome(1.0, "ok", "all supported") and isinstance(scored.value, float)
    assert scored.ok and scored.number == 1.0
    undetermined = Outcome.undetermined("the response has no statements", name="faithfulness")
    assert (undetermined.value, undetermined.status, undetermined.name) == (None, "undetermined", "faithfulness")
    assert not undetermined.ok and undetermined.number is None
    failed = Outcome.failed("no_answer", "HTTP 400")
    assert (failed.value, failed.status, failed.explanation) == (None, "no_answer", "HTTP 400")
    verdict = Outcome("Tie", "ok", "both say the same")
    assert verdict.ok and verdict.number is None  # a verdict is a value, not a number to average
    assert Outcome("", "ok").ok  # an empty reply is still a reply


def test_status_counts_lists_every_judge_status_and_counts_the_rest_after_them():
    outcomes = [Outcome.scored(1.0), Outcome.scored(0.0), Outcome.failed("parse_error", "x")]
    assert status_counts(outcomes) == {"ok": 2, "undetermined": 0, "parse_error": 1, "truncated": 0,
                                      "api_error": 0}
    assert list(status_counts([])) == list(JUDGE_STATUSES)
    assert status_counts([Outcome.failed("no_answer", "x")]) == {
        "ok": 0, "undetermined": 0, "parse_error": 0, "truncated": 0, "api_error": 0, "no_answer": 1}
    assert status_counts([Outcome.failed("api_error", "x")], listed=()) == {"api_error": 1}


@pytest.mark.parametrize("outcome", [
    Outcome.scored(0.1 + 0.2, "; «s»: not supported", name="faithfulness", model="judge", calls=2,
                   duration_ms=12.345, raw=RAW),  # an LLM judge's metric
    Outcome.scored(0.75, "reasons", name="faithfulness", model="judge", calls=2, latency_ms=(1.25, 0.0),
                   cached=False, raw=RAW),  # a seed rating
    Outcome("B", "ok", "the second is complete", model="judge", calls=1, latency_ms=(3.5,), raw=RAW[:1]),  # a verdict
    Outcome("Да, показывать.", "ok", calls=1, latency_ms=(math.pi,), cached=True),  # a production judge's reply
    Outcome.failed("api_error", "HTTP 503: busy", calls=1, latency_ms=(2.0,)),
    Outcome.undetermined("no offline proxy", name="answer_relevance", model="offline"),
])
def test_a_journaled_outcome_comes_back_equal(outcome):
    row = json.loads(json.dumps(asdict(outcome)))  # as the run journal writes and reads it
    assert isinstance(row["latency_ms"], list) and isinstance(row["raw"], list)
    revived = revive(Outcome, row)
    assert revived == outcome
    assert isinstance(revived.latency_ms, tuple) and isinstance(revived.raw, tuple)
    hash(revived.latency_ms)
