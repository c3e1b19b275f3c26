"""The settings a judged metric reads, one set for both judges: the LLM judge's scorers and the offline proxies
take the same options, so a setting the run names (a threshold, a mode, weights) means the same under either."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from benchmarks.config import Settings, correctness_weights
from benchmarks.metrics import judged
from benchmarks.metrics.weights import AnswerCorrectnessWeights

Verdicts = Literal["yes-no", "statements"]


@dataclass(frozen=True)
class JudgeOptions:
    questions: int = 3  # response_relevancy: questions generated per response
    threshold: float | None = None  # semantic_similarity: calibrated similarity >= threshold -> 1.0, else 0.0
    weights: str | AnswerCorrectnessWeights = "default"
    factual_mode: judged.FactualMode = "f1"
    beta: float = 1.0
    claim_counting: judged.ClaimCounting = "sides"  # factual and answer correctness: bench's counts or RAGAS's
    noise_mode: judged.NoiseMode = "relevant"
    precision_against: Literal["auto", "reference", "response"] = "auto"  # context_precision's yardstick
    verdicts: Verdicts = "yes-no"  # faithfulness and context_recall: a question per claim, or RAGAS's lists

    @classmethod
    def from_settings(cls, settings: Settings) -> JudgeOptions:
        """The options the settings name: one constructor for `bench evaluate` and tiers 2 and 3's --metrics."""
        return cls(questions=settings.relevancy_questions, threshold=settings.similarity_threshold,
                   weights=correctness_weights(settings), factual_mode=settings.factual_mode,
                   beta=settings.factual_beta, claim_counting=settings.claim_counting, noise_mode=settings.noise_mode,
                   precision_against=settings.precision_against, verdicts=settings.judge_verdicts)
