"""Judged metrics: the seeds' worked examples, hand-computed cases, degenerate cases, exactness.

The seeds (000 Russian and 001 English retrieval metrics, 002 context relevance, 003 response
metrics) give samples and a bound on the score, but not the judge's verdicts, except 002. Each
example below writes down the verdicts a correct judge gives on that sample's text, then checks
the exact score the formula gives and that it meets the seed's bound.
"""

import numpy as np
import pytest

from benchmarks.judge.judged_metrics.builtin.context_entity_recall import context_entity_recall, normalise_entity
from benchmarks.judge.judged_metrics.builtin.context_relevance import context_relevance
from benchmarks.judge.judged_metrics.builtin.noise_sensitivity import NoiseSensitivityVerdicts, noise_sensitivity
from benchmarks.judge.judged_metrics.builtin.response_relevancy import EmbeddedQuestion, response_relevancy
from benchmarks.metrics.judged import (
    WEIGHT_PRESETS,
    AnswerCorrectnessWeights,
    ClaimCounts,
    ClaimVerdicts,
    answer_correctness,
    context_precision,
    context_recall,
    cosine,
    factual_correctness,
    faithfulness,
    semantic_similarity,
)
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome

# Baseline 0: the calibrated similarity is the raw cosine clipped to [0, 1], so the hand-computed cosines
# below are the expected values as they are (a negative cosine's expected value is clipped to 0).
RAW = SimilarityScale(0.0, "test", "en")

# --- seeds 000 (ru) and 001 (en): retrieval metrics ---------------------------------------------


@pytest.mark.parametrize(
    ("reference", "contexts"),
    [
        pytest.param(
            ["Eiffel Tower", "Paris", "France", "1889", "World's Fair"],
            ["Eiffel Tower", "Paris", "France", "1889", "1889 World's Fair", "visitors"],
            id="001-en",
        ),
        pytest.param(
            ["Эйфелева башня", "Париж", "Франция", "1889", "Всемирная выставка"],
            ["эйфелева  башня", "ПАРИЖ", "Франция", "1889", "Всемирная выставка 1889 года"],
            id="000-ru",
        ),
    ],
)
def test_seed_entity_recall_high_coverage(reference, contexts):
    """Four of five reference entities recur; "World's Fair" came out as "1889 World's Fair"."""
    score = context_entity_recall(reference, contexts)
    assert score == Outcome.scored(4 / 5)
    assert score.value >= 0.7


@pytest.mark.parametrize(
    ("reference", "contexts"),
    [
        pytest.param(
            ["Albert Einstein", "Ulm", "Germany", "March 14, 1879", "Nobel Prize in Physics", "1921"],
            ["Physics"],
            id="001-en",
        ),
        pytest.param(
            [
                "Альберт Эйнштейн",
                "Ульм",
                "Германия",
                "14 марта 1879 года",
                "Нобелевская премия по физике",
                "1921",
            ],
            ["Физика"],
            id="000-ru",
        ),
    ],
)
def test_seed_entity_recall_poor_coverage(reference, contexts):
    score = context_entity_recall(reference, contexts)
    assert score == Outcome.scored(0.0)
    assert score.value <= 0.3


@pytest.mark.parametrize(
    "verdicts",
    [
        pytest.param(
            {
                "Photosynthesis is a biological process where plants convert light energy.": 1,
                "The process involves: 6CO2 + 6H2O + light → C6H12O6 + 6O2.": 1,
                "Plants are autotrophs that produce their own food.": 0,
            },
            id="001-en",
        ),
        pytest.param(
            {
                "Фотосинтез — биологический процесс, при котором растения преобразуют световую энергию.": 1,
                "Процесс включает: 6CO2 + 6H2O + свет → C6H12O6 + 6O2.": 1,
                "Растения — автотрофы, производящие собственную пищу.": 0,
            },
            id="000-ru",
        ),
    ],
)
def test_seed_context_precision_reference_based(verdicts):
    """An irrelevant context ranked last costs average precision nothing."""
    score = context_precision(list(verdicts.values()))
    assert score == Outcome.scored(1.0)
    assert score.value >= 0.8


