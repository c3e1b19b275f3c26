"""The chat seam: judges, generators and tiers hold a `ChatBackend`; the shipped OpenAI-compatible client has
every member the protocol names, with the same parameters, and `open_chat` opens it."""

import inspect

from benchmarks.chat.backend import BACKENDS, ChatBackend, open_chat
from benchmarks.chat.client import LLMService
from benchmarks.config import Settings

MEMBERS = [name for name in vars(ChatBackend) if not name.startswith("_") or name in ("__aenter__", "__aexit__")]


def test_the_shipped_client_has_every_member_of_the_protocol_with_its_parameters():
    assert {"complete", "discard", "gives_logprobs", "model_for", "open_at_once", "usage_report"} <= set(MEMBERS)
    for name in MEMBERS:
        protocol, shipped = getattr(ChatBackend, name), getattr(LLMService, name)
        assert list(inspect.signature(protocol).parameters) == list(inspect.signature(shipped).parameters)[
            :len(inspect.signature(protocol).parameters)], name
        assert inspect.iscoroutinefunction(protocol) == inspect.iscoroutinefunction(shipped), name


def test_open_chat_opens_the_registered_backend(tmp_path):
    settings = Settings(llm_base_url="http://127.0.0.1:9/v1", llm_model="m", data_dir=tmp_path)
    opened = open_chat(settings, roles=("judge",))
    assert isinstance(opened, LLMService) and opened.url == "http://127.0.0.1:9/v1"
    assert list(BACKENDS) == ["openai"]
