"""Judges from two named providers in one `bench evaluate`: each model asked at its own provider's endpoint with
its own key, the report naming both endpoints (never a key) and the judges' agreement; and a provider the run
could not ask refused in one line before any call."""

import json

import pytest

from tests.integration.openai_server import FakeOpenAI, Reply
from tests.integration.test_evaluate_cli import judge_replies, write_samples
from tests.integration.test_judge_tier_cli import ITEMS, Judge, write_jsonl

pytestmark = pytest.mark.integration

LOCAL_KEY, API_KEY = "local-secret-1", "api-secret-2"


def lenient_replies(body):
    """A second judge that finds every statement supported: it disagrees with the first on the wrong answer."""
    reply = judge_replies(body)
    if '"verdicts"' in body["messages"][0]["content"]:
        verdicts = json.loads(reply.text)["verdicts"]
        return Reply(text=json.dumps({"verdicts": [{**v, "verdict": 1} for v in verdicts]}))
    return reply


def declare(tmp_path, local: FakeOpenAI, api: FakeOpenAI, *, api_base_url: bool = True) -> None:
    api_url = f'base_url = "{api.base_url}"\n' if api_base_url else ""
    (tmp_path / "bench.toml").write_text(
        f'[[providers]]\nname = "local"\nbase_url = "{local.base_url}"\napi_key_env = "LOCAL_JUDGE_KEY"\n\n'
        f'[[providers]]\nname = "api"\n{api_url}api_key_env = "API_JUDGE_KEY"\nchat_models = ["judge-b"]\n',
        encoding="utf-8")


@pytest.fixture
def servers(monkeypatch):
    with FakeOpenAI(api_key=LOCAL_KEY) as local, FakeOpenAI(api_key=API_KEY) as api:
        local.responder, api.responder = judge_replies, lenient_replies
        monkeypatch.setenv("LOCAL_JUDGE_KEY", LOCAL_KEY)
        monkeypatch.setenv("API_JUDGE_KEY", API_KEY)
        monkeypatch.delenv("BENCH_LLM_BASE_URL", raising=False)
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        yield local, api


def test_judges_from_two_providers_grade_the_same_samples(bench, tmp_path, servers):
    local, api = servers
    declare(tmp_path, local, api)
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics", "faithfulness",
                   "--models", "local:judge-a,api:judge-b", "--no-cache", "-o", out)
    assert result.exit_code == 0, result.output
    # each server was asked its own model's calls only, with its own key
    for server, model, key in ((local, "judge-a", LOCAL_KEY), (api, "judge-b", API_KEY)):
        assert len(server.chat_requests) == 2 * 2  # 2 calls per sample, 2 samples
        assert {r["body"]["model"] for r in server.chat_requests} == {model}
        assert {r["authorization"] for r in server.chat_requests} == {f"Bearer {key}"}
    report = json.loads((out / "report.json").read_text())
    judge = report["provenance"]["judge"]
    assert judge["models"] == ["local:judge-a", "api:judge-b"]
    assert judge["endpoints"] == {"local:judge-a": local.base_url, "api:judge-b": api.base_url}
    assert "url" not in judge
    # s1: both judges 1.0; s2: the strict judge 0.0, the lenient one 1.0
    assert report["metrics"]["faithfulness/local:judge-a"]["value"] == 0.5
    assert report["metrics"]["faithfulness/api:judge-b"]["value"] == 1.0
    assert report["notes"]["agreement"]["faithfulness"]["mean_absolute_difference"] == 0.5
    usage = report["volatile"]["llm"]
    assert set(usage["by_endpoint"]) == {local.base_url, api.base_url} and usage["calls"] == 8
    # how each judge was asked for JSON, by the name the report's judge models give it: what bench compare reads
    assert set(usage["structured_output"]["by_model"]) == {"local:judge-a", "api:judge-b"}
    # the providers as the settings show them: the variables named, never their values
    assert report["settings"]["providers"][1]["api_key_env"] == "API_JUDGE_KEY"
    for text in (out / "report.json").read_text(), (out / "report.md").read_text(), result.output:
        assert LOCAL_KEY not in text and API_KEY not in text


def test_bench_judge_rates_the_same_items_by_judges_of_two_providers(bench, tmp_path, servers):
    local, api = servers
    declare(tmp_path, local, api)
    # keyed by the model each server is asked: judge-a at the local server, judge-b at the API
    local.responder = Judge({"judge-a": {"A1.": [1.0, 1.0], "A2.": [0.0, 0.0]}})
    api.responder = Judge({"judge-b": {"A1.": [0.5, 0.5], "A2.": [0.0, 0.0]}})
    out = tmp_path / "out"
    result = bench("judge", "--dataset", write_jsonl(tmp_path / "items.jsonl", ITEMS[:2]),
                   "--models", "local:judge-a,api:judge-b", "--no-cache", "-o", out)
    assert result.exit_code == 0, result.output
    assert [len(local.chat_requests), len(api.chat_requests)] == [4, 4]  # 2 items × 2 repeats each
    assert {r["authorization"] for r in api.chat_requests} == {f"Bearer {API_KEY}"}
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["judge"]["endpoints"] == {"local:judge-a": local.base_url,
                                                          "api:judge-b": api.base_url}
    assert report["metrics"]["avg_faithfulness/api:judge-b"]["value"] == 0.25
    agreement = report["notes"]["agreement"]["avg_faithfulness"]
    assert agreement["mean_absolute_difference"] == pytest.approx(0.25)  # (0.5 + 0) / 2


@pytest.mark.parametrize("models, change, message", [
    ("lcal:judge-a,api:judge-b", None,
     "--models: 'lcal:judge-a' names no declared provider (local, api), and a model without one is asked at "
     "llm_base_url, which is unset; did you mean local:judge-a?"),
    ("local:judge-a,api:judge-c", None,
     "--models: provider 'api' lists no chat model 'judge-c' (its chat_models: judge-b); did you mean api:judge-b?"),
    ("local:judge-a,api:judge-b", "unset key",
     "bench.toml: key 'providers': provider 'api': its api_key_env, API_JUDGE_KEY, is not set in the environment"),
    ("local:judge-a,api:judge-b", "no base_url",
     "bench.toml: key 'providers'[1] (api): 'base_url' is missing (the URL its chat calls go to)"),
])
def test_a_provider_the_run_could_not_ask_is_one_line_before_any_call(bench, tmp_path, servers, monkeypatch,
                                                                      models, change, message):
    local, api = servers
    declare(tmp_path, local, api, api_base_url=change != "no base_url")
    if change == "unset key":
        monkeypatch.delenv("API_JUDGE_KEY")
    result = bench("evaluate", "--dataset", write_samples(tmp_path / "samples.jsonl"), "--metrics", "faithfulness",
                   "--models", models, "-o", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1] == f"error: {message}"
    assert "Traceback" not in result.output and API_KEY not in result.output
    assert not local.chat_requests and not api.chat_requests and not (tmp_path / "out").exists()
