"""The chat seam: judges, generators and tiers hold a `ChatBackend`; the shipped OpenAI-compatible client and the
router over named providers have every member the protocol names, with the same parameters; `open_chat` opens the
backend the settings name, and the `chat_backend` setting offers exactly the registered backends."""

import inspect
import typing

import pytest

from benchmarks.chat.backend import BACKENDS, ChatBackend, open_chat
from benchmarks.chat.client import LLMService
from benchmarks.chat.routed import RoutedChat
from benchmarks.chat.routing import judge_endpoints, route
from benchmarks.config import Settings, setting_type
from benchmarks.config.provider_settings import Provider, providers_list
from benchmarks.errors import BenchError
from benchmarks.report_model import Judge

MEMBERS = [name for name in vars(ChatBackend) if not name.startswith("_") or name in ("__aenter__", "__aexit__")]
API = Provider("api", "https://user:pw@api.example.com/v1", "API_KEY_OF_TEST", ("gpt-4o-mini",))


@pytest.mark.parametrize("shipped", [LLMService, RoutedChat])
def test_every_backend_has_every_member_of_the_protocol_with_its_parameters(shipped):
    assert {"complete", "discard", "gives_logprobs", "model_for", "open_at_once", "usage_report", "url_of",
            "require_reachable"} <= set(MEMBERS)
    for name in MEMBERS:
        protocol, found = getattr(ChatBackend, name), getattr(shipped, name)
        assert list(inspect.signature(protocol).parameters) == list(inspect.signature(found).parameters)[
            :len(inspect.signature(protocol).parameters)], name
        assert inspect.iscoroutinefunction(protocol) == inspect.iscoroutinefunction(found), name


def test_the_chat_backend_setting_offers_exactly_the_registered_backends():
    assert set(typing.get_args(setting_type("chat_backend"))) == set(BACKENDS)


def test_open_chat_opens_the_registered_backend(tmp_path):
    settings = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m", data_dir=tmp_path)
    opened = open_chat(settings, roles=("judge",))
    assert isinstance(opened, LLMService) and opened.url_of("m") == "http://127.0.0.1:9/v1"


def test_a_model_named_with_its_provider_is_asked_there_with_its_key(tmp_path, monkeypatch):
    monkeypatch.setenv("API_KEY_OF_TEST", "k-123")
    settings = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m", data_dir=tmp_path, providers=(API,),
                        llm_models=("api:gpt-4o-mini", "qwen2.5:7b"))
    asked = route(settings, "api:gpt-4o-mini")
    assert (asked.model, asked.endpoint.api_key, asked.endpoint.url) == (
        "gpt-4o-mini", "k-123", "https://user:***@api.example.com/v1")
    assert "k-123" not in repr(asked)
    # no declared provider before the colon: a model of the default endpoint (Ollama's tags have colons)
    assert route(settings, "qwen2.5:7b").endpoint.url == "http://127.0.0.1:9/v1"
    located = judge_endpoints(Judge(backend="llm"), settings, settings.llm_models or ())
    assert located.written() == {"backend": "llm", "endpoints": {
        "api:gpt-4o-mini": "https://user:***@api.example.com/v1", "qwen2.5:7b": "http://127.0.0.1:9/v1"}}
    opened = open_chat(settings, roles=(), judges=True)
    assert isinstance(opened, RoutedChat) and opened.url_of("api:gpt-4o-mini").startswith("https://user:***@")


@pytest.mark.parametrize("raw, message", [
    ([{"name": "a", "base_url": "http://h/v1", "api_key": "x"}], "[0] (a): unknown key 'api_key' (did you mean "
                                                                 "api_key_env?)"),
    ([{"name": "a", "base_url": "http://h/v1"}, {"name": "a", "base_url": "http://g/v1"}],
     "provider 'a' is declared twice"),
    ([{"name": "a:b", "base_url": "http://h/v1"}], "[0]: 'name' must be a word"),
    ([{"name": "a", "base_url": "http://h/v1", "backend": "anthropic"}], "'backend' must be one of openai"),
    ('[{"name": "a"}]', "[0] (a): 'base_url' is missing"),
    ("not json", "expected a list of provider tables, got text that is not JSON"),
])
def test_a_malformed_provider_is_one_line_naming_where(raw, message):
    with pytest.raises(BenchError) as caught:
        providers_list(raw, "environment variable BENCH_PROVIDERS")
    assert str(caught.value).startswith("environment variable BENCH_PROVIDERS")
    assert message in str(caught.value)


def test_providers_from_the_environment_are_the_same_list_as_json():
    assert providers_list('[{"name": "api", "base_url": "https://api.example.com/v1", "chat_models": ["m"]}]',
                          "env") == (Provider("api", "https://api.example.com/v1", None, ("m",)),)
