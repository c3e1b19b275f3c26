"""Tier UX metrics (docs/metrics.md#ux): cache hit rate, context preservation, multi-turn consistency.

Pure functions on embeddings already computed; nothing here does I/O or draws random numbers.

Cache hit rate
--------------
For each test question, the highest cosine similarity to any cached question (the historical
questions users rated 5) is found by :func:`max_similarity`; the caller puts it on the embedder's
calibrated scale (``SimilarityScale.array``: 0 as alike as unrelated questions, 1 identical), and a
question is a hit when that is *strictly* above τ, as the seed's ``1[max cos > τ]`` says, so a
similarity exactly equal to τ is not a hit. τ = 0.85 was set on all-MiniLM-L6-v2's raw cosines of
English questions, whose unrelated baseline is near 0: on the calibrated scale it keeps that meaning
under every embedder and in Russian too. :func:`hit_rate_curve` gives the rate for several τ at once, so a user
can choose τ from data instead of trusting 0.85.

The cache row most similar to each question is found by the one exact cosine scan of bench
(:mod:`benchmarks.nearest`, ranked by the float64 cosine), on the rows scaled by powers of two into
float32's range: for an embedder's float32 vectors that search is exact, the row it returns has the
highest cosine there is. Its value is then recomputed in float64 from the rows as given, so a
similarity that is exactly τ in float64 stays exactly τ (a float32 value of 0.6 is 0.60000002,
which would be a false hit above τ = 0.6). The scan holds bounded blocks, never the Q x C matrix.

Undefined cosines: a zero vector has no direction, so its cosine with anything is undefined. A
zero cache row can never be the most similar question (the scan ranks it last); a zero query
gets ``-inf`` ("no similar question"), which is never a hit but stays in the denominator, because
the question was asked. An empty cache gives ``-inf`` for every query; :func:`cache_hit_rate`
cannot tell that case from a cache without any similar question, so the caller must report the
rate as undetermined when the cache is empty.

Sessions
--------
``context_preservation`` is the seed's per-session mean of the (calibrated) similarity between
consecutive questions, averaged within each session first and then across sessions (each session weighs the
same, however long it is). A session of one turn has no consecutive pair and is left out, as is a
pair whose cosine is undefined (a zero vector). ``multi_turn_consistency``: the specification
says that in its current version it is computed by the same procedure as
``context_preservation`` and logged separately; it is implemented exactly so, and is therefore
equal to ``context_preservation`` by definition, not by coincidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.nearest import ExactSpace, float32_directions
from benchmarks.outcome import Outcome

DEFAULT_THRESHOLD = 0.85
"""τ of the specification (docs/metrics.md#ux)."""

CURVE_THRESHOLDS: tuple[float, ...] = (0.70, 0.75, 0.80, 0.85, 0.90, 0.95)
"""Literal values, not ``0.70 + 0.05 * i`` (which gives 0.7500000000000001 and so on)."""

_NORMALISE_ROWS = 8192
"""Questions normalised per step, so the float64 working copy is at most 8192 x D, not all of them."""


def _matrix(values: np.ndarray, what: str) -> np.ndarray:
    """A 2-D real matrix without NaN or infinity; anything else is a caller bug, not a similarity."""
    matrix = np.asarray(values)
    if matrix.ndim != 2:
        raise ValueError(f"{what} must be a 2-D (N, D) array, got shape {matrix.shape}")
    if not (np.issubdtype(matrix.dtype, np.floating) or np.issubdtype(matrix.dtype, np.integer)):
        raise ValueError(f"{what} must be real numbers, got dtype {matrix.dtype}")
    if matrix.shape[1] == 0:
        raise ValueError(f"{what} have 0 dimensions (D = 0)")
    if np.issubdtype(matrix.dtype, np.floating) and not np.isfinite(matrix).all():
        raise ValueError(f"{what} hold NaN or infinity")
    return matrix


def _unit64(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float64 unit rows and a mask of the non-zero ones (zero rows stay zero).

    Each row is first divided by its largest magnitude, so squaring can neither overflow (1e200)
    nor underflow (1e-200) before the norm is taken; cosine is scale-free, so nothing changes.
    """
    x = rows.astype(np.float64, copy=True)
    scale = np.abs(x).max(axis=1)
    nonzero = scale > 0
    x[nonzero] /= scale[nonzero, None]
    norms = np.sqrt(np.einsum("ij,ij->i", x, x))
    x[nonzero] /= norms[nonzero, None]
    return x, nonzero


def max_similarity(queries: np.ndarray, cache: np.ndarray) -> np.ndarray:
    """Per query row, the highest cosine similarity to any cache row, as float64 of shape (Q,).

    Memory besides the inputs: a float32 copy of the cache (4·C·D bytes), the scan's bounded blocks
    and float64 working rows of 8192 x D. The winning pair is recomputed in float64 (see the module
    docstring).

    A zero query gets ``-inf``; zero cache rows are ignored; an empty cache (or one made only of
    zero rows) gives ``-inf`` for every query, which the caller reports as undetermined.
    Raises ValueError for non-2-D input, different dimensions, NaN or infinity.
    """
    q = _matrix(queries, "queries")
    c = _matrix(cache, "cache")
    if q.shape[1] != c.shape[1]:
        raise ValueError(f"queries have {q.shape[1]} dimensions, the cache {c.shape[1]}")
    best = np.full(q.shape[0], -np.inf, dtype=np.float64)
    if q.shape[0] == 0 or c.shape[0] == 0:
        return best
    space = ExactSpace(None, float32_directions(c), rank_by=np.float64)
    for start in range(0, q.shape[0], _NORMALISE_ROWS):
        asked = start + np.flatnonzero(np.abs(q[start : start + _NORMALISE_ROWS]).max(axis=1) > 0)
        best[asked] = _best_cosines(space, q[asked], c)
    return best


def _best_cosines(space: ExactSpace, queries: np.ndarray, cache: np.ndarray) -> np.ndarray:
    """Each non-zero query's cosine with the cache row the scan ranks first, in float64 from the rows as
    given; -inf where that row is a zero vector (then every cache row is: the scan ranks them last)."""
    found = [row[0] for row in space.search(float32_directions(queries), 1)]
    winner_unit, nonzero = _unit64(cache[[n.row for n in found]])
    query_unit, _ = _unit64(queries)
    exact = np.clip(np.einsum("ij,ij->i", query_unit, winner_unit), -1.0, 1.0)
    return np.where(nonzero, exact, -np.inf)


def _best(best: np.ndarray) -> np.ndarray:
    values = np.asarray(best, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"best similarities must be 1-D, got shape {values.shape}")
    if np.isnan(values).any() or (values == np.inf).any():
        raise ValueError("best similarities hold NaN or +inf: they come from a bug, not from max_similarity")
    return values


def _threshold(threshold: float) -> float:
    if not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    return float(threshold)


def cache_hit_rate(best: np.ndarray, threshold: float = DEFAULT_THRESHOLD) -> float | None:
    """Share of questions whose best similarity is strictly above ``threshold`` (seed: ``> τ``).

    ``best`` is the output of :func:`max_similarity`; ``-inf`` entries (zero query vectors, or an
    empty cache) are misses that still count in the denominator. None when there are no
    questions: 0/0 has no value. The rate is hits / total of two integers, divided once.
    """
    values, tau = _best(best), _threshold(threshold)
    if values.size == 0:
        return None
    return int(np.count_nonzero(values > tau)) / values.size


def hit_rate_curve(
    best: np.ndarray, thresholds: Sequence[float] = CURVE_THRESHOLDS
) -> list[tuple[float, float]]:
    """``(τ, cache_hit_rate(best, τ))`` for each τ, in the order given; [] when there are no questions.

    One sort and a binary search per τ, so a long curve costs no more than a few passes; the
    counts are exactly those of :func:`cache_hit_rate` (strictly above τ).
    """
    values = _best(best)
    taus = [_threshold(t) for t in thresholds]
    if values.size == 0:
        return []
    ordered = np.sort(values)
    at_or_below = np.searchsorted(ordered, taus, side="right")
    return [(tau, int(values.size - below) / values.size) for tau, below in zip(taus, at_or_below, strict=False)]


def session_similarities(vectors_by_session: Sequence[np.ndarray], scale: SimilarityScale) -> list[float | None]:
    """Per session (its question embeddings in turn order, shape (T, D)), the mean calibrated
    similarity (``scale``) of consecutive questions; None for a session with fewer than 2 turns or
    no defined pair.

    A pair with a zero vector has no cosine and is left out of its session's mean rather than
    counted as 0 (which would say "unrelated"). Cosines are float64 on rows scaled then
    normalised (as in :func:`max_similarity`), clipped to [-1, 1], then calibrated; each mean is an
    fsum.
    """
    means: list[float | None] = []
    for index, session in enumerate(vectors_by_session):
        turns = np.asarray(session)
        if turns.ndim != 2 or (turns.shape[0] > 0 and turns.shape[1] == 0):
            raise ValueError(f"session {index}: embeddings must be a 2-D (T, D) array, got shape {turns.shape}")
        if turns.shape[0] < 2:
            means.append(None)
            continue
        unit, nonzero = _unit64(_matrix(turns, f"session {index} embeddings"))
        cosines = np.clip(np.einsum("ij,ij->i", unit[:-1], unit[1:]), -1.0, 1.0)
        defined = scale.array(cosines[nonzero[:-1] & nonzero[1:]])
        means.append(math.fsum(defined.tolist()) / defined.size if defined.size else None)
    return means


def context_preservation(similarities: Sequence[float | None]) -> Outcome:
    """Mean over sessions of their consecutive-question similarity (docs/metrics.md#ux).

    ``similarities`` is the output of :func:`session_similarities`: averaging within each session
    first and then across sessions gives every session the same weight, so one long dialogue
    cannot drown many short ones (the pooled mean over all pairs would). Sessions without a value
    are left out and the reason says how many were used; undetermined when none has a value.
    """
    used = [float(s) for s in similarities if s is not None]
    if not used:
        return Outcome.undetermined(f"no session of {len(similarities)} has two consecutive questions "
                                    "with a defined cosine")
    return Outcome.scored(math.fsum(used) / len(used), f"{len(used)} of {len(similarities)} sessions")


def multi_turn_consistency(similarities: Sequence[float | None]) -> Outcome:
    """The specification's "computed by the same procedure as context_preservation", in its
    current version, logged separately. So it is exactly :func:`context_preservation`; a separate
    function keeps the report key and lets a future definition replace this one without callers
    changing."""
    return context_preservation(similarities)
