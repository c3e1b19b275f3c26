"""Exact top-k in numpy (benchmarks.nearest) against a float64 scan of every row, ordered as tier 1 orders."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import nearest
from benchmarks.metrics.retrieval import trec_order
from benchmarks.nearest import ExactSpace


def reference(ids, matrix, query, k):
    """Every row's cosine in float64, then trec_eval's order (float32 score desc, id desc), top k."""
    matrix64, query64 = matrix.astype(np.float64), query.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = matrix64 @ query64 / (np.linalg.norm(matrix64, axis=1) * np.linalg.norm(query64))
    ranked = sorted(range(len(ids)), reverse=True,
                    key=lambda row: (-np.inf if np.isnan(scores[row]) else np.float32(scores[row]), ids[row]))
    return [(row, scores[row]) for row in ranked[:k]]


def check(ids, matrix, queries, k):
    found = ExactSpace(ids, matrix).search(queries, k)
    for query, got in zip(queries, found, strict=True):
        expected = reference(ids, matrix, query, k)
        assert [n.row for n in got] == [row for row, _ in expected]
        np.testing.assert_allclose([n.score for n in got], [s for _, s in expected], rtol=0, atol=1e-12)


def shuffled_ids(count, rng):
    return [f"c{i:05d}" for i in rng.permutation(count)]


def test_random_vectors_match_a_float64_scan():
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((3000, 48)).astype(np.float32)
    queries = np.concatenate([matrix[:20] + 0.01, rng.standard_normal((30, 48)).astype(np.float32)])
    check(shuffled_ids(3000, rng), matrix, queries, 10)


def test_corpus_blocks_are_merged(monkeypatch):
    """A corpus larger than one block: each query's best rows come from several blocks, and the float64
    rescoring runs in slices too."""
    monkeypatch.setattr(nearest, "BLOCK_VALUES", 500)
    monkeypatch.setattr(nearest, "QUERY_BLOCK", 7)
    monkeypatch.setattr(nearest, "RESCORE_VALUES", 100)
    rng = np.random.default_rng(2)
    matrix = rng.standard_normal((2000, 16)).astype(np.float32)
    check(shuffled_ids(2000, rng), matrix, rng.standard_normal((23, 16)).astype(np.float32), 12)


def test_duplicated_chunks_beyond_the_spare_candidates_are_ranked_by_id():
    """100 copies of one vector are 100 exact ties: which 10 are the top 10 is trec_eval's order (id
    descending), not chance, although more tie than the search keeps as candidates."""
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((600, 32)).astype(np.float32)
    matrix[100:200] = matrix[5]
    ids = shuffled_ids(600, rng)
    found = ExactSpace(ids, matrix).search(matrix[5:6], 10)[0]
    copies = sorted((ids[row] for row in [5, *range(100, 200)]), reverse=True)
    assert [ids[n.row] for n in found] == copies[:10]
    check(ids, matrix, matrix[5:6], 10)


def test_scores_equal_in_float32_tie_even_when_float64_differs():
    """Two rows a few float64 ulps apart score the same in float32: a tie, settled by id as trec_eval would."""
    base = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    nudged = base.copy()
    nudged[3] = np.nextafter(base[3], np.float32(5))
    matrix = np.stack([nudged, base, -base])
    found = ExactSpace(["a", "b", "c"], matrix).search(base[None, :], 2)[0]
    assert np.float32(found[0].score) == np.float32(found[1].score)
    assert [n.row for n in found] == [1, 0]  # "b" before "a": id descending


def test_zero_vectors_rank_last_and_k_beyond_the_corpus():
    matrix = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float32)
    found = ExactSpace(["z", "x", "y", "w"], matrix).search(np.array([[1, 0.5]], dtype=np.float32), 10)[0]
    assert [n.row for n in found] == [3, 1, 2, 0]
    assert np.isnan(found[-1].score)


def test_no_query_and_no_depth():
    space = ExactSpace(["a"], np.ones((1, 3), dtype=np.float32))
    assert space.search(np.zeros((0, 3), dtype=np.float32), 5) == []
    assert space.search(np.ones((2, 3), dtype=np.float32), 0) == [[], []]


def test_progress_counts_every_query(monkeypatch):
    monkeypatch.setattr(nearest, "QUERY_BLOCK", 4)
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((50, 8)).astype(np.float32)
    seen = []
    ExactSpace(shuffled_ids(50, rng), matrix).search(matrix[:10], 3, progress=seen.append)
    assert seen == [4, 4, 2]


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 80), dimension=st.integers(1, 6), k=st.integers(1, 20), seed=st.integers(0, 2**16),
       levels=st.integers(2, 4))
def test_coarse_vectors_with_many_ties_match_the_scan(rows, dimension, k, seed, levels):
    """Vectors drawn from a few integer levels tie often, zero vectors among the chunks and the questions (a
    zero question has no cosine with anything: every chunk ties, ranked by id)."""
    rng = np.random.default_rng(seed)
    matrix = rng.integers(0, levels, size=(rows, dimension)).astype(np.float32)
    queries = rng.integers(-1, levels, size=(3, dimension)).astype(np.float32)
    queries[0] = np.maximum(queries[0], 1)
    queries[2] = 0
    check(shuffled_ids(rows, rng), matrix, queries, k)


def test_the_order_is_tier_ones():
    """What the search returns is already in trec_eval's order: tier 1's sort leaves it as it is."""
    rng = np.random.default_rng(5)
    matrix = rng.integers(0, 3, size=(200, 4)).astype(np.float32)
    ids = shuffled_ids(200, rng)
    found = ExactSpace(ids, matrix).search(np.ones((1, 4), dtype=np.float32), 15)[0]
    ranking = [(ids[n.row], n.score) for n in found]
    assert trec_order(ranking) == ranking


@pytest.mark.parametrize("dtype", [np.float64, np.float16])
def test_other_float_types_are_read_as_float32(dtype):
    matrix = np.eye(3, dtype=dtype)
    found = ExactSpace(["a", "b", "c"], matrix).search(np.array([[0, 1, 0]], dtype=dtype), 1)[0]
    assert found[0].row == 1 and found[0].score == pytest.approx(1.0)


def test_ranked_in_float64_a_float32_tie_goes_to_the_higher_cosine():
    """The case above ranked by the float64 cosine (as the UX cache and tier 0 rank), rows without ids: the
    query's own vector comes first although the row number would put the nudged copy first."""
    base = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
    nudged = base.copy()
    nudged[3] = np.nextafter(base[3], np.float32(5))
    matrix = np.stack([base, nudged, -base])
    assert [n.row for n in ExactSpace(None, matrix).search(base[None, :], 2)[0]] == [1, 0]
    found = ExactSpace(None, matrix, rank_by=np.float64).search(base[None, :], 2)[0]
    assert found[0].score > found[1].score and np.float32(found[0].score) == np.float32(found[1].score)
    assert [n.row for n in found] == [0, 1]


