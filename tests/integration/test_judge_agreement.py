"""Judges measured against labels: `labels` per sample in, agreement per metric and judge model out, compare says
which judge agrees better. The offline judge stands in for any judge: what is checked is that bench computes
the agreement of whatever scores the judge gave, from the same items it reports."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks import evaluate
from benchmarks.metrics.label_agreement import kendall, pairwise_accuracy, spearman

LABELLED = Path(__file__).resolve().parents[2] / "datasets" / "labelled"


def _report(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def _items(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_agreement_with_the_labels_is_computed_from_the_reported_scores(bench, tmp_path):
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", LABELLED / "en.jsonl", "--judge", "offline", "--metrics",
                   "faithfulness,semantic_similarity", "-o", out)
    assert result.exit_code == 0, result.output
    assert "faithfulness: agreement with 96 graded labels" in result.output
    report, items = _report(out), _items(out)
    found = report["metrics"]["faithfulness"]["agreement"]
    assert found["labels"] == "graded" and found["n"] == 96 and found["threshold"] == 0.5
    scores = np.array([i["scores"]["faithfulness"]["offline"]["value"] for i in items])
    labels = np.array([i["inputs"]["labels"]["faithfulness"] for i in items])
    groups = np.array([i["inputs"]["user_input"] for i in items], dtype=object)
    assert found["spearman"]["value"] == pytest.approx(spearman(scores, labels), abs=1e-6)
    assert found["kendall"]["value"] == pytest.approx(kendall(scores, labels), abs=1e-6)
    assert found["pairwise_accuracy"]["value"] == pytest.approx(pairwise_accuracy(scores, labels, groups), abs=1e-6)
    assert found["pairwise_accuracy"]["n"] == 96  # 32 questions × 3 pairs of differently labelled answers
    low, high = found["spearman"]["ci95"]
    assert low < found["spearman"]["value"] < high
    assert found["pairwise_accuracy"]["value"] > 0.6  # the proxy prefers right answers to wrong ones
    # semantic_similarity has no label in the set: no agreement, and the key is absent rather than null
    assert "agreement" not in report["metrics"]["semantic_similarity"]
    assert "## Agreement with labels" in (out / "report.md").read_text(encoding="utf-8")


def test_binary_labels_from_a_csv_column(bench, tmp_path):
    rows = [json.loads(line) for line in (LABELLED / "en.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = [r for r in rows if r["kind"] != "partial"][:20]
    lines = ["id,question,contexts,answer,labels"]
    for r in kept:
        cells = [r["id"], r["user_input"], json.dumps(r["retrieved_contexts"]), r["response"],
                 json.dumps({"faithfulness": int(r["kind"] == "right")})]
        lines.append(",".join('"' + c.replace('"', '""') + '"' for c in cells))
    path = tmp_path / "binary.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", path, "--judge", "offline", "--metrics", "faithfulness", "-o", out)
    assert result.exit_code == 0, result.output
    found = _report(out)["metrics"]["faithfulness"]["agreement"]
    assert found["labels"] == "binary" and "roc_auc" in found and "spearman" not in found
    assert 0.5 < found["roc_auc"]["value"] <= 1.0 and found["pairwise_accuracy"]["n"] == 10


@pytest.mark.parametrize("labels, message", [
    ('"yes"', "expected an object of metric names to numbers"),
    ('{"faithfulness": "high"}', "label of 'faithfulness' must be a number, got 'high'"),
    ('{"faithfulness": true}', "label of 'faithfulness' must be a number, got True"),
])
def test_a_bad_label_is_one_line_naming_file_line_and_field(bench, tmp_path, labels, message):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "a", "user_input": "q", "response": "r", "retrieved_contexts": ["c"]}\n'
                    f'{{"id": "b", "user_input": "q", "response": "r", "retrieved_contexts": ["c"], '
                    f'"labels": {labels}}}\n',
                    encoding="utf-8")
    result = bench("evaluate", "--dataset", path, "--judge", "offline", "--metrics", "faithfulness",
                   "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert f"{path}:2: field 'labels': {message}" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_compare_says_which_judge_agrees_better(bench, tmp_path):
    for model in ("multilingual-e5-small", "all-MiniLM-L6-v2"):
        result = bench("evaluate", "--dataset", LABELLED / "en.jsonl", "--judge", "offline",
                       "--metrics", "faithfulness",
                       "--embedding-model", model, "-o", tmp_path / model)
        assert result.exit_code == 0, result.output
    compared = bench("compare", tmp_path / "all-MiniLM-L6-v2", tmp_path / "multilingual-e5-small", "--format", "json")
    found = json.loads(compared.output)["agreement"]
    assert [row["metric"] for row in found] == ["faithfulness"]
    row = found[0]
    assert row["statistic"] == "pairwise_accuracy" and row["n"] == 96
    base, cand = (_report(tmp_path / m)["metrics"]["faithfulness"]["agreement"]["pairwise_accuracy"]["value"]
                  for m in ("all-MiniLM-L6-v2", "multilingual-e5-small"))
    assert (row["base"], row["candidate"]) == (pytest.approx(base, abs=1e-6), pytest.approx(cand, abs=1e-6))
    low, high = row["ci95"]
    assert low <= row["delta"] <= high
    assert row["better"] == ("candidate" if low > 0 else "base" if high < 0 else "neither")


def test_labels_given_in_python():
    samples = [{"id": f"{kind}-{i}", "user_input": f"question {i}", "retrieved_contexts": ["The sky is blue."],
                "response": "The sky is blue." if kind == "right" else "The sky is green and made of cheese.",
                "labels": {"faithfulness": int(kind == "right")}}
               for i in range(3) for kind in ("right", "wrong")]
    result = evaluate(samples, ["faithfulness"], judge="offline")
    found = result.report.metrics["faithfulness"].agreement
    assert found is not None and found.roc_auc is not None and found.pairwise_accuracy is not None
    assert found.roc_auc.value == 1.0 and found.pairwise_accuracy.value == 1.0
