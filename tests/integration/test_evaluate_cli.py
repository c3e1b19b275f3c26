"""`bench evaluate` through the CLI, judged over real HTTP by a scripted local OpenAI-compatible server."""

import json

import pytest

from benchmarks.judge.catalog import offline_sha256
from tests.integration.item_scores import assert_scores_reproduce_report
from tests.integration.judge_item_scores import check_scores_reproduce_report
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

SAMPLES = [
    {"id": "s1", "user_input": "When was the first Super Bowl?", "response": "The first Super Bowl was held on "
     "January 15, 1967. It was played in Los Angeles.", "retrieved_contexts": ["The First AFL–NFL World "
     "Championship Game was played on January 15, 1967, at the Los Angeles Memorial Coliseum."],
     "reference": "The first Super Bowl was held on January 15, 1967."},
    {"id": "s2", "question": "Who wrote Hamlet?", "answer": "Hamlet was written by Christopher Marlowe.",
     "contexts": ["Hamlet is a tragedy written by William Shakespeare."]},
]


def judge_replies(body):
    """A judge that answers by the template it was sent: what a scripted LLM does in these tests."""
    prompt = body["messages"][-1]["content"] if body["messages"][-1]["role"] == "user" else ""
    if "Super Bowl" in body["messages"][0]["content"] or "Super Bowl" in prompt:
        statements = ["The first Super Bowl was held on January 15, 1967.", "It was played in Los Angeles."]
        verdicts = [1, 1]
    else:
        statements = ["Hamlet was written by Christopher Marlowe."]
        verdicts = [0]
    first = body["messages"][0]["content"]
    if '"verdicts"' in first:
        return Reply(text=json.dumps({"verdicts": [
            {"statement": s, "reason": "checked against the context", "verdict": v}
            for s, v in zip(statements, verdicts, strict=False)]}))
    return Reply(text="Here you go: " + json.dumps({"statements": statements}))


def write_samples(path):
    path.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    return path


def test_faithfulness_on_two_judges_with_agreement(bench, tmp_path, monkeypatch):
    samples = write_samples(tmp_path / "samples.jsonl")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = judge_replies
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--models", "judge-a,judge-b",
                       "-o", out)
        calls_first = len(server.chat_requests)
        again = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--models", "judge-a,judge-b",
                      "-o", tmp_path / "again")
        calls_second = len(server.chat_requests) - calls_first
    assert result.exit_code == 0, result.output
    assert again.exit_code == 0, again.output
    report = json.loads((out / "report.json").read_text())
    assert report["metrics"]["faithfulness"]["value"] == 0.5  # s1: 2/2 supported, s2: 0/1
    assert report["metrics"]["faithfulness"]["n"] == 2
    assert report["metrics"]["faithfulness/judge-a"]["value"] == 0.5
    assert report["notes"]["statuses"]["faithfulness"] == {"ok": 4, "undetermined": 0, "parse_error": 0, "truncated": 0,
                                                          "api_error": 0}
    assert report["notes"]["agreement"]["faithfulness"]["mean_absolute_difference"] == 0.0
    assert calls_first == 2 * 2 * 2  # 2 calls per sample, 2 samples, 2 judges
    assert calls_second == 0  # every answer came from the cache
    assert "en/statements" in report["provenance"]["judge"]["prompts_sha256"]
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    s2 = next(i for i in items if i["id"] == "s2")
    judged = s2["scores"]["faithfulness"]["judge-a"]
    assert judged["value"] == 0.0 and "Marlowe" in judged["explanation"] and judged["calls"] == 2
    # the sample's question and reference are its inputs, its response and contexts what the RAG system answered
    assert s2["inputs"] == {"user_input": SAMPLES[1]["question"], "reference": None}
    assert s2["answer"] == {"response": SAMPLES[1]["answer"], "retrieved_contexts": SAMPLES[1]["contexts"]}
    assert s2["cluster"] is None
    # the scores reproduce the report, each judge's own mean too (read as scores[metric][model])
    assert check_scores_reproduce_report(out, errors_per_item=frozenset({"faithfulness"})) == {
        "faithfulness", "faithfulness/judge-a", "faithfulness/judge-b"}


def test_a_malformed_answer_is_repaired_once_then_counted(bench, tmp_path, monkeypatch):
    samples = write_samples(tmp_path / "samples.jsonl")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.script(Reply(text="not json at all"), Reply(text='{"statements": ["cut'),
                      Reply(status=500), Reply(status=500), Reply(status=500), Reply(status=500),
                      Reply(status=500), Reply(status=500))
        server.responder = judge_replies
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        monkeypatch.setenv("BENCH_LLM_CONCURRENCY", "1")
        monkeypatch.setenv("BENCH_LLM_MAX_ATTEMPTS", "1")
        result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--no-cache", "-o", out)
    assert result.exit_code == 3, result.output  # every sample failed: measured nothing, the report still written
    report = json.loads((out / "report.json").read_text())
    statuses = report["notes"]["statuses"]["faithfulness"]
    assert statuses["parse_error"] + statuses["api_error"] >= 1
    assert report["metrics"]["faithfulness"]["errors"] == statuses["parse_error"] + statuses["api_error"]