@pytest.mark.parametrize(
    "verdicts",
    [
        pytest.param(
            {
                "The price of groceries has increased this year.": 0,
                "Quantum computers use quantum bits (qubits).": 1,
                "Quantum computing leverages superposition and entanglement.": 1,
            },
            id="001-en",
        ),
        pytest.param(
            {
                "Цены на продукты выросли в этом году.": 0,
                "Квантовые компьютеры используют кубиты вместо классических битов.": 1,
                "Квантовые вычисления используют суперпозицию и запутанность.": 1,
            },
            id="000-ru",
        ),
    ],
)
def test_seed_context_precision_poor_ordering(verdicts):
    """AP = (1/2 + 2/3) / 2 = 7/12."""
    score = context_precision(list(verdicts.values()))
    assert score == Outcome.scored(7 / 12)
    assert score.value <= 0.7


@pytest.mark.parametrize(
    "verdicts",
    [
        pytest.param(
            {
                "Photosynthesis converts light energy to chemical energy.": 1,
                "It occurs in chloroplasts.": 1,
                "The process requires CO₂, water, and sunlight.": 1,
                "Oxygen is released as a byproduct.": 1,
            },
            id="001-en",
        ),
        pytest.param(
            {
                "Фотосинтез преобразует световую энергию в химическую.": 1,
                "Он происходит в хлоропластах.": 1,
                "Процесс требует CO₂, воды и солнечного света.": 1,
                "Кислород выделяется как побочный продукт.": 1,
            },
            id="000-ru",
        ),
    ],
)
def test_seed_context_recall_all_supported(verdicts):
    score = context_recall(list(verdicts.values()))
    assert score.value == 1.0 and score.value >= 0.9


@pytest.mark.parametrize(
    "verdicts",
    [
        pytest.param({"The first Super Bowl was held on January 15, 1967.": 1}, id="001-en"),
        pytest.param({"Первый Суперкубок состоялся 15 января 1967 года.": 1}, id="000-ru"),
    ],
)
def test_seed_faithfulness_perfect(verdicts):
    score = faithfulness(list(verdicts.values()))
    assert score.value == 1.0 and score.value >= 0.9


@pytest.mark.parametrize(
    "verdicts",
    [
        pytest.param(
            {
                "John is taking Data Structures.": 1,
                "John is taking Algorithms.": 1,
                "John is taking Artificial Intelligence.": 0,
                "John has a part-time job at the university library.": 0,
            },
            id="001-en",
        ),
        pytest.param(
            {
                "Иван посещает курс по Структурам данных.": 1,
                "Иван посещает курс по Алгоритмам.": 1,
                "Иван посещает курс по Искусственному интеллекту.": 0,
                "Иван работает на полставки в университетской библиотеке.": 0,
            },
            id="000-ru",
        ),
    ],
)
def test_seed_faithfulness_hallucination(verdicts):
    score = faithfulness(list(verdicts.values()))
    assert score == Outcome.scored(0.5)
    assert score.value <= 0.7


def test_seed_noise_sensitivity_low():
    """Earthquakes, 001-en and 000-ru alike: one correct response statement, so nothing to blame.

    Reference statements: plates move → earthquakes; plates shift and release energy.
    Contexts: plates move slowly (supports neither), collisions cause earthquakes (the first),
    seismic waves are released energy (the second), Japan in cherry blossom season (neither).
    """
    verdicts = NoiseSensitivityVerdicts(
        response_in_reference=(True,),
        reference_in_context=((False, False), (True, False), (False, True), (False, False)),
        response_in_context=((False,), (True,), (False,), (False,)),
    )
    for mode in ("relevant", "irrelevant"):
        score = noise_sensitivity(verdicts, mode)
        assert score == Outcome.scored(0.0)
        assert score.value <= 0.3


def test_seed_noise_sensitivity_irrelevant_mode_ru():
    """000-ru: «Париж — столица Франции. Там прекрасная погода круглый год.»

    Response statements: the capital (in the reference), the weather (not: incorrect). Contexts:
    the capital (relevant), Paris weather (irrelevant; the judge lets it back the weather claim),
    French cuisine (irrelevant). The wrong weather claim traces to an irrelevant context only.
    """
    verdicts = NoiseSensitivityVerdicts(
        response_in_reference=(True, False),
        reference_in_context=((True,), (False,), (False,)),
        response_in_context=((True, False), (False, True), (False, False)),
    )
    irrelevant = noise_sensitivity(verdicts, "irrelevant")
    assert irrelevant == Outcome.scored(0.5)
    assert 0.0 <= irrelevant.value <= 1.0
    assert noise_sensitivity(verdicts, "relevant") == Outcome.scored(0.0)