def test_float32_directions_keep_float32_rows_and_bring_any_scale_into_range():
    rng = np.random.default_rng(6)
    rows = rng.standard_normal((5, 8)).astype(np.float32).astype(np.float64)
    rows[1] *= 1e200
    rows[2] *= 1e-200
    rows[3] = 0
    scaled = nearest.float32_directions(rows)
    assert scaled.dtype == np.float32 and np.isfinite(scaled).all() and not scaled[3].any()
    for row in (0, 4):
        ratio = scaled[row].astype(np.float64) / rows[row]
        assert (ratio == ratio[0]).all() and np.log2(ratio[0]).is_integer()  # a power of two, every bit kept
    np.testing.assert_allclose(scaled[1:3] / np.abs(scaled[1:3]).max(axis=1, keepdims=True),
                               rows[1:3] / np.abs(rows[1:3]).max(axis=1, keepdims=True), rtol=1e-7)


def small_blocks(monkeypatch, values=400):
    """Blocks of a few dozen chunks, so that one search runs the threshold path over many of them."""
    monkeypatch.setattr(nearest, "BLOCK_VALUES", values)
    monkeypatch.setattr(nearest, "QUERY_BLOCK", 5)
    monkeypatch.setattr(nearest, "PARTITION_VALUES", 64)


def unit_rows(rows):
    return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("normalised", [True, False])
def test_the_threshold_path_over_many_blocks_matches_the_scan(monkeypatch, normalised):
    """Chunks enter a question's candidates block after block only above its lowest kept score: near-ties
    (copies nudged by a float32 ulp), duplicates and zero rows spread over the blocks, unit rows (scored
    without their norms) and rows of any norm (scored with them)."""
    small_blocks(monkeypatch)
    rng = np.random.default_rng(7)
    matrix = rng.standard_normal((1500, 24))
    matrix = unit_rows(matrix) if normalised else (matrix * rng.uniform(0.1, 10, (1500, 1))).astype(np.float32)
    matrix[300:340] = matrix[7]  # more copies than the candidates kept
    matrix[900:960] = np.nextafter(matrix[11], np.float32(2))  # near-ties of row 11, one ulp apart
    matrix[rng.integers(0, 1500, 60)] = 0
    space = ExactSpace(None, matrix)
    assert (space.inverse_norms is None) == normalised
    queries = np.concatenate([matrix[[7, 11, 12, 500]], rng.standard_normal((20, 24)).astype(np.float32)])
    for k in (1, 10, 45):
        check(shuffled_ids(1500, rng), matrix, queries, k)


