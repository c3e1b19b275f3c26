"""`bench judge` against people's labels: the items' `labels` read as `bench evaluate` reads them, the judge's
agreement with them reported on `avg_<rating>` (each model's too), and `bench compare` of two judges on the same
labelled items saying which agrees better. The statistics are recomputed here by hand from the scores the
report's items hold, so what is checked is that the tier measures the scores it reports against the right labels.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from benchmarks.errors import InputError
from benchmarks.readers.samples import load_samples
from benchmarks.readers.show_items import load_rated_items
from tests.integration.openai_server import Reply

VACATION = ("How many vacation days do I get?", "Employees get 28 days of paid vacation per year.")
VPN = ("How do I connect to the VPN?", "To connect to the VPN install the GlobalProtect client and sign in with your "
       "SSO account.")
EXPENSES = ("When are expense reports due?", "Submit travel expenses in Concur within 30 days with scanned receipts "
            "attached.")
# (id, question and context, answer, faithfulness label): per question a supported answer labelled 1 and
# unsupported ones labelled 0, and one supported answer a person marked 0 anyway, so judge and labels disagree
FAITHFULNESS = [
    ("v-right", VACATION, "You get 28 days of paid vacation per year.", 1),
    ("v-number", VACATION, "You get 30 days of paid vacation per year.", 0),
    ("v-off", VACATION, "The Berlin office has 40 parking spaces.", 0),
    ("n-right", VPN, "Install the GlobalProtect client and sign in with your SSO account.", 1),
    ("n-off", VPN, "Call the helpdesk and they will fax you a VPN token.", 0),
    ("e-right", EXPENSES, "Submit them in Concur within 30 days, with scanned receipts.", 1),
    ("e-disputed", EXPENSES, "Submit them in Concur within 30 days.", 0),
]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def faithfulness_items(labelled: bool = True) -> list[dict]:
    rows = [{"id": i, "question": q, "context": c, "answer": a, **({"labels": {"faithfulness": y}} if labelled else {})}
            for i, (q, c), a, y in FAITHFULNESS]
    # labelled for another rating only: not part of faithfulness's agreement
    return [*rows, {"id": "x-other", "question": VPN[0], "context": VPN[1], "answer": "Use the GlobalProtect client.",
                    **({"labels": {"answer_correctness": 4}} if labelled else {})}]


def report_of(folder: Path) -> dict:
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))


def items_of(folder: Path) -> dict[str, dict]:
    lines = (folder / "items.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["id"]: row for row in map(json.loads, lines)}


def ordered(better: float, worse: float) -> float:
    """A pair's credit, as Mann–Whitney counts it: 1 when ordered as the labels are, ½ for a tie."""
    return 1.0 if better > worse else 0.5 if better == worse else 0.0


def test_rated_items_read_labels_as_evaluate_does(tmp_path):
    path = write_jsonl(tmp_path / "items.jsonl", faithfulness_items())
    items = {item.id: item for item in load_rated_items(path, ("question", "context", "answer"), "bench judge")}
    assert items["v-right"].labels == (("faithfulness", 1.0),) and items["v-right"].label("faithfulness") == 1.0
    assert items["x-other"].label("faithfulness") is None and items["x-other"].label("answer_correctness") == 4.0
    unlabelled = load_rated_items(write_jsonl(tmp_path / "plain.jsonl", faithfulness_items(labelled=False)),
                                  ("question", "context", "answer"), "bench judge")
    assert all(item.labels == () for item in unlabelled)


