"""Tier UX metrics: hand-computed cosines, thresholds, session means, and blockwise = brute force."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import nearest
from benchmarks.metrics import ux_signals as ux
from benchmarks.metrics.judged import cosine
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.ux_signals import (
    CURVE_THRESHOLDS,
    cache_hit_rate,
    context_preservation,
    hit_rate_curve,
    max_similarity,
    multi_turn_consistency,
    session_similarities,
)

# Baseline 0: a calibrated similarity is the raw cosine clipped to [0, 1], so hand-computed cosines are the
# expected values (a negative cosine's expected value is clipped to 0).
RAW = SimilarityScale(0.0, "test", "en")

# cos((1,0), (3,4)) = 3/5, cos((0,1), (3,4)) = 4/5, cos((1,1), (3,4)) = 7 / (5√2), against (-1,0): -1, 0, -1/√2
QUERIES = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
CACHE = np.array([[3.0, 4.0], [0.0, 0.0], [-1.0, 0.0]])


def brute_force(queries: np.ndarray, cache: np.ndarray) -> np.ndarray:
    """Float64 reference: every pair, zero rows excluded as documented."""
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    c = cache / np.linalg.norm(cache, axis=1, keepdims=True)
    return (q @ c.T).max(axis=1)


def test_max_similarity_by_hand() -> None:
    best = max_similarity(QUERIES, CACHE)
    assert best.dtype == np.float64
    assert best[0] == 0.6 and best[1] == 0.8  # exactly the float64 values, not float32's 0.60000002
    assert math.isclose(best[2], 7 / (5 * math.sqrt(2)), rel_tol=1e-15)
    assert best[3] == -np.inf  # a zero query has no cosine: never a hit


def test_zero_cache_row_is_never_the_best() -> None:
    # against (0,0) the cosine is undefined; it must not stand in as 0 above the -1 of (-1,0)
    assert max_similarity(np.array([[1.0, 0.0]]), np.array([[0.0, 0.0], [-1.0, 0.0]]))[0] == -1.0


def test_empty_cache_and_empty_queries() -> None:
    assert max_similarity(QUERIES, np.empty((0, 2))).tolist() == [-np.inf] * 4
    assert max_similarity(QUERIES, np.zeros((2, 2))).tolist() == [-np.inf] * 4
    assert max_similarity(np.empty((0, 2)), CACHE).shape == (0,)
    assert cache_hit_rate(np.empty(0), 0.85) is None
    assert hit_rate_curve(np.empty(0)) == []


def test_threshold_exactly_at_tau_is_not_a_hit() -> None:
    best = max_similarity(QUERIES, CACHE)  # 0.6, 0.8, 0.98995, -inf
    assert cache_hit_rate(best, 0.6) == 2 / 4
    assert cache_hit_rate(best, 0.8) == 1 / 4
    assert cache_hit_rate(best, 0.59) == 3 / 4
    assert cache_hit_rate(best, 0.99) == 0.0


def test_default_threshold_is_the_seeds() -> None:
    assert cache_hit_rate(np.array([0.85, 0.8500001, 0.9, 0.1])) == 2 / 4


def test_hit_rate_curve_by_hand() -> None:
    best = np.array([0.70, 0.75, 0.9, -np.inf])
    assert hit_rate_curve(best) == [(0.70, 0.5), (0.75, 0.25), (0.80, 0.25), (0.85, 0.25),
                                    (0.90, 0.0), (0.95, 0.0)]
    assert [t for t, _ in hit_rate_curve(best)] == list(CURVE_THRESHOLDS)


@settings(deadline=None)  # hypothesis's default 200 ms an example would fail a loaded machine, not the code
@given(st.lists(st.floats(-1, 1), max_size=30), st.lists(st.floats(-1, 1), min_size=1, max_size=5))
def test_curve_agrees_with_hit_rate(values: list[float], taus: list[float]) -> None:
    best = np.array(values, dtype=float)
    curve = hit_rate_curve(best, taus)
    assert curve == ([(t, cache_hit_rate(best, t)) for t in taus] if values else [])


def test_scale_does_not_matter() -> None:
    big = max_similarity(QUERIES * 1e200, CACHE * 1e-200)
    np.testing.assert_array_equal(big, max_similarity(QUERIES, CACHE))


def test_invalid_input_raises() -> None:
    with pytest.raises(ValueError, match="dimensions"):
        max_similarity(QUERIES, np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        max_similarity(np.array([[np.nan, 1.0]]), CACHE)
    with pytest.raises(ValueError, match="NaN"):
        cache_hit_rate(np.array([np.nan]), 0.85)
    with pytest.raises(ValueError, match="finite"):
        cache_hit_rate(np.array([0.5]), math.nan)


def shrink_blocks(patch: pytest.MonkeyPatch) -> None:
    """The scan's query, chunk and rescoring blocks and the questions' normalising step made tiny, so
    every input below crosses several of each."""
    patch.setattr(nearest, "QUERY_BLOCK", 7)
    patch.setattr(nearest, "BLOCK_VALUES", 300)
    patch.setattr(nearest, "RESCORE_VALUES", 100)
    patch.setattr(ux, "_NORMALISE_ROWS", 5)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 60), st.integers(1, 80), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_blockwise_matches_brute_force(n_queries: int, n_cache: int, dim: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    queries, cache = rng.standard_normal((n_queries, dim)), rng.standard_normal((n_cache, dim))
    whole = max_similarity(queries, cache)
    np.testing.assert_allclose(whole, brute_force(queries, cache), rtol=0, atol=1e-6)
    with pytest.MonkeyPatch.context() as patch:
        shrink_blocks(patch)
        np.testing.assert_array_equal(max_similarity(queries, cache), whole)


def test_blockwise_equals_single_block_on_384_dimensions(monkeypatch: pytest.MonkeyPatch) -> None:
    shrink_blocks(monkeypatch)
    rng = np.random.default_rng(7)
    queries, cache = rng.standard_normal((300, 384)).astype(np.float32), rng.standard_normal((2000, 384))
    whole = max_similarity(queries, cache)
    np.testing.assert_allclose(whole, brute_force(queries.astype(np.float64), cache), rtol=0, atol=1e-6)


def test_float32_vectors_get_their_exact_maximum() -> None:
    """An embedder's float32 vectors are searched exactly: the value is the float64 maximum over every
    cache row, even among rows whose cosines differ by less than the float32 search can tell."""
    rng = np.random.default_rng(8)
    cache = rng.standard_normal((400, 32)).astype(np.float32)
    cache[200:300] = cache[7] + rng.standard_normal((100, 32)).astype(np.float32) * 1e-4
    queries = cache[[7, 250]] + np.float32(1e-3)
    expected = [max(np.clip(_cosines(query, cache), -1.0, 1.0)) for query in queries.astype(np.float64)]
    np.testing.assert_allclose(max_similarity(queries, cache), expected, rtol=0, atol=1e-15)


def _cosines(query: np.ndarray, cache: np.ndarray) -> np.ndarray:
    unit = cache.astype(np.float64) / np.linalg.norm(cache.astype(np.float64), axis=1, keepdims=True)
    return unit @ (query / np.linalg.norm(query))


def test_duplicate_of_a_cache_row_scores_one() -> None:
    rng = np.random.default_rng(1)
    cache = rng.standard_normal((50, 16))
    best = max_similarity(cache[[3, 40]] * 2.5, cache)
    np.testing.assert_allclose(best, [1.0, 1.0], rtol=0, atol=1e-15)
    assert (best <= 1.0).all()


# --- sessions ---------------------------------------------------------------------------------

# A: (1,0)->(1,0)->(0,1): cosines 1, 0, mean 0.5.  B: (1,0)->(3,4): 0.6.  C: one turn.  D: no turn.
SESSIONS = [
    np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
    np.array([[1.0, 0.0], [3.0, 4.0]]),
    np.array([[1.0, 0.0]]),
    np.empty((0, 2)),
]


def test_session_similarities_by_hand() -> None:
    assert session_similarities(SESSIONS, RAW) == [0.5, 0.6, None, None]


def test_session_similarities_clip_each_pair_before_the_mean() -> None:
    # (1,0)->(-1,0)->(-1,0): cosines -1 and 1; -1 is clipped to 0, so the mean is 0.5 (it was 0.0 raw)
    assert session_similarities([np.array([[1.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])], RAW) == [0.5]


def test_within_session_first_then_across_sessions() -> None:
    score = context_preservation(session_similarities(SESSIONS, RAW))
    assert score.status == "ok"
    assert math.isclose(score.value, (0.5 + 0.6) / 2, rel_tol=1e-15)
    pooled = (1.0 + 0.0 + 0.6) / 3  # every pair weighted alike: what the seed does not do
    assert not math.isclose(score.value, pooled)
    assert "2 of 4 sessions" in score.explanation


def test_multi_turn_consistency_is_context_preservation_by_definition() -> None:
    sims = session_similarities(SESSIONS, RAW)
    assert multi_turn_consistency(sims) == context_preservation(sims)


def test_sessions_without_a_pair_are_undetermined() -> None:
    score = context_preservation(session_similarities([np.array([[1.0, 2.0]]), np.empty((0, 2))], RAW))
    assert score.status == "undetermined" and score.value is None
    assert context_preservation([]).status == "undetermined"


def test_zero_vector_pairs_are_left_out_of_the_session() -> None:
    assert session_similarities([np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])], RAW) == [None]
    assert session_similarities([np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 0.0]])], RAW) == [1.0]


def test_session_cosines_agree_with_judged_cosine() -> None:
    rng = np.random.default_rng(3)
    turns = rng.standard_normal((6, 32))
    cosines = [cosine(turns[i], turns[i + 1]) for i in range(5)]
    assert min(cosines) < 0 < max(cosines)  # this seed has both signs, so the clipping below is exercised
    # under baseline 0 each negative cosine counts as 0 (clipped), the positive ones as they are
    expected = math.fsum(max(0.0, c) for c in cosines) / 5
    assert math.isclose(session_similarities([turns], RAW)[0], expected, rel_tol=0, abs_tol=1e-14)