QUESTION = np.array([1.0, 0.0])


def _questions(*vectors, noncommittal=False):
    return [EmbeddedQuestion(np.array(v, dtype=float), noncommittal) for v in vectors]


def test_seed_response_relevancy_complete_answer():
    """Every generated question points exactly where the asked one does (en and ru alike)."""
    question = np.array([1.0, 2.0, 3.0])
    score = response_relevancy(question, _questions([2, 4, 6], [1, 2, 3], [0.5, 1, 1.5]), scale=RAW)
    assert score.value == 1.0 and score.value >= 0.85


def test_seed_response_relevancy_incomplete_answer():
    """The questions recover "where is France" but not the capital: cosines 3/5, 4/5, 3/5."""
    score = response_relevancy(QUESTION, _questions([3, 4], [4, 3], [3, 4]), scale=RAW)
    assert score.value == pytest.approx(2 / 3, abs=1e-15)
    assert 0.5 <= score.value <= 0.8
    # the explanation keeps each raw cosine
    assert score.explanation == ("cosine 0.600000, baseline 0.0000; cosine 0.800000, baseline 0.0000; "
                                 "cosine 0.600000, baseline 0.0000")


def test_seed_response_relevancy_noncommittal():
    """An "I don't know" answer: every generation is flagged noncommittal."""
    score = response_relevancy(QUESTION, _questions([1, 0], [1, 0], [1, 0], noncommittal=True), scale=RAW)
    assert score == Outcome.scored(0.0, explanation="the response is noncommittal")
    assert score.value < 0.1


def test_seed_response_relevancy_five_questions_ru():
    """000-ru, numberOfQuestions = 5 on quantum entanglement: cosines 1, 1, 1, 3/5, 4/5."""
    score = response_relevancy(QUESTION, _questions([1, 0], [2, 0], [5, 0], [3, 4], [4, 3]), scale=RAW)
    assert score.value == pytest.approx(0.88, abs=1e-15)
    assert score.value >= 0.7


# --- seed 002: context relevance ----------------------------------------------------------------


def test_seed_context_relevance_example():
    """Machine learning definition rated 2, weather forecast rated 0: (1.0 + 0.0) / 2."""
    assert context_relevance([2, 0]) == Outcome.scored(0.5)


# --- seed 003: response metrics -----------------------------------------------------------------


def test_seed_semantic_similarity_examples():
    paraphrase = semantic_similarity([4.0, 3.0], [1.0, 0.0], scale=RAW)
    assert paraphrase == Outcome.scored(0.8, "cosine 0.800000, baseline 0.0000") and paraphrase.value >= 0.7
    unrelated = semantic_similarity([0.0, 1.0], [1.0, 0.0], scale=RAW)
    assert unrelated == Outcome.scored(0.0, "cosine 0.000000, baseline 0.0000") and unrelated.value <= 0.5


def test_seed_semantic_similarity_threshold_is_inclusive():
    """Threshold 0.8 with a cosine of exactly 0.8 passes (>=)."""
    assert semantic_similarity([4.0, 3.0], [1.0, 0.0], scale=RAW, threshold=0.8) == Outcome.scored(
        1.0, "cosine 0.800000, baseline 0.0000"
    )
    assert semantic_similarity([3.0, 4.0], [1.0, 0.0], scale=RAW, threshold=0.8) == Outcome.scored(
        0.0, "cosine 0.600000, baseline 0.0000"
    )


def test_seed_factual_correctness_high_accuracy():
    """Response claims all backed by the reference; the reference's birth year 1879 is missing.

    P = 3/3, R = 3/4, F1 = 2·1·(3/4) / (1 + 3/4) = 6/7.
    """
    verdicts = ClaimVerdicts(
        response_supported=(True, True, True),  # German physicist; relativity; Nobel 1921
        reference_supported=(True, False, True, True),  # born in Germany; in 1879; relativity; Nobel
    )
    score = factual_correctness(verdicts, mode="f1")
    assert score == Outcome.scored(6 / 7) and score.value >= 0.8


def test_seed_factual_correctness_errors_detected():
    """Born in France, invented the telephone, Nobel in chemistry: nothing matches either way."""
    verdicts = ClaimVerdicts(response_supported=(False,) * 3, reference_supported=(False,) * 3)
    score = factual_correctness(verdicts, mode="f1")
    assert score == Outcome.scored(0.0) and score.value <= 0.3


