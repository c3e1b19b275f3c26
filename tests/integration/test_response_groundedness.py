"""response_groundedness, the metric added through the judged-metric seam (its module and its two prompt files):
run by `bench evaluate` over real HTTP against a scripted OpenAI-compatible server."""

import json

import pytest

from benchmarks.judge.judged_metrics.builtin.response_groundedness import groundedness
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

SAMPLES = [
    {"id": "s1", "user_input": "How many vacation days?", "response": "28 days, carried over until March 31.",
     "retrieved_contexts": ["Employees get 28 days of paid vacation per year.", "Unused days carry over until "
                                                                               "March 31."]},
    {"id": "s2", "user_input": "How many vacation days?", "response": "30 days.",
     "retrieved_contexts": ["Employees get 28 days of paid vacation per year."]},
]


def rate(body):
    prompt = body["messages"][-1]["content"]
    grounded = "Response: 28 days" in prompt
    return Reply(text=json.dumps({"reason": "checked", "rating": 2 if grounded else 0}))


def test_evaluate_scores_it_from_one_call_per_sample(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES), encoding="utf-8")
    with FakeOpenAI() as server:
        server.responder = rate
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        result = bench("evaluate", "--dataset", samples, "--metrics", "response_groundedness", "-o", tmp_path / "out")
        prompts = [r["body"]["messages"][-1]["content"] for r in server.chat_requests]
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["metrics"]["response_groundedness"]["value"] == 0.5  # (2/2 + 0/2) / 2
    assert len(prompts) == 2  # one call a sample, whatever the response's length
    first = next(p for p in prompts if "28 days, carried" in p)
    assert "Employees get 28 days" in first and "Unused days carry over until March 31." in first  # joined
    assert report["provenance"]["judge"]["metrics"] == ["response_groundedness"]


@pytest.mark.parametrize(("rating", "value"), [(0, 0.0), (1, 0.5), (2, 1.0)])
def test_the_rating_is_halved(rating, value):
    assert groundedness(rating).value == value


@pytest.mark.parametrize("rating", [3, -1, True])
def test_a_rating_off_the_scale_is_a_bug(rating):
    with pytest.raises(ValueError, match="must be 0, 1 or 2"):
        groundedness(rating)
