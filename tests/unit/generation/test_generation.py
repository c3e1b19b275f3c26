"""The generation adapters that need no server: extractive, precomputed, and the RAG prompt template."""

from __future__ import annotations

import asyncio
import hashlib
from importlib.resources import files

import numpy as np
import pytest

from benchmarks.errors import BenchError
from benchmarks.generation.base import GenerationRequest
from benchmarks.generation.extractive import ExtractiveGenerator, closest_sentences
from benchmarks.generation.openai_generator import load_rag_template, numbered
from benchmarks.generation.precomputed import MISSING, PrecomputedGenerator

# hand-made embeddings: the question points along x; each sentence's cosine with it is known
VECTORS = {
    "Where is the office?": [1.0, 0.0, 0.0],
    "Alpha is unrelated.": [0.0, 1.0, 0.0],  # cosine 0
    "Beta is close.": [1.0, 1.0, 0.0],  # cosine 1/√2 ≈ 0.707
    "Gamma is closest.": [1.0, 0.1, 0.0],  # cosine ≈ 0.995
    "Delta is opposite.": [-1.0, 0.0, 0.0],  # cosine -1
    "Twin one.": [2.0, 2.0, 0.0],  # same direction as Beta: ties with it
    "Empty vector.": [0.0, 0.0, 0.0],  # no direction: similarity 0, not NaN
}
QUESTION = "Where is the office?"


