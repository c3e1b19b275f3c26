"""The http adapter's pure parts: body templates filled value by value, response paths, settings checks."""

import dataclasses
import hashlib
import json

import pytest

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.generation.http_generator import LIST_VARIABLES, TEXT_VARIABLES
from benchmarks.tiers.judge_pipeline import HTTP_VARIABLES
from benchmarks.transport.http_endpoint import EndpointConfig, RequestTemplate, value_at

GENERATOR = {"texts": TEXT_VARIABLES, "lists": LIST_VARIABLES}
NASTY = 'He said "hi",\n\tthen left \\ {question} ❄ </script>'


def template(text: str, **names) -> RequestTemplate:
    return RequestTemplate.parse(text, setting="generator_http_request", **(names or GENERATOR))


def test_values_are_inserted_as_data_so_quotes_and_newlines_cannot_break_the_body():
    body = template(Settings.generator_http_request).fill(
        {"question": NASTY, "question_id": "q1", "contexts": ['a "quoted"\ncontext', "second"], "context": "x"})
    assert body == {"question": NASTY, "contexts": ['a "quoted"\ncontext', "second"]}
    assert json.loads(json.dumps(body)) == body  # a placeholder-like text in a value is not filled again


def test_nested_bodies_keep_their_non_string_values_and_keys():
    text = ('{"input": {"messages": [{"role": "user", "content": "Q: {question}\\n\\n{context}"}]}, '
            '"k": 3, "stream": false, "meta": null, "ids": ["{question_id}", 7], "{question}": "key kept"}')
    body = template(text).fill({"question": "Why?", "question_id": "q7", "contexts": ["c1", "c2"],
                                "context": "c1\n\nc2"})
    assert body == {"input": {"messages": [{"role": "user", "content": "Q: Why?\n\nc1\n\nc2"}]}, "k": 3,
                    "stream": False, "meta": None, "ids": ["q7", 7], "{question}": "key kept"}


def test_a_whole_string_list_placeholder_becomes_a_json_list_even_when_empty():
    filled = template('{"docs": "{contexts}", "n": "{question_id}"}').fill(
        {"question": "q", "question_id": "7", "contexts": (), "context": ""})
    assert filled == {"docs": [], "n": "7"}


def test_literal_braces_are_doubled():
    body = template('{"q": "{{literal}} {question} }}", "json": "{{\\"a\\": 1}}"}').fill(
        {"question": "Q", "question_id": "", "contexts": [], "context": ""})
    assert body == {"q": "{literal} Q }", "json": '{"a": 1}'}


def test_the_template_hash_is_of_its_text():
    text = Settings.show_judge_http_request
    parsed = RequestTemplate.parse(text, setting="show_judge_http_request", texts=HTTP_VARIABLES)
    assert parsed.sha256 == hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize(("text", "message"), [
    ('{"q": "{question}"', "setting generator_http_request: not valid JSON"),
    ("{question}", "setting generator_http_request: not valid JSON"),
    ('{"q": "{user}"}', "setting generator_http_request: unknown placeholder {user}; the template may use "
                        "{context}, {contexts}, {question}, {question_id}"),
    ('{"q": "{question:>10}"}', "unknown placeholder {question:>10}"),
    ('{"q": "{question!r}"}', "unknown placeholder {question!r}"),
    ('{"q": "{question.upper}"}', "unknown placeholder {question.upper}"),
    ('{"q": "{}"}', "unknown placeholder {}"),
    ('{"q": "{question"}', "expected '}' before end of string; write literal braces as {{ and }}"),
    ('{"q": "a } b"}', "Single '}' encountered"),
    ('{"q": "Docs: {contexts}"}', '{contexts} is a list, so it must be a whole string value ("{contexts}")'),
])
def test_a_bad_template_is_refused_naming_the_setting(text, message):
    with pytest.raises(BenchError) as raised:
        template(text)
    assert message in str(raised.value)


def test_placeholders_are_checked_against_what_the_caller_fills_in():
    with pytest.raises(BenchError, match=r"show_judge_http_request: unknown placeholder \{contexts\}"):
        RequestTemplate.parse('{"c": "{contexts}"}', setting="show_judge_http_request", texts=HTTP_VARIABLES)


