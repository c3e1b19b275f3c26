"""`--limit N` through the CLI: exactly N items judged (or questions retrieved), the same N again with the same
seed, and the report and the summary saying so."""

import json

import pytest

from tests.integration.openai_server import Reply

pytestmark = pytest.mark.integration

ITEMS = [{"id": f"i{n:02d}", "question": f"Q{n}?", "context": f"C{n}.", "answer": f"A{n}."} for n in range(10)]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def report_of(folder):
    return json.loads((folder / "report.json").read_text())


def item_ids(folder):
    return [json.loads(line)["id"] for line in (folder / "items.jsonl").read_text().splitlines()]


def test_judge_with_a_limit_judges_exactly_that_many_items(bench, tmp_path, llm):
    llm.responder = lambda body: Reply(text=json.dumps({"score": 1.0}))
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    args = ("judge", "--dataset", items, "--models", "jt-limit", "--limit", "3", "--seed", "4")
    result = bench(*args, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert len(llm.chat_requests) == 3 * 2  # 3 items × 2 repeats
    judged = item_ids(tmp_path / "out")
    assert len(judged) == 3 and judged == sorted(judged)
    prompted = {body["messages"][0]["content"].split("Answer: ")[1].split("\n")[0]
                for body in (r["body"] for r in llm.chat_requests)}
    assert prompted == {f"A{int(i[1:])}." for i in judged}
    report = report_of(tmp_path / "out")
    assert report["dataset"]["items"] == 3
    assert report["dataset"]["limit"] == {"n": 3, "of": 10, "seed": 4}
    assert report["settings"]["limit"] == 3
    assert report["metrics"]["error_rate"]["n"] == 6
    assert "limit 3 of 10 (seed 4)" in " ".join(result.output.split())
    assert "limit 3 of 10 (seed 4)" in (tmp_path / "out" / "report.md").read_text()

    again = bench(*args, "-o", tmp_path / "again")  # the same seed: the same items, all from the cache
    assert again.exit_code == 0, again.output
    assert item_ids(tmp_path / "again") == judged and len(llm.chat_requests) == 6


def test_a_limit_above_the_item_count_is_a_full_run(bench, tmp_path, llm):
    llm.responder = lambda body: Reply(text=json.dumps({"score": 0.5}))
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:4])
    result = bench("judge", "--dataset", items, "--models", "jt-limit-all", "--limit", "9", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    assert report["dataset"]["items"] == 4 and "limit" not in report["dataset"]
    assert len(item_ids(tmp_path / "out")) == 4


def test_tier1_with_a_limit_retrieves_a_sample_of_the_questions_over_the_whole_corpus(bench, tiny, tmp_path):
    result = bench("tier1", "--dataset", tiny, "--limit", "3", "--output-dir", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = report_of(tmp_path / "out")
    assert report["dataset"]["questions"] == 3 and report["dataset"]["documents"] == 7
    assert report["dataset"]["limit"] == {"n": 3, "of": 6, "seed": 0}
    retrieved = item_ids(tmp_path / "out")
    assert len(retrieved) == 3
    run = {line.split(" ")[0] for line in (tmp_path / "out" / "run.trec").read_text().splitlines()}
    assert run == set(retrieved)


def test_the_python_api_takes_the_limit_as_a_setting():
    from benchmarks import evaluate

    samples = [{"id": f"s{n}", "user_input": f"What is {n}?", "response": f"It is {n}.", "reference": f"It is {n}."}
               for n in range(6)]
    result = evaluate(samples, ["semantic_similarity"], judge="offline", settings={"limit": 2, "seed": 3})
    limit = result.report.dataset.limit
    assert limit is not None and limit.model_dump() == {"n": 2, "of": 6, "seed": 3}
    assert [s.id for s in result.samples] == sorted(item["id"] for item in result.items)
    assert len(result.samples) == 2
