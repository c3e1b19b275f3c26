"""answer_accuracy's formula on hand-computed values, and its answer shape."""

import numpy as np
import pytest

from benchmarks.judge.judged_metrics.builtin.answer_accuracy import AccuracyRating, answer_accuracy
from benchmarks.judge.llm.parsing import parse_output
from benchmarks.outcome import Outcome


@pytest.mark.parametrize(("forward", "backward", "expected"), [
    (4, 4, 1.0),  # (4/4 + 4/4) / 2
    (4, 2, 0.75),  # (1 + 0.5) / 2
    (2, 2, 0.5),
    (2, 0, 0.25),  # (0.5 + 0) / 2
    (0, 4, 0.5),  # one judge sees a match, the other none: the mean, not either
    (0, 0, 0.0),
])
def test_the_mean_of_the_two_ratings_over_4(forward, backward, expected):
    assert answer_accuracy(forward, backward) == Outcome.scored(expected)
    assert answer_accuracy(backward, forward) == Outcome.scored(expected)  # symmetric in the two roles


def test_numpy_integers_are_ratings():
    assert answer_accuracy(np.int64(4), np.int32(2)) == Outcome.scored(0.75)


@pytest.mark.parametrize("rating", [1, 3, 5, -2, 2.0, True, np.bool_(True), "4", None])
def test_a_rating_off_the_scale_is_a_bug_not_a_score(rating):
    with pytest.raises(ValueError, match="0, 2 or 4"):
        answer_accuracy(rating, 4)
    with pytest.raises(ValueError, match="0, 2 or 4"):
        answer_accuracy(4, rating)


@pytest.mark.parametrize("text", ['{"rating": 3}', '{"rating": true}', '{"rating": "4"}', '{"rating": 4.5}', '{}'])
def test_the_shape_rejects_what_is_not_0_2_or_4(text):
    assert parse_output(text, AccuracyRating).status == "parse_error"


def test_the_schema_sent_is_the_scale_and_the_repair_names_it():
    assert AccuracyRating.response_schema() == {
        "type": "object", "properties": {"rating": {"enum": [0, 2, 4], "type": "integer"}},
        "required": ["rating"], "additionalProperties": False}
    assert AccuracyRating.skeleton() == '{"rating": 0 or 2 or 4}'
