"""Label-free geometry of an embedding matrix (Tier 0 "intrinsic" metrics).

Nothing is approximated: neighbours are found by brute force and pairwise statistics cover
every pair (or every pair of a seeded row sample, which the result reports). The N x N
distance matrix is never held: rows are processed in blocks, each block against all rows
with one matrix product, so the large temporaries are O(block_size x N). Cosine neighbours
are found by bench's one exact cosine scan (:mod:`benchmarks.nearest`, ranked by the float64
cosine), exact for an embedder's float32 vectors; Euclidean ones from the block's distance
tile, which the pairwise statistics need anyway.

Conventions
-----------
* ``distance`` only affects the neighbour and pairwise statistics. Spread and effective
  dimensionality follow the seed formulas on the embeddings as given (L2 distance to the
  centroid, covariance spectrum), whatever ``distance`` says, so they stay comparable across
  runs that use different distances.
* Every standard deviation is the population one (ddof=0): the values are the whole
  population of interest (all neighbour distances, all pairs), not a sample from one.
* The working copy is float64 and so is every accumulator, whatever the input dtype.

Precision
---------
Block distances use the dot-product form (cosine: 1 - <u, v> on unit rows, clipped to [0, 2];
Euclidean: |x|^2 + |y|^2 - 2<x, y> on centred rows, clipped at 0 before the square root).
For cosine its absolute error per distance is about 1e-15. For Euclidean it is worst for
near-identical rows, where the square root turns a rounding residue of the squared distance
into up to about 1e-7 x the average spread (measured for D from 8 to 3072); for farther pairs
it shrinks like 1e-16 x spread^2 / distance. This error only reaches the pairwise mean and
standard deviation, which it moves by at most that much, and only through near-duplicate
pairs. The k nearest-neighbour distances and the closest and farthest pair are recomputed
from row differences, so they are accurate to rounding and exact duplicates give exactly 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np

from benchmarks.nearest import ExactSpace, float32_directions

Distance = Literal["cosine", "euclidean"]

DENSITY_EPSILON = 1e-12
"""Added to the mean neighbour distance so that all-duplicate data gives a finite density."""

_ROWS_PER_CHUNK = 128
"""Rows handled per call inside a block, so argpartition's int64 index array and the
squared-deviation temporary stay a fraction of the block's distance tile."""


@dataclass(frozen=True)
class GeometryResult:
    """Tier 0 intrinsic metrics of one embedding matrix, plus the settings needed to read them."""

    total_samples: int
    distance: str
    k_used: int
    avg_nn_distance: float
    std_nn_distance: float
    density_score: float
    avg_spread: float
    max_spread: float
    spread_std: float
    variance_share: float
    effective_dimensionality: int
    pairwise_sample_size: int
    pairwise_exact: bool
    avg_pairwise_distance: float
    std_pairwise_distance: float
    min_pairwise_distance: float
    max_pairwise_distance: float

    def as_dict(self) -> dict[str, float | int | bool | str]:
        """Flat mapping for reports and JSON, with plain Python scalars."""
        return asdict(self)


def pairwise_sample_indices(n_rows: int, pairwise_limit: int | None, seed: int) -> np.ndarray:
    """Sorted row indices whose pairs feed the pairwise statistics.

    Public so a caller can reproduce exactly which rows were used. With more rows than
    ``pairwise_limit`` this is ``Generator(PCG64(seed)).choice(n_rows, pairwise_limit,
    replace=False)``, sorted (order does not change the statistics); otherwise all rows.
    """
    if pairwise_limit is None or n_rows <= pairwise_limit:
        return np.arange(n_rows)
    generator = np.random.Generator(np.random.PCG64(seed))
    return np.sort(generator.choice(n_rows, size=pairwise_limit, replace=False))