def test_missing_fields_are_reported_per_sample_by_name(bench, tmp_path, monkeypatch):
    samples = write_samples(tmp_path / "samples.jsonl")
    out = tmp_path / "out"
    with FakeOpenAI() as server:
        server.responder = judge_replies
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        result = bench("evaluate", "--dataset", samples, "--metrics", "semantic_similarity", "-o", out)
    assert result.exit_code == 0, result.output
    items = {i["id"]: i for i in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    s2 = items["s2"]["scores"]["semantic_similarity"]["judge-a"]
    assert s2["status"] == "undetermined" and s2["explanation"] == "missing field(s): reference"
    assert items["s1"]["scores"]["semantic_similarity"]["judge-a"]["status"] == "ok"
    assert assert_scores_reproduce_report(out) == {"semantic_similarity"}


def test_dry_run_counts_calls_and_makes_none(bench, tmp_path, monkeypatch):
    samples = write_samples(tmp_path / "samples.jsonl")
    monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness,context_precision", "--dry-run")
    assert result.exit_code == 0, result.output
    assert "faithfulness" in result.output and "no call made" in result.output
    # faithfulness: 2 calls × 2 samples; context_precision: 1 per context × 2 samples
    assert "│ total" in result.output and " 6 " in result.output


def test_without_an_llm_the_message_names_the_settings(bench, tmp_path, monkeypatch):
    for name in ("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "BENCH_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "s.jsonl"), "--metrics", "faithfulness")
    assert result.exit_code == 2
    assert "BENCH_LLM_BASE_URL" in result.output and "--judge offline" in result.output


def test_offline_judge_runs_without_any_llm(bench, tmp_path):
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "s.jsonl"), "--metrics",
                   "faithfulness,semantic_similarity", "--judge", "offline", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["judge"]["backend"] == "offline"
    assert report["provenance"]["judge"]["offline_sha256"] == offline_sha256()  # which offline judge
    assert report["provenance"]["embedder"]["id"] == "intfloat/multilingual-e5-small@q4"  # the default
    assert "faithfulness" in report["notes"]["offline_proxies"]
    assert report["notes"]["pass_marks"] == {"faithfulness": 0.7, "semantic_similarity": 0.5}  # compare's marks
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "pass_marks" in markdown  # report.md shows every note
    # offline proxies read on the calibrated scale: each band says so
    assert "| `faithfulness` ★ | 0.2500 | needs attention † |" in markdown
    assert "| `semantic_similarity` | 0.8260 | good † |" in markdown
    lowest = markdown[markdown.index("## Lowest-scoring items"):markdown.index("## How these numbers")]
    faithfulness = lowest[lowest.index("### `faithfulness`"):lowest.index("### `semantic_similarity`")]
    assert [line[:22] for line in faithfulness.splitlines() if line.startswith("| `")] == [
        "| `s2` | 0.0000 | unsu", "| `s1` | 0.5000 | unsu"]  # worst first, with the proxy's why
    assert "1 item scored; not ranked: 1 undetermined (`s2`)." in lowest  # s2 has no reference
    assert report["metrics"]["semantic_similarity"]["n"] == 1  # s2 has no reference
    items = {row["id"]: row for row in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    explanation = items["s2"]["scores"]["faithfulness"]["offline"]["explanation"]
    assert explanation.startswith("unsupported by the contexts: «Hamlet was written by Christopher Marlowe.» "
                                  "(Christopher, Marlowe not found; similarity "), explanation  # names what it lacks


def test_unknown_metric(bench, tmp_path):
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "s.jsonl"), "--metrics", "faithfullness")
    assert result.exit_code == 2
    assert "--metrics: unknown metric 'faithfullness'; did you mean 'faithfulness'?" in result.output


def test_dry_run_says_what_each_metric_measures_from_its_declaration(bench, tmp_path, monkeypatch):
    from benchmarks.judge.catalog import BUILTINS

    monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics",
                   "faithfulness,context_precision", "--dry-run")
    assert result.exit_code == 0, result.output
    for name in ("faithfulness", "context_precision"):
        assert f"{name}: {BUILTINS[name].help}" in result.output


def test_an_offline_run_and_an_llm_judged_run_are_not_compared_on_judged_metrics(bench, tmp_path, monkeypatch):
    """The judge changed (offline proxies, then an LLM): faithfulness is not comparable whatever its values;
    semantic_similarity, the same cosine under either judge, is compared as usual."""
    samples = write_samples(tmp_path / "samples.jsonl")
    metrics = "faithfulness,semantic_similarity"
    offline = bench("evaluate", "--dataset", samples, "--metrics", metrics, "--judge", "offline",
                    "-o", tmp_path / "offline")
    assert offline.exit_code == 0, offline.output
    with FakeOpenAI() as server:
        server.responder = judge_replies
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        judged = bench("evaluate", "--dataset", samples, "--metrics", metrics, "-o", tmp_path / "llm")
    assert judged.exit_code == 0, judged.output
    for folder in ("offline", "llm"):
        report = json.loads((tmp_path / folder / "report.json").read_text())
        assert report["provenance"]["judge"]["metrics"] == ["faithfulness"]
    result = bench("compare", tmp_path / "offline", tmp_path / "llm", "--format", "json", "--resamples", "200")
    assert result.exit_code == 0, result.output
    compared = json.loads(result.output)
    assert {"backend", "model", "prompts_sha256"} <= set(compared["judge_changed"])
    status = {row["metric"]: row["status"] for row in compared["metrics"]}
    assert status["faithfulness"] == "not comparable" and status["semantic_similarity"] == "unchanged"
