"""Tier 0: the embedding space's geometry."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from benchmarks.config.declare import AT_LEAST_1, setting


@dataclass(frozen=True)
class GeometrySettings:
    neighbours: int = setting(5, "Tier 0: k nearest neighbours per embedding.", AT_LEAST_1)
    distance: Literal["cosine", "euclidean"] = setting("cosine", "Tier 0: distance function.")
    pairwise_limit: int = setting(
        20000, "Tier 0: pairwise statistics are exact up to this many embeddings, a seeded sample beyond.",
        AT_LEAST_1,
    )
    embeddings_of: Literal["corpus", "questions", "both"] = setting(
        "corpus", "Tier 0: analyse the corpus embeddings, the question embeddings, or both."
    )