def embedding_geometry(
    embeddings: np.ndarray,
    *,
    k: int = 5,
    distance: Distance = "cosine",
    variance_share: float = 0.95,
    pairwise_limit: int | None = 20000,
    seed: int = 0,
    block_size: int = 1024,
    progress: Callable[[int], None] | None = None,
) -> GeometryResult:
    """Compute the Tier 0 geometry metrics of an (N, D) embedding matrix.

    ``k`` larger than N - 1 is clamped (recorded as ``k_used``). Pairwise statistics use
    every pair when N <= ``pairwise_limit`` (or the limit is None) and otherwise every pair
    of the rows given by :func:`pairwise_sample_indices`; neighbours and spread always use
    all rows. ``progress`` receives the cumulative number of rows whose neighbours are done,
    after each block (the remaining spread and spectrum work is small next to the scan).

    Cost: time O(N^2 D) for the distance tiles (and, under cosine, as much again in float32 for
    the neighbour scan) plus O(N k D) to recompute neighbour distances; besides the input, memory
    holds one float64 copy of it (and a float32 one under cosine), a D x D (or N x N if N < D)
    scatter matrix and one ``block_size`` x N float64 tile plus temporaries about a third of
    its size, so lower ``block_size`` for very large N.

    Raises ValueError for fewer than 2 rows, non-finite or overflowing values, a zero row
    under cosine distance, and out-of-range parameters.
    """
    matrix = _checked_matrix(embeddings)
    _check_parameters(k, distance, variance_share, pairwise_limit, block_size)
    n_rows = matrix.shape[0]
    k_used = min(k, n_rows - 1)
    centroid = matrix.mean(axis=0, dtype=np.float64)
    space = _Space(matrix, centroid, distance, block_size)
    sample = pairwise_sample_indices(n_rows, pairwise_limit, seed)
    scan = _scan(space, k_used, sample, block_size, progress)
    spreads = _spreads(matrix, centroid, block_size)
    return GeometryResult(
        total_samples=n_rows,
        distance=distance,
        k_used=k_used,
        avg_nn_distance=scan.neighbours.mean,
        std_nn_distance=scan.neighbours.std,
        density_score=1.0 / (scan.neighbours.mean + DENSITY_EPSILON),
        avg_spread=float(spreads.mean()),
        max_spread=float(spreads.max()),
        spread_std=float(spreads.std()),
        variance_share=float(variance_share),
        effective_dimensionality=_effective_dimensionality(
            _scatter_spectrum(matrix, centroid, block_size), variance_share
        ),
        pairwise_sample_size=int(sample.size),
        pairwise_exact=bool(sample.size == n_rows),
        avg_pairwise_distance=scan.pairs.mean,
        std_pairwise_distance=scan.pairs.std,
        min_pairwise_distance=float(space.exact(*scan.extremes.low_pair)),
        max_pairwise_distance=float(space.exact(*scan.extremes.high_pair)),
    )


def _checked_matrix(embeddings: np.ndarray) -> np.ndarray:
    """Reject shapes and dtypes for which no metric is defined, before any work is done."""
    matrix = np.asarray(embeddings)
    if matrix.ndim != 2:
        raise ValueError(f"embeddings must be a 2-D (N, D) array, got shape {matrix.shape}")
    if not (np.issubdtype(matrix.dtype, np.floating) or np.issubdtype(matrix.dtype, np.integer)):
        raise ValueError(f"embeddings must be real numbers, got dtype {matrix.dtype}")
    if matrix.shape[0] == 0:
        raise ValueError("embedding geometry needs at least 2 embeddings, got none (N = 0)")
    if matrix.shape[0] == 1:
        raise ValueError("embedding geometry needs at least 2 embeddings, got 1: no neighbours, no pairs")
    if matrix.shape[1] == 0:
        raise ValueError("embeddings have 0 dimensions (D = 0)")
    return matrix


