"""LLM-judged RAG metrics (RAGAS family): the scores computed once the judge has answered.

Each function takes verdicts already parsed from the judge (booleans, counts, ratings, embeddings)
and returns an `Outcome` (`benchmarks.outcome`), ok or undetermined. Prompts, calls and parsing live
elsewhere; nothing here does I/O.

Conventions, shared by every metric:
- A score that the mathematics leaves undefined (0/0, the cosine of a zero vector) is never NaN:
  it is `Outcome.undetermined(why)`, so a mean over samples can leave it out and say how many.
- A degenerate sample whose answer the mathematics does fix gets that number with status "ok" and
  an `explanation` naming the case (e.g. no relevant context: average precision 0.0).
- Ratios are computed from integer counts (or exact fractions) and rounded once, so all-positive
  verdicts give exactly 1.0. No epsilon is added to any denominator and no score is rounded.
- Malformed verdicts (a verdict that is not 0/1, ragged shapes, NaN in an embedding) raise
  ValueError: a parsing bug must fail loudly, not turn into a score.

Judge calls per sample of the full metric (embedding requests are not LLM calls):

    context_precision       1 per context
    context_recall          1                       reference statements classified against contexts
    faithfulness            2                       statements of the response; verdicts on them
    semantic_similarity     0                       two embeddings
    factual_correctness     2 (precision or recall), 4 (f1; recall too with RAGAS's counting)
    answer_correctness      3                       two statement lists; one TP/FP/FN classification

These are the formulas the offline proxies feed too, or that several metrics share (semantic similarity and
factual correctness inside answer correctness, `expected_share` of yes-no verdicts). A formula only one judged
metric uses lives in that metric's module of `benchmarks.judge.judged_metrics.builtin` (context_entity_recall,
noise_sensitivity, response_relevancy, context_relevance, answer_accuracy, response_groundedness), and a user
rubric's in `benchmarks.judge.judged_metrics.rubric`. Which calls a metric makes, and how many for a given sample,
is declared with the metric in its module; this table documents the functions below, and tests keep the two in
step.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, cast

import numpy as np

from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.weights import WEIGHT_PRESETS, AnswerCorrectnessWeights
from benchmarks.outcome import Outcome

FactualMode = Literal["precision", "recall", "f1"]
# "sides": each side's claims counted against its own total (the seed's verdicts); "ragas": RAGAS's counts, tp and
# fp over the response's claims, fn over the reference's, 0.0 where it divides by 0, rounded to 2 decimals
ClaimCounting = Literal["sides", "ragas"]
NoiseMode = Literal["relevant", "irrelevant"]
Vector = Sequence[float] | np.ndarray


def flags(verdicts: Iterable[object], what: str) -> tuple[bool, ...]:
    """0/1 verdicts as booleans; anything else is a parsing bug, not a verdict."""
    found = []
    for v in verdicts:
        if isinstance(v, (bool, np.bool_)):
            found.append(bool(v))
        elif isinstance(v, (int, np.integer)) and v in (0, 1):
            found.append(v == 1)
        else:
            raise ValueError(f"{what}: a verdict must be 0/1 or a bool, got {v!r}")
    return tuple(found)


def share(hits: int, total: int) -> float:
    """One division of two integer counts, so total/total is exactly 1.0."""
    return hits / total


# --- context precision -------------------------------------------------------------------------


def context_precision(relevant: Sequence[bool | int]) -> Outcome:
    """Average precision of the judge's per-context relevance verdicts, in retrieved order.

    Formula: AP = (1 / R) · Σ_k v_k · (Σ_{i≤k} v_i) / k, over ranks k = 1..K, with v_k the 0/1
    verdict for the context at rank k and R = Σ v_k. Summed as exact fractions, rounded once:
    every context relevant gives exactly 1.0 (RAGAS's R + 1e-10 denominator gives 0.9999999999).
    LLM calls: 1 per context.
    Degenerate: no relevant context → 0.0 (no relevant context was ranked at all); no context
    retrieved → 0.0 as well, with a reason: retrieving nothing is a retrieval failure, and leaving
    it out of the mean would flatter the retriever.
    """
    verdicts = flags(relevant, "context_precision")
    if not verdicts:
        return Outcome.scored(0.0, explanation="no context was retrieved")
    total = sum(verdicts)
    if total == 0:
        return Outcome.scored(0.0, explanation="no retrieved context is relevant")
    hits = 0
    summed = Fraction(0)
    for rank, is_relevant in enumerate(verdicts, start=1):
        if is_relevant:
            hits += 1
            summed += Fraction(hits, rank)
    return Outcome.scored(float(summed / total))


# --- context recall and faithfulness -----------------------------------------------------------


def context_recall(attributed: Sequence[bool | int]) -> Outcome:
    """Share of the reference's statements that the judge attributes to the retrieved contexts.

    Formula: Σ a_i / |S|, with a_i the 0/1 attribution of reference statement i.
    LLM calls: 1 (the judge splits the reference and classifies each statement in one answer).
    Degenerate: no reference statement → undetermined (RAGAS gives NaN).
    """
    verdicts = flags(attributed, "context_recall")
    if not verdicts:
        return Outcome.undetermined("the reference has no statements")
    return Outcome.scored(share(sum(verdicts), len(verdicts)))


def faithfulness(supported: Sequence[bool | int]) -> Outcome:
    """Share of the response's statements that the retrieved contexts support.

    Formula: Σ s_i / |S|, with s_i the 0/1 verdict that statement i can be inferred from the
    contexts.
    LLM calls: 2 (statements of the response, then one verdict list for all of them).
    Degenerate: no statement → undetermined (an empty or purely evasive response makes no claim
    to check; RAGAS gives NaN).
    """
    verdicts = flags(supported, "faithfulness")
    if not verdicts:
        return Outcome.undetermined("the response has no statements")
    return Outcome.scored(share(sum(verdicts), len(verdicts)))


def expected_share(probabilities: Sequence[float], what: str, nothing: str) -> Outcome:
    """The expected share of supported claims from each claim's probability of being supported (yes-no judging
    read from token probabilities): Σ p_i / |C|, which is the share itself when every p_i is 0 or 1.

    Formula: faithfulness and context recall with p_i = P(Yes) / (P(Yes) + P(No)) for claim i.
    Degenerate: no claim → undetermined with `nothing` as the reason, as for 0/1 verdicts.
    """
    values = [float(p) for p in probabilities]
    if any(not 0.0 <= p <= 1.0 for p in values):
        raise ValueError(f"{what}: a probability must be in [0, 1], got {values}")
    if not values:
        return Outcome.undetermined(nothing)
    return Outcome.scored(math.fsum(values) / len(values))


# --- embeddings: cosine, response relevancy, semantic similarity --------------------------------


def _vector(values: Vector, what: str) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float64)
    if vector.ndim != 1 or vector.size == 0:
        raise ValueError(f"{what}: an embedding must be a non-empty 1-D vector")
    if not np.all(np.isfinite(vector)):
        raise ValueError(f"{what}: an embedding holds NaN or infinity")
    return vector


def cosine(a: Vector, b: Vector) -> float | None:
    """Cosine of two embeddings; None when either is the zero vector (no direction, no angle).

    Each vector is first divided by its largest magnitude (cosine is scale-free), so no product
    overflows or underflows; the dot products are summed exactly (fsum). Identical vectors then
    give exactly 1.0, and rounding can never push the result outside [-1, 1].
    """
    x, y = _vector(a, "cosine"), _vector(b, "cosine")
    if x.shape != y.shape:
        raise ValueError(f"cosine: embeddings of different sizes {x.size} and {y.size}")
    x_scale, y_scale = np.max(np.abs(x)), np.max(np.abs(y))
    if x_scale == 0 or y_scale == 0:
        return None
    x, y = x / x_scale, y / y_scale
    dot = math.fsum((x * y).tolist())
    norms = math.sqrt(math.fsum((x * x).tolist()) * math.fsum((y * y).tolist()))
    return min(1.0, max(-1.0, dot / norms))


def semantic_similarity(response: Vector, reference: Vector, *, scale: SimilarityScale,
                        threshold: float | None = None) -> Outcome:
    """How alike the response's and the reference's embeddings are, optionally as pass/fail.

    Formula: s(cos(e(response), e(reference))), with s the embedder's similarity scale (0 for texts
    as alike as unrelated ones, 1 for identical; RAGAS reports the raw cosine, whose meaning changes
    with the embedder); with a threshold t on that scale, 1.0 if s(cos) >= t else 0.0.
    `threshold=0.0` is a real threshold (tested with `is not None`, not truthiness). The explanation
    keeps the raw cosine. LLM calls: 0 (two embeddings).
    Degenerate: a zero-vector embedding → undetermined, thresholded or not.
    """
    if threshold is not None and not math.isfinite(threshold):
        raise ValueError(f"threshold must be finite, got {threshold!r}")
    similarity = cosine(response, reference)
    if similarity is None:
        return Outcome.undetermined("an embedding is the zero vector")
    calibrated = scale(similarity)
    if threshold is not None:
        return Outcome.scored(1.0 if calibrated >= threshold else 0.0, scale.explain(similarity))
    return Outcome.scored(calibrated, scale.explain(similarity))


# --- factual correctness and answer correctness ------------------------------------------------


@dataclass(frozen=True)
class ClaimVerdicts:
    """NLI verdicts in both directions (the seed's definition of factual correctness).

    response_supported[i]: response claim i is supported by the reference (precision side).
    reference_supported[i]: reference claim i is supported by the response (recall side).
    A side the mode does not need may be None: precision alone costs 2 judge calls, not 4.
    """

    response_supported: tuple[bool, ...] | None = None
    reference_supported: tuple[bool, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("response_supported", "reference_supported"):
            side = getattr(self, name)
            if side is not None:
                object.__setattr__(self, name, flags(side, name))


@dataclass(frozen=True)
class ClaimCounts:
    """One TP/FP/FN classification of response claims against reference claims (RAGAS style).

    tp: response claims the reference supports; fp: response claims it does not;
    fn: reference claims the response misses.
    """

    tp: int
    fp: int
    fn: int

    def __post_init__(self) -> None:
        for name in ("tp", "fp", "fn"):
            count = getattr(self, name)
            if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {count!r}")


def _check_beta(beta: float) -> Fraction:
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not math.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a finite number > 0, got {beta!r}")
    return Fraction(beta) ** 2


def _ratio(hits: int, total: int) -> Fraction | None:
    return Fraction(hits, total) if total else None


def _f_beta(precision: Fraction | None, recall: Fraction | None, beta_sq: Fraction, why: str) -> Outcome:
    """F-beta as an exact fraction; 0 as soon as either side is 0, whatever the other side."""
    if precision == 0 or recall == 0:
        return Outcome.scored(0.0)
    if precision is None or recall is None:
        return Outcome.undetermined(why)
    return Outcome.scored(float((1 + beta_sq) * precision * recall / (beta_sq * precision + recall)))


def _side(
    verdicts: tuple[bool, ...] | None, name: str, mode: str, needed_by: tuple[str, ...]
) -> Fraction | None:
    if verdicts is None:
        if mode in needed_by:
            raise ValueError(f"mode {mode!r} needs {name}")
        return None
    return _ratio(sum(verdicts), len(verdicts))


def _fraction_score(value: Fraction | None, why: str) -> Outcome:
    return Outcome.undetermined(why) if value is None else Outcome.scored(float(value))


def factual_correctness(
    judged: ClaimVerdicts | ClaimCounts,
    *,
    mode: FactualMode = "f1",
    beta: float = 1.0,
    counting: ClaimCounting = "sides",
) -> Outcome:
    """Precision, recall or F-beta of the response's claims against the reference's.

    From `ClaimVerdicts` (the seed): precision = supported response claims / response claims,
    recall = supported reference claims / reference claims. From `ClaimCounts` (RAGAS):
    precision = TP / (TP + FP), recall = TP / (TP + FN). Then
    F-beta = (1 + β²)·P·R / (β²·P + R), β > 1 favouring recall. Exact fractions, rounded once; no
    epsilon and no rounding to 2 decimals (RAGAS does both).
    LLM calls: precision 2 (claims of the response, verdicts against the reference), recall 2
    (the mirror image), f1 4. RAGAS spends 4 on recall too, as it always builds the precision side.
    Degenerate: precision with no response claim and recall with no reference claim are
    undetermined. F-beta is 0.0 whenever precision or recall is 0, whatever the other (it lies
    between them); otherwise it is undetermined when a side has no claims.

    `counting="ragas"` gives RAGAS's number from the same verdicts (`ragas_factual_correctness`).
    """
    if mode not in ("precision", "recall", "f1"):
        raise ValueError(f"mode must be 'precision', 'recall' or 'f1', got {mode!r}")
    beta_sq = _check_beta(beta)
    if counting == "ragas":
        return ragas_factual_correctness(judged, mode=mode, beta=beta)
    if counting != "sides":
        raise ValueError(f"counting must be 'sides' or 'ragas', got {counting!r}")
    if isinstance(judged, ClaimCounts):
        precision = _ratio(judged.tp, judged.tp + judged.fp)
        recall = _ratio(judged.tp, judged.tp + judged.fn)
    else:
        precision = _side(
            judged.response_supported, "response_supported", mode, needed_by=("precision", "f1")
        )
        recall = _side(judged.reference_supported, "reference_supported", mode, needed_by=("recall", "f1"))
    if mode == "precision":
        return _fraction_score(precision, "the response has no claims")
    if mode == "recall":
        return _fraction_score(recall, "the reference has no claims")
    missing = "the response has no claims" if precision is None else "the reference has no claims"
    if precision is None and recall is None:
        missing = "neither the response nor the reference has claims"
    return _f_beta(precision, recall, beta_sq, missing)


def ragas_claim_counts(judged: ClaimVerdicts | ClaimCounts, mode: FactualMode) -> ClaimCounts:
    """RAGAS's counts from the verdicts: tp = response claims the reference supports, fp = those it does not, fn =
    reference claims the response does not support (none counted in precision mode). Its recall therefore
    divides response claims by a mix of response and reference claims: 3 supported response claims that all
    restate the one covered claim of a 4-claim reference give RAGAS 3 / (3 + 3) = 0.5, bench's "sides" 1 / 4."""
    if isinstance(judged, ClaimCounts):
        return judged
    if judged.response_supported is None:
        raise ValueError("RAGAS counting needs the response's claims (response_supported) in every mode")
    if judged.reference_supported is None and mode != "precision":
        raise ValueError(f"mode {mode!r} needs reference_supported")
    tp = sum(judged.response_supported)
    fn = 0 if mode == "precision" else sum(not v for v in judged.reference_supported or ())
    return ClaimCounts(tp=tp, fp=len(judged.response_supported) - tp, fn=fn)


def ragas_fbeta(counts: ClaimCounts, beta: float) -> float:
    """RAGAS's fbeta_score, in floats with its 1e-10 guards (so 0 where it divides 0 by them)."""
    precision = counts.tp / (counts.tp + counts.fp + 1e-10)
    recall = counts.tp / (counts.tp + counts.fn + 1e-10)
    beta_sq = beta**2
    return (1 + beta_sq) * precision * recall / (beta_sq * precision + recall + 1e-10)


def ragas_factual_correctness(judged: ClaimVerdicts | ClaimCounts, *, mode: FactualMode, beta: float) -> Outcome:
    """RAGAS's FactualCorrectness from the same verdicts (`ragas_claim_counts`), computed as RAGAS computes it:
    floats with its 1e-8 guards, then rounded to 2 decimals (numpy's rounding of that float: 3/8 gives 0.37,
    not the exact 0.375's 0.38)."""
    counts = ragas_claim_counts(judged, mode)
    if mode == "precision":
        value = counts.tp / (counts.tp + counts.fp + 1e-8)
    elif mode == "recall":
        value = counts.tp / (counts.tp + counts.fn + 1e-8)
    else:
        value = ragas_fbeta(counts, beta)
    return Outcome.scored(float(np.round(value, 2)))


def answer_correctness(
    factual: Outcome,
    similarity: Outcome,
    *,
    weights: AnswerCorrectnessWeights | str = "default",
) -> Outcome:
    """Weighted mean of factual correctness (F-beta) and semantic similarity.

    Formula: (w_f·F + w_s·S) / (w_f + w_s), weights from `WEIGHT_PRESETS` by name or custom.
    Give `factual` from `factual_correctness(ClaimCounts(...))`: one TP/FP/FN classification,
    as RAGAS does. The seed's route through `ClaimVerdicts` costs 4 calls instead of 3.
    When one side has no statements, the classification call can be skipped and the counts are
    known anyway (no response statement: TP = FP = 0, FN = all reference statements): 0.0, as RAGAS
    gives after asking. When neither side has one, RAGAS scores a perfect factual match (1.0); here
    the factual part is undetermined (`claim_counting = "ragas"` gives RAGAS's 1.0, in the judge).
    LLM calls: 3 (statements of response and reference, one classification). Embeddings: 2.
    Degenerate: a component with a positive weight that is undetermined makes the whole
    undetermined; a component weighted 0 is ignored, determined or not.
    """
    if isinstance(weights, str) and weights not in WEIGHT_PRESETS:
        raise ValueError(f"unknown weights preset {weights!r}; presets: {', '.join(WEIGHT_PRESETS)}")
    w = WEIGHT_PRESETS[weights] if isinstance(weights, str) else weights
    parts = [(w.factual, factual, "factual correctness"), (w.semantic, similarity, "semantic similarity")]
    for weight, score, name in parts:
        if weight > 0 and score.status != "ok":
            return Outcome.undetermined(f"{name}: {score.explanation}")
    total = math.fsum(weight * cast(float, score.value) for weight, score, _ in parts if weight > 0)  # ok scores
    # the similarity's explanation keeps its raw cosine beside the calibrated number it contributed
    return Outcome.scored(total / (w.factual + w.semantic), similarity.explanation if w.semantic > 0 else "")
