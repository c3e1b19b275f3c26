"""The LLM reply cache keys each reply by the server that gave it, and reports name that server.

One model name served by two servers (llama.cpp's --alias, vLLM's --served-model-name, Ollama, a gateway)
is two systems: each must be asked, and a rerun against either is answered by the cache alone. A server
redeployed at the same address with other weights, as its /models or /props says, is asked again.

The session's data folder (and so its reply cache) is shared by every test: each test has its own model
name, so that a port used again by a later test's server cannot meet an earlier test's replies.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from pathlib import Path

import pytest

from benchmarks.chat.cache import FILE_NAME
from benchmarks.chat.client import LLMService
from benchmarks.config import Settings
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration


def tier2(bench, out: Path):
    """The smallest tier 2 run whose answers go through the reply cache: 5 questions, an offline judge."""
    return bench("tier2", "--dataset", "synthetic", "--limit", "5", "--generator", "openai", "--judge", "offline",
                 "-o", out)


def answer_texts(out: Path) -> list[str]:
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    return [answer["text"] for item in items for answer in item["answers"]]


def test_two_servers_under_one_model_name_each_answer_for_themselves(bench, tmp_path, monkeypatch):
    model = "served-model-two-servers"
    monkeypatch.setenv("BENCH_LLM_MODEL", model)
    with FakeOpenAI(default_text="The first server's answer.") as first, \
            FakeOpenAI(default_text="The second server's answer.") as second:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", first.base_url)
        on_first = tier2(bench, tmp_path / "first")
        monkeypatch.setenv("BENCH_LLM_BASE_URL", second.base_url)
        on_second = tier2(bench, tmp_path / "second")
        asked = len(second.chat_requests)
        rerun = tier2(bench, tmp_path / "rerun")

    for result in (on_first, on_second, rerun):
        assert result.exit_code == 0, result.output
    first_answers, second_answers = answer_texts(tmp_path / "first"), answer_texts(tmp_path / "second")
    assert len(first.chat_requests) == len(first_answers) > 0
    assert asked == len(second_answers) == len(first_answers)  # not one answer taken from the first server's
    assert set(first_answers) == {"The first server's answer."}
    assert set(second_answers) == {"The second server's answer."}
    assert len(second.chat_requests) == asked  # the rerun made no call
    assert answer_texts(tmp_path / "rerun") == second_answers

    report = json.loads((tmp_path / "rerun" / "report.json").read_text())
    assert report["volatile"]["llm"]["calls"] == 0
    assert report["volatile"]["llm"]["cache_hits"] == len(second_answers)
    assert report["volatile"]["llm"]["endpoint"] == second.base_url
    assert report["provenance"]["generator"]["url"] == second.base_url
    assert report["provenance"]["generator"]["model"] == model
    assert f"System under test `openai` (`{model}`) at `{second.base_url}`" in \
        (tmp_path / "rerun" / "report.md").read_text()
    assert f"system under test: openai ({model}) at {second.base_url}" in rerun.output
    first_report = json.loads((tmp_path / "first" / "report.json").read_text())
    assert first_report["provenance"]["generator"]["url"] == first.base_url


def test_credentials_in_the_url_reach_neither_the_cache_nor_the_report(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_LLM_MODEL", "served-model-credentials")
    with FakeOpenAI(default_text="An answer.") as server:
        address = server.base_url.removeprefix("http://")
        monkeypatch.setenv("BENCH_LLM_BASE_URL", f"http://bench-user:s3cret-pw@{address}")
        with_password = tier2(bench, tmp_path / "out")
        asked = len(server.chat_requests)
        monkeypatch.setenv("BENCH_LLM_BASE_URL", f"http://{address}/")  # the same server, no credentials
        without = tier2(bench, tmp_path / "again")

    assert with_password.exit_code == 0 and without.exit_code == 0, with_password.output + without.output
    assert asked > 0 and len(server.chat_requests) == asked  # one key for both spellings: no credential in it
    cache = Path(os.environ["BENCH_DATA_DIR"]) / FILE_NAME
    stored = b"".join(path.read_bytes() for path in cache.parent.glob(f"{FILE_NAME}*"))  # the WAL too
    assert b"s3cret-pw" not in stored and b"bench-user" not in stored
    written = "".join(path.read_text() for path in (tmp_path / "out").iterdir())
    assert "s3cret-pw" not in written + with_password.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["provenance"]["generator"]["url"] == f"http://bench-user:***@{address}"


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def make_service(tmp_path, waits):
    """A service with its own cache folder, on `server`; settings overridden per call; backoff recorded."""

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    def make(server: FakeOpenAI, **overrides) -> LLMService:
        settings = Settings(data_dir=tmp_path / "data", llm_base_url=server.base_url, llm_model="served-model",
                            llm_timeout_s=5.0, llm_cache=True)
        return LLMService(dataclasses.replace(settings, **overrides), sleep=sleep, random=lambda: 1.0)  # top waits

    return make


def ask(service: LLMService, *questions: str) -> list[str | None]:
    async def go() -> list[str | None]:
        async with service:
            found = [await service.complete([{"role": "user", "content": q}], role="generator")
                     for q in questions]
        return [c.text for c in found]

    return asyncio.run(go())


def test_a_server_redeployed_with_other_weights_is_asked_again(make_service):
    """llama.cpp names the file it loaded in /props, vLLM the weights behind the served name in /models."""
    with FakeOpenAI() as server:
        server.props = {"model_path": "/models/qwen-7b-q4_k_m.gguf", "total_slots": 4}
        server.models = [{"id": "served-model", "object": "model", "created": 1, "root": "/models/qwen-7b"}]
        server.script(Reply("q4 answer"))
        assert ask(make_service(server), "q") == ["q4 answer"]
        server.models[0]["created"] = 2  # the time of the request, on vLLM and llama.cpp: not the weights
        assert ask(make_service(server), "q") == ["q4 answer"]
        assert len(server.chat_requests) == 1

        server.props = {"model_path": "/models/qwen-7b-q8_0.gguf", "total_slots": 4}  # redeployed
        server.script(Reply("q8 answer"))
        assert ask(make_service(server), "q") == ["q8 answer"]
        server.models = [{"id": "served-model", "object": "model", "root": "/models/qwen-14b"}]
        server.script(Reply("14b answer"))
        service = make_service(server)
        assert ask(service, "q") == ["14b answer"]
        assert ask(make_service(server), "q") == ["14b answer"]  # and the new deployment's replies are cached
        assert len(server.chat_requests) == 3

    identity = {"root": "/models/qwen-14b", "model_path": "/models/qwen-7b-q8_0.gguf"}
    assert service.usage_report().written()["served"] == {"served-model": {"identity": identity, "source": "endpoint"}}


def test_a_server_that_does_not_say_what_it_serves_is_keyed_by_url_and_model(make_service):
    """404 (the test server's default) and 501 are lasting answers: the key does without, and reruns hit."""
    with FakeOpenAI() as server:
        service = make_service(server)
        assert ask(service, "q1", "q2") == ["OK", "OK"]
        assert sorted(server.get_requests) == ["/props", "/v1/models"]  # asked once a run, not once a call
        server.get_status = 501
        rerun = make_service(server)
        assert ask(rerun, "q1", "q2") == ["OK", "OK"]
    assert len(server.chat_requests) == 2
    assert service.usage_report().written()["served"] == rerun.usage_report().written()["served"] == {
        "served-model": {"identity": None, "source": "endpoint"}}


def test_an_overloaded_listing_is_retried_then_the_last_complete_answer_keys_the_calls(make_service, waits):
    with FakeOpenAI() as server:
        server.props = {"model_path": "/models/a.gguf"}
        server.script(Reply("from a"))
        assert ask(make_service(server), "q") == ["from a"]
        server.get_status = 503  # a llama.cpp server still loading answers 503 to everything
        busy = make_service(server, llm_max_attempts=3)
        assert ask(busy, "q") == ["from a"]
    assert sorted(waits) == [2.0, 2.0, 4.0, 4.0]  # /models and /props, 3 tries each, as a chat call's
    assert len(server.chat_requests) == 1
    assert busy.usage_report().written()["served"]["served-model"] == {"identity": {"model_path": "/models/a.gguf"},
                                                             "source": "recorded"}


def test_spellings_of_one_address_share_the_cache(make_service):
    with FakeOpenAI() as server:
        port = server.base_url.split(":")[-1].split("/")[0]
        ask(make_service(server), "q")
        for spelling in (f"http://LOCALHOST:{port}/v1/", f"http://localhost:{port}/v1"):
            ask(make_service(server, llm_base_url=spelling), "q")
        assert len(server.chat_requests) == 2  # 127.0.0.1 and localhost are two names: asked apart


def test_the_system_fingerprint_is_reported_not_keyed(make_service):
    """It arrives with the reply, after the key was needed; kept with the cached reply, so a rerun reports it."""
    with FakeOpenAI() as server:
        server.script(Reply("answer", system_fingerprint="fp_44709d6fcb"))
        first = make_service(server)
        ask(first, "q")
        rerun = make_service(server)
        ask(rerun, "q")
    assert len(server.chat_requests) == 1
    for service in (first, rerun):
        assert service.usage_report().written()["by_role"]["generator"]["served-model"]["system_fingerprints"] == \
            ["fp_44709d6fcb"]