@pytest.mark.parametrize("labels, message", [
    ('"yes"', "expected an object of metric names to numbers"),
    ('{"faithfulness": "high"}', "label of 'faithfulness' must be a number, got 'high'"),
    ('{"faithfulness": NaN}', "label of 'faithfulness' must be a number, got nan"),
])
def test_a_bad_label_is_one_line_naming_file_line_and_field(bench, tmp_path, labels, message):
    judged = tmp_path / "judged.jsonl"
    judged.write_text('{"id": "a", "question": "q", "context": "c", "answer": "r"}\n'
                      f'{{"id": "b", "question": "q", "context": "c", "answer": "r", "labels": {labels}}}\n',
                      encoding="utf-8")
    result = bench("judge", "--dataset", judged, "--judge", "offline", "-o", tmp_path / "out")
    assert result.exit_code == 2
    assert f"{judged}:2: field 'labels': {message}" in result.output
    assert not (tmp_path / "out").exists()
    # the same value in a sample file for bench evaluate fails alike: one validator for both
    samples = tmp_path / "samples.jsonl"
    samples.write_text('{"id": "a", "user_input": "q"}\n' f'{{"id": "b", "user_input": "q", "labels": {labels}}}\n',
                       encoding="utf-8")
    with pytest.raises(InputError) as from_samples:
        load_samples(samples)
    with pytest.raises(InputError) as from_items:
        load_rated_items(judged, ("question", "context", "answer"), "bench judge")
    assert (from_items.value.line, from_items.value.field, from_items.value.detail) == (
        from_samples.value.line, from_samples.value.field, from_samples.value.detail)


