from dataclasses import dataclass
from typing import Literal

from pydantic import Field
from pydantic.dataclasses import dataclass as validated

from benchmarks.judge.parsing import first_json, parse_output


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


def test_first_json_skips_prose_and_code_fences():
    text = 'Sure! Here it is:\n```json\n{"score": 0.5, "note": "a } inside a string"}\n```\nDone.'
    assert first_json(text) == '{"score": 0.5, "note": "a } inside a string"}'


def test_first_json_handles_escaped_quotes_and_cyrillic():
    text = 'Ответ: {"reason": "он сказал \\"да\\"", "verdict": 1}'
    assert parse_output(text, dict).value == {"reason": 'он сказал "да"', "verdict": 1}


def test_first_json_skips_a_broken_candidate_for_a_later_good_one():
    assert first_json('{not json} then {"score": 1}') == '{"score": 1}'
    assert first_json('a mismatched {"x": [1} then {"score": 1}') == '{"score": 1}'


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