def test_seed_factual_correctness_precision_and_recall_modes():
    """«Париж - столица Франции.» against a reference that adds the population."""
    precision = factual_correctness(ClaimVerdicts(response_supported=(True,)), mode="precision")
    assert precision == Outcome.scored(1.0) and precision.value >= 0.9
    recall = factual_correctness(ClaimVerdicts(reference_supported=(True, False)), mode="recall")
    assert recall == Outcome.scored(0.5) and 0.4 <= recall.value <= 0.7


def test_seed_answer_correctness_default_weights():
    """Great Wall: both facts matched (F1 = 1), similarity 0.9: 0.75 + 0.25·0.9."""
    score = answer_correctness(factual_correctness(ClaimCounts(tp=2, fp=0, fn=0)), Outcome.scored(0.9))
    assert score.value == pytest.approx(0.975, abs=1e-15) and score.value >= 0.8


def test_seed_answer_correctness_equal_weights():
    """Python: "a programming language" matched, "high-level, interpreted" missed: F1 = 2/3."""
    score = answer_correctness(
        factual_correctness(ClaimCounts(tp=1, fp=0, fn=1)), Outcome.scored(0.85), weights="equal"
    )
    assert score.value == pytest.approx(0.5 * 2 / 3 + 0.5 * 0.85, abs=1e-15)
    assert 0.5 <= score.value <= 0.9


def test_seed_answer_correctness_factual_focused():
    """Water boils at 100 °C, ice melts at 0 °C; "at standard pressure" missed: F1 = 4/5."""
    score = answer_correctness(
        factual_correctness(ClaimCounts(tp=2, fp=0, fn=1)), Outcome.scored(0.9), weights="factual-focused"
    )
    assert score.value == pytest.approx(0.9 * 0.8 + 0.1 * 0.9, abs=1e-15) and score.value >= 0.8


def test_seed_answer_correctness_custom_weights():
    """Machine learning paraphrase judged a miss both ways (F1 = 0), similarity 0.7, weights 60/40."""
    score = answer_correctness(
        factual_correctness(ClaimCounts(tp=0, fp=1, fn=1)),
        Outcome.scored(0.7),
        weights=AnswerCorrectnessWeights(0.6, 0.4),
    )
    assert score.value == pytest.approx(0.28, abs=1e-15) and 0.0 <= score.value <= 1.0


# --- hand-computed cases ------------------------------------------------------------------------


def test_context_precision_by_hand():
    """Relevant at ranks 1, 3, 5: (1/1 + 2/3 + 3/5) / 3 = 34/45."""
    assert context_precision([1, 0, 1, 0, 1]) == Outcome.scored(34 / 45)
    assert context_precision([0, 0, 1]) == Outcome.scored(1 / 3)


def test_entity_normalisation():
    assert normalise_entity("  Nobel\u00a0Prize  in Physics ") == "nobel prize in physics"
    assert normalise_entity("ＵＬＭ") == "ulm"
    assert context_entity_recall(["Paris", "paris", "PARIS "], ["Paris"]) == Outcome.scored(1.0)
    assert context_entity_recall(["Ulm", "1879", ""], ["ulm", "   "]) == Outcome.scored(0.5)


def test_noise_sensitivity_modes_by_hand():
    """s0 correct; s1 wrong, backed by relevant c0 and irrelevant c1; s2 wrong, only c1; s3 wrong, nowhere.

    relevant counts s1 → 1/4; irrelevant counts s2 only (s1 already counts as relevant) → 1/4.
    """
    verdicts = NoiseSensitivityVerdicts(
        response_in_reference=(1, 0, 0, 0),
        reference_in_context=((1, 0), (0, 0), (0, 0)),
        response_in_context=((1, 1, 0, 0), (0, 1, 1, 0), (0, 0, 0, 0)),
    )
    assert noise_sensitivity(verdicts, "relevant") == Outcome.scored(0.25)
    assert noise_sensitivity(verdicts, "irrelevant") == Outcome.scored(0.25)


def test_factual_correctness_from_counts_by_hand():
    counts = ClaimCounts(tp=3, fp=1, fn=2)
    assert factual_correctness(counts, mode="precision") == Outcome.scored(3 / 4)
    assert factual_correctness(counts, mode="recall") == Outcome.scored(3 / 5)
    assert factual_correctness(counts, mode="f1") == Outcome.scored(2 * 3 / (2 * 3 + 1 + 2))
    # F2 = 5·TP / (5·TP + 4·FN + FP) = 15/24
    assert factual_correctness(counts, mode="f1", beta=2.0) == Outcome.scored(15 / 24)


