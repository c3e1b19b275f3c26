"""`bench evaluate` stopped by Ctrl-C mid-run and resumed: the report of an uninterrupted run, no call redone.

The interruption is real: the scripted server sends SIGINT to this process at its Nth call
(tests/integration/interrupt.py).
"""

import json
import re

import pytest

from tests.integration.interrupt import ctrl_c_on_call
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

SAMPLES = [{"id": f"s{i:02d}", "user_input": f"How long does a type {i} request take?",
            "response": f"Type {i} requests take {i % 5 + 1} days. They are approved by team {i % 3}.",
            "retrieved_contexts": [f"Requests of type {i} take {i % 5 + 1} days."]} for i in range(24)]
FLAGS = ("--metrics", "faithfulness", "--no-cache", "--concurrency", "2")


def faithful_judge(body) -> Reply:
    """Statements are the response's sentences; a statement is supported when it names days."""
    first = body["messages"][0]["content"]
    if '"verdicts"' in first:
        statements = json.loads(re.findall(r"^Statements: (\[.*?\])\nOutput:", first, re.MULTILINE | re.DOTALL)[-1])
        return Reply(text=json.dumps({"verdicts": [
            {"statement": s, "reason": "checked", "verdict": int("days" in s)} for s in statements]}))
    response = re.findall(r"^Text: (.*)$", first, re.MULTILINE)[-1]
    return Reply(text=json.dumps({"statements": [f"{part.strip()}." for part in response.split(".") if part.strip()]}))


def stable(folder):
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    return report


def test_an_interrupted_evaluate_resumes_to_the_uninterrupted_report(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-resume")
        server.responder = ctrl_c_on_call(20, faithful_judge)
        interrupted = bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped)
        assert interrupted.exit_code == 130, interrupted.output
        assert "resume with: bench evaluate --dataset" in interrupted.output
        kept = {json.loads(line)["id"] for line in (stopped / "items.jsonl").read_text().splitlines()}
        assert 0 < len(kept) < len(SAMPLES) and not (stopped / "report.json").exists()

        server.responder = faithful_judge
        asked = len(server.chat_requests)
        resumed = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
        resumed_calls = server.chat_requests[asked:]
        other = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness,context_recall", "--no-cache",
                      "--resume", stopped)
        full_run = bench("evaluate", "--dataset", samples, *FLAGS, "-o", full)
    assert resumed.exit_code == 0, resumed.output
    assert full_run.exit_code == 0, full_run.output
    # two calls (statements, verdicts) for every sample not kept, none for a kept one
    assert len(resumed_calls) == 2 * (len(SAMPLES) - len(kept))
    kept_texts = {text for s in SAMPLES if s["id"] in kept for text in (s["user_input"], *s["retrieved_contexts"])}
    assert not [c for c in resumed_calls if any(t in c["body"]["messages"][0]["content"] for t in kept_texts)]
    assert stable(stopped) == stable(full)
    assert json.loads((stopped / "report.json").read_text())["volatile"]["resumed"] == {"restored_items": len(kept)}
    # a finished run is not resumed again, whatever the options
    assert other.exit_code == 2 and "holds a finished run" in other.output


def test_a_resume_with_other_metrics_is_refused_naming_them(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped = tmp_path / "stopped"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-refused")
        server.responder = ctrl_c_on_call(10, faithful_judge)
        assert bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped).exit_code == 130
        server.responder = faithful_judge
        refused = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness,context_recall", "--no-cache",
                        "--concurrency", "2", "--resume", stopped)
    assert refused.exit_code == 2
    assert "--metrics ['faithfulness'] → ['faithfulness', 'context_recall']" in refused.output
    assert (stopped / "run.json").exists()  # the stopped run is still there to resume properly


def test_a_setting_the_tier_does_not_read_may_change_one_it_reads_may_not(bench, tmp_path, monkeypatch):
    """A run's identity holds only the settings its tier reads: an index parameter changed between the two
    sessions does not stop an evaluate resume; a seed (which moves its confidence intervals) does."""
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped = tmp_path / "stopped"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-scoped")
        server.responder = ctrl_c_on_call(10, faithful_judge)
        assert bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped).exit_code == 130
        server.responder = faithful_judge
        monkeypatch.setenv("BENCH_SEED", "7")
        refused = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
        monkeypatch.delenv("BENCH_SEED")
        monkeypatch.setenv("BENCH_HNSW_M", "32")
        resumed = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
    assert refused.exit_code == 2 and "seed 0 → 7" in refused.output, refused.output
    assert resumed.exit_code == 0, resumed.output
    report = json.loads((stopped / "report.json").read_text())
    assert "hnsw_m" not in report["settings"] and report["settings"]["seed"] == 0
