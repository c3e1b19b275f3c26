"""One scale for every similarity bench reports or compares with a threshold, whatever the embedder.

Why: an embedder's cosines have a scale of their own. all-MiniLM-L6-v2 gives two unrelated English
sentences about 0.05, multilingual-e5-small about 0.76 (its cosines crowd into 0.7–1.0; its model card
says only their order means something). A raw cosine, or a fixed threshold on one, therefore changes
meaning with the embedder: unrelated prose scored 0.77 semantic similarity under e5, 0.04 under MiniLM.

The rescaling is BERTScore's baseline rescaling (Zhang et al., 2020, §"Baseline rescaling"):

    calibrated = (cos − b) / (1 − b), clipped to [0, 1]

with `b` the embedder's mean cosine between unrelated texts of the language, measured on a fixed
packaged set of unrelated sentences (`benchmarks/calibration`) with the same prompt the scored texts
get. Unrelated texts then score about 0 and identical ones 1 under any embedder; a threshold τ on this
scale is the raw threshold b + τ(1 − b). Clipped below at 0 ("no more alike than unrelated texts of
the language"), so a mean of such scores stays in [0, 1] and answer_correctness's weighted sum too; the
raw cosine is kept beside every calibrated number in items.jsonl.

Measured (BENCHMARKS.md, "Similarity across embedders"): on the shipped logs, English and Russian, the
cache hit rate under e5 and under MiniLM agrees within 0.06 at every τ of its curve (0.70 to 0.95) once
both are rescaled, against 0.98 vs 0.48 raw at τ = 0.85.

Pure: the baseline is computed from vectors the caller embedded (`embedding.similarity_calibration`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.report_model import SimilarityBlock

UNRELATED_FLOOR = 0.0  # a calibrated similarity is never below this: "as alike as unrelated texts"


@dataclass(frozen=True)
class SimilarityScale:
    """The rescaling of one (embedder, prompt, language): its unrelated-text baseline and where it came from."""

    baseline: float
    model: str
    language: str
    prompt: str = ""
    pairs: int = 0  # unrelated pairs the baseline is the mean of; 0 when the user gave it
    spread: float | None = None  # their cosines' standard deviation: how sharp "unrelated" is for this model

    def __post_init__(self) -> None:
        if not math.isfinite(self.baseline) or not -1 <= self.baseline < 1:
            raise ValueError(f"a similarity baseline must be a cosine below 1, got {self.baseline!r}")

    def __call__(self, cosine: float) -> float:
        """The calibrated similarity of a raw cosine."""
        if not math.isfinite(cosine):
            raise ValueError(f"a cosine must be a finite number, got {cosine!r}")
        return min(1.0, max(UNRELATED_FLOOR, (cosine - self.baseline) / (1.0 - self.baseline)))

    def array(self, cosines: np.ndarray) -> np.ndarray:
        """Elementwise `__call__`; -inf (no similar text at all) stays -inf, so it is never above a threshold."""
        values = np.asarray(cosines, dtype=np.float64)
        scaled = np.clip((values - self.baseline) / (1.0 - self.baseline), UNRELATED_FLOOR, 1.0)
        return np.where(np.isneginf(values), -np.inf, scaled)

    def raw_threshold(self, threshold: float) -> float:
        """The raw cosine a calibrated threshold stands for with this embedder."""
        return self.baseline + threshold * (1.0 - self.baseline)

    def explain(self, cosine: float) -> str:
        """What an item's explanation says of one calibrated number: the raw cosine it came from."""
        return f"cosine {cosine:.6f}, baseline {self.baseline:.4f}"

    def describe(self, metrics: Sequence[str]) -> SimilarityBlock:
        """The report's block: enough to recompute every calibrated number from the raw cosines, and which of
        the report's `metrics` are read on this scale (report.md marks them)."""
        measured = (f"mean cosine of {self.pairs} pairs of unrelated {self.language} sentences" if self.pairs
                    else "given by the similarity_baseline setting")
        return SimilarityBlock(method="(cosine − baseline) / (1 − baseline), clipped to [0, 1]", model=self.model,
                               language=self.language, prompt=self.prompt, baseline=self.baseline,
                               spread=self.spread, baseline_from=measured, metrics=list(metrics))


def unrelated_baseline(vectors: np.ndarray) -> tuple[float, float, int]:
    """(mean, standard deviation, count) of the cosines of every pair of rows: the rows are texts that have
    nothing to do with each other, so the mean is the embedder's cosine for "unrelated"."""
    matrix = np.asarray(vectors, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] < 2:
        raise ValueError(f"a baseline needs at least two embedded texts, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1)
    if not np.all(np.isfinite(matrix)) or not np.all(norms > 0):
        raise ValueError("a baseline's embeddings must be finite and non-zero")
    unit = matrix / norms[:, None]
    cosines = (unit @ unit.T)[np.triu_indices(matrix.shape[0], 1)]
    return math.fsum(cosines.tolist()) / cosines.size, float(np.std(cosines)), int(cosines.size)
