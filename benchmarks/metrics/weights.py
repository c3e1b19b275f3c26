"""answer_correctness's weights: a module of their own, without numpy, because the settings check them at
every start of bench and the command line must answer a bad option before heavy imports."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerCorrectnessWeights:
    """Weights of factual correctness and semantic similarity, normalised by their sum.

    Normalised (as RAGAS's `np.average` does) rather than required to sum to 1, so (3, 1) means
    75/25 and a custom pair like (0.6, 0.4) needs no care about float sums. Both must be finite
    and non-negative, and their sum positive.
    """

    factual: float
    semantic: float

    def __post_init__(self) -> None:
        for name in ("factual", "semantic"):
            w = getattr(self, name)
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w) or w < 0:
                raise ValueError(f"weight {name} must be a finite number >= 0, got {w!r}")
        if self.factual + self.semantic <= 0:
            raise ValueError("at least one weight must be positive")


WEIGHT_PRESETS: Mapping[str, AnswerCorrectnessWeights] = {
    "default": AnswerCorrectnessWeights(0.75, 0.25),
    "equal": AnswerCorrectnessWeights(0.5, 0.5),
    "factual-focused": AnswerCorrectnessWeights(0.9, 0.1),
    "semantic-focused": AnswerCorrectnessWeights(0.1, 0.9),
}