def test_response_relevancy_any_rule_zeroes_on_one_flag():
    generated = _questions([1, 0], [1, 0]) + _questions([1, 0], noncommittal=True)
    assert response_relevancy(QUESTION, generated, scale=RAW).value == 1.0
    assert response_relevancy(QUESTION, generated, scale=RAW, zero_when="any") == Outcome.scored(
        0.0, explanation="the response is noncommittal"
    )


def test_context_relevance_by_hand():
    assert context_relevance([1, 2, 0, 1]) == Outcome.scored(4 / 8)


# --- degenerate cases ---------------------------------------------------------------------------


def test_degenerate_undetermined():
    cases = {
        "the reference has no entities": context_entity_recall([], ["Paris"]),
        "the reference has no statements": context_recall([]),
        "the response has no statements": faithfulness([]),
        "no question was generated from the response": response_relevancy(QUESTION, [], scale=RAW),
        "an embedding is the zero vector": semantic_similarity([0.0, 0.0], [1.0, 0.0], scale=RAW),
    }
    for reason, score in cases.items():
        assert score == Outcome.undetermined(reason)
    assert semantic_similarity([0.0, 0.0], [1.0, 0.0], scale=RAW, threshold=0.5).status == "undetermined"
    assert response_relevancy(QUESTION, _questions([0, 0]), scale=RAW).status == "undetermined"


def test_degenerate_defined():
    assert context_entity_recall(["Paris"], []) == Outcome.scored(0.0)
    assert context_precision([0, 0, 0]) == Outcome.scored(0.0, explanation="no retrieved context is relevant")
    assert context_precision([]) == Outcome.scored(0.0, explanation="no context was retrieved")
    assert context_relevance([]) == Outcome.scored(0.0, explanation="no context was retrieved")
    assert context_recall([0, 0]) == Outcome.scored(0.0)
    assert faithfulness([0]) == Outcome.scored(0.0)


def test_noise_sensitivity_degenerate():
    no_response = NoiseSensitivityVerdicts((), ((True,),), ((),))
    assert noise_sensitivity(no_response) == Outcome.undetermined("the response has no statements")
    no_context = NoiseSensitivityVerdicts((False, True), (), ())
    assert noise_sensitivity(no_context, "irrelevant") == Outcome.scored(0.0, explanation="no context was retrieved")
    no_reference = NoiseSensitivityVerdicts((False,), ((),), ((True,),))
    assert noise_sensitivity(no_reference).status == "undetermined"


def test_factual_correctness_without_claims():
    none = ClaimVerdicts(response_supported=(), reference_supported=())
    assert factual_correctness(none, mode="precision") == Outcome.undetermined("the response has no claims")
    assert factual_correctness(none, mode="recall") == Outcome.undetermined("the reference has no claims")
    assert factual_correctness(none) == Outcome.undetermined(
        "neither the response nor the reference has claims"
    )
    assert factual_correctness(ClaimCounts(0, 0, 0)).status == "undetermined"
    # one side empty: F is 0 when the other side is 0, else undefined
    assert factual_correctness(ClaimVerdicts((), (False, False))) == Outcome.scored(0.0)
    assert factual_correctness(ClaimVerdicts((), (True,))) == Outcome.undetermined("the response has no claims")
    assert factual_correctness(ClaimCounts(tp=0, fp=0, fn=3)) == Outcome.scored(0.0)
    assert factual_correctness(ClaimCounts(tp=0, fp=2, fn=0)) == Outcome.scored(0.0)


def test_answer_correctness_undetermined_component():
    factual = Outcome.undetermined("neither the response nor the reference has claims")
    assert answer_correctness(factual, Outcome.scored(0.9)) == Outcome.undetermined(
        "factual correctness: neither the response nor the reference has claims"
    )
    semantic_only = AnswerCorrectnessWeights(0.0, 1.0)
    assert answer_correctness(factual, Outcome.scored(0.9), weights=semantic_only) == Outcome.scored(0.9)


