"""Tier 0: intrinsic geometry of the embedding space (docs/metrics.md#embedding-geometry-tier-0), no labels needed.

The corpus vectors are read back from pgvector, exactly as production search sees them; question
vectors come through the same cached embedder.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.corpus_index import open_index
from benchmarks.dataset import Dataset
from benchmarks.metrics.geometry import embedding_geometry
from benchmarks.report_model import Notes
from benchmarks.tiers.base import Metric, RunContext, TierResult

# The seed's table, in its order. Geometry is descriptive: no direction is "better".
METRICS = (
    "total_samples", "avg_nn_distance", "std_nn_distance", "density_score", "avg_spread", "max_spread",
    "spread_std", "effective_dimensionality", "avg_pairwise_distance", "std_pairwise_distance",
    "min_pairwise_distance", "max_pairwise_distance",
)


def run(ctx: RunContext[Dataset]) -> TierResult:
    s, dataset = ctx.settings, ctx.inputs
    with open_index(s, dataset, ctx.progress) as corpus:
        ids: list[str] = []
        kinds: list[str] = []
        parts: list[np.ndarray] = []
        if s.embeddings_of in ("corpus", "both"):
            chunk_ids, _, vectors = corpus.store.embeddings(corpus.space_id)
            ids += chunk_ids
            kinds += ["corpus"] * len(chunk_ids)
            parts.append(vectors)
        if s.embeddings_of in ("questions", "both"):
            questions = sorted(dataset.questions, key=lambda q: q.id)
            ids += [q.id for q in questions]
            kinds += ["question"] * len(questions)
            parts.append(corpus.embed([q.text for q in questions], purpose="questions", progress=ctx.progress))
        provenance = corpus.provenance()
        warnings = corpus.warnings()
        volatile = corpus.volatile()
    matrix = np.concatenate(parts).astype(np.float64)
    task = ctx.progress.add_task("neighbours and pairwise distances", total=len(matrix))
    geometry = embedding_geometry(
        matrix,
        k=s.neighbours,
        distance=s.distance,
        pairwise_limit=s.pairwise_limit,
        seed=s.seed,
        progress=lambda done: ctx.progress.update(task, completed=done),
    )
    ctx.progress.remove_task(task)
    values = geometry.as_dict()
    numbers = {name: value for name, value in values.items() if not isinstance(value, str)}  # all but distance
    metrics = {name: Metric(value=numbers[name], n=len(matrix), higher_is_better=None) for name in METRICS}
    spread = np.linalg.norm(matrix - matrix.mean(axis=0), axis=1)
    return TierResult(
        metrics=metrics,
        items=_items(ids, kinds, spread, dataset),
        notes=_notes(values, s.embeddings_of),
        provenance=provenance,
        volatile=volatile,
        warnings=warnings,
    )


def _items(ids: list[str], kinds: list[str], spread: np.ndarray, dataset: Dataset) -> list[dict[str, Any]]:
    """One record per embedding, scored for avg_spread by its distance to the centroid: the one metric of the
    table that is a mean over embeddings with a value for each. The others are over neighbour lists, pairs,
    a spectrum or are extremes, so no item scores them. The embedder's answer is the vector: not kept."""
    relevant = {q.id: q.relevant for q in dataset.questions}
    return [item_record.record(i, {"kind": kind}, None,
                               {"avg_spread": {item_record.BENCH: item_record.score(float(d))}},
                               cluster=item_record.top_document(relevant[i]) if kind == "question"
                               else item_record.document_of(i))
            for i, kind, d in sorted(zip(ids, kinds, spread, strict=True))]


def _notes(values: dict[str, Any], embeddings_of: str) -> Notes:
    pairwise = (
        "exact over all pairs" if values["pairwise_exact"]
        else f"exact over a seeded sample of {values['pairwise_sample_size']} embeddings"
    )
    return Notes(
        embeddings_of=embeddings_of,
        distance=values["distance"],
        neighbours_k=values["k_used"],
        pairwise=pairwise,
        spread="L2 distance to the centroid of the embeddings as stored, whatever the distance setting",
        effective_dimensionality=f"fewest principal components holding {values['variance_share']:.0%} of the variance",
        std="population standard deviation (ddof = 0)",
        density_score="1 / (avg_nn_distance + 1e-12)",
    )
