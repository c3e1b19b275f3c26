"""What the Python API returns, read like a table: a result indexed by metric name (the report's numbers with
n, errors, CI and statuses), iterated by sample or item, flattened into records and a pandas DataFrame. Built
here from a report and items of evaluate's shape, so no run is needed; tests/integration/test_api.py checks
the same reading on real runs."""

from __future__ import annotations

import sys
import types

import pytest

from benchmarks import Evaluation, MetricScore, ReportedMetric, Run, SampleResult
from benchmarks.report_model import Report
from benchmarks.tiers.base import Metric


def reported(tier, metrics, notes):
    """A report of the fields the API reads, the rest as small as a report may be."""
    return Report.model_validate({"schema_version": 3, "tier": tier, "tier_version": "1",
                                  "main_metric": next(iter(metrics)),
                                  "dataset": {"name": "d", "content_sha256": "-"}, "provenance": {},
                                  "metrics": metrics, "notes": notes})


MODELS = ("judge-a", "judge-b")
REPORT = reported("evaluate", {
        "faithfulness": {"value": 0.75, "n": 2, "errors": 1, "ci95": [0.5, 1.0], "higher_is_better": True},
        "faithfulness/judge-a": {"value": 1.0, "n": 2, "errors": 0, "ci95": [1.0, 1.0], "higher_is_better": True},
        "faithfulness/judge-b": {"value": 0.5, "n": 1, "errors": 1, "ci95": None, "higher_is_better": True},
        "context_recall": {"value": None, "n": 0, "errors": 0, "ci95": None, "higher_is_better": True,
                           "agreement": {"n": 0, "labels": "binary"}},
    }, {"statuses": {"faithfulness": {"ok": 3, "parse_error": 1},
                     "context_recall": {"ok": 0, "undetermined": 4}}})
ITEMS = [  # sorted by id, as items.jsonl is
    {"id": "a", "inputs": {"user_input": "Who?", "reference": None},
     "answer": {"response": "Ann.", "retrieved_contexts": ["Ann did."]}},
    {"id": "z", "inputs": {"user_input": "When?", "reference": "In 1889.", "labels": {"faithfulness": 1.0}},
     "answer": {"response": None, "retrieved_contexts": None}},
]


def score(value, status, per_model):
    return MetricScore(value=value, status=status, explanation="", per_model=per_model, duration_ms=0.0)


SAMPLES = [  # input order: z was given first
    SampleResult("z", {"faithfulness": score(0.5, "ok", {"judge-a": 1.0, "judge-b": 0.0}),
                       "context_recall": score(None, "undetermined", {"judge-a": None, "judge-b": None})}),
    SampleResult("a", {"faithfulness": score(1.0, "ok", {"judge-a": 1.0, "judge-b": None}),
                       "context_recall": score(None, "undetermined", {"judge-a": None, "judge-b": None})}),
]
RESULT = Evaluation(samples=SAMPLES, report=REPORT, items=ITEMS)


def test_a_metric_by_name_is_the_reports_entry_with_its_statuses():
    faithfulness = RESULT["faithfulness"]
    assert faithfulness == ReportedMetric(value=0.75, n=2, errors=1, ci95=(0.5, 1.0), higher_is_better=True,
                                          statuses={"ok": 3, "parse_error": 1})
    assert isinstance(faithfulness, Metric)  # the type a tier reports, plus the statuses
    with pytest.raises(AttributeError):
        faithfulness.value = 1.0  # type: ignore[misc]  # frozen
    assert RESULT["context_recall"].agreement == {"n": 0, "labels": "binary"}
    assert RESULT["context_recall"].value is None and RESULT["context_recall"].statuses == {"ok": 0,
                                                                                             "undetermined": 4}
    # statuses are counted over every judge model, so a model's own entry has none
    assert RESULT["faithfulness/judge-b"] == ReportedMetric(value=0.5, n=1, errors=1, ci95=None,
                                                            higher_is_better=True, statuses=None)