class Embed:
    """A deterministic embed function that also records what it was asked."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, texts):
        self.calls.append(list(texts))
        return np.array([VECTORS[t] for t in texts])


def test_closest_sentences_are_returned_in_context_order():
    embed = Embed()
    contexts = ("Alpha is unrelated. Beta is close.", "Gamma is closest.\nDelta is opposite.")
    # by similarity: Gamma, Beta, Alpha, Delta; the output keeps the order of the context
    assert closest_sentences(QUESTION, contexts, embed, 2) == "Beta is close. Gamma is closest."
    assert closest_sentences(QUESTION, contexts, embed, 1) == "Gamma is closest."
    assert closest_sentences(QUESTION, contexts, embed, 3) == "Alpha is unrelated. Beta is close. Gamma is closest."
    # one embed call per answer: the question first, then every sentence of every context in order
    assert embed.calls[0] == [QUESTION, "Alpha is unrelated.", "Beta is close.", "Gamma is closest.",
                              "Delta is opposite."]


def test_closest_sentences_count_beyond_the_sentences_gives_them_all():
    contexts = ("Delta is opposite. Alpha is unrelated.",)
    assert closest_sentences(QUESTION, contexts, Embed(), 10) == "Delta is opposite. Alpha is unrelated."


def test_closest_sentences_ties_go_to_the_earlier_sentence():
    # Twin one. and Beta is close. have the same direction (cosine 1/√2): the earlier one wins
    assert closest_sentences(QUESTION, ("Twin one. Beta is close.",), Embed(), 1) == "Twin one."
    assert closest_sentences(QUESTION, ("Beta is close. Twin one.",), Embed(), 1) == "Beta is close."


def test_closest_sentences_zero_vector_is_least_similar_not_nan():
    contexts = ("Empty vector. Delta is opposite. Alpha is unrelated.",)
    # similarities 0, -1, 0: the zero vector ties with Alpha and, being earlier, wins the tie
    assert closest_sentences(QUESTION, contexts, Embed(), 1) == "Empty vector."
    assert closest_sentences(QUESTION, contexts, Embed(), 2) == "Empty vector. Alpha is unrelated."


def test_closest_sentences_of_an_empty_context_is_empty_without_embedding():
    embed = Embed()
    assert closest_sentences(QUESTION, (), embed, 2) == ""
    assert closest_sentences(QUESTION, ("", "  ...  "), embed, 2) == ""  # no word: no sentence
    assert embed.calls == []


def test_extractive_generator_answers_ok_and_describes_itself():
    generator = ExtractiveGenerator(Embed(), 1, "hand-made")
    request = GenerationRequest("q1", QUESTION, ("Alpha is unrelated. Gamma is closest.",), 0)
    answer = asyncio.run(generator.answer(request))
    assert (answer.status, answer.text, answer.error, answer.cached) == ("ok", "Gamma is closest.", None, False)
    again = asyncio.run(generator.answer(GenerationRequest("q1", QUESTION, request.contexts, 1)))
    assert again.text == answer.text  # deterministic: its repeats agree
    described = generator.describe().written()
    assert described["adapter"] == "extractive" and described["model"] is None
    assert described["embedder"] == "hand-made" and described["sentences"] == 1 and "baseline" in described["note"]


# --- precomputed ----------------------------------------------------------------------------------


def test_precomputed_answers_by_repeat_and_reports_missing_ones():
    generator = PrecomputedGenerator({"q1": ("first", "second"), "q2": ("only",), "q3": ()}, "abc123")

    def answer(qid, repeat):
        return asyncio.run(generator.answer(GenerationRequest(qid, "?", ("ctx",), repeat)))

    assert (answer("q1", 0).status, answer("q1", 0).text) == ("ok", "first")
    assert (answer("q1", 1).status, answer("q1", 1).text) == ("ok", "second")
    assert (answer("q2", 0).status, answer("q2", 0).text) == ("ok", "only")
    for qid, repeat in (("q2", 1), ("q1", 2), ("q3", 0), ("unknown", 0)):
        missing = answer(qid, repeat)
        assert (missing.status, missing.text, missing.error) == ("missing", None, MISSING)
    assert [generator.available(q) for q in ("q1", "q2", "q3", "unknown")] == [2, 1, 0, 0]
    assert generator.describe().written() == {"adapter": "precomputed", "source": "the dataset's response fields",
                                    "dataset_sha256": "abc123"}


# --- the RAG prompt template ----------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "ru"])
def test_default_templates(language):
    template = load_rag_template(None, language)
    raw = (files("benchmarks") / "prompts" / "rag" / f"{language}.txt").read_bytes()
    assert template.source == f"bench:{language}"
    assert template.sha256 == hashlib.sha256(raw).hexdigest()
    marker = {"en": "Question: {question}", "ru": "Вопрос: {question}"}[language]
    assert marker in template.text and "{context}" in template.text
    filled = template.text.format_map({"question": "Q?", "context": "[1] C."})
    assert "[1] C." in filled and "{" not in filled


def test_a_users_template_is_named_by_its_file_name_not_its_path(tmp_path):
    path = tmp_path / "mine.txt"
    path.write_text('Context:\n{context}\nQuestion: {question}\nReply as JSON {{"answer": "..."}}', encoding="utf-8")
    template = load_rag_template(path, "en")
    assert template.source == "mine.txt" and str(tmp_path) not in template.source
    assert template.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert template.text.format_map({"question": "Q", "context": "C"}).endswith('{"answer": "..."}')


@pytest.mark.parametrize(("text", "found"), [
    ("Question: {question}", "found {question}"),
    ("Context: {context}", "found {context}"),
    ("{question} {context} {user}", "found {context}, {question}, {user}"),
    ("No placeholder at all.", "found no placeholder"),
    ("{question} {context} {}", "found {context}, {question}, {}"),  # a positional field
    ("{question.upper} {context}", "found {context}, {question.upper}"),
])
def test_a_template_must_use_exactly_question_and_context(tmp_path, text, found):
    path = tmp_path / "bad.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BenchError) as error:
        load_rag_template(path, "en")
    assert str(error.value) == f"bad.txt: a generator template must use exactly {{question}} and {{context}}, {found}"


@pytest.mark.parametrize("text", ["Question: {question\nContext: {context}", "Context: {context} }", "{context} {"])
def test_unbalanced_braces_are_refused_with_the_way_to_write_them(tmp_path, text):
    path = tmp_path / "braces.txt"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BenchError) as error:
        load_rag_template(path, "en")
    message = str(error.value)
    assert message.startswith("braces.txt: not a valid template (")
    assert message.endswith("write literal braces as {{ and }}")


def test_a_missing_template_file(tmp_path):
    with pytest.raises(BenchError, match=r"nowhere\.txt: generator template not found$"):
        load_rag_template(tmp_path / "nowhere.txt", "en")
    with pytest.raises(BenchError, match="generator template not found"):
        load_rag_template(tmp_path, "en")  # a folder is not a template


def test_contexts_are_numbered_in_the_order_given():
    assert numbered(("first chunk", "second chunk")) == "[1] first chunk\n\n[2] second chunk"
    assert numbered(("only",)) == "[1] only"
    assert numbered(()) == ""
