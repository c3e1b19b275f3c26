"""A user's rubric metric: the bench.toml table and its checks, the answer's shape, the prompt, the score."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field

import pytest

from benchmarks.chat.client import Completion
from benchmarks.config import check_rubrics, load_settings
from benchmarks.errors import BenchError
from benchmarks.judge import catalog
from benchmarks.judge.judged_metrics.rubric import rubric_score, rubrics_of, sample_block
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.parsing import parse_output
from benchmarks.judge.llm.prompts import RUBRIC, render
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample
from benchmarks.transport.redaction import redacted

WHERE = "bench.toml: key 'rubrics'"
POLITE = {"criteria": {"en": "Is the response polite?", "ru": "Вежлив ли ответ?"}, "scale": "binary",
          "needs": ["user_input", "response"]}
SAMPLE = Sample(id="s1", user_input="Where is the form?", response="On the HR portal.", reference="HR portal.",
                retrieved_contexts=("Forms are on the HR portal.", "The portal needs SSO."))


# --- the bench.toml table -----------------------------------------------------------------------


def test_a_rubric_is_kept_in_plain_types_with_its_fields_in_showing_order():
    parsed = check_rubrics({"politeness": {"criteria": {"en": "  Is it polite?  "}, "scale": "1-5",
                                           "needs": ["response", "retrieved_contexts", "user_input"]}}, WHERE)
    assert parsed == {"politeness": {"criteria": {"en": "Is it polite?"}, "scale": "1-5",
                                     "needs": ["user_input", "retrieved_contexts", "response"]}}
    json.dumps(parsed)  # goes into reports and a run's identity as is


def test_needs_default_to_the_question_and_the_response():
    parsed = check_rubrics({"tone": {"criteria": {"ru": "Спокоен ли тон?"}, "scale": "binary"}}, WHERE)
    assert parsed["tone"]["needs"] == ["user_input", "response"]


@pytest.mark.parametrize(("table", "message"), [
    ({"politeness": {**POLITE, "scale": "1-10"}},
     "bench.toml: key 'rubrics': rubric 'politeness': scale must be binary or 1-5, got '1-10'"),
    ({"politeness": {"criteria": POLITE["criteria"]}},
     "bench.toml: key 'rubrics': rubric 'politeness': scale must be binary or 1-5, missing"),
    ({"avg_tone": POLITE}, "rubric 'avg_tone': names starting with avg_ are tiers 2 and 3's ratings"),
    ({"Polite-ness": POLITE}, "rubric 'Polite-ness': a rubric's name is lowercase letters, digits and underscores"),
    ({"politeness": {**POLITE, "weight": 2}}, "rubric 'politeness': unknown key(s) weight; a rubric has criteria, "
                                              "scale, needs"),
    ({"politeness": {**POLITE, "needs": ["response", "answer"]}},
     "rubric 'politeness': needs: unknown sample field(s) answer; fields: user_input, retrieved_contexts, response, "
     "reference"),
    ({"politeness": {**POLITE, "needs": []}}, "rubric 'politeness': needs must be a non-empty list of sample fields"),
    ({"politeness": {**POLITE, "needs": "response"}}, "needs must be a non-empty list"),
    ({"politeness": {**POLITE, "needs": ["response", "response"]}}, "needs lists a field twice"),
    ({"politeness": {"scale": "binary"}}, "rubric 'politeness': criteria missing: criteria = { en = "),
    ({"politeness": {**POLITE, "criteria": "Is it polite?"}}, "criteria must be a table of language = text"),
    ({"politeness": {**POLITE, "criteria": {}}}, "criteria must be a table of language = text"),
    ({"politeness": {**POLITE, "criteria": {"de": "Ist sie höflich?"}}},
     "rubric 'politeness': criteria in unknown language 'de' (languages: en, ru)"),
    ({"politeness": {**POLITE, "criteria": {"en": "  "}}}, "criteria.en must be a non-empty text"),
    ({"politeness": "Is it polite?"}, "rubric 'politeness': expected a table with criteria, scale and needs"),
    (["politeness"], "bench.toml: key 'rubrics': expected a table of rubrics"),
])
def test_a_bad_rubric_is_one_message_naming_the_file_key_and_rubric(table, message):
    with pytest.raises(BenchError) as error:
        check_rubrics(table, WHERE)
    assert message in str(error.value)
    assert str(error.value).startswith(WHERE)


def test_bench_toml_declares_a_rubric_at_the_end_of_the_file(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('index = "hnsw"\n\n'
                      '[rubrics.politeness]\n'
                      'criteria = { en = "Is the response polite?", ru = "Вежлив ли ответ?" }\n'
                      'scale = "binary"\n'
                      'needs = ["user_input", "response"]\n\n'
                      '[rubrics.grounded.criteria]\n'
                      'en = "Does the response stay within the contexts?"\n\n'
                      '[rubrics.grounded]\n'
                      'scale = "1-5"\n', encoding="utf-8")
    settings, sources = load_settings(config_file=config, environ={})
    assert settings.rubrics == {"politeness": POLITE,
                                "grounded": {"criteria": {"en": "Does the response stay within the contexts?"},
                                             "scale": "1-5", "needs": ["user_input", "response"]}}
    assert sources["rubrics"] == "bench.toml"
    assert redacted(settings)["rubrics"] == settings.rubrics  # shown in reports as declared
    assert [r.name for r in rubrics_of(settings.rubrics)] == ["politeness", "grounded"]


def test_a_bad_table_in_bench_toml_names_the_file(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('[rubrics.politeness]\ncriteria = { en = "Polite?" }\nscale = "1-10"\n', encoding="utf-8")
    with pytest.raises(BenchError) as error:
        load_settings(config_file=config, environ={})
    assert str(error.value) == (f"{config}: key 'rubrics': rubric 'politeness': scale must be binary or 1-5, "
                                "got '1-10'")


def test_the_environment_gives_the_same_table_as_json(tmp_path):
    settings, sources = load_settings(config_file=None, environ={"BENCH_RUBRICS": json.dumps({"politeness": POLITE})})
    assert settings.rubrics == {"politeness": POLITE} and sources["rubrics"] == "env"
    with pytest.raises(BenchError, match="environment variable BENCH_RUBRICS: expected a table of rubrics, got text"):
        load_settings(config_file=None, environ={"BENCH_RUBRICS": "politeness"})


def test_without_rubrics_the_setting_is_unset():
    settings, _ = load_settings(config_file=None, environ={})
    assert settings.rubrics is None and rubrics_of(settings.rubrics) == ()


# --- the judge's answer -------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "low", "high", "score"), [
    ('{"reason": "polite", "score": 1}', 0, 1, 1),
    ('{"reason": "rude", "score": 0}', 0, 1, 0),
    ('{"reason": "fine", "score": 4.0}', 1, 5, 4),  # a whole number written as a float
    ('Sure: {"reason": "fine", "score": 5}', 1, 5, 5),
])
def test_a_score_on_the_scale_validates(text, low, high, score):
    parsed = parse_output(text, shapes.RubricScore.on_scale(low, high))
    assert parsed.status == "ok", parsed.error
    assert parsed.value.score == score and isinstance(parsed.value.score, int)


@pytest.mark.parametrize(("text", "low", "high", "error"), [
    ('{"reason": "r", "score": 2}', 0, 1, "from 0 to 1, got 2"),
    ('{"reason": "r", "score": 0}', 1, 5, "from 1 to 5, got 0"),
    ('{"reason": "r", "score": 6}', 1, 5, "from 1 to 5, got 6"),
    ('{"reason": "r", "score": 0.5}', 0, 1, "valid integer"),
    ('{"reason": "r", "score": 3.5}', 1, 5, "valid integer"),
    ('{"reason": "r", "score": true}', 0, 1, "not true/false"),
    ('{"reason": "r", "score": "1"}', 0, 1, "valid integer"),
    ('{"score": 1}', 0, 1, "reason"),
    ('{"reason": " ", "score": 1}', 0, 1, "reason"),
])
def test_a_score_off_the_scale_or_without_reason_is_a_parse_error(text, low, high, error):
    parsed = parse_output(text, shapes.RubricScore.on_scale(low, high))
    assert parsed.status == "parse_error" and error in parsed.error


def test_scaled_shapes_are_cached():
    assert shapes.RubricScore.on_scale(1, 5) is shapes.RubricScore.on_scale(1, 5)
    assert shapes.RubricScore.on_scale(0, 1).high == 1


def test_the_score_is_reported_on_the_rubrics_own_scale():
    assert rubric_score(4, low=1, high=5) == Outcome.scored(4.0)
    assert rubric_score(1, low=0, high=1).value == 1.0
    for bad in (0, 6, 2.5, True):
        with pytest.raises(ValueError, match="whole number from 1 to 5"):
            rubric_score(bad, low=1, high=5)
    with pytest.raises(ValueError, match="low < high"):
        rubric_score(1, low=1, high=1)


# --- the prompt ---------------------------------------------------------------------------------


def test_the_sample_is_shown_with_the_needed_fields_labelled_in_the_prompt_language():
    assert sample_block(SAMPLE, ("user_input", "response"), "en") == (
        "Question: Where is the form?\nResponse: On the HR portal.")
    assert sample_block(SAMPLE, ("user_input", "retrieved_contexts", "reference", "response"), "ru") == (
        "Вопрос: Where is the form?\nКонтексты:\n[1] Forms are on the HR portal.\n[2] The portal needs SSO.\n"
        "Эталонный ответ: HR portal.\nОтвет: On the HR portal.")
    assert sample_block(Sample(id="e", retrieved_contexts=()), ("retrieved_contexts",), "en") == "Contexts: (none)"


def test_the_rendered_prompt_holds_the_criteria_the_scale_and_the_sample():
    prompt = render(RUBRIC, "ru", {"criteria": "Вежлив ли ответ?", "low": "1", "high": "5",
                                   "sample": sample_block(SAMPLE, ("user_input", "response"), "ru")})
    assert "Критерий: Вежлив ли ответ?" in prompt
    assert "Шкала: целое число от 1 до 5." in prompt
    assert prompt.endswith("Теперь реальные данные.\nВопрос: Where is the form?\nОтвет: On the HR portal.\nОценка:\n")


# --- scoring through the judge, with one repair ---------------------------------------------------


@dataclass
class ScriptedService:
    """An LLM service that answers from a list and records the messages it was sent."""

    replies: list[str]
    sent: list[list[dict]] = field(default_factory=list)

    async def complete(self, messages, *, role, model=None, repeat=0, **options):
        self.sent.append(list(messages))
        return Completion(status="ok", text=self.replies.pop(0), model=model, role=role, usage=None,  # type: ignore[arg-type]
                          latency_ms=1.0, attempts=1, cached=False)

    def discard(self, completion):
        pass


def score(replies: list[str], rubric: dict, language: str = "en", sample: Sample = SAMPLE):
    service = ScriptedService(replies)
    judge = LLMJudge(service, language, None, metrics=catalog.metrics({"politeness": rubric}))  # type: ignore[arg-type]
    return asyncio.run(judge.score("politeness", sample, "m")), service


def test_a_rubric_is_one_call_scored_on_its_scale_with_the_judges_reason():
    outcome, service = score(['{"reason": "Polite and helpful.", "score": 4}'], {**POLITE, "scale": "1-5"})
    assert (outcome.value, outcome.status, outcome.explanation, outcome.calls) == (4.0, "ok", "Polite and helpful.", 1)
    prompt = service.sent[0][0]["content"]
    assert "Criterion: Is the response polite?" in prompt and "from 1 to 5" in prompt
    assert prompt.endswith("Question: Where is the form?\nResponse: On the HR portal.\nOutput:\n")
    assert "Contexts" not in prompt.split("Now the real input.")[1]  # only the needed fields


def test_a_score_off_the_scale_is_repaired_once_then_a_parse_error():
    repaired, service = score(['{"reason": "Polite.", "score": 5}', '{"reason": "Polite.", "score": 1}'], POLITE)
    assert (repaired.value, repaired.status, repaired.calls) == (1.0, "ok", 2)
    assert "score must be a whole number from 0 to 1, got 5" in service.sent[1][-1]["content"]
    failed, _ = score(['{"reason": "Polite.", "score": 5}', '{"score": 1}'], POLITE)
    assert (failed.value, failed.status, failed.calls) == (None, "parse_error", 2)
    assert failed.explanation.startswith("rubric: the JSON object does not have the required form")


def test_a_sample_without_a_needed_field_is_undetermined_without_a_call():
    outcome, service = score([], {**POLITE, "needs": ["response", "reference"]}, sample=Sample(id="x", response="r"))
    assert (outcome.status, outcome.explanation, outcome.calls) == ("undetermined", "missing field(s): reference", 0)
    assert service.sent == []


def test_a_language_without_criteria_is_undetermined_if_it_ever_gets_that_far():
    outcome, service = score([], {**POLITE, "criteria": {"en": "Polite?"}}, language="ru")
    assert outcome.status == "undetermined" and "no criteria in 'ru'" in outcome.explanation
    assert service.sent == []


def test_a_rubric_under_a_built_in_metrics_name_is_refused_naming_the_file(tmp_path):
    """The judge's catalog, which knows the built-in metrics, refuses it, named as the user gave it."""
    config = tmp_path / "bench.toml"
    config.write_text('[rubrics.faithfulness]\ncriteria = { en = "Faithful?" }\nscale = "binary"\n', encoding="utf-8")
    settings, origins = load_settings(config_file=config, environ={})
    with pytest.raises(BenchError) as error, origins.naming():
        catalog.metrics(settings.rubrics)
    assert str(error.value) == (f"{config}: key 'rubrics': rubric 'faithfulness': 'faithfulness' is a built-in "
                                "metric; give the rubric another name")
