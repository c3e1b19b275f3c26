"""Text and repeatability metrics of the generation tiers, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu
from rouge_score import rouge_scorer

from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.text import (
    BLEU_TOKENIZER,
    bleu,
    exact_match,
    exact_match_rate,
    mean_determined,
    rouge,
    rouge_tokens,
    semantic_consistency,
)

# Baseline 0: a calibrated similarity is the raw cosine clipped to [0, 1], so hand-computed cosines are the
# expected values (a negative cosine's expected value is clipped to 0).
RAW = SimilarityScale(0.0, "test", "en")

RUSSIAN = "Кошка сидит на ковре у окна."


def values(scores):
    return (scores.rouge1.value, scores.rouge2.value, scores.rougeL.value)


def test_rouge_by_hand():
    # prediction: the cat sat on the red mat (7 words), reference: the cat is on the mat (6).
    # unigrams: the×2, cat, on, mat → 5; P 5/7, R 5/6, F 10/13.
    # bigrams: "the cat", "on the" → 2 of 6 and of 5; F = 2·(1/3·2/5)/(1/3 + 2/5) = 4/11.
    # LCS: the cat on the mat → 5, as for unigrams.
    scores = rouge("The cat sat on the red mat.", "the cat is on the mat")
    assert values(scores) == pytest.approx((10 / 13, 4 / 11, 10 / 13), abs=1e-12)
    assert all(s.status == "ok" and s.explanation == "" for s in (scores.rouge1, scores.rouge2, scores.rougeL))


def test_rouge_l_sees_order_that_rouge_1_does_not():
    # Same six words, two halves swapped: every unigram matches, the LCS is one half (3 of 6).
    # bigrams: "on the", "the mat", "the cat", "cat sat" of 5 each side → 4/5.
    scores = rouge("on the mat the cat sat", "the cat sat on the mat")
    assert values(scores) == pytest.approx((1.0, 4 / 5, 0.5), abs=1e-12)


def test_identical_russian_is_exactly_one():
    assert values(rouge(RUSSIAN, RUSSIAN)) == (1.0, 1.0, 1.0)


def test_default_rouge_tokenizer_drops_cyrillic():
    """Why `rouge` passes its own tokenizer: rouge-score's default one keeps only [a-z0-9]."""
    default = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    scores = default.score(RUSSIAN, RUSSIAN)
    assert [scores[k].fmeasure for k in ("rouge1", "rouge2", "rougeL")] == [0.0, 0.0, 0.0]


def test_rouge_tokens_normalise_case_punctuation_and_composition():
    decomposed = "Мои\u0306 «Ёж», ２０ ШТ."  # й as и + combining breve, full-width digits
    assert rouge_tokens(decomposed) == ["мой", "ёж", "20", "шт"]
    assert rouge_tokens("") == []


def test_no_stemming():
    # With rouge-score's Porter stemmer "cats"/"cat" would match; the same rule holds in every language.
    assert rouge("cats", "cat").rouge1.value == 0.0
    assert rouge("кошки", "кошка").rouge1.value == 0.0


def test_rouge_degenerate_cases():
    empty_prediction = rouge("", "the cat is on the mat")
    assert values(empty_prediction) == (0.0, 0.0, 0.0)
    assert empty_prediction.rouge1.explanation == "the prediction has no words"
    for prediction, reference in [("", ""), ("the cat", ""), ("the cat", " — "), ("...", "!")]:
        scores = rouge(prediction, reference)
        for s in (scores.rouge1, scores.rouge2, scores.rougeL):
            assert s.status == "undetermined" and s.value is None and s.explanation == "the reference has no words"


def test_rouge2_undetermined_for_one_word_reference():
    scores = rouge("Да.", "да")
    assert (scores.rouge1.value, scores.rougeL.value) == (1.0, 1.0)
    assert scores.rouge2.status == "undetermined"
    assert rouge("да, конечно", "да").rouge2.value is None


def test_bleu_identical_is_exactly_100():
    assert bleu(RUSSIAN, RUSSIAN).value == 100.0
    assert bleu("Да", "Да").value == 100.0  # effective order: a one-word exact answer
    assert sacrebleu.sentence_bleu(RUSSIAN, [RUSSIAN], tokenize=BLEU_TOKENIZER).score > 100.0  # why the cap


