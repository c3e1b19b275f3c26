"""answer_accuracy through the whole judge path, over real HTTP: the scripted judge of the seed examples
rates each rendering of the template, `LLMJudge.score` renders, calls the real `LLMService`, parses,
repairs and scores."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from benchmarks.samples import Sample
from tests.integration.test_judge_seed_examples import ScriptedJudge, ok, run

pytestmark = pytest.mark.integration

WALL = {
    "en": Sample("aa-wall", user_input="When did the Berlin Wall fall?", response="The Berlin Wall fell in 1989.",
                 reference="The Berlin Wall fell on 9 November 1989, opening the border between East and West."),
    "ru": Sample("aa-wall", user_input="Когда пала Берлинская стена?", response="Берлинская стена пала в 1989 году.",
                 reference="Берлинская стена пала 9 ноября 1989 года, открыв границу между Востоком и Западом."),
}


@dataclass
class RatingJudge(ScriptedJudge):
    """Rates (answer, reference) pairs from a table; `first` answers the first attempt of every call instead."""

    ratings: Mapping[tuple[str, str], Any] = field(default_factory=dict)
    first: Any = None

    def answer(self, call: str, v: dict[str, str], body: dict[str, Any], repair: bool) -> dict[str, Any]:
        if call != "answer_accuracy":
            return super().answer(call, v, body, repair)
        if self.first is not None and not repair:
            return {"rating": self.first}
        return {"rating": self.ratings[v["answer"], v["reference"]]}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_response_against_the_reference_and_the_reverse(tmp_path, language):
    sample = WALL[language]
    # the response holds part of the reference (2); everything it says is in the reference (4)
    judge = RatingJudge(language, ratings={(sample.response, sample.reference): 2,
                                           (sample.reference, sample.response): 4})
    result = run(tmp_path, judge, "answer_accuracy", sample)
    assert ok(result, (2 / 4 + 4 / 4) / 2, calls=2) == 0.75
    assert sorted((v["answer"], v["reference"]) for _, v in judge.seen) == sorted(
        [(sample.response, sample.reference), (sample.reference, sample.response)])
    assert {v["question"] for _, v in judge.seen} == {sample.user_input}
    assert {r["body"]["temperature"] for r in result.requests} == {0.1}
    schema = result.requests[0]["body"]["response_format"]["json_schema"]
    assert (schema["name"], schema["schema"]["properties"]) == ("answer_accuracy", {"rating": {"enum": [0, 2, 4],
                                                                                               "type": "integer"}})
    assert result.outcome.explanation == "response against the reference: 2; reference against the response: 4"


def test_a_rating_off_the_scale_is_repaired_once(tmp_path):
    sample = WALL["en"]
    judge = RatingJudge("en", ratings={(sample.response, sample.reference): 0, (sample.reference, sample.response): 0},
                        first=3)
    result = run(tmp_path, judge, "answer_accuracy", sample)
    assert ok(result, 0.0, calls=4) == 0.0  # each call: the 3 refused, the repair's 0 read
    repairs = [r["body"]["messages"] for r in result.requests if len(r["body"]["messages"]) > 1]
    assert len(repairs) == 2 and all('{"rating": 0 or 2 or 4}' in m[-1]["content"] for m in repairs)


def test_a_rating_that_stays_off_the_scale_is_a_parse_error(tmp_path):
    sample = WALL["ru"]
    judge = RatingJudge("ru", first=True, ratings={(sample.response, sample.reference): True,
                                                   (sample.reference, sample.response): 4})
    outcome = run(tmp_path, judge, "answer_accuracy", sample).outcome
    assert outcome.status == "parse_error"
    assert "0, 2 or 4" in outcome.explanation


def test_a_sample_without_a_reference_makes_no_call(tmp_path):
    result = run(tmp_path, RatingJudge("en"), "answer_accuracy", Sample("aa", user_input="q?", response="r."))
    assert (result.outcome.status, result.outcome.explanation) == ("undetermined", "missing field(s): reference")
    assert result.requests == []
