"""Retrieval metrics with trec_eval semantics, so numbers match every IR paper to 1e-9.

Conventions (those of trec_eval 9.x, which pytrec-eval-terrier wraps):
- a ranking is re-ordered by score descending, ties broken by document id descending, with scores
  compared in single precision (trec_eval stores them as floats); a NaN score (the cosine of a zero
  vector) counts as -inf, below every real score, as benchmarks.nearest ranks it;
- a document is relevant when its grade is >= 1; grades are the gains of nDCG (linear gain,
  log2(rank + 1) discount, ideal DCG from every judged-relevant document, cut at k);
- P@k divides by k even when fewer than k documents were retrieved; recall@k divides by the
  number of relevant documents; MRR is the reciprocal rank of the first relevant document within
  the retrieved list (its cutoff is the retrieval depth);
- a query that has relevance judgments but retrieved nothing scores 0 everywhere (trec_eval -c);
- a query without any relevant document has no defined recall or nDCG: it is excluded from every
  mean and reported separately, never silently averaged in as a zero.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from benchmarks.metrics.names import (
    HIT_CUTOFFS,
    NDCG_CUTOFFS,
    PRECISION_CUTOFFS,
    RECALL_CUTOFFS,
    retrieval_names,
)

Ranking = Sequence[tuple[str, float]]

def score_key(score: float) -> float:
    """A score as every ranking here compares it: NaN as -inf, since a NaN compares false both ways and
    would otherwise land wherever the sort happens to leave it (first, last, or in input order)."""
    return -math.inf if math.isnan(score) else score


def trec_order(ranking: Ranking) -> list[tuple[str, float]]:
    """Order a ranking as trec_eval does: score descending, then document id descending.

    trec_eval keeps scores as C floats, so two scores equal in single precision are a tie there;
    they are compared the same way here. The original scores are kept in what is returned.
    """
    single = np.asarray([score_key(score) for _, score in ranking], dtype=np.float32).tolist()
    order = sorted(zip(single, [doc for doc, _ in ranking], range(len(ranking)), strict=False), reverse=True)
    return [(ranking[i][0], ranking[i][1]) for _, _, i in order]


@dataclass(frozen=True)
class PerQuery:
    """Per-query metric values for the evaluated queries, plus the queries left out."""

    qids: list[str]
    values: dict[str, np.ndarray]
    without_relevant: list[str]

    def means(self) -> dict[str, float]:
        return {name: float(v.mean()) if v.size else float("nan") for name, v in self.values.items()}


def evaluate(
    run: Mapping[str, Ranking],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    hit: Sequence[int] = HIT_CUTOFFS,
    recall: Sequence[int] = RECALL_CUTOFFS,
    precision: Sequence[int] = PRECISION_CUTOFFS,
    ndcg: Sequence[int] = NDCG_CUTOFFS,
) -> PerQuery:
    """Score every query of `qrels` against `run`; queries only in `run` are ignored (as trec_eval)."""
    qids = sorted(q for q, judged in qrels.items() if any(g >= 1 for g in judged.values()))
    evaluated = set(qids)
    without = sorted(q for q in qrels if q not in evaluated)
    max_k = max([*hit, *recall, *precision, *ndcg], default=1)
    rankings = [run.get(q, ()) for q in qids]
    depth = max([max_k, *(len(r) for r in rankings)])
    gains = _ranked_gains(qids, rankings, qrels, depth)
    np.maximum(gains, 0.0, out=gains)  # trec_eval gives negative judgments no gain
    num_rel = np.array([sum(1 for g in qrels[q].values() if g >= 1) for q in qids], dtype=float)
    ideal = _ideal_gains(qids, qrels, max_k)
    return PerQuery(
        qids=qids,
        values=_score_matrix(gains, num_rel, ideal, hit, recall, precision, ndcg),
        without_relevant=without,
    )


def _ranked_gains(
    qids: Sequence[str], rankings: Sequence[Ranking], qrels: Mapping[str, Mapping[str, int]], depth: int
) -> np.ndarray:
    """Grades of the retrieved documents, one row per query, in trec_eval's rank order.

    Scores go into one single-precision matrix sorted row-wise at once; the padding (-inf) fills each
    row's end and the sort is stable, so it stays after every retrieved document, even one scored -inf
    or NaN (see score_key). Only runs of tied retrieved scores, rare with real similarity scores, are
    re-ordered in Python by id.
    """
    scores = np.full((len(qids), depth), -np.inf, dtype=np.float32)
    grades = np.zeros((len(qids), depth))
    ids: list[tuple[str, ...]] = []
    for row, (qid, ranking) in enumerate(zip(qids, rankings, strict=True)):
        docs, raw = zip(*ranking, strict=False) if ranking else ((), ())
        scores[row, : len(docs)] = raw
        grades[row, : len(docs)] = list(map(qrels[qid].get, docs, repeat(0)))
        ids.append(docs)
    scores[np.isnan(scores)] = -np.inf  # score_key, for the whole matrix
    order = np.argsort(-scores, axis=1, kind="stable")
    ranked = np.take_along_axis(scores, order, axis=1)
    retrieved = order < np.array([len(docs) for docs in ids])[:, None]
    tied = np.zeros_like(ranked, dtype=bool)  # tied[r, i]: ranks i and i + 1 of row r tie; last column stays False
    tied[:, :-1] = (ranked[:, 1:] == ranked[:, :-1]) & retrieved[:, 1:]
    for row, start, stop in _tied_runs(tied):
        docs = ids[row]
        order[row, start:stop] = sorted(order[row, start:stop], key=docs.__getitem__, reverse=True)
    return np.take_along_axis(grades, order, axis=1)


def _tied_runs(tied: np.ndarray) -> list[tuple[int, int, int]]:
    """(row, start, stop) of every run of tied ranks, found for the whole matrix at once.

    The last column of `tied` is always False, so a run never spills into the next row.
    """
    flat = np.flatnonzero(tied)
    if flat.size == 0:
        return []
    breaks = np.flatnonzero(np.diff(flat) != 1)
    first = np.concatenate(([flat[0]], flat[breaks + 1]))
    last = np.concatenate((flat[breaks], [flat[-1]]))
    width = tied.shape[1]
    return list(zip((first // width).tolist(), (first % width).tolist(), (last % width + 2).tolist(), strict=True))


def _ideal_gains(qids: Sequence[str], qrels: Mapping[str, Mapping[str, int]], k: int) -> np.ndarray:
    ideal = np.zeros((len(qids), k))
    for row, qid in enumerate(qids):
        best = sorted((g for g in qrels[qid].values() if g >= 1), reverse=True)[:k]
        ideal[row, : len(best)] = best
    return ideal


def _score_matrix(
    gains: np.ndarray,
    num_rel: np.ndarray,
    ideal: np.ndarray,
    hit: Sequence[int],
    recall: Sequence[int],
    precision: Sequence[int],
    ndcg: Sequence[int],
) -> dict[str, np.ndarray]:
    """All metrics from the gain matrix at once: one cumulative sum serves every cutoff."""
    relevant = gains >= 1
    found = np.cumsum(relevant, axis=1)
    discount = 1.0 / np.log2(np.arange(2, gains.shape[1] + 2))
    dcg = np.cumsum(gains * discount, axis=1)
    idcg = np.cumsum(ideal * discount[: ideal.shape[1]], axis=1)
    first = np.where(relevant.any(axis=1), relevant.argmax(axis=1) + 1, 0)
    out: dict[str, np.ndarray] = {}
    for k in hit:
        out[f"hit_rate@{k}"] = (found[:, k - 1] > 0).astype(float)
    out["mrr"] = np.divide(1.0, first, out=np.zeros(len(first)), where=first > 0)
    for k in recall:
        out[f"recall@{k}"] = found[:, k - 1] / num_rel
    for k in precision:
        out[f"precision@{k}"] = found[:, k - 1] / k
    for k in ndcg:
        out[f"ndcg@{k}"] = dcg[:, k - 1] / idcg[:, k - 1]
    return {name: out[name] for name in retrieval_names(hit, recall, precision, ndcg)}


def ranking_consistency(repeats: Sequence[Sequence[Sequence[str]]]) -> np.ndarray:
    """Per query, the share of repeated retrievals whose ordered top-k equals the first one.

    `repeats[r][q]` is the ranked id list of query q in repeat r. Exact search on an unchanged
    index gives 1.0; an approximate index (HNSW) or a non-deterministic service can give less.
    """
    if len(repeats) < 2:
        raise ValueError("retrieval consistency needs at least 2 repeats")
    first, rest = repeats[0], repeats[1:]
    return np.array(
        [sum(list(r[q]) == list(first[q]) for r in rest) / len(rest) for q in range(len(first))],
        dtype=float,
    )