def test_scores_rising_through_the_corpus_take_whole_blocks(monkeypatch):
    """A corpus ordered by its score with the question: every block beats every chunk kept before it,
    so each block is partitioned in full (a few rows at a time) rather than merged hit by hit."""
    small_blocks(monkeypatch)
    rng = np.random.default_rng(8)
    matrix = rng.standard_normal((1200, 6)).astype(np.float32) * np.float32(0.05)
    matrix[:, 0] = np.linspace(-1, 1, 1200)
    matrix[1100:1120] = matrix[1150]
    query = np.eye(1, 6, dtype=np.float32)
    check(shuffled_ids(1200, rng), matrix, np.concatenate([query, -query, matrix[1150:1151]]), 30)


def test_zero_rows_leading_the_corpus_stay_below_later_chunks(monkeypatch):
    """The first block holds only zero rows, so every kept score starts at -inf: chunks of the next
    blocks replace them, and the zero rows come back (last, NaN) only when k reaches past the others."""
    small_blocks(monkeypatch)
    rng = np.random.default_rng(9)
    matrix = np.zeros((400, 8), dtype=np.float32)
    matrix[250:] = rng.standard_normal((150, 8))
    found = ExactSpace(None, matrix).search(matrix[300:302], 200)
    for got in found:
        assert sorted(n.row for n in got[:150]) == list(range(250, 400))
        assert [n.row for n in got[150:]] == list(range(249, 199, -1))  # zero rows by row number, descending
        assert all(np.isnan(n.score) for n in got[150:])
    check(shuffled_ids(400, rng), matrix, matrix[300:302], 200)


def test_random_unit_vectors_with_planted_near_ties_match_the_scan(monkeypatch):
    """Normalised rows (scored without their norms, the tolerance widened by how far from 1 they are),
    some of them copies of a chunk perturbed below float32's resolution of a cosine."""
    monkeypatch.setattr(nearest, "BLOCK_VALUES", 3000)
    rng = np.random.default_rng(10)
    matrix = unit_rows(rng.standard_normal((4000, 32)))
    matrix[1000:1030] = unit_rows(matrix[3] + rng.standard_normal((30, 32)) * 1e-6)
    space = ExactSpace(None, matrix)
    assert space.inverse_norms is None and space.tolerance > (32 + 4) * 2.0 ** -24
    queries = np.concatenate([matrix[[3, 1001]], unit_rows(rng.standard_normal((30, 32)))])
    check(shuffled_ids(4000, rng), matrix, queries, 20)


def test_rows_of_norm_far_from_one_are_scored_with_their_norms():
    rng = np.random.default_rng(11)
    matrix = unit_rows(rng.standard_normal((50, 16)))
    assert ExactSpace(None, matrix).inverse_norms is None
    matrix[4] *= np.float32(1.001)
    space = ExactSpace(None, matrix)
    assert space.inverse_norms is not None and space.tolerance == (16 + 4) * 2.0 ** -24


def test_duplicated_rows_ranked_in_float64_score_alike_and_go_by_row():
    """Copies of one vector have one cosine however the candidates are laid out, so ranked in float64
    they tie exactly and the row number settles them (a batched matmul rescoring them could differ in
    its last bit from one copy to the next, and put them out of order)."""
    rng = np.random.default_rng(12)
    for _ in range(20):
        matrix = rng.standard_normal((600, 384)).astype(np.float32)
        matrix[[100, 101, 102]] = matrix[5]
        query = matrix[5:6] + rng.standard_normal((1, 384)).astype(np.float32) * np.float32(0.5)
        found = ExactSpace(None, matrix, rank_by=np.float64).search(query, 10)[0][:4]
        assert [n.row for n in found] == [102, 101, 100, 5]
        assert len({n.score for n in found}) == 1


def test_a_float32_matrix_is_searched_in_place():
    matrix = np.ones((10, 4), dtype=np.float32)
    assert ExactSpace(None, matrix).matrix is matrix
