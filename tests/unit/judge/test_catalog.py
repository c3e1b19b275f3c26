"""The judged-metric catalog: one declaration per metric, and what is derived from it (known names,
offline proxies, call counts for --dry-run, direction, embeddings, prompt hashes, help)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from benchmarks.errors import BenchError, SettingError
from benchmarks.judge import catalog
from benchmarks.judge.catalog import BUILTINS, OFFLINE_METRICS, JudgedMetric, describe
from benchmarks.judge.judged_metrics.builtin import faithfulness
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import RUBRIC, TemplateError, load_template, template_sha256
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics import judged
from benchmarks.metrics.judged import __doc__ as judged_doc
from benchmarks.readers.templates import packaged
from benchmarks.samples import Sample

POLITENESS = {"politeness": {"criteria": {"en": "Is the response polite?", "ru": "Вежлив ли ответ?"},
                             "scale": "binary", "needs": ["user_input", "response"]}}
GROUNDED = {"grounded": {"criteria": {"en": "Does the response stay within the contexts?"}, "scale": "1-5",
                         "needs": ["retrieved_contexts", "response"]}}
TWO_CONTEXTS = Sample(id="s", user_input="q?", response="r.", reference="ref.", retrieved_contexts=("a.", "b."))


def test_the_built_in_metrics_are_their_modules_in_alphabetical_order():
    assert list(BUILTINS) == ["answer_accuracy", "answer_correctness", "context_entity_recall", "context_precision",
                              "context_recall", "context_relevance", "factual_correctness", "faithfulness",
                              "noise_sensitivity", "response_groundedness", "response_relevancy",
                              "semantic_similarity"]
    assert all(name == metric.name for name, metric in BUILTINS.items())


def test_each_declaration_is_complete():
    for metric in BUILTINS.values():
        assert metric.help and "\n" not in metric.help, metric.name
        assert metric.needs and set(metric.needs) <= {"user_input", "response", "reference", "retrieved_contexts"}
        assert callable(metric.score) and callable(metric.planned_calls)
        assert (metric.offline is None) != (not metric.no_offline), metric.name  # a proxy, or why there is none


def test_a_declaration_with_both_or_neither_offline_answer_is_refused():
    faithfulness = BUILTINS["faithfulness"]
    with pytest.raises(ValueError, match="offline proxy"):
        JudgedMetric(**{**faithfulness.__dict__, "no_offline": "because"})
    with pytest.raises(ValueError, match="offline proxy"):
        JudgedMetric(**{**faithfulness.__dict__, "offline": None})


@pytest.mark.parametrize(("metric", "options", "calls"), [
    ("faithfulness", JudgeOptions(verdicts="statements"), 2),
    ("faithfulness", JudgeOptions(), 2),  # yes-no: the context's answer, then 1 per claim of the response
    ("context_precision", JudgeOptions(), 2),  # 1 per context
    ("context_recall", JudgeOptions(verdicts="statements"), 1),
    ("context_recall", JudgeOptions(), 2),  # yes-no: the context's answer, then 1 per claim of the reference
    ("context_entity_recall", JudgeOptions(), 2),
    ("noise_sensitivity", JudgeOptions(), 7),  # 3 + 2 per context
    ("response_relevancy", JudgeOptions(), 3),
    ("response_relevancy", JudgeOptions(questions=5), 5),
    ("semantic_similarity", JudgeOptions(), 0),
    ("factual_correctness", JudgeOptions(), 4),
    ("factual_correctness", JudgeOptions(factual_mode="precision"), 2),
    ("factual_correctness", JudgeOptions(factual_mode="recall"), 2),
    ("answer_correctness", JudgeOptions(), 3),
    ("context_relevance", JudgeOptions(), 2),  # 1 per context
    ("answer_accuracy", JudgeOptions(), 2),  # both ways
])
def test_planned_calls_follow_the_documented_counts(metric, options, calls):
    assert BUILTINS[metric].planned_calls(TWO_CONTEXTS, options) == calls


def test_yes_no_counts_follow_the_claims():
    sample = Sample(id="s", response="Leave is 16 weeks, and it is paid in full. Ask HR.", reference="")
    assert BUILTINS["faithfulness"].planned_calls(sample, JudgeOptions()) == 1 + 3  # the extraction, 3 claims
    assert BUILTINS["context_recall"].planned_calls(sample, JudgeOptions()) == 0  # no claim: nothing to extract for


def test_per_context_counts_follow_the_sample():
    one = Sample(id="s", user_input="q?", retrieved_contexts=("a.",))
    none = Sample(id="s", user_input="q?")
    assert BUILTINS["context_precision"].planned_calls(one, JudgeOptions()) == 1
    assert BUILTINS["noise_sensitivity"].planned_calls(none, JudgeOptions()) == 3


def test_the_calls_table_of_the_score_functions_lists_every_built_in_metric():
    table = {line.split()[0] for line in judged_doc.splitlines() if re.match(r"\s{4}[a-z_]+\s{2,}\S", line)}
    assert table == {name for name in BUILTINS if hasattr(judged, name)}


def test_direction_embeddings_and_proxies_are_derived():
    assert {name for name, m in BUILTINS.items() if not m.higher_is_better} == {"noise_sensitivity"}
    assert {name for name, m in BUILTINS.items() if m.embeddings} == {"response_relevancy", "semantic_similarity",
                                                                      "answer_correctness"}
    assert OFFLINE_METRICS == {name for name, m in BUILTINS.items() if m.offline is not None}
    for name in OFFLINE_METRICS:
        assert describe(name) == BUILTINS[name].offline_note()
    assert BUILTINS["context_relevance"].offline_note().startswith("no offline proxy: ")


def test_the_llm_judge_scores_the_metrics_it_is_given():
    judge = LLMJudge(service=None, language="en", embed=None, metrics=BUILTINS)  # type: ignore[arg-type]
    assert judge.metrics is BUILTINS
    assert BUILTINS["faithfulness"].score is faithfulness.score


def test_metrics_adds_the_rubrics_after_the_built_ins():
    known = catalog.metrics({**POLITENESS, **GROUNDED})
    assert list(known) == [*BUILTINS, "politeness", "grounded"]
    assert catalog.metrics(None).keys() == BUILTINS.keys()
    politeness = known["politeness"]
    assert politeness.needs == ("user_input", "response")
    assert politeness.calls == (RUBRIC,)
    assert politeness.planned_calls(TWO_CONTEXTS, JudgeOptions()) == 1
    assert politeness.higher_is_better and not politeness.embeddings and politeness.offline is None
    assert politeness.help == "rubric (binary, bench.toml): Is the response polite?"
    assert known["grounded"].needs == ("retrieved_contexts", "response")


def test_an_unknown_metric_is_named_with_the_closest_known_ones_rubrics_included():
    with pytest.raises(SettingError) as error:
        catalog.require_known(["faithfulness", "politenes"], catalog.metrics(POLITENESS))
    assert error.value.setting == "metrics"
    assert error.value.problem == "unknown metric 'politenes'; did you mean 'politeness'?"
    with pytest.raises(SettingError) as error:
        catalog.require_known(["context_recal"], setting="extra_metrics")
    assert str(error.value) == ("extra_metrics: unknown metric 'context_recal'; did you mean 'context_recall' or "
                                "'context_entity_recall' or 'context_precision'?")
    # nothing close (a rubric without the rubrics setting is unknown): the whole list, after each name's clause
    with pytest.raises(SettingError) as error:
        catalog.require_known(["faithfullness", "politeness"])
    assert error.value.problem == ("unknown metric 'faithfullness'; did you mean 'faithfulness'?; unknown metric "
                                   f"'politeness'; known: {', '.join(BUILTINS)}")
    with pytest.raises(SettingError, match=r"^metrics: no metric given; known: answer_accuracy, answer_correctness"):
        catalog.require_known([])
    catalog.require_known(["politeness", "faithfulness"], catalog.metrics(POLITENESS))


def test_offline_refuses_a_rubric_and_says_why():
    known = catalog.metrics(POLITENESS)
    with pytest.raises(BenchError) as error:
        catalog.require_proxies(["faithfulness", "politeness", "context_relevance"], known)
    message = str(error.value)
    assert message.startswith("--judge offline has no proxy for politeness, context_relevance; offline metrics: "
                              "answer_correctness, context_precision")
    assert "politeness: a rubric is a judgement" in message and "context_relevance: mapping" in message
    catalog.require_proxies(["faithfulness", "semantic_similarity"], known)


def test_a_rubric_without_criteria_in_the_run_language_is_refused():
    known = catalog.metrics({**POLITENESS, **GROUNDED})
    catalog.require_language(["politeness", "grounded", "faithfulness"], known, "en")
    with pytest.raises(BenchError, match=r"rubric 'grounded' has no criteria in 'ru' \(it gives en\): add "
                                         r"criteria.ru to \[rubrics.grounded\]"):
        catalog.require_language(["politeness", "grounded"], known, "ru")


def test_prompt_hashes_of_built_ins_are_the_templates_their_verdicts_send():
    assert BUILTINS["faithfulness"].prompt_hashes("ru", "statements") == {
        "ru/statements": template_sha256("statements", "ru"),
        "ru/statement_verdicts": template_sha256("statement_verdicts", "ru")}
    assert BUILTINS["faithfulness"].prompt_hashes("ru", "yes-no") == {
        "ru/knowledge_answer": template_sha256("knowledge_answer", "ru"),
        "ru/claim_support": template_sha256("claim_support", "ru")}
    assert BUILTINS["semantic_similarity"].prompt_hashes("en", "yes-no") == {}
    assert catalog.prompt_hashes(["faithfulness", "noise_sensitivity"], BUILTINS, "en", "statements").keys() == {
        "en/statements", "en/statement_verdicts"}
    # noise_sensitivity has no yes-no form: it sends its statements calls under either setting
    assert catalog.prompt_hashes(["faithfulness", "noise_sensitivity"], BUILTINS, "en", "yes-no").keys() == {
        "en/knowledge_answer", "en/claim_support", "en/statements", "en/statement_verdicts"}


def test_a_rubrics_prompt_hash_covers_the_template_and_its_criteria():
    politeness = catalog.metrics(POLITENESS)["politeness"]
    own = json.dumps({"criteria": "Is the response polite?", "scale": "binary", "needs": ["user_input", "response"]},
                     ensure_ascii=False, sort_keys=True)
    expected = hashlib.sha256(packaged("prompts", "en", "rubric.txt") + b"\n" + own.encode()).hexdigest()
    assert politeness.prompt_hashes("en", "yes-no") == {"en/rubric/politeness": expected}
    assert politeness.prompt_hashes("ru", "yes-no")["ru/rubric/politeness"] != expected
    reworded = {"politeness": {**POLITENESS["politeness"],
                               "criteria": {"en": "Is the response courteous?", "ru": "Вежлив ли ответ?"}}}
    assert (catalog.metrics(reworded)["politeness"].prompt_hashes("en", "yes-no")
            != politeness.prompt_hashes("en", "yes-no"))
    assert (catalog.metrics(reworded)["politeness"].prompt_hashes("ru", "yes-no")
            == politeness.prompt_hashes("ru", "yes-no"))
    rescaled = {"politeness": {**POLITENESS["politeness"], "scale": "1-5"}}
    assert (catalog.metrics(rescaled)["politeness"].prompt_hashes("en", "yes-no")
            != politeness.prompt_hashes("en", "yes-no"))


def test_prompt_text_for_the_dry_run_estimate():
    assert BUILTINS["faithfulness"].prompt_text("en", "statements") == load_template("statements", "en")
    assert BUILTINS["faithfulness"].prompt_text("en", "yes-no") == load_template("knowledge_answer", "en")
    assert BUILTINS["semantic_similarity"].prompt_text("en", "yes-no") == ""
    politeness = catalog.metrics(POLITENESS)["politeness"]
    assert politeness.prompt_text("ru", "yes-no") == load_template("rubric", "ru") + "Вежлив ли ответ?"


def test_calls_of_reads_the_given_metrics():
    assert catalog.calls_of("politeness", catalog.metrics(POLITENESS)) == (RUBRIC,)
    with pytest.raises(TemplateError, match="known: .*politeness"):
        catalog.calls_of("nope", catalog.metrics(POLITENESS))


def test_rubric_notes_describe_the_scale_for_the_report():
    notes = {name: note.written() for name, note in catalog.rubric_notes(["faithfulness", "grounded"],
                                                                       catalog.metrics(GROUNDED)).items()}
    assert notes == {"grounded": {"criteria": {"en": "Does the response stay within the contexts?"},
                                  "scale": "1-5: a whole number from 1 to 5, reported on 1–5 (not rescaled)",
                                  "needs": ["retrieved_contexts", "response"]}}
    assert catalog.rubric_notes(["faithfulness"], BUILTINS) == {}
