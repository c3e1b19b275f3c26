"""The one item record: the value compare reads from an item's scores, and the document an item is about."""

from benchmarks import item_record


def test_a_question_is_about_the_document_of_its_highest_graded_relevant_chunk():
    assert item_record.top_document({"doc-b#2": 1, "doc-a#1": 2, "doc-c#1": 2}) == "doc-a"
    assert item_record.top_document({"plain": 1, "doc#0": 0}) == "plain"
    assert item_record.top_document({"doc#0": 0}) is None
    assert item_record.top_document({"https://wiki/a#top": 1}) == "https://wiki/a"


def test_a_value_is_the_mean_of_the_scorers_that_scored():
    score = item_record.score
    assert item_record.value_of({"a": score(0.5), "b": score(1.0)}) == 0.75
    assert item_record.value_of({"a": score(None, "api_error", "503"), "b": score(1.0)}) == 1.0
    assert item_record.value_of({"a": score(None, "no_answer", "no answer")}) is None
    assert item_record.value_of({"a": score(None, "undetermined", "no statements")}) is item_record.MISSING
    assert item_record.value_of({}) is item_record.value_of(None) is item_record.MISSING
