"""The calibrated similarity scale: hand-computed rescalings, the unrelated-text baseline, and that every
similarity bench reports or thresholds is read on it (semantic similarity, response relevancy, the offline
support test, session similarities, the settings' thresholds)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchmarks.config import load_settings
from benchmarks.errors import BenchError
from benchmarks.judge.catalog import offline_score
from benchmarks.judge.judged_metrics.builtin.response_relevancy import EmbeddedQuestion, response_relevancy
from benchmarks.metrics.judged import cosine, semantic_similarity
from benchmarks.metrics.similarity_scale import SimilarityScale, unrelated_baseline
from benchmarks.metrics.text import semantic_consistency
from benchmarks.metrics.ux_signals import session_similarities
from benchmarks.samples import Sample

REFERENCE = [1.0, 0.0]


def at_cosine(c: float) -> list[float]:
    """A unit vector whose cosine with REFERENCE is c (up to the last bit)."""
    return [c, math.sqrt(1.0 - c * c)]


# --- the rescaling --------------------------------------------------------------------------------


def test_rescaling_by_hand():
    scale = SimilarityScale(0.75, "e5", "en")
    assert scale(0.75) == 0.0  # as alike as unrelated texts
    assert scale(0.875) == 0.5  # (0.875 − 0.75) / 0.25
    assert scale(1.0) == 1.0  # identical
    assert scale(0.5) == 0.0  # less alike than unrelated texts: clipped, not −1
    assert scale(-1.0) == 0.0


def test_baseline_zero_is_the_cosine_clipped_to_zero_one():
    scale = SimilarityScale(0.0, "minilm", "en")
    assert [scale(c) for c in (-0.3, 0.0, 0.42, 1.0)] == [0.0, 0.0, 0.42, 1.0]


def test_a_negative_baseline_stretches_the_scale():
    scale = SimilarityScale(-0.5, "m", "en")
    assert scale(0.25) == 0.5  # (0.25 + 0.5) / 1.5
    assert scale(-0.5) == 0.0


def test_raw_threshold_is_the_cosine_a_calibrated_threshold_stands_for():
    scale = SimilarityScale(0.75, "e5", "en")
    assert scale.raw_threshold(0.85) == pytest.approx(0.9625, abs=1e-15)  # 0.75 + 0.85 · 0.25
    assert scale.raw_threshold(0.0) == 0.75 and scale.raw_threshold(1.0) == 1.0
    assert SimilarityScale(0.0, "minilm", "en").raw_threshold(0.85) == 0.85
    # the round trip: the raw threshold's calibrated value is the threshold
    assert scale(scale.raw_threshold(0.5)) == pytest.approx(0.5, abs=1e-15)


def test_array_is_elementwise_keeps_minus_infinity_and_clips():
    scale = SimilarityScale(0.75, "e5", "en")
    values = scale.array(np.array([-np.inf, -1.0, 0.5, 0.75, 0.875, 1.0]))
    assert values.dtype == np.float64
    assert values.tolist() == [-np.inf, 0.0, 0.0, 0.0, 0.5, 1.0]  # -inf (no cached text) is never a hit
    assert scale.array(np.empty(0)).shape == (0,)
    np.testing.assert_array_equal(scale.array(np.array([0.8, 0.9])), [scale(0.8), scale(0.9)])


@pytest.mark.parametrize("baseline", [1.0, 1.5, -1.5, math.nan, math.inf, -math.inf])
def test_a_baseline_that_is_no_cosine_below_one_is_refused(baseline):
    with pytest.raises(ValueError, match="baseline"):
        SimilarityScale(baseline, "m", "en")


def test_the_baseline_may_be_minus_one():
    assert SimilarityScale(-1.0, "m", "en")(0.0) == 0.5


def test_explain_keeps_the_raw_cosine_and_the_baseline():
    assert SimilarityScale(0.7612, "e5", "ru").explain(0.8) == "cosine 0.800000, baseline 0.7612"
    assert SimilarityScale(0.0, "m", "en").explain(-0.25) == "cosine -0.250000, baseline 0.0000"


def test_describe_names_model_language_baseline_and_where_it_came_from():
    measured = SimilarityScale(0.7612345678, "intfloat/multilingual-e5-small", "ru", "query: ", pairs=45,
                               spread=0.0412345678).describe(["semantic_similarity", "cache_hit_rate"]).written()
    assert measured["model"] == "intfloat/multilingual-e5-small"
    assert measured["language"] == "ru"
    assert measured["prompt"] == "query: "
    assert measured["baseline"] == 0.7612345678 and measured["spread"] == 0.0412345678  # the report rounds them
    assert "45 pairs" in measured["baseline_from"] and "ru" in measured["baseline_from"]
    assert measured["metrics"] == ["semantic_similarity", "cache_hit_rate"]
    given = SimilarityScale(0.3, "custom", "de").describe(()).written()
    assert (given["model"], given["language"]) == ("custom", "de")
    assert (given["baseline"], given["spread"]) == (0.3, None)
    assert "similarity_baseline" in given["baseline_from"]


# --- the unrelated-text baseline ------------------------------------------------------------------


def test_unrelated_baseline_by_hand():
    # Directions (1,0), (0,1), (1,1), lengths deliberately unequal. Pairwise cosines: 0, 1/√2, 1/√2.
    # Mean 2/(3√2) = √2/3. Population std: deviations −2a/3, a/3, a/3 with a = 1/√2 → variance 2a²/9 = 1/9.
    mean, spread, pairs = unrelated_baseline(np.array([[2.0, 0.0], [0.0, 3.0], [5.0, 5.0]]))
    assert mean == pytest.approx(math.sqrt(2) / 3, abs=1e-15)
    assert spread == pytest.approx(1 / 3, abs=1e-15)
    assert pairs == 3


def test_unrelated_baseline_of_four_texts_has_six_pairs():
    # (1,0), (0,1), (-1,0), (0,-1): cosines 0, -1, 0, 0, -1, 0 → mean -1/3; std √(2/9) = √2/3
    mean, spread, pairs = unrelated_baseline(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]))
    assert (mean, pairs) == (pytest.approx(-1 / 3, abs=1e-15), 6)
    assert spread == pytest.approx(math.sqrt(2) / 3, abs=1e-15)


def test_unrelated_baseline_of_identical_texts_is_one_with_no_spread():
    mean, spread, pairs = unrelated_baseline(np.array([[0.3, 0.4]] * 4))
    assert (mean, pairs) == (pytest.approx(1.0, abs=1e-15), 6)
    assert spread == pytest.approx(0.0, abs=1e-15)


@pytest.mark.parametrize("vectors", [
    np.array([[1.0, 0.0]]),  # one text: no pair
    np.array([1.0, 0.0, 1.0]),  # not a matrix
    np.array([[1.0, 0.0], [0.0, 0.0]]),  # a zero embedding has no cosine
    np.array([[1.0, np.nan], [0.0, 1.0]]),
])
def test_unrelated_baseline_refuses_what_has_no_mean_cosine(vectors):
    with pytest.raises(ValueError):
        unrelated_baseline(vectors)


# --- semantic similarity on the scale -------------------------------------------------------------

HALF = SimilarityScale(0.5, "m", "en")


def test_semantic_similarity_is_the_calibrated_cosine():
    # cos((4,3), (1,0)) = 0.8 → (0.8 − 0.5) / 0.5 = 0.6
    score = semantic_similarity([4.0, 3.0], REFERENCE, scale=HALF)
    assert score.status == "ok"
    assert score.value == pytest.approx(0.6, abs=1e-15)
    assert score.explanation == "cosine 0.800000, baseline 0.5000"  # the raw cosine is kept
    # below the baseline: 0, not a negative number; the raw cosine still in the explanation
    below = semantic_similarity([3.0, 4.0], [4.0, -3.0], scale=HALF)  # cos 0
    assert (below.value, below.explanation) == (0.0, "cosine 0.000000, baseline 0.5000")


def test_semantic_similarity_threshold_is_compared_with_the_calibrated_value():
    # calibrated 0.6 (raw 0.8): passes 0.6 (inclusive), fails 0.61, although the raw 0.8 would pass both
    assert semantic_similarity([4.0, 3.0], REFERENCE, scale=HALF, threshold=0.6).value == 1.0
    assert semantic_similarity([4.0, 3.0], REFERENCE, scale=HALF, threshold=0.61).value == 0.0
    thresholded = semantic_similarity([4.0, 3.0], REFERENCE, scale=HALF, threshold=0.61)
    assert thresholded.explanation == "cosine 0.800000, baseline 0.5000"


def test_two_embedders_with_shifted_cosines_agree_once_calibrated():
    # Embedder A (unrelated texts ≈ 0.1) gives the pair 0.55; embedder B (unrelated ≈ 0.75) gives 0.875.
    a_scale, b_scale = SimilarityScale(0.1, "A", "en"), SimilarityScale(0.75, "B", "en")
    a = semantic_similarity(at_cosine(0.55), REFERENCE, scale=a_scale)  # (0.55 − 0.1) / 0.9
    b = semantic_similarity(at_cosine(0.875), REFERENCE, scale=b_scale)  # (0.875 − 0.75) / 0.25
    assert a.value == pytest.approx(0.5, abs=1e-12) and b.value == pytest.approx(0.5, abs=1e-12)
    assert "cosine 0.550000" in a.explanation and "cosine 0.875000" in b.explanation
    for threshold, passed in ((0.45, 1.0), (0.55, 0.0)):
        for vector, scale in ((at_cosine(0.55), a_scale), (at_cosine(0.875), b_scale)):
            assert semantic_similarity(vector, REFERENCE, scale=scale, threshold=threshold).value == passed
    # read raw, the same pair would be 0.55 under one and 0.875 under the other
    assert SimilarityScale(0.0, "A", "en")(0.55) != SimilarityScale(0.0, "B", "en")(0.875)


def test_response_relevancy_means_the_calibrated_cosines():
    # cosines 1 and 0 → calibrated 1 and 0 (clipped from −1) → mean 0.5; calibrating the raw mean 0.5 gives 0
    generated = [EmbeddedQuestion(np.array(v), False) for v in ([1.0, 0.0], [0.0, 1.0])]
    score = response_relevancy(np.array(REFERENCE), generated, scale=HALF)
    assert score.value == 0.5
    assert score.explanation == "cosine 1.000000, baseline 0.5000; cosine 0.000000, baseline 0.5000"


def test_semantic_consistency_and_sessions_use_the_scale():
    # pairs (1,0)-(4,3) cos 0.8 → 0.6, (1,0)-(0,1) cos 0 → 0, (4,3)-(0,1) cos 0.6 → 0.2; mean 0.8 / 3
    vectors = np.array([[1.0, 0.0], [4.0, 3.0], [0.0, 1.0]])
    assert semantic_consistency(vectors, HALF).value == pytest.approx(0.8 / 3, abs=1e-15)
    # consecutive pairs (1,0)→(4,3) 0.8 → 0.6, (4,3)→(0,1) 0.6 → 0.2; mean 0.4
    assert session_similarities([vectors], HALF) == [pytest.approx(0.4, abs=1e-15)]


# --- the offline support test reads its threshold on the scale ------------------------------------

PARAPHRASE = Sample(id="p", response="Cats purr loudly.", retrieved_contexts=("Felines make soft sounds.",))


def paraphrase_embed(texts):
    """The two sentences share no content word, so only their cosine (0.9) can make one support the other."""
    table = {"Cats purr loudly.": at_cosine(0.9), "Felines make soft sounds.": REFERENCE}
    return np.array([table[t] for t in texts], dtype=float)


def test_the_support_threshold_is_read_on_the_calibrated_scale():
    assert cosine(at_cosine(0.9), REFERENCE) == pytest.approx(0.9, abs=1e-15)
    # baseline 0: calibrated 0.9 ≥ 0.75 → the sentence is supported
    zero = SimilarityScale(0.0, "m", "en")
    assert offline_score("faithfulness", PARAPHRASE, paraphrase_embed, scale=zero,
                         support_threshold=0.75).value == 1.0
    # baseline 0.8: calibrated (0.9 − 0.8) / 0.2 = 0.5 < 0.75 → not supported (the raw 0.9 is above 0.75)
    high = SimilarityScale(0.8, "m", "en")
    assert offline_score("faithfulness", PARAPHRASE, paraphrase_embed, scale=high,
                         support_threshold=0.75).value == 0.0
    # and a calibrated threshold below 0.5 accepts it again under that baseline
    assert offline_score("faithfulness", PARAPHRASE, paraphrase_embed, scale=high,
                         support_threshold=0.45).value == 1.0


def test_offline_semantic_similarity_is_calibrated():
    sample = Sample(id="s", response="Cats purr loudly.", reference="Felines make soft sounds.")
    score = offline_score("semantic_similarity", sample, paraphrase_embed,
                          scale=SimilarityScale(0.8, "m", "en"))
    assert score.value == pytest.approx(0.5, abs=1e-12)
    assert score.explanation == "cosine 0.900000, baseline 0.8000"


# --- settings -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("cli", "message"), [
    ({"cache_threshold": -0.1},
     "--cache-threshold: must be a calibrated similarity, between 0 and 1, got -0.1"),
    ({"cache_threshold": 1.5},
     "--cache-threshold: must be a calibrated similarity, between 0 and 1, got 1.5"),
    ({"similarity_threshold": -0.2},
     "--similarity-threshold: must be a calibrated similarity, between 0 and 1, got -0.2"),
    ({"similarity_baseline": 1.0},
     "--similarity-baseline: must be a cosine, from -1 up to (not including) 1, got 1.0"),
    ({"similarity_baseline": -1.5},
     "--similarity-baseline: must be a cosine, from -1 up to (not including) 1, got -1.5"),
])
def test_thresholds_are_calibrated_similarities_and_the_baseline_a_cosine(cli, message, tmp_path,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)  # no bench.toml
    with pytest.raises(BenchError) as caught:
        load_settings(cli, environ={})
    assert str(caught.value) == message


def test_the_ends_of_the_ranges_are_accepted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ends = {"cache_threshold": 0.0, "similarity_threshold": 1.0, "similarity_baseline": -1.0}
    settings, _ = load_settings(ends, environ={})
    assert {name: getattr(settings, name) for name in ends} == ends
    assert load_settings({"cache_threshold": 1.0}, environ={})[0].cache_threshold == 1.0
