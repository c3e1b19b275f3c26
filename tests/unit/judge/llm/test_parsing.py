import json
from dataclasses import dataclass
from typing import Literal

from pydantic import Field
from pydantic.dataclasses import dataclass as validated

from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.parsing import json_values, parse_output


@validated(frozen=True)
class Verdict:
    statement: str
    reason: str
    verdict: Literal[0, 1]


@validated(frozen=True)
class Verdicts:
    statements: list[Verdict] = Field(min_length=1)


@dataclass(frozen=True)
class Plain:
    score: float


def test_json_values_skip_prose_and_code_fences():
    text = 'Sure! Here it is:\n```json\n{"score": 0.5, "note": "a } inside a string"}\n```\nDone.'
    assert json_values(text) == [{"score": 0.5, "note": "a } inside a string"}]


def test_json_values_handle_escaped_quotes_and_cyrillic():
    text = 'Ответ: {"reason": "он сказал \\"да\\"", "verdict": 1}'
    assert parse_output(text, dict).value == {"reason": 'он сказал "да"', "verdict": 1}


def test_json_values_skip_a_broken_candidate_for_a_later_good_one():
    assert json_values('{not json} then {"score": 1}') == [{"score": 1}]
    assert json_values('a mismatched {"x": [1} then {"score": 1}') == [{"score": 1}]


def test_truncated_json_is_a_parse_error_with_a_reason():
    parsed = parse_output('{"statements": [{"statement": "a", "reason": "b", "verdict": 1}, {"stat', Verdicts)
    assert parsed.status == "parse_error" and parsed.value is None
    assert parsed.error == "the JSON object in the answer is incomplete or invalid"


def test_empty_completion():
    assert parse_output("", Plain).error == "the answer is empty"
    assert parse_output(None, Plain).status == "parse_error"


def test_valid_output_is_validated_into_the_shape():
    parsed = parse_output('{"statements": [{"statement": "s", "reason": "r", "verdict": 0}]}', Verdicts)
    assert parsed.status == "ok"
    assert parsed.value == Verdicts(statements=[Verdict(statement="s", reason="r", verdict=0)])


def test_wrong_shape_names_the_field():
    parsed = parse_output('{"statements": [{"statement": "s", "reason": "r", "verdict": 2}]}', Verdicts)
    assert parsed.status == "parse_error"
    assert "statements.0.verdict" in parsed.error


def test_an_empty_list_where_verdicts_are_required():
    parsed = parse_output('{"statements": []}', Verdicts)
    assert parsed.status == "parse_error" and "statements" in parsed.error


def test_plain_dataclass_shape():
    assert parse_output('The score is {"score": 0.25}.', Plain).value == Plain(score=0.25)


# --- the rules, each with what a real small model (SmolLM2-135M-Instruct) answered -----------------------


def test_the_last_valid_object_wins_over_a_copied_example():
    text = 'Example: {"statements": []}\nOutput: {"statements": ["The office is in Lisbon."]}'
    parsed = parse_output(text, shapes.Statements)
    assert parsed.value.statements == ["The office is in Lisbon."] and parsed.read == "json"


def test_a_copied_empty_example_alone_is_taken_at_its_word():
    # the judge says the text claims nothing: the metric reports it as undetermined, visibly, not as an error
    assert parse_output('{"statements": []}', shapes.Statements).value.statements == []


def test_a_list_for_an_object_with_one_list_field_is_read_as_that_field():
    parsed = parse_output('["Paris is the capital of France."]', shapes.Statements)
    assert parsed.value.statements == ["Paris is the capital of France."] and parsed.read == "wrapped_list"


def test_a_list_for_an_object_with_several_fields_is_named_as_such():
    parsed = parse_output('[0.5]', shapes.ScaleScore)
    assert parsed.error == "the answer is a JSON list, not the required JSON object"


def test_code_instead_of_json_is_a_parse_error_in_plain_words():
    text = '```python\nstatements = [\'The office is in Lisbon.\']\nprint(statements)\n```'
    assert parse_output(text, shapes.Statements).error == "the answer holds no JSON object"


def test_objects_instead_of_strings_name_the_field():
    parsed = parse_output('{"statements": [{"statement": "The office is in Lisbon."}]}', shapes.Statements)
    assert parsed.status == "parse_error" and "statements.0: Input should be a valid string" in parsed.error


def test_a_lone_number_is_read_only_where_allowed_and_only_alone():
    scale = shapes.ScaleScore.on_scale(0, 1)
    assert parse_output("The answer is 0.5.", scale).status == "parse_error"
    lone = parse_output("The answer is 0.5.", scale, lone_number="score")
    assert (lone.value.score, lone.read) == (0.5, "lone_number")
    assert parse_output("Оценка: 0,75", scale, lone_number="score").value.score == 0.75
    assert parse_output("I would rate it 4 out of 5.", scale, lone_number="score").status == "parse_error"
    assert parse_output("The answer is 7.", scale, lone_number="score").status == "parse_error"
    assert parse_output('{"score": 0.25} or 0.5', scale, lone_number="score").value.score == 0.25


def test_the_schema_says_what_validation_checks_and_the_skeleton_says_it_in_words():
    verdicts = shapes.StatementVerdicts.expecting(3).response_schema()
    assert verdicts["properties"]["verdicts"]["minItems"] == verdicts["properties"]["verdicts"]["maxItems"] == 3
    assert verdicts["additionalProperties"] is False and verdicts["required"] == ["verdicts"]
    reasoned = shapes.ReasonedScore.on_scale(1, 5).response_schema()
    assert list(reasoned["properties"]) == ["reasoning", "score"]
    assert (reasoned["properties"]["score"]["minimum"], reasoned["properties"]["score"]["maximum"]) == (1, 5)
    assert shapes.RubricScore.on_scale(0, 1).skeleton() == '{"reason": "<text>", "score": <a whole number from 0 to 1>}'
    assert shapes.StatementVerdicts.expecting(2).skeleton() == (
        '{"verdicts": [{"statement": "<text>", "reason": "<text>", "verdict": 0 or 1}, ... (2 items)]}')


def test_a_bounded_list_ends_a_judge_that_repeats_itself():
    """SmolLM2-135M under a grammar repeated one statement until its token budget ran out."""
    bounded = shapes.Statements.at_most(3)
    assert bounded.response_schema()["properties"]["statements"]["maxItems"] == 3
    assert bounded.skeleton() == '{"statements": ["<text>", ... (at most 3 items)]}'
    repeated = json.dumps({"statements": ["The template is a legal template library."] * 5})
    parsed = parse_output(repeated, bounded)
    assert parsed.status == "parse_error" and "at most 3 statements for this text, got 5" in parsed.error
    assert parse_output(repeated, shapes.Statements).status == "ok"  # unbounded when no bound is known
