import hashlib
import re
from importlib.resources import files

import pytest

from benchmarks.judge.catalog import BUILTINS, CALLS, calls_of
from benchmarks.judge.judged_metrics.builtin import (
    answer_correctness,
    context_entity_recall,
    context_precision,
    context_recall,
    context_relevance,
    factual_correctness,
    response_relevancy,
)
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.parsing import parse_output
from benchmarks.judge.llm.prompts import (
    LANGUAGES,
    TemplateError,
    load_template,
    render,
    statements_block,
    template_fields,
    template_sha256,
)
from benchmarks.judge.ratings.rater import output_format
from benchmarks.metrics import judged
from benchmarks.metrics.judged import __doc__ as judged_doc

CASES = [(call, language) for call in CALLS for language in LANGUAGES]
METRIC_CALLS = {name: metric.calls for name, metric in BUILTINS.items() if metric.calls}  # the built-ins with calls
EXAMPLE = re.compile(r"```json\n(.*?)\n```", re.DOTALL)
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")


def _rendered(call: str, language: str) -> str:
    """Rating templates get their answer format (and its worked example) from the direct mode."""
    shown = {name: f"<{name}>" for name in CALLS[call].variables}
    if "output_format" in shown:
        shown["output_format"] = output_format("verdict" if call == "compare_answers" else "score", "direct", language)
    return render(CALLS[call], language, shown)


def _template_files(language: str) -> set[str]:
    folder = files("benchmarks") / "prompts" / language
    return {entry.name.removesuffix(".txt") for entry in folder.iterdir() if entry.name.endswith(".txt")}


def test_both_languages_have_the_same_templates_and_each_call_has_one():
    assert _template_files("en") == _template_files("ru") == set(CALLS)


def test_every_metric_with_judge_calls_in_the_metrics_table_is_registered():
    """metrics.judged's table lists the metrics whose formulas live there (a formula of one metric alone may
    live in its module, as response_groundedness's does)."""
    table = {line.split()[0] for line in judged_doc.splitlines() if re.match(r"\s{4}[a-z_]+\s{2,}\S", line)}
    assert table - {"semantic_similarity"} == {name for name in METRIC_CALLS if hasattr(judged, name)}


@pytest.mark.parametrize(("call", "language"), CASES)
def test_template_declares_exactly_the_registered_variables(call, language):
    assert template_fields(call, language) == CALLS[call].variables


@pytest.mark.parametrize(("call", "language"), CASES)
def test_template_renders_without_leftover_placeholders(call, language):
    text = _rendered(call, language)
    assert not PLACEHOLDER.search(text)
    for name in CALLS[call].variables - {"output_format"}:
        assert f"<{name}>" in text


# calls answered in JSON; a yes-no call is answered with one word, and the extraction before it with a phrase,
# and neither shows an example, whose answer a small model would copy
JSON_CASES = [(call, language) for call, language in CASES
              if CALLS[call].shape not in (shapes.YesNo, shapes.ShortAnswer)]


@pytest.mark.parametrize(("call", "language"), JSON_CASES)
def test_worked_examples_validate_against_the_shape(call, language):
    examples = EXAMPLE.findall(_rendered(call, language))
    assert examples, "every template shows at least one worked example"
    for example in examples:
        parsed = parse_output(example, CALLS[call].shape)
        assert parsed.status == "ok", parsed.error


def test_verdict_examples_also_pass_the_counted_shape():
    for language in LANGUAGES:
        text = _rendered("statement_verdicts", language)
        for example in EXAMPLE.findall(text):
            count = len(parse_output(example, shapes.StatementVerdicts).value.verdicts)
            assert parse_output(example, shapes.StatementVerdicts.expecting(count)).status == "ok"
            assert (
                parse_output(example, shapes.StatementVerdicts.expecting(count + 1)).status == "parse_error"
            )


def test_rendering_checks_variables_and_names_the_template():
    with pytest.raises(TemplateError, match=r"ru/context_rating\.txt.*missing.*context"):
        render(CALLS["context_rating"], "ru", {"question": "q"})
    with pytest.raises(TemplateError, match=r"en/entities\.txt.*unexpected.*question"):
        render(CALLS["entities"], "en", {"text": "t", "question": "q"})
    with pytest.raises(TemplateError, match="unknown judge call"):
        load_template("nope", "en")
    with pytest.raises(TemplateError, match="language"):
        load_template("entities", "de")


def test_values_with_braces_are_inserted_verbatim():
    text = render(CALLS["entities"], "en", {"text": "a {b} {{c}}"})
    assert "Text: a {b} {{c}}" in text


