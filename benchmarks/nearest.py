"""Exact cosine top-k over a space's stored vectors, blockwise in numpy: the ground truth of retrieval,
and the one cosine scan of bench (the UX cache's best match and tier 0's neighbours are searched here).

PostgreSQL answers an exact search by reading every row of the table for every question (a few
questions a second at 100,000 chunks); the same scan as one matrix product per block runs at the
speed of the machine's BLAS, hundreds of questions a second. The vectors are the ones pgvector
stores, read once per run; pgvector scores them in float32, this in float64, so the two can order
differently only two chunks whose cosines differ by less than float32 can tell.

How a top-k is chosen, so that it is the one trec_eval would score:
- a block of questions against a block of chunks in float32 (one GEMM), keeping each question's best
  `k + SPARE` candidates as the blocks go, so memory stays bounded at any corpus size;
- the candidates rescored in float64 from the float32 vectors (cosine = dot / both norms), and ordered
  as tier 1 orders a ranking: score rounded to float32 descending, then chunk id descending;
- a check that no chunk left out could belong: float32 scores are within `tolerance` of the true
  ones, so when the lowest kept float32 score plus twice that is below the k-th rescored score, nothing
  outside can reach the top k. Otherwise (many near-ties, duplicated chunks) that question is
  searched again over every chunk whose float32 score comes within the tolerance, rescored, and
  ordered the same way: ties are never settled by chance.
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
BLOCK_VALUES = 1 << 24  # float32 scores held at once per block pair (64 MB)
QUERY_BLOCK = 512  # questions per GEMM, fewer when their candidates' float64 copies would pass RESCORE_VALUES
RESCORE_VALUES = 1 << 23  # float64 values rescored at once (64 MB)
DIRECTION_ROWS = 8192  # rows scaled at once by float32_directions, so its float64 working copy stays small


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
        with np.errstate(divide="ignore"):
            self.inverse_norms = np.where(self.norms > 0, 1.0 / self.norms, 0.0).astype(np.float32)
        self.zero_rows = np.flatnonzero(self.norms == 0)
        self.id_rank = np.arange(len(self.matrix), dtype=np.int64)  # the chunk id's place in string order
        if self.ids is not None:
            self.id_rank[sorted(range(len(self.ids)), key=self.ids.__getitem__)] = np.arange(len(self.ids))
        self.tolerance = (self.matrix.shape[1] + 4) * 2.0 ** -24  # float32 dot of unit vectors, worst case

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

    def _scores(self, unit: np.ndarray, start: int, stop: int) -> np.ndarray:
        """float32 cosines of unit queries against rows start:stop; -inf for zero vectors."""
        scores = unit @ self.matrix[start:stop].T
        scores *= self.inverse_norms[start:stop]
        zero = self.zero_rows[(self.zero_rows >= start) & (self.zero_rows < stop)]
        scores[:, zero - start] = -np.inf
        return scores

    def _candidates(self, unit: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
        """Each query's `keep` best rows by float32 score, one bounded block of chunks at a time."""
        step = max(keep, BLOCK_VALUES // max(len(unit), 1))
        best_rows = np.zeros((len(unit), 0), dtype=np.int64)
        best_scores = np.zeros((len(unit), 0), dtype=np.float32)
        for start in range(0, len(self), step):
            scores = self._scores(unit, start, min(start + step, len(self)))
            take = min(keep, scores.shape[1])
            top = np.argpartition(scores, scores.shape[1] - take, axis=1)[:, -take:]
            best_rows = np.concatenate([best_rows, top + start], axis=1)
            best_scores = np.concatenate([best_scores, np.take_along_axis(scores, top, axis=1)], axis=1)
            if best_rows.shape[1] > keep:
                top = np.argpartition(best_scores, best_scores.shape[1] - keep, axis=1)[:, -keep:]
                best_rows = np.take_along_axis(best_rows, top, axis=1)
                best_scores = np.take_along_axis(best_scores, top, axis=1)
        return best_rows, best_scores

    def _row_blocks(self) -> list[tuple[int, int]]:
        return [(start, min(start + BLOCK_VALUES, len(self))) for start in range(0, len(self), BLOCK_VALUES)]

    def _ordered(self, queries: np.ndarray, query_norms: np.ndarray, rows: np.ndarray, k: int
                 ) -> tuple[np.ndarray, np.ndarray]:
        """Each query's candidate `rows` rescored in float64, and its best k in tier 1's order: score
        descending (rounded to `rank_by`), then chunk id descending."""
        exact = np.empty(rows.shape)
        width = max(1, RESCORE_VALUES // (len(rows) * self.matrix.shape[1]))  # float64 copies stay bounded
        for start in range(0, rows.shape[1], width):
            part = rows[:, start : start + width]
            dots = np.matmul(self.matrix[part].astype(np.float64), queries.astype(np.float64)[:, :, None])[:, :, 0]
            with np.errstate(invalid="ignore", divide="ignore"):
                exact[:, start : start + width] = dots / (self.norms[part] * query_norms[:, None])
        key = np.where(np.isnan(exact), -np.inf, exact).astype(self.rank_by)
        order = np.lexsort((-self.id_rank[rows], -key), axis=-1)[:, :k]
        return np.take_along_axis(rows, order, axis=1), np.take_along_axis(exact, order, axis=1)