def _check_parameters(
    k: int, distance: str, variance_share: float, pairwise_limit: int | None, block_size: int
) -> None:
    """Fail fast on settings that would otherwise surface as NaN or an IndexError deep inside."""
    if distance not in ("cosine", "euclidean"):
        raise ValueError(f"distance must be 'cosine' or 'euclidean', got {distance!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0.0 < variance_share <= 1.0:
        raise ValueError(f"variance_share must be in (0, 1], got {variance_share}")
    if pairwise_limit is not None and pairwise_limit < 2:
        raise ValueError(f"pairwise_limit must be at least 2 (or None for all pairs), got {pairwise_limit}")
    if block_size < 1:
        raise ValueError(f"block_size must be at least 1, got {block_size}")


def _centred_blocks(matrix: np.ndarray, centroid: np.ndarray, block_size: int) -> Iterator[np.ndarray]:
    """Float64 centred rows, a block at a time, so no full-size centred copy is needed."""
    for start in range(0, matrix.shape[0], block_size):
        yield matrix[start : start + block_size].astype(np.float64) - centroid


def _spreads(matrix: np.ndarray, centroid: np.ndarray, block_size: int) -> np.ndarray:
    """L2 distance of every row to the centroid, from differences rather than the dot-product form."""
    blocks = _centred_blocks(matrix, centroid, block_size)
    return np.concatenate([np.linalg.norm(block, axis=1) for block in blocks])


def _require_rows(valid: np.ndarray, start: int, problem: str) -> None:
    """Raise for the first invalid row of a block, numbered in the whole matrix."""
    if not valid.all():
        raise ValueError(f"embedding row {start + int(np.argmin(valid))} {problem}")


class _Space:
    """Rows prepared for one distance, with a fast blocked form and a precise per-pair form.

    Euclidean rows are centred first: distances are translation invariant and the dot-product
    form loses less to cancellation when norms are small.
    """

    def __init__(self, matrix: np.ndarray, centroid: np.ndarray, distance: Distance, block_size: int) -> None:
        self.distance = distance
        self.rows: np.ndarray = np.empty(matrix.shape, dtype=np.float64)
        for start in range(0, matrix.shape[0], block_size):
            block = matrix[start : start + block_size]
            self.rows[start : start + block.shape[0]] = self._prepared(block, start, centroid)
        # Only the Euclidean tile reads these (cosine rows are unit length); they cost one O(N D) pass.
        self.squared_norms = np.einsum("ij,ij->i", self.rows, self.rows)
        cosine = distance == "cosine"
        self.scan = ExactSpace(None, float32_directions(matrix), rank_by=np.float64) if cosine else None

    def _prepared(self, block: np.ndarray, start: int, centroid: np.ndarray) -> np.ndarray:
        """Validate rows while converting them, so bad input is named by its row index.

        Finite values can still overflow once squared (|x| above ~1e154); that would turn into
        NaN distances later, so it is rejected here too.
        """
        block = block.astype(np.float64)
        _require_rows(np.isfinite(block).all(axis=1), start, "contains NaN or infinity")
        prepared = block - centroid if self.distance == "euclidean" else block
        squared_norms = np.einsum("ij,ij->i", prepared, prepared)
        if self.distance == "euclidean":
            too_far = "is too far from the centroid to square in float64"
            _require_rows(np.isfinite(squared_norms), start, too_far)
            return prepared
        _require_rows(np.isfinite(squared_norms), start, "is too large to square in float64")
        _require_rows(squared_norms > 0.0, start, "is a zero vector: cosine distance is undefined for it")
        unit: np.ndarray = prepared / np.sqrt(squared_norms)[:, np.newaxis]  # numpy's index of any dtype is Any
        return unit

    def tile(self, start: int, stop: int) -> np.ndarray:
        """Distances from rows [start, stop) to every row, as one BLAS product plus in-place fix-ups."""
        tile: np.ndarray = self.rows[start:stop] @ self.rows.T
        if self.distance == "cosine":
            np.subtract(1.0, tile, out=tile)
            np.clip(tile, 0.0, 2.0, out=tile)
            return tile
        tile *= -2.0
        tile += self.squared_norms[start:stop, np.newaxis]
        tile += self.squared_norms[np.newaxis, :]
        np.maximum(tile, 0.0, out=tile)
        np.sqrt(tile, out=tile)
        return tile

    def nearest(self, tile: np.ndarray, start: int, k: int) -> np.ndarray:
        """The k nearest other rows of each row of the block that `tile` holds, shape (block, k).

        The row itself is excluded by index, not by distance, so an exact duplicate still counts as
        a neighbour at distance 0. Cosine asks the exact scan for k + 1 rows and drops the row itself
        (or the last one, when more duplicates tie with it than that); Euclidean partitions the tile,
        with the row's own entry overwritten by +inf.
        """
        if self.scan is not None:
            found = self.scan.search(self.scan.matrix[start : start + tile.shape[0]], k + 1)
            others = [[n.row for n in row if n.row != own][:k] for own, row in enumerate(found, start)]
            return np.array(others)
        block_rows = np.arange(tile.shape[0])
        tile[block_rows, start + block_rows] = np.inf
        # Copying the first k columns lets each chunk's full index array be freed at once.
        return np.concatenate(
            [
                np.argpartition(tile[chunk : chunk + _ROWS_PER_CHUNK], k - 1, axis=1)[:, :k].copy()
                for chunk in range(0, tile.shape[0], _ROWS_PER_CHUNK)
            ]
        )

    def exact(self, left: np.ndarray | int, right: np.ndarray | int) -> np.ndarray:
        """Distances between rows ``left`` and ``right`` from their difference, free of cancellation.

        For unit rows 1 - <u, v> = |u - v|^2 / 2, which is exactly 0 for identical rows.
        """
        difference = self.rows[left] - self.rows[right]
        squared = np.einsum("...j,...j->...", difference, difference)
        distances: np.ndarray = np.clip(squared / 2.0, 0.0, 2.0) if self.distance == "cosine" else np.sqrt(squared)
        return distances


@dataclass
class _Moments:
    """Count, mean and sum of squared deviations, merged batch by batch (Chan et al.).

    Merging per-batch centred sums avoids the cancellation of the sum-of-squares formula.
    """

    count: int = 0
    mean: float = 0.0
    squared_deviations: float = 0.0

    def add(self, values: np.ndarray) -> None:
        """Merge a 2-D batch; deviations are summed a few rows at a time to bound the temporary."""
        size = values.size
        batch_mean = float(values.mean(dtype=np.float64))
        batch_deviations = 0.0
        for start in range(0, values.shape[0], _ROWS_PER_CHUNK):
            deviation = values[start : start + _ROWS_PER_CHUNK] - batch_mean
            batch_deviations += float(np.einsum("ij,ij->", deviation, deviation))
        total = self.count + size
        delta = batch_mean - self.mean
        self.mean += delta * size / total
        self.squared_deviations += batch_deviations + delta * delta * self.count * size / total
        self.count = total

    @property
    def std(self) -> float:
        return math.sqrt(self.squared_deviations / self.count)


@dataclass
class _Extremes:
    """Closest and farthest pair seen so far, kept by index so they can be recomputed precisely."""

    low: float = math.inf
    low_pair: tuple[int, int] = (0, 0)
    high: float = -math.inf
    high_pair: tuple[int, int] = (0, 0)

    def add(self, values: np.ndarray, pair_at: Callable[[int, int], tuple[int, int]]) -> None:
        """Consider a 2-D batch whose entry [r, c] is the distance of pair ``pair_at(r, c)``.

        Row-wise min/max reduce contiguous memory with SIMD; the arg-search then only runs on
        one row, which is much faster than argmin over a strided 2-D view.
        """
        row_lows, row_highs = values.min(axis=1), values.max(axis=1)
        low_row, high_row = int(np.argmin(row_lows)), int(np.argmax(row_highs))
        if row_lows[low_row] < self.low:
            self.low = float(row_lows[low_row])
            self.low_pair = pair_at(low_row, int(np.argmin(values[low_row])))
        if row_highs[high_row] > self.high:
            self.high = float(row_highs[high_row])
            self.high_pair = pair_at(high_row, int(np.argmax(values[high_row])))


@dataclass
class _ScanTotals:
    neighbours: _Moments
    pairs: _Moments
    extremes: _Extremes


def _scan(
    space: _Space,
    k: int,
    sample: np.ndarray,
    block_size: int,
    progress: Callable[[int], None] | None,
) -> _ScanTotals:
    """One pass over row blocks feeding both the neighbour and the pairwise statistics.

    Sharing the pass means each distance tile is computed once even when pairs are sampled.
    """
    totals = _ScanTotals(_Moments(), _Moments(), _Extremes())
    n_rows = space.rows.shape[0]
    for start in range(0, n_rows, block_size):
        stop = min(start + block_size, n_rows)
        _scan_block(space, start, stop, k, sample, totals)
        if progress is not None:
            progress(stop)
    return totals


def _scan_block(
    space: _Space, start: int, stop: int, k: int, sample: np.ndarray, totals: _ScanTotals
) -> None:
    """Process one tile; a function of its own so the tile is freed before the next is built."""
    tile = space.tile(start, stop)
    _add_pairs(tile, start, sample, totals)
    totals.neighbours.add(_neighbour_distances(space, tile, start, k))


def _add_pairs(tile: np.ndarray, start: int, sample: np.ndarray, totals: _ScanTotals) -> None:
    """Feed the pairs (i, j) with i in this block, j > i and both rows in ``sample``.

    Pairs split into a triangle (j in the block too) and a full rectangle (j after the block).
    With every row sampled both are plain slices of the tile, avoiding fancy-indexing copies.
    """
    stop = start + tile.shape[0]
    first, last = np.searchsorted(sample, [start, stop])
    rows, later = sample[first:last], sample[last:]
    if rows.size == 0:
        return
    if sample.size == tile.shape[1]:
        square, rectangle = tile[:, start:stop], tile[:, stop:]
    else:
        local = rows - start
        square, rectangle = tile[np.ix_(local, rows)], tile[np.ix_(local, later)]
    upper_rows, upper_cols = np.triu_indices(rows.size, 1)

    def triangle_pair(_: int, position: int) -> tuple[int, int]:
        return int(rows[upper_rows[position]]), int(rows[upper_cols[position]])

    def rectangle_pair(row: int, column: int) -> tuple[int, int]:
        return int(rows[row]), int(later[column])

    pieces = ((square[upper_rows, upper_cols][np.newaxis], triangle_pair), (rectangle, rectangle_pair))
    for values, pair_at in pieces:
        if values.size:
            totals.pairs.add(values)
            totals.extremes.add(values, pair_at)


def _neighbour_distances(space: _Space, tile: np.ndarray, start: int, k: int) -> np.ndarray:
    """Precise distances to the k nearest other rows of each block row, shape (block, k)."""
    nearest = space.nearest(tile, start, k)
    block_rows = start + np.arange(tile.shape[0])
    return np.column_stack([space.exact(block_rows, nearest[:, rank]) for rank in range(k)])


def _scatter_spectrum(matrix: np.ndarray, centroid: np.ndarray, block_size: int) -> np.ndarray:
    """Eigenvalues of the centred scatter matrix (covariance times N, the factor cancels in shares).

    With fewer rows than dimensions the N x N Gram matrix has the same non-zero spectrum and
    is cheaper to build and decompose; it is then no larger than the D x D alternative.
    """
    n_rows, n_dims = matrix.shape
    if n_rows < n_dims:
        centred = matrix.astype(np.float64) - centroid
        scatter = centred @ centred.T
    else:
        scatter = np.zeros((n_dims, n_dims))
        for block in _centred_blocks(matrix, centroid, block_size):
            scatter += block.T @ block
    return np.clip(np.linalg.eigvalsh(scatter), 0.0, None)


def _effective_dimensionality(eigenvalues: np.ndarray, variance_share: float) -> int:
    """Smallest m whose top-m eigenvalues hold ``variance_share`` of the variance.

    Data without variance (all rows identical) needs no direction at all, hence 0. The
    cumulative sum's own last entry is the total, so a share of 1.0 is always reachable.
    """
    cumulative = np.cumsum(np.sort(eigenvalues)[::-1])
    if cumulative[-1] == 0.0:
        return 0
    return int(np.searchsorted(cumulative, variance_share * cumulative[-1], side="left")) + 1
