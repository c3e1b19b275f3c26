"""The http adapter through the real HTTP client against a local scripted service.

Backoff waits go to a recording `sleep`, so the retry policy is checked exactly and nothing waits. A reply meant
to time out waits for the client to hang up, and overlap is made with a barrier, so no test depends on the
machine's speed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import socket
import threading

import pytest

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer, GenerationRequest
from benchmarks.generation.http_generator import HttpGenerator
from benchmarks.readers.show_items import FILE_NAME, load_show_items
from benchmarks.shipped import shipped_dir
from benchmarks.transport.http_endpoint import EndpointConfig, EndpointReply, HttpEndpoint
from tests.integration.http_service import JsonService, ServiceReply

API_KEY = "sk-test-http-0123456789secret"
QUESTION = 'Which "office" has\nthe vpn-lis gateway?'
CONTEXTS = ("The VPN gateway for the Lisbon office is vpn-lis.example.com.", 'Say "hello" {to} it.')


@pytest.fixture
def service():
    with JsonService() as running:
        yield running


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def settings(service) -> Settings:
    return Settings(generator_http_url=service.url, generator_http_api_key=API_KEY, llm_timeout_s=5.0,
                    llm_max_attempts=3)


def generate(settings: Settings, waits: list[float], *requests: GenerationRequest) -> tuple[list[Answer], dict]:
    """One request after another, so scripted replies meet the calls in order."""

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def go() -> tuple[list[Answer], dict]:
        # the top of each jittered backoff: the policy's waits without their randomness
        async with HttpGenerator.from_settings(settings, sleep=sleep, random=lambda: 1.0) as generator:
            return [await generator.answer(r) for r in requests], generator.usage_report().written()

    return asyncio.run(go())


def request(question: str = QUESTION, qid: str = "q1", repeat: int = 0) -> GenerationRequest:
    return GenerationRequest(question_id=qid, question=question, contexts=CONTEXTS, repeat=repeat)


def assert_no_key(*texts: str | None) -> None:
    for text in texts:
        assert text is None or API_KEY not in text


def test_the_service_gets_the_filled_body_and_the_bearer_token(service, settings, waits):
    service.script(ServiceReply({"answer": "vpn-lis is Lisbon's"}))
    overrides = {"generator_http_request": '{"q": "{question}", "id": "{question_id}", "docs": "{contexts}", '
                                           '"prompt": "Context:\\n{context}\\n\\nQ: {question}", "top_k": 2}'}

    [answer], usage = generate(dataclasses.replace(settings, **overrides), waits, request())

    assert answer == Answer("ok", "vpn-lis is Lisbon's", answer.latency_ms)
    [received] = service.requests
    assert received["body"] == {"q": QUESTION, "id": "q1", "docs": list(CONTEXTS), "top_k": 2,
                                "prompt": f"Context:\n{CONTEXTS[0]}\n\n{CONTEXTS[1]}\n\nQ: {QUESTION}"}
    assert received["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert received["headers"]["content-type"] == "application/json"
    assert usage == {"calls": 1, "http_requests": 1, "api_errors": 0}


def test_repeats_are_real_calls_and_the_description_names_the_endpoint(service, settings, waits):
    service.responder = lambda body: ServiceReply({"answer": f"answer to {body['question']}"})
    answers, usage = generate(settings, waits, request(repeat=0), request(repeat=1))
    assert [a.text for a in answers] == [f"answer to {QUESTION}"] * 2 and not any(a.cached for a in answers)
    assert len(service.requests) == 2 and usage["calls"] == 2

    async def describe() -> dict:
        async with HttpGenerator.from_settings(settings) as generator:
            return generator.describe().written()

    sha = hashlib.sha256(Settings.generator_http_request.encode()).hexdigest()
    assert asyncio.run(describe()) == {"adapter": "http", "url": service.url, "request_template_sha256": sha,
                                       "response_path": "answer"}


def test_503_then_200_is_retried_and_counted(service, settings, waits):
    service.script(ServiceReply({"error": "warming up"}, status=503), ServiceReply({"answer": "Lisbon"}))
    [answer], usage = generate(settings, waits, request())
    assert (answer.status, answer.text) == ("ok", "Lisbon")
    assert waits == [2.0]
    assert usage == {"calls": 1, "http_requests": 2, "api_errors": 0}


def test_retry_after_is_honoured_and_capped(service, settings, waits):
    service.script(ServiceReply(status=429, headers={"Retry-After": "7"}),
                   ServiceReply(status=429, headers={"Retry-After": "86400"}), ServiceReply({"answer": "ok"}))
    [answer], _ = generate(settings, waits, request())
    assert answer.status == "ok" and waits == [7.0, 300.0]


def test_a_service_that_stays_down_gives_up_after_the_attempts(service, settings, waits):
    service.script(*[ServiceReply({"error": {"message": "overloaded"}}, status=502)] * 3)
    [answer], usage = generate(settings, waits, request())
    assert answer.status == "api_error" and answer.text is None
    assert answer.error == "HTTP 502: overloaded (gave up after 3 attempts)"
    assert waits == [2.0, 4.0]
    assert usage == {"calls": 1, "http_requests": 3, "api_errors": 1}


def test_400_is_final_at_once(service, settings, waits):
    service.script(ServiceReply({"detail": "question too long"}, status=400))
    [answer], usage = generate(settings, waits, request())
    assert answer.error == "HTTP 400: question too long"
    assert waits == [] and usage == {"calls": 1, "http_requests": 1, "api_errors": 1}


def test_a_missing_path_a_wrong_type_and_a_body_that_is_not_json_are_api_errors(service, settings, waits):
    service.script(ServiceReply({"data": {"text": "Lisbon"}}), ServiceReply({"data": {"answer": ["Lisbon"]}}),
                   ServiceReply(raw=b"<html>\n<h1>Login required</h1></html>"), ServiceReply(raw=b""))
    answers, usage = generate(dataclasses.replace(settings, generator_http_response_path="data.answer"), waits,
                              request(), request(), request(), request())
    assert [a.status for a in answers] == ["api_error"] * 4
    assert [a.error for a in answers] == [
        "HTTP 200: the response has nothing at 'data.answer': data has no key 'answer'",
        "HTTP 200: 'data.answer' in the response is an array, not a string",
        "HTTP 200: the response is not JSON, so it has no 'data.answer': <html>",
        "HTTP 200: the response is not JSON, so it has no 'data.answer' (empty body)",
    ]
    assert waits == [] and usage == {"calls": 4, "http_requests": 4, "api_errors": 4}


def test_the_key_never_appears_in_an_error_even_when_the_service_quotes_it(service, settings, waits):
    def echo_key(body):
        return ServiceReply({"error": {"message": f"token {API_KEY} is revoked"}}, status=401)

    service.responder = echo_key
    service.script(ServiceReply(raw=f"proxy error for Bearer {API_KEY}".encode(), status=500),
                   ServiceReply(raw=f"proxy error for Bearer {API_KEY}".encode(), status=500),
                   ServiceReply(raw=f"proxy error for Bearer {API_KEY}".encode(), status=500),
                   ServiceReply({"answer": API_KEY}, status=404), ServiceReply({"oops": API_KEY}))
    answers, _ = generate(settings, waits, request(), request(), request(), request())
    assert [a.error for a in answers] == [
        "HTTP 500: proxy error for Bearer *** (gave up after 3 attempts)",
        'HTTP 404: {"answer": "***"}',
        "HTTP 200: the response has nothing at 'answer': the response has no key 'answer'",
        "HTTP 401: token *** is revoked",
    ]
    assert_no_key(*(a.error for a in answers))


def test_timeouts_are_retried_then_reported_and_a_service_down_at_the_start_stops_the_run(service, settings, waits):
    service.script(*[ServiceReply({"answer": "late"}, until_hang_up=True)] * 2)  # too late for any timeout
    timing_out = dataclasses.replace(settings, llm_timeout_s=0.1, llm_max_attempts=2)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/answer"
    [late], usage = generate(timing_out, waits, request())
    assert late.error == "request timed out (gave up after 2 attempts)"
    assert waits == [2.0] and usage == {"calls": 1, "http_requests": 2, "api_errors": 1}
    with pytest.raises(BenchError) as down:
        generate(dataclasses.replace(timing_out, generator_http_url=closed), waits, request())
    assert str(down.value).startswith(f"cannot reach your RAG service at {closed} (")
    assert "no call was made: check generator_http_url" in str(down.value)
    assert waits == [2.0]  # no retry schedule was waited through


def test_calls_in_flight_stay_within_the_concurrency_bound(service, settings):
    async def go() -> list[EndpointReply]:
        config = EndpointConfig.from_settings(dataclasses.replace(settings, llm_concurrency=2), "generator",
                                              texts=("question",), lists=("contexts",))
        async with HttpEndpoint(config) as endpoint:
            return await asyncio.gather(*(endpoint.call({"question": str(n), "contexts": []}) for n in range(6)))

    pair = threading.Barrier(2, timeout=60)

    def respond(body) -> ServiceReply:
        pair.wait()  # no reply before a second request is in flight with it: 6 calls, 2 at a time, are 3 pairs
        return ServiceReply({"answer": body["question"]})

    service.responder = respond
    replies = asyncio.run(go())
    assert [r.text for r in replies] == [str(n) for n in range(6)]
    assert service.max_in_flight == 2


# --- bench judge-pipeline --via http, end to end ------------------------------------------------------------

JUDGE_KEY = "sk-test-judge-9876543210secret"
JUDGE_TEMPLATE = ('{"item": "{item_id}", "input": {"question": "{question}", "context": "{context}", '
                  '"answer": "{answer}"}, "format": "{{yes|no}}"}')


def test_judge_pipeline_via_http_on_the_synthetic_items(bench, tmp_path, monkeypatch):
    items = load_show_items(shipped_dir("datasets") / "synthetic" / FILE_NAME)
    shows = [i.id for i in items if i.show]
    hides = [i.id for i in items if not i.show]
    truth = {i.id: i.show for i in items}
    false_no, false_yes, unparseable = shows[0], hides[0], hides[1]
    failing, flaky = shows[1], shows[2]
    tries: dict[str, int] = {}

    def production_judge(body):
        item = body["item"]
        tries[item] = tries.get(item, 0) + 1
        if item == failing:
            return ServiceReply({"error": {"message": "context too long"}}, status=400)
        if item == flaky and tries[item] == 1:
            return ServiceReply(status=503, headers={"Retry-After": "0"})
        says = {false_no: "No", false_yes: "Yes", unparseable: "I cannot tell."}.get(
            item, "Yes" if truth[item] else "No.")
        return ServiceReply({"result": {"decision": says}})

    for name in ("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL", "BENCH_LLM_MODEL", "BENCH_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "out"
    with JsonService() as judge:
        judge.responder = production_judge
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_URL", judge.url)
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_REQUEST", JUDGE_TEMPLATE)
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_RESPONSE_PATH", "result.decision")
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_API_KEY", JUDGE_KEY)
        result = bench("judge-pipeline", "--dataset", "synthetic", "--via", "http", "-o", out)
        requests = judge.requests
    assert result.exit_code == 0, result.output

    assert len(items) == 200 and len(shows) == 100
    assert len(requests) == 201  # one retry
    assert all(r["headers"]["authorization"] == f"Bearer {JUDGE_KEY}" for r in requests)
    by_id = {i.id: i for i in items}
    for r in requests:
        item = by_id[r["body"]["item"]]
        assert r["body"] == {"item": item.id, "format": "{yes|no}",
                             "input": {"question": item.question, "context": item.context, "answer": item.answer}}

    report_text = (out / "report.json").read_text()
    assert JUDGE_KEY not in report_text
    report = json.loads(report_text)
    # 199 judged (one 400); of the 99 shows judged one is a false No; of the 100 hides one is a false Yes
    # and one unparseable
    assert report["notes"]["confusion"] == {"tp": 98, "fp": 1, "tn": 98, "fn": 1, "unparseable_truth_yes": 0,
                                            "unparseable_truth_no": 1}
    m = report["metrics"]
    assert m["accuracy"]["value"] == pytest.approx(196 / 199, abs=1e-6)
    assert (m["accuracy"]["n"], m["accuracy"]["errors"]) == (199, 1)
    assert m["precision"]["value"] == pytest.approx(98 / 99, abs=1e-6)
    assert m["recall"]["value"] == pytest.approx(98 / 99, abs=1e-6)
    assert m["f1_score"]["value"] == pytest.approx(98 / 99, abs=1e-6)
    assert m["unparseable_rate"]["value"] == pytest.approx(1 / 199, abs=1e-6)
    assert report["notes"]["api_errors"] == 1
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "| `accuracy` ★ | 0.9849 | excellent |" in markdown  # seed 004 §11.2: above 0.95
    assert "199 items scored; not ranked: 1 failed (" in markdown  # the call that got a 400
    assert report["provenance"]["production_judge"] == {
        "via": "http", "url": judge.url, "response_path": "result.decision",
        "request_template_sha256": hashlib.sha256(JUDGE_TEMPLATE.encode()).hexdigest()}
    assert report["volatile"]["http"] == {"calls": 200, "http_requests": 201, "api_errors": 1}
    rows = {r["id"]: r for r in map(json.loads, (out / "items.jsonl").read_text().splitlines())}
    assert rows[failing]["scores"]["accuracy"]["bench"] == {"value": None, "status": "api_error",
                                                            "explanation": "HTTP 400: context too long"}
    assert rows[unparseable]["answer"] is None and rows[flaky]["answer"] == "yes"


def test_judge_pipeline_via_http_refuses_llm_options_and_names_a_missing_url(bench, tmp_path, monkeypatch):
    monkeypatch.delenv("BENCH_SHOW_JUDGE_HTTP_URL", raising=False)
    result = bench("judge-pipeline", "--dataset", "synthetic", "--via", "http")
    assert result.exit_code == 2 and "setting show_judge_http_url is not set" in result.output
    monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_URL", "http://127.0.0.1:9/decide")
    result = bench("judge-pipeline", "--dataset", "synthetic", "--via", "http", "--model", "m",
                   "--prompt-template", tmp_path / "prod.txt")
    assert result.exit_code == 2
    assert "--prompt-template and --model: not used with --via http" in result.output
    result = bench("judge-pipeline", "--dataset", "synthetic", "--via", "carrier-pigeon")
    assert result.exit_code == 2 and "--via: expected one of llm, http" in result.output


def test_judge_pipeline_via_http_fails_in_seconds_when_the_judge_service_is_down(bench, monkeypatch):
    monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_URL", "http://127.0.0.1:9/decide")  # nothing listens on port 9
    result = bench("judge-pipeline", "--dataset", "synthetic", "--via", "http")
    assert result.exit_code == 2
    assert "cannot reach your production show/no-show judge at http://127.0.0.1:9/decide" in result.output