def test_bleu_by_hand():
    # the cat sat on the mat / the cat is on the mat, 6 tokens each (BP = 1).
    # precisions: 5/6, 3/5, 1/4, and 0/3 smoothed by "exp" to (1/2)/3 = 1/6.
    # BLEU = 100 · (5/6 · 3/5 · 1/4 · 1/6)^(1/4) = 100 · 48^(-1/4) ≈ 37.99.
    score = bleu("the cat sat on the mat", "the cat is on the mat")
    assert score.value == pytest.approx(100 * 48**-0.25, abs=1e-9)
    assert score.value == pytest.approx(37.99178428257963, abs=1e-9)


def test_bleu_intl_tokenizer_splits_guillemets():
    """Why not sacreBLEU's default 13a: it leaves «Сохранить» glued, so the word never matches."""
    prediction, reference = 'Нажмите кнопку "Сохранить"', "Нажмите кнопку «Сохранить»"
    # intl: 5 tokens each side, BP = 1; p = 3/5, 1/4, 0/3 → (1/2)/3, 0/2 → (1/4)/2.
    assert bleu(prediction, reference).value == pytest.approx(100 * 320**-0.25, abs=1e-9)  # 23.64
    # 13a: the reference is 3 tokens, so only 2 of 5 unigrams match: 100 · 480^(-1/4) ≈ 21.36.
    assert sacrebleu.sentence_bleu(prediction, [reference], tokenize="13a").score == pytest.approx(
        100 * 480**-0.25, abs=1e-9
    )


def test_bleu_is_case_sensitive():
    assert bleu("Да", "да").value == 0.0


def test_bleu_degenerate_cases():
    assert bleu("", "the cat").value == 0.0
    assert bleu("", "the cat").explanation == "the prediction has no words"
    for prediction in ("", "the cat"):
        s = bleu(prediction, "  ")
        assert s.status == "undetermined" and s.value is None and s.explanation == "the reference has no words"


def test_exact_match_is_verbatim():
    assert exact_match(["Ответ.", "Ответ.", "Ответ."]).value == 1.0
    assert exact_match(["Ответ.", "Ответ.", "Ответ. "]).value == 0.0  # trailing space counts
    assert exact_match(["Ответ", "ответ"]).value == 0.0
    assert exact_match(["й", "и\u0306"]).value == 0.0  # same glyph, different code points
    for responses in (["one"], []):
        s = exact_match(responses)
        assert s.status == "undetermined" and s.explanation == "fewer than two responses: nothing to compare"


def test_exact_match_rate_by_hand():
    items = [["a", "a"], ["a", "b"], ["c", "c"], ["only one"]]  # 2 of the 3 comparable items
    assert exact_match_rate(items) == 2 / 3
    assert exact_match_rate([["x"], ["y"]]) is None
    assert exact_match_rate([]) is None


def test_semantic_consistency_by_hand():
    # Pairs: (a, b) cos 0, (a, c) cos 1/√2, (b, c) cos 1/√2 → mean √2/3.
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    assert semantic_consistency(vectors, RAW).value == pytest.approx(math.sqrt(2) / 3, abs=1e-15)
    assert semantic_consistency(np.array([[0.3, -0.7, 0.1]] * 3), RAW).value == 1.0
    # Opposite vectors: cosine -1, clipped to a calibrated 0.0 (the raw mean was -1.0); the explanation keeps -1.
    opposite = semantic_consistency(np.array([[1.0, 0.0], [-2.0, 0.0]]), RAW)
    assert (opposite.value, opposite.explanation) == (0.0, "cosine -1.000000, baseline 0.0000")
    # clipping is per pair, before the mean: cosines 1, -1, -1 → (1 + 0 + 0) / 3, not (1 - 1 - 1) / 3
    assert semantic_consistency(np.array([[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0]]), RAW).value == 1 / 3


def test_semantic_consistency_degenerate_cases():
    single = semantic_consistency(np.array([[1.0, 2.0]]), RAW)
    assert single.status == "undetermined" and single.value is None  # not 1.0
    assert semantic_consistency(np.empty((0, 4)), RAW).value is None
    zero = semantic_consistency(np.array([[1.0, 0.0], [0.0, 0.0]]), RAW)
    assert zero.explanation == "an embedding is the zero vector"
    with pytest.raises(ValueError):
        semantic_consistency(np.array([1.0, 2.0]), RAW)
    with pytest.raises(ValueError):
        semantic_consistency(np.array([[1.0, np.nan], [1.0, 0.0]]), RAW)


def test_mean_determined_leaves_undetermined_items_out():
    per_item = [semantic_consistency(v, RAW) for v in (np.eye(2), np.ones((2, 2)), np.ones((1, 2)))]
    assert mean_determined(per_item) == 0.5  # (0 + 1) / 2, the single-response item left out
    assert mean_determined([per_item[2]]) is None
