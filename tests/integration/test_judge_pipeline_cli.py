"""`bench judge-pipeline` through the CLI: a scripted production judge over real HTTP."""

import json

import pytest

from tests.integration.judge_item_scores import check_scores_reproduce_report
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

ITEMS = [
    {"id": "a", "question": "Q1", "context": "C1", "answer": "A1", "ground_truth_show": True},
    {"id": "b", "question": "Q2", "context": "C2", "answer": "A2", "ground_truth_show": "yes"},
    {"id": "c", "question": "Q3", "context": "C3", "answer": "A3", "ground_truth_show": False},
    {"id": "d", "question": "Q4", "context": "C4", "answer": "A4", "ground_truth_show": "Нет"},
    {"id": "e", "question": "Q5", "context": "C5", "answer": "A5", "ground_truth_show": False},
]
# what the scripted production judge says about each item's answer
SAYS = {"A1": "Yes.", "A2": "Reasoning: the context covers it.\nFinal answer: No", "A3": "**Да**",
        "A4": "Нет.", "A5": "It depends on the policy."}


def production_judge(body):
    prompt = body["messages"][-1]["content"]
    answer = next(a for a in SAYS if f"Answer: {a}\n" in prompt or f"Ответ: {a}\n" in prompt)
    return Reply(text=SAYS[answer])


def write_items(path, items=ITEMS):
    path.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items))
    return path


def test_classifier_metrics_confusion_and_unparseable(bench, tmp_path, monkeypatch):
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = production_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "prod-judge")
        result = bench("judge-pipeline", "--dataset", write_items(tmp_path / "items.jsonl"), "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    # a: TP; b: FN; c: FP; d: TN; e: unparseable (truth no)
    assert report["notes"]["confusion"] == {"tp": 1, "fp": 1, "tn": 1, "fn": 1, "unparseable_truth_yes": 0,
                                            "unparseable_truth_no": 1}
    m = report["metrics"]
    assert m["accuracy"]["value"] == pytest.approx(2 / 5)  # unparseable counts as wrong
    assert (m["precision"]["value"], m["recall"]["value"], m["f1_score"]["value"]) == (0.5, 0.5, 0.5)
    assert m["unparseable_rate"]["value"] == pytest.approx(1 / 5)
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "| `accuracy` ★ | 0.4000 | needs attention |" in markdown  # seed 004 §11.2: below 0.85
    lowest = markdown[markdown.index("### `accuracy`"):markdown.index("### `unparseable_rate`")]
    assert lowest.splitlines()[4:7] == ["| `b` | 0.0000 | no, labelled yes |", "| `c` | 0.0000 | yes, labelled no |",
                                        "| `e` | 0.0000 | unparseable, labelled no |"]  # the wrong ones, by id
    assert report["provenance"]["production_judge"]["template"] == "bench:en"
    assert report["dataset"]["name"] == "items" and report["dataset"]["items"] == 5
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    assert items["b"]["answer"] == "no" and items["b"]["rule"] == "marker"
    assert items["b"]["inputs"] == {"question": "Q2", "context": "C2", "answer": "A2"}
    assert items["b"]["scores"]["accuracy"] == {"bench": {"value": 0.0, "status": "ok",
                                                          "explanation": "no, labelled yes"}}
    assert items["e"]["answer"] is None
    assert items["e"]["scores"]["accuracy"]["bench"]["value"] == 0.0  # unparseable: wrong, as the report counts it
    assert items["e"]["scores"]["unparseable_rate"]["bench"] == {"value": 1.0, "status": "ok",
                                                                 "explanation": "no_verdict"}
    assert check_scores_reproduce_report(out, errors_per_item=frozenset({"accuracy", "unparseable_rate"})) == {
        "accuracy", "unparseable_rate"}


def test_a_users_template_and_failed_calls(bench, tmp_path, monkeypatch):
    template = tmp_path / "prod.txt"
    template.write_text("Вопрос: {question}\nКонтекст: {context}\nОтвет: {answer}\nПоказать? Да/Нет {{строго}}")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.script(Reply(status=500))
        server.responder = production_judge
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "prod-judge")
        monkeypatch.setenv("BENCH_LLM_MAX_ATTEMPTS", "1")
        monkeypatch.setenv("BENCH_LLM_CONCURRENCY", "1")
        result = bench("judge-pipeline", "--dataset", write_items(tmp_path / "items.jsonl"), "--prompt-template",
                       template, "--no-cache", "-o", out)
        prompts = [r["body"]["messages"][0]["content"] for r in server.chat_requests]
    assert result.exit_code == 0, result.output
    assert all(p.endswith("Показать? Да/Нет {строго}") for p in prompts)
    report = json.loads((out / "report.json").read_text())
    assert report["notes"]["api_errors"] == 1 and report["metrics"]["accuracy"]["errors"] == 1
    assert report["metrics"]["accuracy"]["n"] == 4
    assert report["provenance"]["production_judge"]["template"] == "prod.txt"
    failed = [row for row in map(json.loads, (out / "items.jsonl").read_text().splitlines())
              if row["scores"]["accuracy"]["bench"]["status"] == "api_error"]
    assert len(failed) == 1 and failed[0]["answer"] is None
    assert failed[0]["scores"]["unparseable_rate"]["bench"]["status"] == "api_error"
    assert check_scores_reproduce_report(out, errors_per_item=frozenset({"accuracy", "unparseable_rate"})) == {
        "accuracy", "unparseable_rate"}


def test_missing_fields_are_listed_in_one_message(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("BENCH_LLM_MODEL", "prod-judge")
    path = write_items(tmp_path / "items.jsonl", [ITEMS[0], {"id": "x", "question": "Q"}])
    result = bench("judge-pipeline", "--dataset", path)
    assert result.exit_code == 2
    assert "items.jsonl:2: missing field(s) the judge-pipeline tier needs: context, answer, ground_truth_show" \
        in result.output


def test_a_template_with_an_unknown_placeholder_is_refused(bench, tmp_path):
    template = tmp_path / "bad.txt"
    template.write_text("Q: {question} {user}")
    result = bench("judge-pipeline", "--dataset", write_items(tmp_path / "items.jsonl"), "--prompt-template",
                   template)
    assert result.exit_code == 2 and "bad.txt: unknown placeholder(s) user" in result.output