def test_statements_block_keeps_cyrillic_readable():
    assert statements_block(["Париж — столица Франции."]) == '[\n  "Париж — столица Франции."\n]'


@pytest.mark.parametrize(("call", "language"), CASES)
def test_sha256_is_the_hash_of_the_file_bytes(call, language):
    data = (files("benchmarks") / "prompts" / language / f"{call}.txt").read_bytes()
    assert template_sha256(call, language) == hashlib.sha256(data).hexdigest()
    assert template_sha256(call, language) == template_sha256(call, language)


@pytest.mark.parametrize("call", CALLS)
def test_sha256_differs_between_languages(call):
    assert template_sha256(call, "en") != template_sha256(call, "ru")


@pytest.mark.parametrize("call", CALLS)
def test_russian_templates_are_written_in_russian(call):
    instructions = load_template(call, "ru").split("```")[0]
    letters = [c for c in instructions if c.isalpha()]
    cyrillic = [c for c in letters if "а" <= c.lower() <= "я" or c.lower() == "ё"]
    assert len(cyrillic) / len(letters) > 0.8


@pytest.mark.parametrize("call", [c for c in CALLS if "reason" in load_template(c, "en")])
def test_reason_language_is_requested(call):
    assert "in English" in load_template(call, "en")
    assert "по-русски" in load_template(call, "ru")


def test_calls_of_lists_a_metrics_calls_and_rejects_unknown_metrics():
    assert [c.name for c in calls_of("faithfulness")] == ["statements", "statement_verdicts"]
    assert calls_of("context_relevance")[0].shape is context_relevance.ContextRating
    with pytest.raises(TemplateError, match="known"):
        calls_of("bleu")


@pytest.mark.parametrize(
    ("text", "shape"),
    [
        ('{"verdicts": [{"statement": "s", "reason": "r", "verdict": 2}]}', shapes.StatementVerdicts),
        ('{"verdicts": [{"statement": "s", "reason": "r", "verdict": true}]}', shapes.StatementVerdicts),
        ('{"verdicts": [{"statement": "s", "reason": "r", "verdict": "1"}]}', shapes.StatementVerdicts),
        ('{"verdicts": [{"statement": "s", "verdict": 1}]}', shapes.StatementVerdicts),
        ('{"verdicts": []}', shapes.StatementVerdicts),
        (
            '{"verdicts": [{"statement": "s", "reason": "r", "verdict": 1}]}',
            shapes.StatementVerdicts.expecting(2),
        ),
        ('{"reason": "r", "rating": 3}', context_relevance.ContextRating),
        ('{"reason": "r", "rating": -1}', context_relevance.ContextRating),
        ('{"reason": "", "verdict": 1}', context_precision.ContextUsefulness),
        ('{"question": "q", "reason": "r", "noncommittal": 2}', response_relevancy.GeneratedQuestion),
        ('{"question": " ", "reason": "r", "noncommittal": 0}', response_relevancy.GeneratedQuestion),
        ('{"classifications": [{"statement": "s", "reason": "r", "attributed": 5}]}', context_recall.Attributions),
        ('{"statements": ["a", "  "]}', shapes.Statements),
        ('{"entities": "Paris"}', context_entity_recall.Entities),
        ('{"TP": [], "FP": [], "FN": []}', answer_correctness.StatementClassification.expecting(1, 1)),
        (
            (
                '{"TP": [{"statement": "a", "reason": "r"}], "FP": [], '
                '"FN": [{"statement": "b", "reason": "r"}, {"statement": "c", "reason": "r"}]}'
            ),
            answer_correctness.StatementClassification.expecting(1, 1),
        ),
    ],
)
def test_malformed_outputs_are_rejected(text, shape):
    assert parse_output(text, shape).status == "parse_error"


def test_empty_lists_are_valid_where_a_text_can_claim_nothing():
    for text, shape in [
        ('{"statements": []}', shapes.Statements),
        ('{"claims": []}', factual_correctness.Claims),
        ('{"entities": []}', context_entity_recall.Entities),
        ('{"classifications": []}', context_recall.Attributions),
    ]:
        assert parse_output(text, shape).status == "ok"


def test_counted_shapes_are_cached_and_reject_impossible_counts():
    assert shapes.StatementVerdicts.expecting(3) is shapes.StatementVerdicts.expecting(3)
    assert shapes.StatementVerdicts.expected is None
    with pytest.raises(ValueError):
        shapes.StatementVerdicts.expecting(0)
    with pytest.raises(ValueError):
        answer_correctness.StatementClassification.expecting(1, -1)


def test_shapes_are_frozen():
    rating = parse_output('{"reason": "r", "rating": 1}', context_relevance.ContextRating).value
    with pytest.raises(ValueError):
        rating.rating = 2
