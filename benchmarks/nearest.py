"""Exact cosine top-k over a space's stored vectors, blockwise in numpy: the ground truth of retrieval,
and the one cosine scan of bench (the UX cache's best match and tier 0's neighbours are searched here).

PostgreSQL answers an exact search by reading every row of the table for every question (a few
questions a second at 100,000 chunks); the same scan as one matrix product per block runs at the
speed of the machine's BLAS, hundreds of questions a second. The vectors are the ones pgvector
stores, read once per run; pgvector scores them in float32, this in float64, so the two can order
differently only two chunks whose cosines differ by less than float32 can tell.

How a top-k is chosen, so that it is the one trec_eval would score:
- a block of questions against a block of chunks in float32 (one GEMM), keeping each question's best
  `k + SPARE` candidates as the blocks go, so memory stays bounded at any corpus size. The first, narrow
  block is partitioned in full; after it a chunk can only enter a question's candidates by scoring
  above the lowest one kept, so one comparison over the block finds the few that do, and only those
  are sorted and merged in (partitioning every block in full cost as much as the GEMM itself);
- the float32 score is the dot with the question's unit vector times the chunk's inverse norm; when
  every non-zero chunk's norm is 1 to within the float32 error below (an embedder's unit vectors) that
  product is skipped: the dot is then the cosine to within the largest distance of a norm from 1, and
  that distance is added to the tolerance below;
- the candidates rescored in float64 from the float32 vectors (cosine = dot / both norms, each dot summed
  in the same order wherever its chunk sits among the candidates, so duplicated chunks score exactly
  alike), and ordered as tier 1 orders a ranking: score rounded to float32 descending, then chunk id
  descending;
- a check that no chunk left out could belong: float32 scores are within `tolerance` of the true
  ones, and every chunk left out scores at most the lowest kept, so when that score plus twice the
  tolerance is below the k-th rescored score, nothing outside can reach the top k. Otherwise (many
  near-ties, duplicated chunks) that question is searched again over every chunk whose float32 score
  comes within the tolerance, rescored, and ordered the same way: ties are never settled by chance.
A chunk whose vector is zero has no cosine (pgvector gives NaN); it is ranked below every other.

Retrieval compares scores rounded to float32 because trec_eval reads a run's scores so; a caller that wants
the row with the highest cosine itself (the UX cache's best match, tier 0's nearest neighbours) ranks in
float64 instead (`rank_by`), so a float32 tie is settled by the float64 score before the id. The exactness
check holds for both: its margin is the float32 search's error, far wider than float32 rounding of a score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

SPARE = 16  # candidates kept beyond k, so the exactness check rarely has to search again
BLOCK_VALUES = 1 << 23  # float32 scores held at once per block pair (32 MB), with a byte each for the threshold test
QUERY_BLOCK = 512  # questions per GEMM, fewer when their candidates' float64 copies would pass RESCORE_VALUES
RESCORE_VALUES = 1 << 23  # float64 values rescored at once (64 MB)
DIRECTION_ROWS = 8192  # rows scaled at once by float32_directions, so its float64 working copy stays small
PARTITION_VALUES = 1 << 21  # scores argpartitioned at once when a block is taken in full (16 MB of int64 indices)
FIRST_SHARE = 8  # the first block of chunks, taken in full, is this much narrower than the others
SURVIVOR_SHARE = 32  # a block whose scores pass the threshold more often than 1 in this many is taken in full


def float32_directions(rows: np.ndarray) -> np.ndarray:
    """Each row scaled by a power of two into float32's range, as float32.

    Cosine does not see a row's scale, and scaling by a power of two is exact, so a row of 1e200 or
    1e-200 can be searched in float32, and a row that is float32 already (an embedder's) keeps every
    bit: the search is then exact for the rows as given. A zero row stays zero."""
    out = np.empty(rows.shape, dtype=np.float32)
    for start in range(0, len(rows), DIRECTION_ROWS):
        part = rows[start : start + DIRECTION_ROWS]
        _, exponent = np.frexp(np.abs(part).max(axis=1))
        out[start : start + len(part)] = np.ldexp(part, -exponent[:, None])
    return out


@dataclass(frozen=True)
class Neighbour:
    row: int
    score: float  # cosine similarity in float64; NaN for a zero vector


class ExactSpace:
    """A space's vectors, laid out once for many searches.

    `ids` settle ties (descending, as trec_eval does); None lets the row number settle them, for rows
    without an id. `rank_by` is the precision scores are compared in (see the module docstring).
    """

    def __init__(self, ids: Sequence[str] | None, matrix: np.ndarray,
                 rank_by: type[np.floating] = np.float32):
        self.ids = list(ids) if ids is not None else None
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)
        self.rank_by = rank_by
        self.norms = np.sqrt(np.einsum("ij,ij->i", self.matrix, self.matrix, dtype=np.float64))
        self.zero_rows = np.flatnonzero(self.norms == 0)
        self.id_rank = np.arange(len(self.matrix), dtype=np.int64)  # the chunk id's place in string order
        if self.ids is not None:
            self.id_rank[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(len(self.ids))
        dimension = self.matrix.shape[1]
        tolerance = (dimension + 4) * 2.0 ** -24  # float32 dot of unit vectors, worst case
        drift = _unit_drift(self.norms, dimension)
        self.inverse_norms: np.ndarray | None = None
        if drift <= tolerance:  # rows of norm 1 (an embedder's): the dot is the cosine to within `drift`
            self.tolerance = tolerance * (1 + drift) + drift
        else:
            self.tolerance = tolerance
            with np.errstate(divide="ignore"):
                self.inverse_norms = np.where(self.norms > 0, 1.0 / self.norms, 0.0).astype(np.float32)

    def __len__(self) -> int:
        return len(self.matrix)

    def search(self, queries: np.ndarray, k: int, progress: Callable[[int], None] | None = None
               ) -> list[list[Neighbour]]:
        queries = np.asarray(queries, dtype=np.float32)
        results: list[list[Neighbour]] = []
        step = max(1, min(QUERY_BLOCK, RESCORE_VALUES // ((k + SPARE) * max(self.matrix.shape[1], 1))))
        for start in range(0, len(queries), step):
            block = queries[start : start + step]
            results += self._search_block(block, min(k, len(self)))
            if progress:
                progress(len(block))
        return results

    def _search_block(self, queries: np.ndarray, k: int) -> list[list[Neighbour]]:
        if k == 0:
            return [[] for _ in queries]
        query_norms = np.linalg.norm(queries.astype(np.float64), axis=1)
        unit = (queries / np.where(query_norms > 0, query_norms, 1.0)[:, None]).astype(np.float32)
        rows, approximate = self._candidates(unit, min(k + SPARE, len(self)))
        chosen, exact = self._ordered(queries, query_norms, rows, k)
        outside_best = approximate.min(axis=1) if rows.shape[1] < len(self) else np.full(len(rows), -np.inf)
        kth = np.where(np.isnan(exact[:, -1]), -np.inf, exact[:, -1])
        for i in np.flatnonzero(~(outside_best + 2 * self.tolerance < kth)):
            reach = np.concatenate([np.flatnonzero(self._scores(unit[i : i + 1], start, stop)[0]
                                                   >= kth[i] - 2 * self.tolerance) + start
                                    for start, stop in self._row_blocks()])
            again, scores = self._ordered(queries[i : i + 1], query_norms[i : i + 1], np.union1d(reach, rows[i])[None],
                                          k)
            chosen[i], exact[i] = again[0], scores[0]
        return [[Neighbour(row, score) for row, score in zip(found, scored, strict=True)]
                for found, scored in zip(chosen.tolist(), exact.tolist(), strict=True)]

    def _scores(self, unit: np.ndarray, start: int, stop: int, out: np.ndarray | None = None) -> np.ndarray:
        """float32 scores of unit queries against rows start:stop, within `tolerance` of their cosines
        (into `out` when given, a buffer reused block after block); -inf for zero vectors."""
        scores = np.matmul(unit, self.matrix[start:stop].T, out=out)
        if self.inverse_norms is not None:
            scores *= self.inverse_norms[start:stop]
        zero = self.zero_rows[np.searchsorted(self.zero_rows, start) : np.searchsorted(self.zero_rows, stop)]
        scores[:, zero - start] = -np.inf
        return scores

    def _candidates(self, unit: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
        """Each query's `keep` best rows by float32 score, one bounded block of chunks at a time, with
        their scores ascending: every row left out scores at most the lowest kept.

        A first, narrower block is partitioned in full; after it, only a score above the query's lowest
        kept one can enter, and those few are found by one comparison over the block and merged in."""
        width = min(len(self), max(keep, BLOCK_VALUES // max(len(unit), 1)))
        scores_buffer = np.empty(len(unit) * width, dtype=np.float32)
        above_buffer = np.empty(len(unit) * width, dtype=np.bool_)
        first = max(keep, width // FIRST_SHARE)
        best_rows, best_scores = (found[:, ::-1] for found in _top(self._scores(unit, 0, first), keep))
        for start in range(first, len(self), width):
            stop = min(start + width, len(self))
            shape = (len(unit), stop - start)
            scores = self._scores(unit, start, stop, scores_buffer[: shape[0] * shape[1]].reshape(shape))
            above = np.greater(scores, best_scores[:, :1], out=above_buffer[: scores.size].reshape(shape))
            hits = np.flatnonzero(above)
            if hits.size > scores.size // SURVIVOR_SHARE:  # scores rising block after block: take it all
                asked = np.arange(len(unit))
                new_rows, new_scores = _top(scores, min(keep, shape[1]))
            elif hits.size:
                asked, new_rows, new_scores = _survivors(scores, hits, keep)
            else:
                continue
            best_rows[asked], best_scores[asked] = _merge(best_rows[asked], best_scores[asked], new_rows + start,
                                                          new_scores)
        return best_rows, best_scores

    def _row_blocks(self) -> list[tuple[int, int]]:
        return [(start, min(start + BLOCK_VALUES, len(self))) for start in range(0, len(self), BLOCK_VALUES)]

    def _ordered(self, queries: np.ndarray, query_norms: np.ndarray, rows: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Each query's candidate `rows` rescored in float64, and its best k in tier 1's order: score
        descending (rounded to `rank_by`), then chunk id descending.

        The dots are summed by einsum, whose order of addition is the same wherever a row sits among the
        candidates (a batched matmul's is not), so duplicated rows score exactly alike and tie."""
        exact = np.empty(rows.shape)
        queries64 = queries.astype(np.float64)
        width = max(1, RESCORE_VALUES // (len(rows) * self.matrix.shape[1]))  # float64 copies stay bounded
        for start in range(0, rows.shape[1], width):
            part = rows[:, start : start + width]
            dots = np.einsum("qwd,qd->qw", self.matrix[part].astype(np.float64), queries64)
            with np.errstate(invalid="ignore", divide="ignore"):
                exact[:, start : start + width] = dots / (self.norms[part] * query_norms[:, None])
        key = np.where(np.isnan(exact), -np.inf, exact).astype(self.rank_by)
        order = np.lexsort((-self.id_rank[rows], -key), axis=-1)[:, :k]
        return np.take_along_axis(rows, order, axis=1), np.take_along_axis(exact, order, axis=1)


def _unit_drift(norms: np.ndarray, dimension: int) -> float:
    """How far from 1 any non-zero row's norm may be: the largest computed distance, plus the float64
    rounding of the norm itself (a sum of `dimension` exact products, then a square root)."""
    nonzero = norms[norms > 0]
    farthest = float(np.abs(nonzero - 1.0).max()) if nonzero.size else 0.0
    return farthest + (dimension + 2) * 2.0 ** -52


def _top(scores: np.ndarray, take: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's `take` highest scores and their columns, highest first. argpartition runs over a few
    rows at a time, so its int64 indices stay within PARTITION_VALUES."""
    columns = np.empty((len(scores), take), dtype=np.int64)
    group = max(1, PARTITION_VALUES // scores.shape[1])
    for first in range(0, len(scores), group):
        part = scores[first : first + group]
        columns[first : first + group] = np.argpartition(part, part.shape[1] - take, axis=1)[:, -take:]
    values = np.take_along_axis(scores, columns, axis=1)
    order = np.argsort(-values, axis=1)
    return np.take_along_axis(columns, order, axis=1), np.take_along_axis(values, order, axis=1)


def _survivors(scores: np.ndarray, hits: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The queries with a hit (`hits`: flat indices into `scores`, ascending), and each one's best `keep`
    hits at most: columns and scores, highest first, padded with -inf where a query has fewer than another."""
    asking, columns = np.divmod(hits, scores.shape[1])
    values = scores.ravel()[hits]
    order = np.lexsort((-values, asking))  # query by query (as `hits` already are), each one's best first
    counts = np.bincount(asking, minlength=len(scores))
    asked = np.flatnonzero(counts)
    counts = counts[asked]
    rank = np.arange(len(hits)) - np.repeat(np.cumsum(counts) - counts, counts)
    kept = rank < keep
    slot = np.repeat(np.arange(len(asked)), counts)[kept]
    found_scores = np.full((len(asked), min(int(counts.max()), keep)), -np.inf, dtype=np.float32)
    found_columns = np.zeros(found_scores.shape, dtype=np.int64)
    found_scores[slot, rank[kept]] = values[order][kept]
    found_columns[slot, rank[kept]] = columns[order][kept]
    return asked, found_columns, found_scores


def _merge(rows: np.ndarray, scores: np.ndarray, new_rows: np.ndarray, new_scores: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """The best `scores.shape[1]` of kept rows (scores ascending) and new ones (descending, no more
    columns), ascending again. Set against each other so, the higher of each pair are the best (the
    merge step of a bitonic sort); a new score must be strictly higher, so -inf padding never enters."""
    width = new_scores.shape[1]
    enters = new_scores > scores[:, :width]
    rows, scores = rows.copy(), scores.copy()
    rows[:, :width] = np.where(enters, new_rows, rows[:, :width])
    scores[:, :width] = np.where(enters, new_scores, scores[:, :width])
    order = np.argsort(scores, axis=1)
    return np.take_along_axis(rows, order, axis=1), np.take_along_axis(scores, order, axis=1)
