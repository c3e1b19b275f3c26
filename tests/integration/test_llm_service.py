"""The LLM service through the real openai async client and real HTTP, against a local scripted server.

Backoff waits go to a recording `sleep`, so the retry policy is checked exactly and nothing waits. No test
depends on the machine's speed: a reply meant to time out waits for the client to hang up, replies meant to
come in time have the fixture's timeout, and overlap is made with barriers, never with sleeps.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import socket
import threading
import time
from email.utils import formatdate
from pathlib import Path

import pytest

from benchmarks.chat.cache import cache_key
from benchmarks.chat.client import Completion, LLMService, Usage
from benchmarks.chat.request import ChatRequest, judge_models
from benchmarks.config import Settings, load_settings
from benchmarks.errors import BenchError
from benchmarks.transport.redaction import REDACTED, redacted
from benchmarks.transport.retry import retry_after_s
from tests.integration.openai_server import FakeOpenAI, Reply

API_KEY = "sk-test-llm-0123456789secret"
MODEL = "test-model"


@pytest.fixture
def server():
    with FakeOpenAI(api_key=API_KEY) as running:
        yield running


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def make_service(server, tmp_path, waits):
    """A service on the local server; settings overridden per test, the cache off unless asked for."""

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    def make(check_reachable: bool = True, **overrides) -> LLMService:
        settings = Settings(data_dir=tmp_path / "data", llm_base_url=server.base_url, llm_api_key=API_KEY,
                            llm_model=MODEL, llm_timeout_s=5.0, llm_cache=False)
        # the top of each jittered backoff: the policy's waits without their randomness
        return LLMService(dataclasses.replace(settings, **overrides), sleep=sleep, random=lambda: 1.0,
                          check_reachable=check_reachable)

    return make


def ask(service: LLMService, *questions: str, role: str = "judge", **options) -> list[Completion]:
    """One question after another, so scripted replies meet the calls in order."""

    async def go() -> list[Completion]:
        async with service:
            return [await service.complete([{"role": "user", "content": q}], role=role, **options)
                    for q in questions]

    return asyncio.run(go())


def test_a_reply_with_its_usage_and_the_default_parameters(server, make_service):
    server.script(Reply(text="Lisbon", usage=(12, 3)))
    service = make_service()
    question = "Which office has the vpn-lis gateway?"

    [result] = ask(service, question)

    assert result == Completion("ok", "Lisbon", MODEL, "judge", Usage(12, 3), result.latency_ms, attempts=1,
                                cached=False, finish_reason="stop")
    [request] = server.chat_requests
    assert request["body"] == {"model": MODEL, "messages": [{"role": "user", "content": question}],
                               "temperature": 0.0, "max_tokens": 1000, "top_p": 1.0}
    assert request["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert request["headers"]["x-stainless-retry-count"] == "0"  # the client's own retries are off
    report = service.usage_report().written()
    counts = ("calls", "http_requests", "prompt_tokens", "completion_tokens")
    assert [report[name] for name in counts] == [1, 1, 12, 3]
    assert report["by_role"]["judge"][MODEL]["completion_tokens"] == 3
    assert report["cost_usd"] is None
    assert API_KEY not in str(report)


def test_options_override_or_drop_defaults_and_roles_pick_their_models(server, make_service):
    service = make_service(judge_model="judge-model", llm_models=("a", "b"))
    ask(service, "q", role="judge", temperature=0.5, top_p=None, seed=7)
    ask(service, "q", role="generator")
    judged, generated = (r["body"] for r in server.chat_requests)
    assert judged["model"] == "judge-model" and judged["temperature"] == 0.5 and judged["seed"] == 7
    assert "top_p" not in judged
    assert generated["model"] == MODEL
    assert judge_models(service.settings) == ("a", "b")
    assert judge_models(make_service().settings) == (MODEL,)


def test_429_waits_as_long_as_retry_after_says(server, make_service, waits):
    server.script(Reply(status=429, headers={"Retry-After": "7"}), Reply(text="fine"))
    [result] = ask(make_service(), "q")
    assert (result.status, result.text, result.attempts) == ("ok", "fine", 2)
    assert waits == [7.0]
    assert len(server.chat_requests) == 2


def test_retry_after_as_an_http_date(server, make_service, waits):
    # four minutes ahead (under MAX_RETRY_AFTER_S): the wait is the date less the time the call took, which only
    # a hang could make a minute; the date itself has whole seconds, so the wait is at most the four minutes
    server.script(Reply(status=429, headers={"Retry-After": formatdate(time.time() + 240, usegmt=True)}))
    [result] = ask(make_service(), "q")
    assert result.status == "ok"
    [wait] = waits
    assert 180 < wait <= 240


def test_backoff_doubles_from_2_s_and_is_capped_at_30_s(server, make_service, waits):
    server.script(*[Reply(status=429)] * 6)
    [result] = ask(make_service(llm_max_attempts=7), "q")
    assert (result.status, result.attempts) == ("ok", 7)
    assert waits == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


def test_a_server_error_is_retried(server, make_service, waits):
    server.script(Reply(status=500))
    [result] = ask(make_service(), "q")
    assert (result.status, result.attempts, waits) == ("ok", 2, [2.0])


def test_a_timeout_is_retried(server, make_service, waits):
    """The first reply never comes in time (it waits for the client to hang up); the second comes at once, well
    within the timeout (a local reply takes milliseconds; the test waits this timeout once)."""
    server.script(Reply(text="too late", until_hang_up=True), Reply(text="in time"))
    [result] = ask(make_service(llm_timeout_s=2.0), "q")
    assert (result.status, result.text, result.attempts, waits) == ("ok", "in time", 2, [2.0])


def _closed_port() -> int:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_mid_run_is_retried_then_reported(make_service, waits):
    """Past the start-up probe (skipped here), a lost endpoint costs each call its retries, then an error."""
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    [result] = ask(make_service(check_reachable=False, llm_base_url=url, llm_max_attempts=2), "q")
    assert (result.status, result.attempts, waits) == ("api_error", 2, [2.0])
    assert result.error.startswith("connection error: ")
    assert result.error.endswith("(gave up after 2 attempts)")


def test_an_unreachable_endpoint_fails_the_run_at_the_first_call_it_needs(make_service, waits, server):
    url = f"http://user:secret@127.0.0.1:{_closed_port()}/v1"
    with pytest.raises(BenchError, match="cannot reach the LLM endpoint") as failure:
        ask(make_service(llm_base_url=url), "q1", "q2")
    # at once: refused by the probe itself (not its timeout running out), with no retry schedule waited through
    assert "(timed out)" not in str(failure.value) and waits == []
    assert "secret" not in str(failure.value)


def test_a_fully_cached_rerun_needs_no_endpoint(make_service):
    """The same endpoint, gone: the cache answers, keyed by what the server said it served when it was up."""
    with FakeOpenAI() as gone:
        gone.props = {"model_path": "/models/lisbon.gguf"}
        gone.script(Reply(text="Lisbon"))
        [first] = ask(make_service(llm_cache=True, llm_base_url=gone.base_url), "q")
    rerun = make_service(llm_cache=True, llm_base_url=gone.base_url)
    [again] = ask(rerun, "q")
    assert (first.text, again.text, again.cached) == ("Lisbon", "Lisbon", True)
    assert rerun.usage_report().written()["served"] == {
        MODEL: {"identity": {"model_path": "/models/lisbon.gguf"}, "source": "recorded"}}


@pytest.mark.parametrize(("header", "wait"), [("0", 0.0), ("-5", 0.0), ("1.5", 1.5), ("soon", None),
                                              ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0)])
def test_retry_after_values(header, wait):
    assert retry_after_s({"retry-after": header}) == wait


def test_exhausted_attempts_give_api_error_and_the_next_call_still_works(server, make_service, waits):
    server.script(*[Reply(status=503, message="overloaded")] * 3)
    service = make_service(llm_max_attempts=3)

    failed, fine = ask(service, "first", "second")

    assert (failed.status, failed.text, failed.attempts) == ("api_error", None, 3)
    assert failed.error == "HTTP 503: overloaded (gave up after 3 attempts)"
    assert waits == [2.0, 4.0]
    assert (fine.status, fine.attempts) == ("ok", 1)
    report = service.usage_report().written()
    assert (report["calls"], report["api_errors"], report["http_requests"]) == (2, 1, 4)


def test_a_rejected_key_is_not_retried_and_never_shown(server, make_service, waits):
    wrong = "sk-wrong-key-never-shown"
    [result] = ask(make_service(llm_api_key=wrong), "q")
    assert (result.status, result.attempts, waits) == ("api_error", 1, [])
    assert result.error == "HTTP 401: bad key"
    assert len(server.chat_requests) == 1


@pytest.mark.parametrize("status", [400, 401])
def test_a_key_quoted_back_by_the_endpoint_is_masked(server, make_service, waits, status):
    server.script(Reply(status=status, message=f"Incorrect API key provided: {API_KEY}"))
    [result] = ask(make_service(), "q")
    assert result.status == "api_error" and waits == []
    assert result.error == f"HTTP {status}: Incorrect API key provided: {REDACTED}"


def test_an_error_body_with_status_200_is_an_api_error(server, make_service):
    server.script(Reply(body={"error": {"message": "upstream provider failed"}}))
    [result] = ask(make_service(), "q")
    assert (result.status, result.error) == ("api_error", "the reply has no choices")


def test_the_cache_answers_a_repeated_call_without_http(server, make_service):
    server.script(Reply(text="cached answer", usage=(40, 2)))
    first = make_service(llm_cache=True)
    [paid] = ask(first, "q")
    rerun = make_service(llm_cache=True)  # a new run on the same data_dir

    [free] = ask(rerun, "q")

    assert len(server.chat_requests) == 1
    assert (free.status, free.text, free.usage, free.cached, free.attempts) == \
        ("ok", "cached answer", Usage(40, 2), True, 0)
    assert not paid.cached
    report = rerun.usage_report().written()
    assert (report["calls"], report["cache_hits"], report["prompt_tokens"]) == (0, 1, 0)
    assert rerun.cache_hits == 1 and rerun.calls == 0


def test_errors_are_not_cached(server, make_service):
    server.script(Reply(status=400), Reply(body={"error": {"message": "no choices"}}))
    service = make_service(llm_cache=True)
    results = ask(service, "q", "q", "q")
    assert [r.status for r in results] == ["api_error", "api_error", "ok"]
    assert len(server.chat_requests) == 3
    assert ask(make_service(llm_cache=True), "q")[0].cached


def test_any_difference_in_model_messages_or_parameters_is_another_cache_entry(server, make_service):
    service = make_service(llm_cache=True)
    ask(service, "q")
    ask(service, "q", temperature=0.5)
    ask(service, "q", max_tokens=10)
    ask(service, "q", model="other-model")
    ask(service, "q2")
    ask(service, "q", role="generator")  # same model and parameters: the judge's reply serves
    assert len(server.chat_requests) == 5
    assert cache_key("http://h/v1", {"root": "r", "parent": None}, "m", [{"role": "user", "content": "q"}],
                     {"top_p": 1, "temperature": 0}) == \
        cache_key("http://h/v1", {"parent": None, "root": "r"}, "m", [{"content": "q", "role": "user"}],
                  {"temperature": 0, "top_p": 1})


def test_concurrency_is_bounded_and_results_keep_their_order(make_service):
    first_two = threading.Barrier(2, timeout=60)  # neither of the first two replies goes before both came in
    arrivals = itertools.count()

    def respond(body) -> Reply:
        if next(arrivals) < 2:
            first_two.wait()
        return Reply(text=body["messages"][-1]["content"].upper())

    with FakeOpenAI(latency=0.05) as slow:  # the latency gives a broken bound the chance to show
        slow.responder = respond
        service = make_service(llm_base_url=slow.base_url, llm_concurrency=4)
        requests = [ChatRequest([{"role": "user", "content": f"question {i}"}], "judge") for i in range(20)]
        done: list[int] = []

        async def go() -> list[Completion]:
            async with service:
                return await service.complete_many(requests, progress=done.append)

        results = asyncio.run(go())

    assert [r.text for r in results] == [f"QUESTION {i}" for i in range(20)]
    assert 1 < slow.max_in_flight <= 4
    assert sum(done) == 20


def test_a_service_serves_the_successive_steps_of_its_runs_loop(server, make_service):
    """Tier 3 awaits its probes, indexes the corpus with the loop idle, then answers: one loop, one client."""
    service = make_service()

    async def close() -> None:
        await service.aclose()

    with asyncio.Runner() as runner:
        assert runner.run(service.complete([{"role": "user", "content": "q"}], role="judge")).status == "ok"
        client = service._client
        assert runner.run(service.complete([{"role": "user", "content": "q"}], role="judge")).status == "ok"
        assert service._client is client  # the client the first step opened, in the same loop
        runner.run(close())


def test_cost_comes_from_the_price_table(server, make_service):
    server.script(Reply(usage=(1000, 500)), Reply(usage=(10, 10)))
    service = make_service(llm_prices={MODEL: {"input": 2.0, "output": 8.0}})
    ask(service, "q")
    ask(service, "q", model="unpriced-model")
    report = service.usage_report().written()
    assert report["cost_usd"] == pytest.approx(0.006)  # (1000 × 2 + 500 × 8) / 1M
    assert report["by_role"]["judge"][MODEL]["cost_usd"] == pytest.approx(0.006)
    assert report["by_role"]["judge"]["unpriced-model"]["cost_usd"] is None
    assert report["unpriced_models"] == ["unpriced-model"]


def test_llm_settings_from_the_environment():
    environ = {"OPENAI_BASE_URL": "https://llm.example/v1", "OPENAI_API_KEY": API_KEY,
               "BENCH_LLM_MODEL": "google/gemini-2.5-flash", "BENCH_LLM_MODELS": "a/one, b/two,,c/three",
               "BENCH_LLM_TEMPERATURE": "0.7", "BENCH_LLM_CACHE": "off", "BENCH_LLM_TIMEOUT_S": "2.5",
               "BENCH_LLM_PRICES": '{"a/one": {"input": 0.15, "output": 0.6}}'}
    settings, sources = load_settings(environ=environ)
    assert settings.llm_base_url == "https://llm.example/v1" and settings.llm_api_key == API_KEY
    assert settings.llm_models == ("a/one", "b/two", "c/three")
    assert (settings.llm_temperature, settings.llm_cache, settings.llm_timeout_s) == (0.7, False, 2.5)
    assert settings.llm_prices == {"a/one": {"input": 0.15, "output": 0.6}}
    assert sources["llm_models"] == sources["llm_cache"] == "env"
    shown = redacted(settings)
    assert shown["llm_api_key"] == REDACTED and API_KEY not in str(shown)


def test_llm_settings_from_bench_toml(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('llm_model = "m"\nllm_models = ["anthropic/claude-3.5-sonnet", "openai/gpt-4o-mini"]\n'
                      "llm_top_p = 1\nllm_cache = true\nllm_max_tokens = 500\n"
                      'llm_base_url = "https://user:pw-secret@llm.example/v1"\n'
                      '[llm_prices]\n"openai/gpt-4o-mini" = { input = 0.15, output = 0.6 }\n',
                      encoding="utf-8")
    settings, sources = load_settings({"llm_temperature": 0.2}, config_file=config, environ={})
    assert settings.llm_models == ("anthropic/claude-3.5-sonnet", "openai/gpt-4o-mini")
    assert settings.llm_top_p == 1.0 and isinstance(settings.llm_top_p, float)
    assert (settings.llm_cache, settings.llm_max_tokens, settings.llm_temperature) == (True, 500, 0.2)
    assert settings.llm_prices == {"openai/gpt-4o-mini": {"input": 0.15, "output": 0.6}}
    assert (sources["llm_prices"], sources["llm_temperature"]) == ("bench.toml", "cli")
    assert "pw-secret" not in str(redacted(settings))


@pytest.mark.parametrize(
    ("toml", "environ", "message"),
    [
        ("llm_temperature = true\n", {}, "key 'llm_temperature': expected float, got True"),
        ("", {"BENCH_LLM_TOP_P": "high"}, "BENCH_LLM_TOP_P: expected float, got 'high'"),
        ("", {"BENCH_LLM_CACHE": "maybe"}, "BENCH_LLM_CACHE: expected true or false, got 'maybe'"),
        ("llm_cache = 1\n", {}, "key 'llm_cache': expected true or false, got 1"),
        ('llm_models = "a"\nllm_model = ["a"]\n', {}, "key 'llm_model': expected str"),
        ("llm_models = [1]\n", {}, "key 'llm_models': expected a list of names, got [1]"),
        ("", {"BENCH_LLM_MODELS": "a,b,a"}, "BENCH_LLM_MODELS: 'a' is listed twice"),
        ("", {"BENCH_LLM_PRICES": "cheap"}, "BENCH_LLM_PRICES: expected a table of model"),
        ("[llm_prices]\nm = { input = 1 }\n", {}, "model 'm' has {'input': 1}"),
        ("[llm_prices]\nm = { input = -1, output = 1 }\n", {}, "'m' input must be a number of at least 0"),
        ("llm_temperature = 2.5\n", {}, "key 'llm_temperature': must be between 0 and 2, got 2.5"),
        ("llm_top_p = 0\n", {}, "key 'llm_top_p': must be above 0 and at most 1, got 0.0"),
        ("", {"BENCH_LLM_CONCURRENCY": "0"}, "BENCH_LLM_CONCURRENCY: must be at least 1, got 0"),
        (f'llm_api_key = "{API_KEY}"\n', {}, "key 'llm_api_key': secrets are read from the environment only"),
    ],
)
def test_bad_llm_settings_name_the_place(tmp_path, toml, environ, message):
    config = tmp_path / "bench.toml"
    config.write_text(toml, encoding="utf-8")
    with pytest.raises(BenchError) as caught:
        load_settings(config_file=config, environ=environ)
    assert message in str(caught.value)
    assert API_KEY not in str(caught.value)


def test_no_configured_llm_is_one_clear_error(tmp_path: Path):
    with pytest.raises(BenchError) as caught:
        LLMService(Settings(data_dir=tmp_path))
    message = str(caught.value)
    assert caught.value.exit_code == 2
    assert message.startswith("no LLM is configured (missing: llm_base_url, llm_model)")
    for name in ("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "BENCH_LLM_API_KEY", "OPENAI_API_KEY", "llm_model",
                 "--judge offline"):
        assert name in message


def test_per_role_models_can_stand_in_for_llm_model(tmp_path: Path):
    settings = Settings(data_dir=tmp_path, llm_base_url="http://127.0.0.1:9/v1", judge_model="j")
    with pytest.raises(BenchError, match=r"missing: llm_model\)"):
        LLMService(settings)
    service = LLMService(dataclasses.replace(settings, generator_model="g"))
    assert (service.model_for("judge"), service.model_for("generator")) == ("j", "g")
