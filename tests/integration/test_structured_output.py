"""Judge calls against the local OpenAI-compatible server: the schema sent as response_format, the
fallbacks of `auto`, truncation, repair, lone numbers and the concurrency that adapts to the endpoint.

The real openai client, its HTTP and bench's retries run; only the model's replies are scripted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import threading

import pytest

from benchmarks.chat.client import LLMService
from benchmarks.chat.request import ChatRequest, ResponseSchema
from benchmarks.config import Settings
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.asking import JudgeFailed, Trace, ask_json
from benchmarks.judge.ratings.rater import Rater, read_from_a_lone_number
from tests.integration.openai_server import FakeOpenAI, Reply

MODEL = "judge-small"
VARIABLES = {"question": "Where is the office?", "context": "The office is in Lisbon.", "answer": "In Lisbon."}


@pytest.fixture
def server():
    with FakeOpenAI() as running:
        yield running


@pytest.fixture
def make_service(server, tmp_path):
    async def no_wait(seconds: float) -> None:
        pass

    def make(**overrides) -> LLMService:
        settings = Settings(data_dir=tmp_path / "data", llm_base_url=server.base_url, llm_model=MODEL,
                            llm_timeout_s=5.0, llm_cache=False)
        return LLMService(dataclasses.replace(settings, **overrides), sleep=no_wait)

    return make


def rate(service: LLMService, mode: str = "direct", rating: str = "faithfulness"):
    async def go():
        async with service:
            return await Rater(service, "en", mode).rate(rating, VARIABLES, MODEL)

    return asyncio.run(go())


def statements(service: LLMService):
    async def go():
        async with service:
            return await ask_json(service, "Split the text into statements. Answer JSON.", shapes.Statements,
                                  call="statements", language="en", model=MODEL, trace=Trace(), max_tokens=64)

    return asyncio.run(go())


def test_auto_sends_the_answers_json_schema_with_a_budget_sized_to_it(server, make_service):
    server.script(Reply('{"score": 0.75}'))
    outcome = rate(make_service())
    assert (outcome.status, outcome.value) == ("ok", 0.75)
    [request] = server.chat_requests
    body = request["body"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "rate_faithfulness", "strict": True,
        "schema": {"type": "object", "properties": {"score": {"type": "number", "minimum": 0.0, "maximum": 1.0}},
                   "required": ["score"], "additionalProperties": False}}}
    assert body["max_tokens"] == 32  # a score, not the 1,000 tokens of llm_max_tokens


def test_reasoned_mode_puts_reasoning_first_in_the_schema_and_has_room_for_it(server, make_service):
    server.script(Reply('{"reasoning": "Stated in the context.", "score": 1}'))
    outcome = rate(make_service(), mode="reasoned")
    assert (outcome.status, outcome.value, outcome.explanation) == ("ok", 1.0, "Stated in the context.")
    body = server.chat_requests[0]["body"]
    assert list(body["response_format"]["json_schema"]["schema"]["properties"]) == ["reasoning", "score"]
    assert body["max_tokens"] == 512


def test_a_budget_never_exceeds_llm_max_tokens(server, make_service):
    server.script(Reply('{"reasoning": "ok", "score": 1}'))
    rate(make_service(llm_max_tokens=100), mode="reasoned")
    assert server.chat_requests[0]["body"]["max_tokens"] == 100


@pytest.mark.parametrize(("mode", "sent"), [
    ("json_schema", "json_schema"), ("json_object", "json_object"), ("off", None)])
def test_a_fixed_mode_is_what_is_sent(server, make_service, mode, sent):
    server.script(Reply('{"score": 0.5}'))
    service = make_service(llm_structured_output=mode)
    assert rate(service).value == 0.5
    body = server.chat_requests[0]["body"]
    assert (body.get("response_format") or {}).get("type") == sent
    assert service.usage_report().written()["structured_output"] == {"setting": mode, "by_model": {MODEL: mode}}


def refusing(*refused: str):
    """An endpoint that answers 400 naming the response format for the given format types."""
    def answer(body):
        kind = (body.get("response_format") or {}).get("type")
        if kind in refused:
            return Reply(status=400, message=f"response_format type {kind} is not supported by this server")
        return Reply('{"score": 0.25}')

    return answer


def test_auto_falls_back_once_per_model_to_json_object_then_to_the_prompt_alone(server, make_service):
    server.responder = refusing("json_schema", "json_object")
    service = make_service()
    assert rate(service).value == 0.25
    assert [(r["body"].get("response_format") or {}).get("type") for r in server.chat_requests] == [
        "json_schema", "json_object", None]
    assert rate(service).value == 0.25  # settled: one request, no format
    assert len(server.chat_requests) == 4 and "response_format" not in server.chat_requests[3]["body"]
    report = service.usage_report().written()
    assert report["structured_output"] == {"setting": "auto", "by_model": {MODEL: "off"}}
    assert (report["calls"], report["http_requests"], report["api_errors"]) == (2, 4, 0)


def test_a_refused_format_under_a_fixed_mode_is_an_api_error_not_a_silent_change(server, make_service):
    server.responder = refusing("json_schema")
    outcome = rate(make_service(llm_structured_output="json_schema"))
    assert outcome.status == "api_error" and "HTTP 400" in outcome.explanation
    assert len(server.chat_requests) == 1


def test_another_400_is_not_taken_for_a_refused_format(server, make_service):
    server.script(Reply(status=400, message="the prompt is longer than the model's context"))
    outcome = rate(make_service())
    assert outcome.status == "api_error" and len(server.chat_requests) == 1


def test_the_mode_is_part_of_the_cache_key(server, make_service):
    server.responder = lambda body: Reply('{"score": 0.5}')
    for mode in ("json_schema", "json_object", "json_schema"):
        rate(make_service(llm_cache=True, llm_structured_output=mode))
    assert len(server.chat_requests) == 2  # the third run is the first one's, from the cache


def test_a_reply_cut_off_by_its_token_limit_is_truncated_not_repaired_and_not_cached(server, make_service):
    cut = '{"statements": ["The office is in Lisbon.", "The office is in Lisbon.", "The office is in Lis'
    server.responder = lambda body: Reply(cut, finish_reason="length")
    for _ in range(2):
        with pytest.raises(JudgeFailed) as failed:
            statements(make_service(llm_cache=True))
        assert failed.value.status == "truncated"
        assert "cut off" in str(failed.value)
    assert len(server.chat_requests) == 2  # once per run: no repair, and the second run asked again
    service = make_service()
    with pytest.raises(JudgeFailed):
        statements(service)
    assert service.usage_report().written()["truncated"] == 1


def test_a_complete_answer_that_merely_reached_the_limit_is_used(server, make_service):
    server.script(Reply('{"statements": ["The office is in Lisbon."]}', finish_reason="length"))
    assert statements(make_service()).statements == ["The office is in Lisbon."]


def test_the_repair_restates_the_required_form(server, make_service):
    server.script(Reply("I would rate it 4 out of 5."), Reply('{"score": 0.8}'))
    outcome = rate(make_service())
    assert (outcome.status, outcome.value, outcome.calls) == ("ok", 0.8, 2)
    repair = server.chat_requests[1]["body"]["messages"][-1]["content"]
    assert repair == ("Your answer could not be used: the answer holds no JSON object. Reply again with only one "
                      'JSON object of this form: {"score": <a number from 0 to 1>}')


def test_a_lone_number_is_read_as_a_direct_score_and_counted(server, make_service):
    server.script(Reply("The answer is 0.5."))  # SmolLM2-135M's reply to {"score": x}
    outcome = rate(make_service(llm_structured_output="off"))
    assert (outcome.status, outcome.value) == ("ok", 0.5)
    assert read_from_a_lone_number(outcome) and len(server.chat_requests) == 1


def test_a_lone_number_off_the_scale_is_not_a_score(server, make_service):
    server.script(Reply("The answer is 7."), Reply("The answer is 7."))
    outcome = rate(make_service(llm_structured_output="off"))
    assert outcome.status == "parse_error" and "between 0 and 1" in outcome.explanation


def test_a_reasoned_rating_does_not_read_lone_numbers(server, make_service):
    server.script(Reply("The answer is 0.5."), Reply("The answer is 0.5."))
    assert rate(make_service(), mode="reasoned").status == "parse_error"


def test_a_list_answered_for_an_object_with_one_list_field_is_read_as_that_field(server, make_service):
    server.script(Reply('["The office is in Lisbon.", "It opens at nine."]'))
    assert statements(make_service()).statements == ["The office is in Lisbon.", "It opens at nine."]


def test_objects_instead_of_strings_are_a_parse_error_after_the_repair(server, make_service):
    wrong = '{"statements": [{"text": "The office is in Lisbon."}]}'  # objects where strings are required
    server.script(Reply(wrong), Reply(wrong))
    with pytest.raises(JudgeFailed) as failed:
        statements(make_service())
    assert failed.value.status == "parse_error"
    assert "statements.0" in str(failed.value) and "after one repair attempt" in str(failed.value)


# --- concurrency that adapts -----------------------------------------------------------------------


class Slots:
    """An endpoint with `slots` request slots that answers 503 to a request beyond them.

    The requests that take the slots first keep them until `refusals` requests were refused, so the client's
    calls pile up against a full server however fast or slow the machine is; after that a slot is freed as its
    reply goes."""

    def __init__(self, slots: int, refusals: int):
        self.slots, self.refusals, self.busy, self.refused = slots, refusals, 0, 0
        self.lock = threading.Lock()
        self.enough = threading.Event()

    def __call__(self, body):
        with self.lock:
            full = self.busy >= self.slots
            if full:
                self.refused += 1
                if self.refused >= self.refusals:
                    self.enough.set()
            else:
                self.busy += 1
        if full:
            return Reply(status=503, message="server busy: all slots are taken")
        self.enough.wait(timeout=60)
        with self.lock:
            self.busy -= 1
        return Reply('{"score": 0.5}')


def test_503s_lower_the_calls_in_flight_and_the_report_shows_it(server, make_service):
    """16 calls go out at once (all in the first episode) against 2 slots held until 15 refusals: the 14 refused
    of the first wave halve the limit once (16 → 8), and a refused retry, sent in the next episode, halves it
    again, so it ends at 4 or lower whatever the timing."""
    server.responder = Slots(2, refusals=15)
    service = make_service(llm_concurrency=16, llm_max_attempts=50)
    request = ChatRequest([{"role": "user", "content": "Rate. Answer JSON."}], role="judge",
                          schema=ResponseSchema("score", shapes.ScaleScore.response_schema()))

    async def go():
        async with service:
            return await service.complete_many([request] * 40)

    done = asyncio.run(go())
    assert all(c.status == "ok" for c in done)
    concurrency = service.usage_report().written()["concurrency"]
    assert concurrency["ceiling"] == 16 and concurrency["reductions"] >= 1
    assert concurrency["lowest"] <= 4


def test_timeouts_lower_the_calls_in_flight(server, make_service):
    """The first wave of 8 never gets a reply in time (the server waits for each client to hang up); the retries
    are answered at once, well within the timeout (the test waits this timeout once)."""
    timeout_s = 2.0
    service = make_service(llm_concurrency=8, llm_timeout_s=timeout_s, llm_max_attempts=3)
    calls = {"n": 0}
    lock = threading.Lock()

    def respond(body):
        with lock:
            calls["n"] += 1
            first_wave = calls["n"] <= 8
        return Reply('{"score": 0.5}', until_hang_up=first_wave)

    server.responder = respond

    async def go():
        async with service:
            return await service.complete_many([ChatRequest([{"role": "user", "content": f"q{i}"}], role="judge")
                                                for i in range(8)])

    done = asyncio.run(go())
    assert all(c.status == "ok" and c.attempts == 2 for c in done)
    concurrency = service.usage_report().written()["concurrency"]
    assert concurrency["reductions"] == 1 and concurrency["lowest"] == 4  # halved once for the whole wave
    # the answering attempt's time, not the timed-out one's (which lasted the whole timeout)
    assert all(c.latency_ms < timeout_s * 1000 for c in done)


def test_the_usage_report_names_the_structured_output_of_each_model(server, make_service):
    server.responder = lambda body: Reply(json.dumps({"score": 0.5}))
    service = make_service(llm_structured_output="auto")
    rate(service)
    assert service.usage_report().written()["structured_output"]["by_model"] == {MODEL: "json_schema"}


def test_a_reply_that_fails_validation_is_not_served_from_the_cache_on_a_rerun(server, make_service):
    server.responder = lambda body: Reply("I cannot rate this.")
    assert rate(make_service(llm_cache=True)).status == "parse_error"
    assert len(server.chat_requests) == 2  # the first answer and the repair
    server.responder = lambda body: Reply('{"score": 0.5}')
    rerun = rate(make_service(llm_cache=True))
    assert (rerun.status, rerun.value, rerun.cached) == ("ok", 0.5, False)
    assert len(server.chat_requests) == 3  # asked again, not the cached failure
    again = rate(make_service(llm_cache=True))
    assert again.cached and len(server.chat_requests) == 3  # a good reply stays cached


@pytest.mark.parametrize(("declared", "setting", "expected"), [(2, 16, 2), (None, 3, 3), (8, 3, 3)])
def test_calls_in_flight_never_exceed_the_slots_the_server_declares(server, make_service, declared, setting, expected):
    """llama.cpp's /props says how many requests it serves at once: more would only queue there, their clocks
    running. A server that does not say leaves the setting; a setting below the slots stays the bound."""
    server.props = None if declared is None else {"model_path": "/models/judge.gguf", "total_slots": declared}
    server.latency = 0.05
    server.responder = lambda body: Reply('{"score": 0.5}')
    service = make_service(llm_concurrency=setting)

    async def go():
        async with service:
            units = await service.open_at_once()
            done = await service.complete_many([ChatRequest([{"role": "user", "content": f"q{i}"}], role="judge")
                                                for i in range(12)])
            return units, done

    units, done = asyncio.run(go())
    assert all(c.status == "ok" for c in done)
    assert server.max_in_flight == expected and units == 2 * expected
    concurrency = service.usage_report().written()["concurrency"]
    assert concurrency["ceiling"] == expected and concurrency["server_slots"] == declared