@pytest.mark.parametrize(("path", "document", "text"), [
    ("answer", {"answer": "Yes"}, "Yes"),
    ("data.answer", {"data": {"answer": "Нет"}}, "Нет"),
    ("choices.0.text", {"choices": [{"text": "first"}, {"text": "second"}]}, "first"),
    ("0", ["top"], "top"),
    ("data.0", {"data": {"0": "a key, not an index"}}, "a key, not an index"),
])
def test_the_text_is_read_at_a_dotted_path(path, document, text):
    assert value_at(document, path) == text


@pytest.mark.parametrize(("path", "document", "message"), [
    ("answer", {"result": "Yes"}, "the response has nothing at 'answer': the response has no key 'answer'"),
    ("data.answer", {"data": {}}, "the response has nothing at 'data.answer': data has no key 'answer'"),
    ("choices.1.text", {"choices": [{}]},
     "the response has nothing at 'choices.1.text': choices is an array of 1 item(s), no item '1'"),
    ("choices.first", {"choices": []}, "choices is an array of 0 item(s), no item 'first'"),
    ("data.answer", {"data": "Yes"}, "the response has nothing at 'data.answer': data is a string"),
    ("answer", {"answer": 1}, "'answer' in the response is a number, not a string"),
    ("answer", {"answer": None}, "'answer' in the response is null, not a string"),
    ("answer", {"answer": {"text": "Yes"}}, "'answer' in the response is an object, not a string"),
    ("answer", ["Yes"], "the response has nothing at 'answer': the response is an array of 1 item(s)"),
])
def test_a_missing_or_wrong_value_says_where_the_path_stopped(path, document, message):
    with pytest.raises(ValueError) as raised:
        value_at(document, path)
    assert message in str(raised.value)


def test_the_config_takes_timeouts_attempts_and_concurrency_from_the_llm_settings():
    settings = Settings(generator_http_url="https://rag.example.com/ask", generator_http_api_key="k",
                        generator_http_response_path="data.answer", llm_timeout_s=9.0, llm_max_attempts=4,
                        llm_concurrency=3)
    config = EndpointConfig.from_settings(settings, "generator", **GENERATOR)
    assert (config.url, config.response_path, config.api_key) == ("https://rag.example.com/ask", "data.answer", "k")
    assert (config.timeout_s, config.max_attempts, config.concurrency) == (9.0, 4, 3)
    assert config.request_template.text == Settings.generator_http_request


def test_the_provenance_masks_a_password_in_the_url():
    settings = Settings(show_judge_http_url="https://bench:s3cret@judge.example.com/v1/decide?password=s3cret")
    config = EndpointConfig.from_settings(settings, "show_judge", texts=HTTP_VARIABLES)
    provenance = dataclasses.asdict(config.provenance())
    assert "s3cret" not in json.dumps(provenance)
    assert provenance == {"url": "https://bench:***@judge.example.com/v1/decide?password=***",
                          "request_template_sha256": config.request_template.sha256, "response_path": "decision"}


@pytest.mark.parametrize(("prefix", "names", "overrides", "message"), [
    ("generator", GENERATOR, {}, "setting generator_http_url is not set: the URL of your RAG service "
                                 "(bench.toml or BENCH_GENERATOR_HTTP_URL)"),
    ("show_judge", {"texts": HTTP_VARIABLES}, {}, "setting show_judge_http_url is not set: the URL of your "
                                                  "production show/no-show judge"),
    ("generator", GENERATOR, {"generator_http_url": "rag.example.com:8080/ask"},
     "setting generator_http_url: expected an http:// or https:// URL, got 'rag.example.com:8080/ask'"),
    ("generator", GENERATOR, {"generator_http_url": "ftp://u:pw@rag.example.com/"},
     "expected an http:// or https:// URL, got 'ftp://u:***@rag.example.com/'"),
    ("generator", GENERATOR, {"generator_http_url": "http://x", "generator_http_response_path": "data..answer"},
     "setting generator_http_response_path: expected a dotted path"),
    ("generator", GENERATOR, {"generator_http_url": "http://x", "generator_http_response_path": ""},
     "setting generator_http_response_path: expected a dotted path"),
    ("show_judge", {"texts": HTTP_VARIABLES},
     {"show_judge_http_url": "http://x", "show_judge_http_request": '{"q": "{question}", "docs": "{contexts}"}'},
     "setting show_judge_http_request: unknown placeholder {contexts}; the template may use {answer}, "
     "{context}, {item_id}, {question}"),
])
def test_settings_are_checked_before_any_call(prefix, names, overrides, message):
    with pytest.raises(BenchError) as raised:
        EndpointConfig.from_settings(Settings(**overrides), prefix, **names)
    assert message in str(raised.value)