# --- exactness ----------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 49, 100])
def test_all_positive_verdicts_are_exactly_one(n):
    ones = [1] * n
    assert context_precision(ones).value == 1.0
    assert context_recall(ones).value == 1.0
    assert faithfulness(ones).value == 1.0
    assert context_relevance([2] * n).value == 1.0
    entities = [f"entity {i}" for i in range(n)]
    assert context_entity_recall(entities, entities).value == 1.0
    for beta in (0.1, 0.3, 0.5, 1.0, 2.0, 3.7):
        assert factual_correctness(ClaimVerdicts((True,) * n, (True,) * (n + 1)), beta=beta).value == 1.0
        assert factual_correctness(ClaimCounts(tp=n, fp=0, fn=0), beta=beta).value == 1.0


@pytest.mark.parametrize("weights", [*WEIGHT_PRESETS.values(), AnswerCorrectnessWeights(0.6, 0.4)])
def test_answer_correctness_all_ones_is_exactly_one(weights):
    assert answer_correctness(Outcome.scored(1.0), Outcome.scored(1.0), weights=weights).value == 1.0


def test_identical_embeddings_give_exactly_one():
    rng = np.random.default_rng(7)
    for _ in range(200):
        v = rng.normal(size=1024) * rng.uniform(1e-3, 1e3)
        assert cosine(v, v) == 1.0
        assert cosine(v, 2 * v) == 1.0
        assert cosine(v, -v) == -1.0
    question = rng.normal(size=384)
    same = [EmbeddedQuestion(question.copy(), False)] * 5
    assert response_relevancy(question, same, scale=RAW).value == 1.0


def test_cosine_scale_does_not_overflow():
    assert cosine([1e300, 1e300], [1e-300, 1e-300]) == 1.0


# --- threshold, weights, validation -------------------------------------------------------------


def test_threshold_zero_is_honoured():
    orthogonal = ([0.0, 1.0], [1.0, 0.0])
    assert semantic_similarity(*orthogonal, scale=RAW) == Outcome.scored(
        0.0, "cosine 0.000000, baseline 0.0000"
    )
    assert semantic_similarity(*orthogonal, scale=RAW, threshold=0.0) == Outcome.scored(
        1.0, "cosine 0.000000, baseline 0.0000"
    )
    # Cosine -0.995 is clipped to a calibrated 0.0, which meets threshold 0.0 (it failed it as a raw
    # cosine): expectation changed from 0.0 to 1.0; the raw cosine stays in the explanation.
    opposite = ([-1.0, 0.1], [1.0, 0.0])
    assert semantic_similarity(*opposite, scale=RAW) == Outcome.scored(
        0.0, "cosine -0.995037, baseline 0.0000"
    )
    assert semantic_similarity(*opposite, scale=RAW, threshold=0.0) == Outcome.scored(
        1.0, "cosine -0.995037, baseline 0.0000"
    )
    # a threshold just above 0 is still a real threshold on the clipped value
    assert semantic_similarity(*opposite, scale=RAW, threshold=1e-12).value == 0.0


def test_weight_presets():
    assert {name: (w.factual, w.semantic) for name, w in WEIGHT_PRESETS.items()} == {
        "default": (0.75, 0.25),
        "equal": (0.5, 0.5),
        "factual-focused": (0.9, 0.1),
        "semantic-focused": (0.1, 0.9),
    }
    factual, similarity = Outcome.scored(0.4), Outcome.scored(0.8)
    expected = {"default": 0.5, "equal": 0.6, "factual-focused": 0.44, "semantic-focused": 0.76}
    for name, value in expected.items():
        assert answer_correctness(factual, similarity, weights=name).value == pytest.approx(value, abs=1e-15)
    assert answer_correctness(factual, similarity).value == pytest.approx(0.5, abs=1e-15)


def test_custom_weights_are_normalised():
    factual, similarity = Outcome.scored(0.4), Outcome.scored(0.8)
    ratio = answer_correctness(factual, similarity, weights=AnswerCorrectnessWeights(3, 1))
    assert ratio.value == pytest.approx(answer_correctness(factual, similarity).value, abs=1e-15)


@pytest.mark.parametrize("weights", [(-0.1, 1.0), (0.0, 0.0), (float("nan"), 1.0), (float("inf"), 1.0)])
def test_invalid_weights_raise(weights):
    with pytest.raises(ValueError):
        AnswerCorrectnessWeights(*weights)


def test_unknown_preset_raises():
    with pytest.raises(ValueError, match="presets"):
        answer_correctness(Outcome.scored(1.0), Outcome.scored(1.0), weights="balanced")


