"""Embedding geometry metrics checked against independent references and hand-computed cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist, pdist
from sklearn.neighbors import NearestNeighbors

from benchmarks.metrics.geometry import (
    DENSITY_EPSILON,
    GeometryResult,
    embedding_geometry,
    pairwise_sample_indices,
)

RTOL = 1e-9
DOT_PRODUCT_NEAR_ZERO_ERROR = 1e-7
"""Documented bound on a Euclidean near-duplicate pair's distance error, as a share of the average
spread. Only pair moments see it (neighbour and min/max distances are recomputed), and a
moment moves by at most the largest per-pair error."""
DISTANCES = ("cosine", "euclidean")


def random_embeddings(n: int, d: int, seed: int = 0) -> np.ndarray:
    """Gaussian rows with unequal column scales, so the covariance spectrum is not flat."""
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * np.linspace(3.0, 0.2, d) + rng.standard_normal(d)


def close(actual: float, expected: float) -> bool:
    return math.isclose(actual, expected, rel_tol=RTOL, abs_tol=1e-12)


def assert_pairwise_matches(result: GeometryResult, embeddings: np.ndarray, duplicates: bool = False) -> None:
    reference = pdist(embeddings, metric=result.distance)
    near_zero_error = duplicates and result.distance == "euclidean"
    moments_atol = DOT_PRODUCT_NEAR_ZERO_ERROR * result.avg_spread if near_zero_error else 1e-12
    assert math.isclose(result.avg_pairwise_distance, reference.mean(), rel_tol=RTOL, abs_tol=moments_atol)
    assert math.isclose(result.std_pairwise_distance, reference.std(), rel_tol=RTOL, abs_tol=moments_atol)
    assert close(result.min_pairwise_distance, reference.min())
    assert close(result.max_pairwise_distance, reference.max())


def brute_force_neighbours(embeddings: np.ndarray, k: int, distance: str) -> np.ndarray:
    """k smallest distances to other rows (self excluded by index), from the full distance matrix."""
    full = cdist(embeddings, embeddings, metric=distance)
    np.fill_diagonal(full, np.inf)
    return np.sort(full, axis=1)[:, :k]


def reference_effective_dimensionality(embeddings: np.ndarray, share: float) -> int:
    eigenvalues = np.sort(np.linalg.eigvalsh(np.atleast_2d(np.cov(embeddings, rowvar=False))))[::-1]
    explained = np.cumsum(eigenvalues) / eigenvalues.sum()
    return int(np.argmax(explained >= share)) + 1


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("block_size", [1, 7, 16, 61, 1024])
def test_pairwise_statistics_match_pdist(distance: str, block_size: int) -> None:
    embeddings = random_embeddings(61, 9)
    result = embedding_geometry(embeddings, distance=distance, block_size=block_size)
    assert result.pairwise_exact and result.pairwise_sample_size == 61
    assert_pairwise_matches(result, embeddings)


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("block_size", [5, 13, 200])
def test_neighbour_statistics_match_sklearn(distance: str, k: int, block_size: int) -> None:
    embeddings = random_embeddings(53, 6, seed=1)
    model = NearestNeighbors(n_neighbors=k, algorithm="brute", metric=distance).fit(embeddings)
    reference, _ = model.kneighbors()
    result = embedding_geometry(embeddings, k=k, distance=distance, block_size=block_size)
    assert result.k_used == k
    assert close(result.avg_nn_distance, reference.mean())
    assert close(result.std_nn_distance, reference.std())
    assert close(result.density_score, 1.0 / (reference.mean() + DENSITY_EPSILON))


@pytest.mark.parametrize("distance", DISTANCES)
def test_spread_ignores_distance_and_matches_numpy(distance: str) -> None:
    embeddings = random_embeddings(40, 5, seed=2)
    spreads = np.linalg.norm(embeddings - embeddings.mean(axis=0), axis=1)
    result = embedding_geometry(embeddings, distance=distance, block_size=6)
    assert close(result.avg_spread, spreads.mean())
    assert close(result.max_spread, spreads.max())
    assert close(result.spread_std, spreads.std())


@pytest.mark.parametrize("share", [0.3, 0.5, 0.8, 0.95, 0.99])
@pytest.mark.parametrize("shape", [(200, 12), (7, 12)])
def test_effective_dimensionality_matches_covariance_spectrum(share: float, shape: tuple[int, int]) -> None:
    embeddings = random_embeddings(*shape, seed=3)
    result = embedding_geometry(embeddings, variance_share=share, block_size=32)
    assert result.variance_share == share
    assert result.effective_dimensionality == reference_effective_dimensionality(embeddings, share)


@pytest.mark.parametrize("distance", DISTANCES)
def test_exact_duplicates_are_neighbours_at_distance_zero(distance: str) -> None:
    base = random_embeddings(20, 8, seed=4)
    embeddings = np.vstack([base, base])
    result = embedding_geometry(embeddings, k=1, distance=distance, block_size=7)
    assert result.avg_nn_distance == 0.0
    assert result.std_nn_distance == 0.0
    assert result.min_pairwise_distance == 0.0
    assert result.density_score == 1.0 / DENSITY_EPSILON
    assert_pairwise_matches(result, embeddings, duplicates=True)


@pytest.mark.parametrize("distance", DISTANCES)
def test_some_duplicates_match_brute_force_neighbours(distance: str) -> None:
    base = random_embeddings(30, 5, seed=5)
    embeddings = np.vstack([base, base[:4], base[10:11]])
    reference = brute_force_neighbours(embeddings, 3, distance)
    result = embedding_geometry(embeddings, k=3, distance=distance, block_size=8)
    assert close(result.avg_nn_distance, reference.mean())
    assert close(result.std_nn_distance, reference.std())
    assert result.min_pairwise_distance == 0.0


@pytest.mark.parametrize("distance", DISTANCES)
def test_k_at_least_n_is_clamped_to_all_other_rows(distance: str) -> None:
    embeddings = random_embeddings(6, 3, seed=6)
    result = embedding_geometry(embeddings, k=50, distance=distance, block_size=4)
    assert result.k_used == 5
    # With every other row a neighbour, each pair is counted once from each end.
    assert close(result.avg_nn_distance, result.avg_pairwise_distance)
    assert close(result.std_nn_distance, result.std_pairwise_distance)


def test_right_triangle_by_hand() -> None:
    # Legs 3 and 4, hypotenuse 5; centroid (1, 4/3).
    triangle = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
    nearest_one = embedding_geometry(triangle, k=1, distance="euclidean", block_size=2)
    # Nearest neighbours: 3, 3, 4.
    assert close(nearest_one.avg_nn_distance, 10 / 3)
    assert close(nearest_one.std_nn_distance, math.sqrt(2) / 3)
    # Both neighbours: 3, 4 | 3, 5 | 4, 5.
    both = embedding_geometry(triangle, k=2, distance="euclidean", block_size=2)
    assert close(both.avg_nn_distance, 4.0)
    assert close(both.std_nn_distance, math.sqrt(2 / 3))
    # Pairs 3, 4, 5.
    assert close(both.avg_pairwise_distance, 4.0)
    assert close(both.std_pairwise_distance, math.sqrt(2 / 3))
    assert close(both.min_pairwise_distance, 3.0)
    assert close(both.max_pairwise_distance, 5.0)
    # Distances to the centroid: 5/3, sqrt(52)/3, sqrt(73)/3.
    spreads = [5 / 3, math.sqrt(52) / 3, math.sqrt(73) / 3]
    assert close(both.avg_spread, sum(spreads) / 3)
    assert close(both.max_spread, math.sqrt(73) / 3)
    assert close(both.spread_std, float(np.std(spreads)))
    # Scatter [[6, -4], [-4, 32/3]]: eigenvalues (50 ± sqrt(772)) / 6, the larger holds ~77.8%.
    assert both.effective_dimensionality == 2
    larger_share = (50 + math.sqrt(772)) / 100
    for share, expected in ((larger_share - 1e-9, 1), (larger_share + 1e-9, 2)):
        result = embedding_geometry(triangle, distance="euclidean", variance_share=share)
        assert result.effective_dimensionality == expected


def test_three_points_on_a_line_by_hand() -> None:
    line = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 3.0]]) / math.sqrt(2)  # positions 0, 1, 3
    result = embedding_geometry(line, k=1, distance="euclidean")
    assert close(result.avg_nn_distance, 4 / 3)  # 1, 1, 2
    assert close(result.avg_pairwise_distance, 2.0)  # 1, 3, 2
    assert close(result.min_pairwise_distance, 1.0)
    assert close(result.max_pairwise_distance, 3.0)
    assert close(result.avg_spread, (4 / 3 + 1 / 3 + 5 / 3) / 3)  # centroid at 4/3
    assert result.effective_dimensionality == 1


def test_cosine_by_hand() -> None:
    # Angles 0°, 90°, 45° and 180°: distances 1 - cos of the angle between them.
    vectors = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0], [-5.0, 0.0]])
    half = 1 - 1 / math.sqrt(2)
    pairs = [1.0, half, 2.0, half, 1.0, 1 + 1 / math.sqrt(2)]
    result = embedding_geometry(vectors, k=1, distance="cosine", block_size=3)
    assert close(result.avg_pairwise_distance, sum(pairs) / 6)
    assert close(result.std_pairwise_distance, float(np.std(pairs)))
    assert close(result.min_pairwise_distance, half)
    assert result.max_pairwise_distance == 2.0
    assert close(result.avg_nn_distance, (half + half + half + 1.0) / 4)


def test_identical_rows_have_no_variance_directions() -> None:
    result = embedding_geometry(np.ones((5, 3)), k=2, distance="euclidean")
    assert result.effective_dimensionality == 0
    assert result.avg_nn_distance == result.max_pairwise_distance == result.max_spread == 0.0


def test_sampled_pairs_are_seeded_and_exact_on_the_sample() -> None:
    embeddings = random_embeddings(300, 6, seed=7)
    result = embedding_geometry(embeddings, pairwise_limit=50, seed=11, block_size=64)
    assert not result.pairwise_exact
    assert result.pairwise_sample_size == 50

    sample = pairwise_sample_indices(300, 50, 11)
    drawn = np.random.Generator(np.random.PCG64(11)).choice(300, size=50, replace=False)
    np.testing.assert_array_equal(sample, np.sort(drawn))
    assert_pairwise_matches(result, embeddings[sample])

    assert embedding_geometry(embeddings, pairwise_limit=50, seed=11, block_size=64) == result
    other_blocks = embedding_geometry(embeddings, pairwise_limit=50, seed=11, block_size=17)
    assert close(other_blocks.avg_pairwise_distance, result.avg_pairwise_distance)
    other_seed = embedding_geometry(embeddings, pairwise_limit=50, seed=12, block_size=64)
    assert other_seed.avg_pairwise_distance != result.avg_pairwise_distance
    exact = embedding_geometry(embeddings, pairwise_limit=None, block_size=64)
    assert exact.pairwise_exact and exact.pairwise_sample_size == 300
    assert exact.avg_nn_distance == result.avg_nn_distance  # neighbours always use every row


def test_limit_at_or_above_n_is_exact() -> None:
    embeddings = random_embeddings(30, 4, seed=8)
    result = embedding_geometry(embeddings, pairwise_limit=30)
    assert result.pairwise_exact and result.pairwise_sample_size == 30
    assert_pairwise_matches(result, embeddings)


def test_float32_and_integer_inputs_are_accumulated_in_float64() -> None:
    embeddings = np.arange(24, dtype=np.int64).reshape(8, 3) ** 2
    result = embedding_geometry(embeddings, distance="euclidean")
    assert_pairwise_matches(result, embeddings.astype(np.float64))
    single = random_embeddings(25, 4, seed=9).astype(np.float32)
    assert_pairwise_matches(embedding_geometry(single), single.astype(np.float64))


def test_progress_reports_cumulative_rows_per_block() -> None:
    seen: list[int] = []
    embedding_geometry(random_embeddings(10, 3), block_size=4, progress=seen.append)
    assert seen == [4, 8, 10]


def test_as_dict_has_every_key_as_plain_scalars() -> None:
    result = embedding_geometry(random_embeddings(12, 3), k=3)
    record = result.as_dict()
    assert set(record) == {
        "total_samples", "distance", "k_used", "avg_nn_distance", "std_nn_distance", "density_score",
        "avg_spread", "max_spread", "spread_std", "variance_share", "effective_dimensionality",
        "pairwise_sample_size", "pairwise_exact", "avg_pairwise_distance", "std_pairwise_distance",
        "min_pairwise_distance", "max_pairwise_distance",
    }  # fmt: skip
    assert all(type(value) in (int, float, bool, str) for value in record.values())
    assert type(record["total_samples"]) is int and type(record["pairwise_exact"]) is bool
    assert type(record["effective_dimensionality"]) is int


@pytest.mark.parametrize(
    ("embeddings", "kwargs", "message"),
    [
        (np.empty((0, 4)), {}, "at least 2 embeddings"),
        (np.ones((1, 4)), {}, "at least 2 embeddings"),
        (np.ones(4), {}, "2-D"),
        (np.ones((3, 0)), {}, "0 dimensions"),
        (np.array([["a", "b"], ["c", "d"]]), {}, "real numbers"),
        (np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]), {"distance": "cosine"}, "row 2 is a zero vector"),
        (np.array([[1.0, 0.0], [np.nan, 1.0]]), {}, "row 1 contains NaN"),
        (np.array([[1.0, 0.0], [1.0, 1.0], [1.0, np.inf]]), {"block_size": 2}, "row 2 contains NaN or inf"),
        (np.array([[1.0, 0.0], [1e200, 1.0]]), {}, "row 1 is too large to square"),
        (np.array([[1.0, 0.0], [1e200, 1.0]]), {"distance": "euclidean"}, "row 0 is too far from the"),
        (np.ones((3, 2)), {"distance": "manhattan"}, "distance must be"),
        (np.ones((3, 2)), {"k": 0}, "k must be at least 1"),
        (np.ones((3, 2)), {"variance_share": 0.0}, "variance_share"),
        (np.ones((3, 2)), {"variance_share": 1.5}, "variance_share"),
        (np.ones((3, 2)), {"pairwise_limit": 1}, "pairwise_limit"),
        (np.ones((3, 2)), {"block_size": 0}, "block_size"),
    ],
)
def test_invalid_input_raises_value_error(embeddings: np.ndarray, kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        embedding_geometry(embeddings, **kwargs)


def test_zero_vector_is_fine_for_euclidean() -> None:
    embeddings = np.array([[0.0, 0.0], [3.0, 4.0]])
    result = embedding_geometry(embeddings, distance="euclidean")
    assert result.avg_pairwise_distance == 5.0 and result.avg_nn_distance == 5.0


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 25),
    d=st.integers(1, 6),
    k=st.integers(1, 30),
    block_size=st.integers(1, 30),
    distance=st.sampled_from(DISTANCES),
    duplicate=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_shapes_match_references(
    n: int, d: int, k: int, block_size: int, distance: str, duplicate: bool, seed: int
) -> None:
    embeddings = random_embeddings(n, d, seed)
    if duplicate:
        embeddings[-1] = embeddings[0]
    result = embedding_geometry(embeddings, k=k, distance=distance, block_size=block_size)
    assert result.total_samples == n and result.k_used == min(k, n - 1)
    assert_pairwise_matches(result, embeddings, duplicates=duplicate)
    neighbours = brute_force_neighbours(embeddings, result.k_used, distance)
    assert close(result.avg_nn_distance, neighbours.mean())
    assert close(result.std_nn_distance, neighbours.std())