def test_an_unknown_metric_is_a_key_error_listing_the_reported_ones_closest_first():
    with pytest.raises(KeyError) as error:
        RESULT["faithfullness"]
    assert error.value.args[0] == ("unknown metric 'faithfullness'; reported, closest first: faithfulness, "
                                   "faithfulness/judge-a, faithfulness/judge-b, context_recall")
    with pytest.raises(KeyError, match="closest first: context_recall, "):
        RESULT["recall"]


def test_an_evaluation_iterates_its_samples_in_input_order_and_holds_its_metrics():
    assert list(RESULT) == SAMPLES
    assert [sample.id for sample in RESULT] == ["z", "a"]
    assert len(RESULT) == 2
    assert "faithfulness" in RESULT and "faithfulness/judge-a" in RESULT
    assert "faithfullness" not in RESULT and SAMPLES[0] not in RESULT  # `in` asks about metrics, as [] does
    assert RESULT.metrics == {"faithfulness": 0.75, "faithfulness/judge-a": 1.0, "faithfulness/judge-b": 0.5,
                              "context_recall": None}


def test_a_run_iterates_its_items_and_is_indexed_by_metric():
    report = reported("tier1", {"ndcg@10": {"value": 0.9, "n": 3, "errors": 0, "ci95": [0.8, 1.0],
                                            "higher_is_better": True}},
                      {"statuses": {"ok": 3}})  # a tier counting statuses over everything, not per metric
    run = Run(report=report, items=[{"id": "q1"}, {"id": "q2"}, {"id": "q3"}])
    assert [item["id"] for item in run] == ["q1", "q2", "q3"] and len(run) == 3
    assert run["ndcg@10"] == ReportedMetric(value=0.9, n=3, errors=0, ci95=(0.8, 1.0), statuses=None)
    assert "ndcg@10" in run and "ndcg@5" not in run
    with pytest.raises(KeyError, match="unknown metric 'ndcg@5'; reported, closest first: ndcg@10"):
        run["ndcg@5"]


EXPECTED_RECORDS = [
    {"id": "z", "user_input": "When?", "retrieved_contexts": None, "response": None, "reference": "In 1889.",
     "faithfulness": 0.5, "faithfulness/judge-a": 1.0, "faithfulness/judge-b": 0.0, "faithfulness.status": "ok",
     "context_recall": None, "context_recall/judge-a": None, "context_recall/judge-b": None,
     "context_recall.status": "undetermined"},
    {"id": "a", "user_input": "Who?", "retrieved_contexts": ["Ann did."], "response": "Ann.", "reference": None,
     "faithfulness": 1.0, "faithfulness/judge-a": 1.0, "faithfulness/judge-b": None, "faithfulness.status": "ok",
     "context_recall": None, "context_recall/judge-a": None, "context_recall/judge-b": None,
     "context_recall.status": "undetermined"},
]


def test_records_are_one_flat_row_per_sample_in_input_order():
    records = RESULT.to_records()
    assert records == EXPECTED_RECORDS
    assert [list(record) for record in records] == [list(EXPECTED_RECORDS[0])] * 2  # one column order


def test_one_judge_model_has_no_per_model_columns():
    one = Evaluation(samples=[SampleResult("a", {"faithfulness": score(1.0, "ok", {"judge-a": 1.0})})],
                     report=REPORT, items=ITEMS[:1])
    assert one.to_records() == [{"id": "a", "user_input": "Who?", "retrieved_contexts": ["Ann did."],
                                 "response": "Ann.", "reference": None, "faithfulness": 1.0,
                                 "faithfulness.status": "ok"}]


def test_to_pandas_makes_a_frame_of_the_records(monkeypatch):
    fake = types.ModuleType("pandas")
    fake.DataFrame = lambda records: ("frame", records)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert RESULT.to_pandas() == ("frame", EXPECTED_RECORDS)


def test_to_pandas_without_pandas_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # what `import pandas` meets when it is not installed
    with pytest.raises(ImportError) as error:
        RESULT.to_pandas()
    assert str(error.value) == ("Evaluation.to_pandas needs pandas: pip install 'tierbench[pandas]' (in a checkout: "
                                ".venv/bin/pip install -e '.[pandas]')")
    assert error.value.name == "pandas"