@pytest.mark.parametrize("bad", [2, -1, None, 0.5, float("nan"), "1"])
def test_malformed_verdicts_raise(bad):
    with pytest.raises(ValueError):
        faithfulness([1, bad])
    with pytest.raises(ValueError):
        context_precision([bad])


def test_malformed_inputs_raise():
    with pytest.raises(ValueError):
        context_relevance([3])
    with pytest.raises(ValueError):
        context_relevance([True])
    with pytest.raises(ValueError):
        NoiseSensitivityVerdicts((True,), ((True,), (False,)), ((True,),))
    with pytest.raises(ValueError):
        NoiseSensitivityVerdicts((True, False), ((True,),), ((True,),))
    with pytest.raises(ValueError):
        noise_sensitivity(NoiseSensitivityVerdicts((True,), ((True,),), ((True,),)), "noisy")
    with pytest.raises(ValueError):
        factual_correctness(ClaimVerdicts(response_supported=(True,)), mode="recall")
    with pytest.raises(ValueError):
        factual_correctness(ClaimCounts(1, 0, 0), beta=0.0)
    with pytest.raises(ValueError):
        ClaimCounts(tp=-1, fp=0, fn=0)
    with pytest.raises(ValueError):
        semantic_similarity([1.0, float("nan")], [1.0, 0.0], scale=RAW)
    with pytest.raises(ValueError):
        cosine([1.0, 0.0], [1.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        Outcome(value=None, status="ok")
    with pytest.raises(ValueError):
        Outcome.undetermined("")


# --- RAGAS's claim counting (claim_counting = "ragas") -------------------------------------------------------


def test_ragas_counting_differs_from_bench_where_response_claims_restate_one_reference_claim():
    # 3 response claims, all supported by the reference; 4 reference claims, only 1 covered by the response.
    # bench ("sides"): recall = 1/4; RAGAS: tp = 3, fn = 3 → recall 3/6; precision 3/3 both ways.
    verdicts = ClaimVerdicts(response_supported=(True, True, True), reference_supported=(True, False, False, False))
    assert factual_correctness(verdicts, mode="recall").value == 0.25
    assert factual_correctness(verdicts, mode="recall", counting="ragas").value == 0.5
    assert factual_correctness(verdicts, mode="precision", counting="ragas").value == 1.0
    # F1: bench 2·1·0.25/1.25 = 0.4; RAGAS 2·1·0.5/1.5 = 2/3, returned rounded to 2 decimals as RAGAS does
    assert factual_correctness(verdicts, mode="f1").value == pytest.approx(0.4, abs=1e-15)
    assert factual_correctness(verdicts, mode="f1", counting="ragas").value == 0.67


def test_ragas_counting_gives_zero_where_bench_is_undetermined():
    no_claims = ClaimVerdicts(response_supported=(), reference_supported=())
    assert factual_correctness(no_claims, mode="f1").status == "undetermined"
    assert factual_correctness(no_claims, mode="f1", counting="ragas").value == 0.0
    assert factual_correctness(ClaimCounts(0, 0, 0), mode="precision", counting="ragas").value == 0.0


def test_ragas_counting_beta_and_precision_mode_ignores_the_reference_side():
    # tp 2, fp 1, fn 2 (precision mode counts no fn): P = 2/3, R = 1/2; F2 = 5·(1/3)/(4·2/3 + 1/2) = 10/19
    verdicts = ClaimVerdicts(response_supported=(True, True, False), reference_supported=(False, False, True))
    assert factual_correctness(verdicts, mode="f1", beta=2.0, counting="ragas").value == round(10 / 19, 2)
    assert factual_correctness(ClaimVerdicts(response_supported=(True, False)), mode="precision",
                               counting="ragas").value == 0.5
    with pytest.raises(ValueError, match="response's claims"):
        factual_correctness(ClaimVerdicts(reference_supported=(True,)), mode="recall", counting="ragas")
    with pytest.raises(ValueError, match="counting"):
        factual_correctness(verdicts, counting="other")  # type: ignore[arg-type]


def test_ragas_counting_rounds_the_float_ragas_computes_not_the_exact_fraction():
    # 3 / 8 = 0.375 exactly; RAGAS divides by 8 + 1e-8 first, so numpy rounds 0.37499999953 to 0.37
    counts = ClaimCounts(tp=3, fp=5, fn=0)
    assert factual_correctness(counts, mode="precision").value == 0.375
    assert factual_correctness(counts, mode="precision", counting="ragas").value == 0.37
