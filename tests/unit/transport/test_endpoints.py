"""The endpoint's name in every cache key: one spelling per server, never a credential; and what a server says
it serves, read only from the fields that stay the same from one request to the next."""

import pytest

from benchmarks.errors import BenchError
from benchmarks.transport.endpoints import endpoint_identity, endpoint_url, props_url, served_identity


@pytest.mark.parametrize("spelling", [
    "http://127.0.0.1:8080/v1",
    "http://127.0.0.1:8080/v1/",
    "http://127.0.0.1:8080/v1//",
    "  http://127.0.0.1:8080/v1  ",
    "HTTP://127.0.0.1:8080/v1",
    "http://user:secret@127.0.0.1:8080/v1",
    "http://127.0.0.1:8080/v1?api_key=secret#frag",
])
def test_spellings_of_one_server_are_one_endpoint(spelling):
    assert endpoint_url(spelling, setting="llm_base_url") == "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(("url", "normalised"), [
    ("https://API.OpenAI.com:443/v1", "https://api.openai.com/v1"),  # the scheme's default port
    ("http://localhost:80", "http://localhost"),
    ("https://localhost:80/v1", "https://localhost:80/v1"),  # not https's default: another server
    ("http://localhost:443/v1", "http://localhost:443/v1"),
    ("http://[::1]:8000/v1/", "http://[::1]:8000/v1"),
    ("https://gw.example.com/openai/deployments/gpt/", "https://gw.example.com/openai/deployments/gpt"),
])
def test_default_ports_case_and_trailing_slashes_are_normalised(url, normalised):
    assert endpoint_url(url, setting="llm_base_url") == normalised


@pytest.mark.parametrize(("first", "second"), [
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8081/v1"),  # another port
    ("http://127.0.0.1:8080/v1", "https://127.0.0.1:8080/v1"),  # another scheme
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v2"),  # another path
    ("http://gpu-1:8000/v1", "http://gpu-2:8000/v1"),  # another host
])
def test_two_servers_are_never_one_endpoint(first, second):
    assert endpoint_url(first, setting="llm_base_url") != endpoint_url(second, setting="llm_base_url")


def test_no_credential_reaches_the_normalised_url():
    url = "https://bench:pa55word@gw.example.com:8443/v1/?api_key=sk-123&password=pa55word"
    assert endpoint_url(url, setting="llm_base_url") == "https://gw.example.com:8443/v1"


@pytest.mark.parametrize("url", ["localhost:8080/v1", "//host/v1", "http://", "http://host:port/v1",
                                 "http://[::1/v1"])
def test_a_malformed_url_is_one_error_naming_the_setting_with_the_password_masked(url):
    with pytest.raises(BenchError, match="^llm_base_url "):
        endpoint_url(url, setting="llm_base_url")
    with pytest.raises(BenchError) as caught:
        endpoint_url(url.replace("//", "//u:pa55word@", 1), setting="llm_base_url")
    assert "pa55word" not in str(caught.value)


def test_the_embedding_id_is_the_normalised_url_without_its_scheme():
    assert endpoint_identity("https://api.openai.com:443/v1/") == "api.openai.com/v1"
    assert endpoint_identity("http://user:pw@Host:8080/v1?key=k") == "host:8080/v1"
    with pytest.raises(BenchError, match="^embedding_base_url "):
        endpoint_identity("localhost-8080")


@pytest.mark.parametrize(("base", "props"), [
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/props"),
    ("http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/props"),
    ("http://127.0.0.1:8080", "http://127.0.0.1:8080/props"),  # llama.cpp answers without /v1 too
    ("http://u:p@host/llama/v1?x=1", "http://u:p@host/llama/props"),  # the request authenticates as chat calls do
])
def test_props_is_asked_at_the_server_root(base, props):
    assert props_url(base) == props


VLLM = {"object": "list", "data": [
    {"id": "served-model", "object": "model", "created": 1767225600, "owned_by": "vllm",
     "root": "/models/Qwen2.5-7B-Instruct", "parent": None, "max_model_len": 32768,
     "permission": [{"id": "modelperm-3f1c", "created": 1767225600}]},
    {"id": "other", "object": "model", "root": "/models/other"},
]}
LLAMA_CPP = {"object": "list", "data": [
    {"id": "/models/qwen-7b-q4_k_m.gguf", "aliases": ["served-model"], "object": "model", "created": 1767225600,
     "owned_by": "llamacpp", "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx": 4096, "n_ctx_train": 32768,
                                      "n_embd": 3584, "n_params": 7615616512, "size": 4683071488, "ftype": 15}},
]}


def test_vllm_names_the_weights_behind_the_served_name():
    assert served_identity(VLLM, None, "served-model") == {"root": "/models/Qwen2.5-7B-Instruct"}
    assert served_identity(VLLM, None, "other") == {"root": "/models/other"}


def test_what_changes_by_request_or_server_option_is_left_out():
    """`created` is the request's time on vLLM and llama.cpp, permission ids are random, `n_ctx` and
    `max_model_len` are server options: keyed by them, a rerun would never find its replies."""
    later = {"object": "list", "data": [{**VLLM["data"][0], "created": 1767229200,
                                         "permission": [{"id": "modelperm-9a07", "created": 1767229200}]}]}
    assert served_identity(later, None, "served-model") == served_identity(VLLM, None, "served-model")
    resized = {"object": "list", "data": [{**LLAMA_CPP["data"][0],
                                           "meta": {**LLAMA_CPP["data"][0]["meta"], "n_ctx": 8192}}]}
    assert served_identity(resized, None, "served-model") == served_identity(LLAMA_CPP, None, "served-model")


def test_llama_cpp_is_found_by_alias_and_named_by_its_file():
    identity = served_identity(LLAMA_CPP, {"model_path": "/models/qwen-7b-q4_k_m.gguf", "total_slots": 4},
                               "served-model")
    assert identity == {"model_path": "/models/qwen-7b-q4_k_m.gguf",
                        "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 32768, "n_embd": 3584,
                                 "n_params": 7615616512, "size": 4683071488, "ftype": 15}}
    redeployed = served_identity(LLAMA_CPP, {"model_path": "/models/qwen-7b-q8_0.gguf"}, "served-model")
    assert redeployed != identity


@pytest.mark.parametrize(("models", "props"), [
    (None, None),  # neither answered
    ({"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model", "created": 1721172741,
                                  "owned_by": "system"}]}, None),  # OpenAI's list names models only
    ({"object": "list", "data": [{"id": "another-model", "root": "/x"}]}, None),  # not listed
    ("<html>not found</html>", {"error": "no props"}),  # not the shapes asked for
    ({"data": "nope"}, {"model_path": 7}),
    ({"data": [None, "served-model", {"id": "served-model", "aliases": "served-model"}]}, []),
])
def test_a_server_that_says_nothing_about_its_weights_has_no_identity(models, props):
    assert served_identity(models, props, "served-model") is None
