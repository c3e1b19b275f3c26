"""`bench compare` reads tier 2, tier 3 and evaluate items through the one item record, as it loads a run: for
every metric the items score, the per-item values it pairs give back the report's own mean, n and error count."""

import json

import pytest

from benchmarks.compare import load_run
from benchmarks.compare.paired import item_value
from benchmarks.item_record import MISSING
from tests.integration.test_tier2_cli import CORPUS, QUESTIONS, write_dataset

pytestmark = pytest.mark.integration

FAILED_ANSWER = {"id": "q9", "question": "Which question fails?", "relevant": {"vacation#1": 1},
                 "reference_answer": "None of them."}


@pytest.mark.parametrize("tier", ["tier2", "tier3"])
def test_per_item_values_reproduce_every_metric_of_the_report(bench, tmp_path, tier):
    # precomputed answers: q9 has none (a failed generation), q4 has no reference (undetermined values)
    questions = [{**q, "responses": [f"Answer to {q['id']}.", f"An answer to {q['id']}."]} for q in QUESTIONS]
    data = write_dataset(tmp_path / "data", [*questions, FAILED_ANSWER], CORPUS)
    out = tmp_path / "out"
    result = bench(tier, "--dataset", data, "--generator", "precomputed", "--judge", "offline",
                   "--metrics", "faithfulness,semantic_similarity", "-o", out)
    assert result.exit_code == 0, result.output
    run = load_run(out)
    report, items = run.report, run.items
    assert "faithfulness" in report.metrics  # the RAGAS form; tier 2 has the seed rating avg_faithfulness too
    for name, metric in report.metrics.items():
        values = [item_value(item, name) for item in items]
        numbers = [v for v in values if v is not MISSING and v is not None]
        assert (len(numbers), sum(v is None for v in values)) == (metric.n, metric.errors), name
        if metric.value is not None:
            assert sum(numbers) / len(numbers) == pytest.approx(metric.value, abs=1e-6), name


def test_per_sample_values_of_evaluate_reproduce_its_report(bench, tmp_path):
    samples = tmp_path / "samples.jsonl"
    rows = [{"id": q["id"], "user_input": q["question"], "response": f"Answer to {q['question']}",
             "retrieved_contexts": [c["text"] for c in CORPUS[:2]],
             **({"reference": q["reference_answer"]} if "reference_answer" in q else {})} for q in QUESTIONS]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", samples, "--judge", "offline",
                   "--metrics", "faithfulness,semantic_similarity", "-o", out)
    assert result.exit_code == 0, result.output
    run = load_run(out)
    report, items = run.report, run.items
    assert report.metrics["semantic_similarity"].n == sum("reference_answer" in q for q in QUESTIONS)
    for name, metric in report.metrics.items():
        values = [item_value(item, name) for item in items]
        numbers = [v for v in values if v is not MISSING and v is not None]
        assert (len(numbers), sum(v is None for v in values)) == (metric.n, metric.errors), name
        assert sum(numbers) / len(numbers) == pytest.approx(metric.value, abs=1e-6), name