def test_offline_faithfulness_agreement_is_that_of_the_reported_scores(bench, tmp_path):
    path = write_jsonl(tmp_path / "items.jsonl", faithfulness_items())
    result = bench("judge", "--dataset", path, "--judge", "offline", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    found = report_of(tmp_path / "out")["metrics"]["avg_faithfulness"]["agreement"]
    assert (found["label"], found["labels"], found["threshold"], found["n"], found["labelled"]) == (
        "faithfulness", "binary", 0.5, 7, 7)
    rows = items_of(tmp_path / "out")
    score = {i: rows[i]["scores"]["avg_faithfulness"]["offline"]["value"] for i, *_ in FAITHFULNESS}
    label = {i: y for i, _, _, y in FAITHFULNESS}
    positives = [i for i in label if label[i] == 1]
    negatives = [i for i in label if label[i] == 0]
    auc = sum(ordered(score[p], score[n]) for p in positives for n in negatives) / (len(positives) * len(negatives))
    assert found["roc_auc"]["value"] == pytest.approx(auc, abs=1e-6) and found["roc_auc"]["n"] == 7
    # within a question only: each right answer against the ones labelled 0 beside it
    within = [("v-right", "v-number"), ("v-right", "v-off"), ("n-right", "n-off"), ("e-right", "e-disputed")]
    assert found["pairwise_accuracy"]["n"] == 4
    assert found["pairwise_accuracy"]["value"] == pytest.approx(
        sum(ordered(score[a], score[b]) for a, b in within) / 4, abs=1e-6)
    assert score["v-right"] > score["v-off"] and score["n-right"] > score["n-off"]  # the proxy is not blind
    assert auc < 1.0  # ... nor does it read the labels: the disputed answer costs it
    # each row carries the labels the file gave it, as evaluate's rows do, for `bench compare`
    assert rows["v-number"]["inputs"]["labels"] == {"faithfulness": 0}
    assert rows["x-other"]["inputs"]["labels"] == {"answer_correctness": 4}
    assert "## Agreement with labels" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_without_labels_there_is_no_agreement(bench, tmp_path):
    path = write_jsonl(tmp_path / "items.jsonl", faithfulness_items(labelled=False))
    result = bench("judge", "--dataset", path, "--judge", "offline", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "agreement" not in report_of(tmp_path / "out")["metrics"]["avg_faithfulness"]
    assert all("labels" not in row["inputs"] for row in items_of(tmp_path / "out").values())


class ByAnswer:
    """A scripted judge: every repeat of a model gives the score its table holds for the prompt's answer."""

    def __init__(self, scores: dict[str, dict[str, float]]):
        self.scores = scores  # model -> answer -> score

    def __call__(self, body: dict) -> Reply:
        answer = re.search(r"^Answer: (.*)$", body["messages"][0]["content"], re.MULTILINE).group(1)
        return Reply(text=json.dumps({"score": self.scores[body["model"]][answer]}))


def test_binary_labels_on_the_one_to_five_scale_are_verdicts(bench, tmp_path, llm):
    # labels 1 (correct) and 0 (not), on answer_correctness's 1–5 scale, whose threshold is 3: a 1 is a "yes"
    labels = {"A1.": 1, "A2.": 0, "A3.": 1, "A4.": 0, "A5.": 0}
    llm.responder = ByAnswer({"jl-ac-a": {"A1.": 5, "A2.": 2, "A3.": 4, "A4.": 1, "A5.": 3},
                              "jl-ac-b": {"A1.": 2, "A2.": 2, "A3.": 2, "A4.": 2, "A5.": 2}})
    questions = {"A1.": "Q1?", "A2.": "Q1?", "A3.": "Q2?", "A4.": "Q2?", "A5.": "Q3?"}
    path = write_jsonl(tmp_path / "items.jsonl", [
        {"id": answer, "question": questions[answer], "context": "", "answer": answer, "reference": "R.",
         "labels": {"answer_correctness": label}} for answer, label in labels.items()])
    result = bench("judge", "--dataset", path, "--metric", "answer_correctness", "--models", "jl-ac-a,jl-ac-b",
                   "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    metrics = report_of(tmp_path / "out")["metrics"]
    a = metrics["avg_answer_correctness/jl-ac-a"]["agreement"]
    assert (a["labels"], a["threshold"]) == ("binary", 3.0)
    # a's verdicts (score ≥ 3) yes, no, yes, no, yes against the people's yes, no, yes, no, no: 4 of 5 agree;
    # chance agreement 3/5 · 2/5 + 2/5 · 3/5 = 0.48, so kappa (0.8 − 0.48) / 0.52
    assert a["accuracy"]["value"] == pytest.approx(0.8) and a["cohen_kappa"]["value"] == pytest.approx(0.32 / 0.52)
    assert a["roc_auc"]["value"] == 1.0 and a["pairwise_accuracy"]["value"] == 1.0
    # b says no to all (2 < 3): it agrees on the 3 the people said no to, and no better than chance
    b = metrics["avg_answer_correctness/jl-ac-b"]["agreement"]
    assert b["accuracy"]["value"] == pytest.approx(0.6) and b["cohen_kappa"]["value"] == pytest.approx(0.0)
    assert b["roc_auc"]["value"] == 0.5
    # the pooled entry reads each item's mean over the models: 3.5, 2, 3, 1.5, 2.5, every verdict right
    pooled = metrics["avg_answer_correctness"]["agreement"]
    assert pooled["accuracy"]["value"] == 1.0 and pooled["cohen_kappa"]["value"] == 1.0
    assert pooled["n"] == pooled["labelled"] == 5


def test_compare_says_which_judge_agrees_better(bench, tmp_path, llm):
    # eight questions, each a right answer (labelled 1) and a wrong one (0); the base judge prefers the wrong
    # answer on six of them, the candidate never does
    answers = {f"Q{q}?": (f"right {q}.", f"wrong {q}.") for q in range(1, 9)}
    base = {right: 0.2 if q > 2 else 0.9 for q, (right, _) in enumerate(answers.values(), start=1)}
    base |= {wrong: 0.8 if q > 2 else 0.1 for q, (_, wrong) in enumerate(answers.values(), start=1)}
    candidate = {answer: 1.0 if answer.startswith("right") else 0.0 for pair in answers.values() for answer in pair}
    llm.responder = ByAnswer({"jl-cmp-base": base, "jl-cmp-candidate": candidate})
    path = write_jsonl(tmp_path / "items.jsonl", [
        {"id": answer.rstrip(".").replace(" ", "-"), "question": question, "context": "C.", "answer": answer,
         "labels": {"faithfulness": int(answer.startswith("right"))}}
        for question, pair in answers.items() for answer in pair])
    for model in ("jl-cmp-base", "jl-cmp-candidate"):
        result = bench("judge", "--dataset", path, "--models", model, "-o", tmp_path / model)
        assert result.exit_code == 0, result.output
    compared = bench("compare", tmp_path / "jl-cmp-base", tmp_path / "jl-cmp-candidate", "--format", "json")
    rows = json.loads(compared.output)["agreement"]
    assert [row["metric"] for row in rows] == ["avg_faithfulness"]
    row = rows[0]
    # answers are paired within their question (16 items, 8 pairs), not each alone
    assert (row["statistic"], row["n"]) == ("pairwise_accuracy", 16)
    assert (row["base"], row["candidate"], row["delta"]) == (pytest.approx(0.25), 1.0, pytest.approx(0.75))
    assert row["ci95"][0] > 0 and row["better"] == "candidate"
