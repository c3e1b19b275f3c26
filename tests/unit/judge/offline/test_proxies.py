"""Offline judge: splitting, tokenising and each proxy on hand-computed samples.

The embedder is a lookup table (unknown texts get the zero vector, which supports nothing by
cosine), so every verdict below is decided either by word overlap or by a cosine written here:
it is the metric logic under test, not a model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from benchmarks.judge.catalog import OFFLINE_METRICS, describe, offline_score
from benchmarks.judge.claims import split_sentences, tokens
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.weights import AnswerCorrectnessWeights
from benchmarks.samples import Sample

# Baseline 0: the support test and semantic similarity read the raw cosines below as they are
# (clipped to [0, 1]).
RAW = SimilarityScale(0.0, "test", "en")


class TableEmbed:
    """Vectors from a table, zero for anything else; records each call to check batching."""

    def __init__(self, table: Mapping[str, Sequence[float]] | None = None, dimension: int = 3):
        self.table = dict(table or {})
        self.dimension = dimension
        self.calls: list[list[str]] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([self.table.get(t, [0.0] * self.dimension) for t in texts], dtype=float)


# --- text ---------------------------------------------------------------------------------------


def test_russian_sentences_split_on_every_terminator_but_not_initials_or_lowercase_continuations():
    text = "Кто написал «Онегина»? Его написал А. С. Пушкин, т. е. великий поэт… Правда!\n- пункт списка"
    assert split_sentences(text) == (
        "Кто написал «Онегина»?",
        "Его написал А. С. Пушкин, т. е. великий поэт…",
        "Правда!",
        "- пункт списка",
    )


def test_english_sentences_keep_decimals_and_abbreviations_and_drop_empty_pieces():
    text = "Pi is 3.14 roughly. Use e.g. a ruler. J. Smith agreed!  ...  "
    assert split_sentences(text) == ("Pi is 3.14 roughly.", "Use e.g. a ruler.", "J. Smith agreed!")
    assert split_sentences("") == ()


def test_tokens_are_casefolded_unicode_words():
    assert tokens("Эйфелева БАШНЯ, 1889 год; Ёлка — x2") == ("эйфелева", "башня", "1889", "год", "елка", "x2")


# --- faithfulness -------------------------------------------------------------------------------

EIFFEL_CONTEXTS = ("The Eiffel Tower is in Paris. It opened in 1889.", "Gustave Eiffel designed it.")
EIFFEL_RESPONSE = "The Eiffel Tower is located in Paris. It opened in 1887. Its architect was Gustave Eiffel."
# Sentence 1: content stems eiffe, tower, locat, paris; 3 of 4 in context 1 → overlap 0.75, supported.
# Sentence 2: as close as can be by cosine, but 1887 is in no context → unsupported.
# Sentence 3: overlap 2/3 with context 2, cosine 2 / (√2·√2.04) ≈ 0.990 → supported by cosine.
EIFFEL_TABLE = {
    "It opened in 1887.": [0.0, 0.0, 1.0],
    "It opened in 1889.": [0.0, 0.0, 1.0],
    "Its architect was Gustave Eiffel.": [1.0, 1.0, 0.0],
    "Gustave Eiffel designed it.": [1.0, 1.0, 0.2],
}


def test_faithfulness_counts_sentences_supported_by_overlap_or_cosine_and_wants_numbers_to_match():
    embed = TableEmbed(EIFFEL_TABLE)
    sample = Sample(id="1", retrieved_contexts=EIFFEL_CONTEXTS, response=EIFFEL_RESPONSE)
    score = offline_score("faithfulness", sample, embed, scale=RAW)
    assert (score.status, score.value) == ("ok", 2 / 3)
    assert len(embed.calls) == 1
    assert sorted(embed.calls[0]) == sorted(
        set(split_sentences(EIFFEL_RESPONSE))
        | {"The Eiffel Tower is in Paris.", "It opened in 1889.", "Gustave Eiffel designed it."}
    )


def test_a_cosine_threshold_above_the_paraphrase_turns_its_verdict():
    sample = Sample(id="1", retrieved_contexts=EIFFEL_CONTEXTS, response=EIFFEL_RESPONSE)
    score = offline_score("faithfulness", sample, TableEmbed(EIFFEL_TABLE), scale=RAW, support_threshold=1.0)
    assert score.value == 1 / 3


def test_faithfulness_in_russian_matches_inflected_words_by_their_stem():
    sample = Sample(
        id="ru",
        retrieved_contexts=("Эйфелева башня находится в Париже. Её построили в 1889 году.",),
        response="Башня находится в Париже! Башня построена в 1887 году.",
    )
    # "Башня находится в Париже!": stems башня, наход, париж all in the context → supported;
    # the second sentence's 1887 is not in the context → unsupported.
    assert offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language="ru").value == 0.5


def test_faithfulness_degenerate_cases_behave_like_the_llm_metric():
    no_statement = offline_score(
        "faithfulness", Sample(id="e", retrieved_contexts=EIFFEL_CONTEXTS, response=" — "), TableEmbed(),
        scale=RAW,
    )
    assert no_statement.status == "undetermined"
    assert no_statement.explanation == "the response has no statements"
    no_context = offline_score(
        "faithfulness", Sample(id="n", retrieved_contexts=(), response=EIFFEL_RESPONSE), TableEmbed(),
        scale=RAW,
    )
    assert (no_context.status, no_context.value) == ("ok", 0.0)


# --- retrieval side -----------------------------------------------------------------------------


def test_context_recall_is_the_share_of_reference_sentences_the_contexts_support():
    sample = Sample(
        id="r",
        retrieved_contexts=("The Eiffel Tower is in Paris. It opened in 1889.",),
        reference="The Eiffel Tower is in Paris. It is 330 metres tall.",
    )
    assert offline_score("context_recall", sample, TableEmbed(), scale=RAW).value == 0.5


def test_context_precision_is_average_precision_of_contexts_supporting_the_reference():
    sample = Sample(
        id="p",
        retrieved_contexts=(
            "Berlin is the capital of Germany.",
            "The Eiffel Tower stands in Paris.",
            "Paris hosts the Eiffel Tower.",
        ),
        reference="The Eiffel Tower is in Paris.",
    )
    # Verdicts 0, 1, 1: AP = (1/2)·(1/2 + 2/3) = 7/12.
    score = offline_score("context_precision", sample, TableEmbed(), scale=RAW)
    assert score.value == pytest.approx(7 / 12, abs=1e-15)


def test_context_precision_without_contexts_is_zero_with_a_reason():
    sample = Sample(id="p", retrieved_contexts=(), reference="The Eiffel Tower is in Paris.")
    score = offline_score("context_precision", sample, TableEmbed(), scale=RAW)
    assert (score.value, score.explanation) == (0.0, "no context was retrieved")


# --- response side ------------------------------------------------------------------------------

ANSWER = Sample(
    id="a",
    response="The Eiffel Tower is in Paris. It is made of cheese.",
    reference="The Eiffel Tower is in Paris.",
)
ANSWER_TABLE = {ANSWER.response: [1.0, 0.0, 0.0], ANSWER.reference: [1.0, 1.0, 0.0]}


def test_semantic_similarity_is_the_cosine_of_the_whole_texts():
    embed = TableEmbed(ANSWER_TABLE)
    score = offline_score("semantic_similarity", ANSWER, embed, scale=RAW)
    assert score.value == pytest.approx(1 / math.sqrt(2), abs=1e-15)
    assert embed.calls == [[ANSWER.response, ANSWER.reference]]


def test_factual_correctness_is_the_f1_of_sentence_support_both_ways():
    # Precision 1/2 (the cheese sentence is unsupported), recall 1/1: F1 = 2/3.
    score = offline_score("factual_correctness", ANSWER, TableEmbed(ANSWER_TABLE), scale=RAW)
    assert score.value == pytest.approx(2 / 3, abs=1e-15)


def test_answer_correctness_weights_support_f1_and_similarity_three_to_one():
    embed = TableEmbed(ANSWER_TABLE)
    score = offline_score("answer_correctness", ANSWER, embed, scale=RAW)
    assert score.value == pytest.approx(0.75 * 2 / 3 + 0.25 / math.sqrt(2), abs=1e-15)
    assert len(embed.calls) == 1


def test_the_runs_options_are_read_as_the_llm_form_reads_them():
    """semantic_similarity's threshold, factual_correctness's mode and beta, answer_correctness's weights: a
    setting the report records is one the number obeys (seed 003: a threshold gives 0.0 or 1.0)."""
    embed = TableEmbed(ANSWER_TABLE)  # similarity 1/sqrt(2) = 0.707; precision 1/2, recall 1/1

    def value(metric: str, **options) -> float | None:
        return offline_score(metric, ANSWER, embed, scale=RAW, options=JudgeOptions(**options)).value

    assert (value("semantic_similarity", threshold=0.8), value("semantic_similarity", threshold=0.7)) == (0.0, 1.0)
    assert value("factual_correctness", factual_mode="precision") == pytest.approx(0.5, abs=1e-15)
    assert value("factual_correctness", factual_mode="recall") == 1.0
    assert value("factual_correctness", beta=2.0) == pytest.approx(5 * 0.5 / (4 * 0.5 + 1), abs=1e-15)
    assert value("answer_correctness", weights=AnswerCorrectnessWeights(factual=1.0, semantic=1.0)) == pytest.approx(
        (2 / 3 + 1 / math.sqrt(2)) / 2, abs=1e-15)


# --- explanations -------------------------------------------------------------------------------
# As an LLM judge names the statements it rejected and why: each unsupported (or, for context precision,
# irrelevant) unit with the closest passage's missing numbers, calibrated similarity and overlap.


def test_faithfulness_names_the_unsupported_sentence_and_how_close_its_best_context_came():
    sample = Sample(id="1", retrieved_contexts=EIFFEL_CONTEXTS, response=EIFFEL_RESPONSE)
    score = offline_score("faithfulness", sample, TableEmbed(EIFFEL_TABLE), scale=RAW)
    # the closest context is the first: cosine 1 with "It opened in 1889.", stems opene of {opene, 1887}
    assert score.explanation == ("unsupported by the contexts: «It opened in 1887.» (1887 not found; "
                                 "similarity 1.00, overlap 0.50)")


def test_context_recall_names_the_reference_sentences_no_context_supports():
    sample = Sample(id="r", retrieved_contexts=("The Eiffel Tower is in Paris. It opened in 1889.",),
                    reference="The Eiffel Tower is in Paris. It is 330 metres tall.")
    score = offline_score("context_recall", sample, TableEmbed(), scale=RAW)
    assert score.explanation == ("reference claims the contexts do not support: «It is 330 metres tall.» (330 not "
                                 "found; similarity —, overlap 0.00)")


def test_context_precision_names_each_irrelevant_context_by_rank():
    sample = Sample(id="p", retrieved_contexts=("Berlin is the capital of Germany.", "Paris hosts the Eiffel Tower."),
                    reference="The Eiffel Tower is in Paris.")
    score = offline_score("context_precision", sample, TableEmbed(), scale=RAW)
    assert score.explanation == ("contexts supporting no reference claim: #1 «Berlin is the capital of "
                                 "Germany.» (Eiffel, Tower, Paris not found; similarity —, overlap 0.00)")


def test_factual_and_answer_correctness_name_the_unmatched_sentences_of_each_side():
    factual = offline_score("factual_correctness", ANSWER, TableEmbed(ANSWER_TABLE), scale=RAW)
    unmatched = "not in the reference: «It is made of cheese.» (similarity —, overlap 0.00)"
    assert factual.explanation == unmatched
    answer = offline_score("answer_correctness", ANSWER, TableEmbed(ANSWER_TABLE), scale=RAW)
    assert answer.explanation == f"{RAW.explain(1 / math.sqrt(2))}; {unmatched}"
    swapped = Sample(id="s", response=ANSWER.reference, reference=ANSWER.response)
    recall_side = offline_score("factual_correctness", swapped, TableEmbed(), scale=RAW).explanation
    assert recall_side == "missing from the response: «It is made of cheese.» (similarity —, overlap 0.00)"


def test_a_supported_answer_has_nothing_to_explain_and_a_long_sentence_is_cut():
    supported = Sample(id="s", retrieved_contexts=("The Eiffel Tower is in Paris.",),
                       response="The Eiffel Tower is in Paris.")
    assert offline_score("faithfulness", supported, TableEmbed(), scale=RAW).explanation == ""
    long = "The moon " + "is very far away and " * 6 + "made of rock."
    cut = offline_score("faithfulness", Sample(id="l", retrieved_contexts=("Cheese.",), response=long),
                        TableEmbed(), scale=RAW).explanation
    quoted = cut.split("«")[1].split("»")[0]
    assert len(long) > 80 and len(quoted) == 80 and quoted.endswith("…") and long.startswith(quoted[:-1])


# --- contract -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metric", "reason"),
    [
        ("faithfulness", "missing field(s): response, retrieved_contexts"),
        ("context_recall", "missing field(s): reference, retrieved_contexts"),
        ("answer_correctness", "missing field(s): response, reference"),
    ],
)
def test_a_missing_field_is_named_and_nothing_is_embedded(metric, reason):
    embed = TableEmbed()
    score = offline_score(metric, Sample(id="m", user_input="Where is it?"), embed, scale=RAW)
    assert (score.status, score.explanation) == ("undetermined", reason)
    assert embed.calls == []


@pytest.mark.parametrize("metric", ["response_relevancy", "noise_sensitivity", "context_relevance", "bleu"])
def test_a_metric_without_proxy_is_an_error_listing_those_with_one(metric):
    with pytest.raises(ValueError, match=metric) as error:
        offline_score(metric, ANSWER, TableEmbed(), scale=RAW)
    assert all(name in str(error.value) for name in OFFLINE_METRICS)
    with pytest.raises(ValueError, match=metric):
        describe(metric)


def test_every_offline_metric_is_described_for_the_report():
    assert OFFLINE_METRICS == {
        "faithfulness",
        "context_recall",
        "context_precision",
        "semantic_similarity",
        "factual_correctness",
        "answer_correctness",
    }
    assert all(describe(m) and "\n" not in describe(m) for m in OFFLINE_METRICS)
    assert all("proxy" in describe(m) for m in OFFLINE_METRICS - {"semantic_similarity"})


def test_bad_arguments_and_a_misaligned_embedder_fail_loudly():
    with pytest.raises(ValueError, match="language"):
        offline_score("faithfulness", ANSWER, TableEmbed(), scale=RAW, language="de")
    with pytest.raises(ValueError, match="support_threshold"):
        offline_score("faithfulness", ANSWER, TableEmbed(), scale=RAW, support_threshold=0.0)
    with pytest.raises(ValueError, match="overlap_threshold"):
        offline_score("faithfulness", ANSWER, TableEmbed(), scale=RAW, overlap_threshold=float("nan"))
    with pytest.raises(ValueError, match="shape"):
        offline_score("semantic_similarity", ANSWER, lambda texts: np.zeros((1, 3)), scale=RAW)
