"""The numbers of tiers 2 and 3: each metric's mean over the cases' outcomes, the text metrics of the first answer
against the reference, and the repeatability of the repeated answers."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

import numpy as np

from benchmarks.config import Settings
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.judge.ratings.offline import OFFLINE_RATINGS
from benchmarks.metrics import names, text
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.stats import summarize
from benchmarks.outcome import ERRORS, Outcome
from benchmarks.tiers.answering.cases import Graded, Plan, judged_metrics, reference_answer
from benchmarks.tiers.base import Metric

Scores = dict[str, Outcome]  # a case's outcome per report metric; a metric that does not apply is absent


def calibrated_metrics(metrics: Mapping[str, Metric], plan: Plan, settings: Settings) -> list[str]:
    """The report's metrics read on the similarity scale: every grade of the offline proxies (their support
    test), the LLM metrics that compare embeddings, and what bench computes from embeddings itself."""
    known, offline = judged_metrics(settings), settings.judge_backend == "offline"
    graded = {plan.report_names[name] for name in plan.ratings if offline and name in OFFLINE_RATINGS} | {
        metric for metric in plan.extra_metrics if offline or known[metric].embeddings}
    own = {"response_semantic_consistency", "avg_semantic_similarity"}
    return [name for name in metrics if name in graded | own]


def grade_metrics(graded: Sequence[Graded], plan: Plan, settings: Settings) -> dict[str, Metric]:
    """avg_<rating> for the seed ratings, the metric's own name for `bench evaluate` metrics."""
    known = judged_metrics(settings)
    lower = {m for m in plan.extra_metrics if not known[m].higher_is_better}
    return summaries([grade_scores(g, plan) for g in graded], list(plan.report_names.values()), settings,
                     lower_is_better=lower)


def grade_scores(item: Graded, plan: Plan) -> Scores:
    """The case's grades under their report names."""
    return {plan.report_names[name]: grade for name, grade in item.grades.items()}


def summaries(rows: Sequence[Scores], names: Sequence[str], settings: Settings, *,
              lower_is_better: Collection[str] = ()) -> dict[str, Metric]:
    """Each named metric's mean over the cases' outcomes: ok values in the mean, failures (errors and failed
    answers) counted as errors, undetermined and absent ones left out, as `item_record.value_of` reads them."""
    return {name: _summary([row[name] for row in rows if name in row], settings,
                           higher_is_better=name not in lower_is_better) for name in names}


def _summary(grades: Sequence[Outcome], settings: Settings, *, higher_is_better: bool) -> Metric:
    values = np.array([g.number for g in grades if g.number is not None], dtype=float)
    errors = sum(g.status in (*ERRORS, "no_answer") for g in grades)
    return mean_metric(values, settings, errors=errors, higher_is_better=higher_is_better)


def mean_metric(values: np.ndarray | Sequence[float], settings: Settings, *, errors: int = 0,
                higher_is_better: bool = True) -> Metric:
    """A per-item mean with its bootstrap interval, seeded and sized by the run's settings."""
    return Metric.from_summary(summarize(np.asarray(values, dtype=float), errors=errors,
                                         resamples=settings.bootstrap_resamples, seed=settings.seed),
                               higher_is_better=higher_is_better)


def no_answer(item: Graded) -> Outcome:
    """What a metric of the first answer is when that answer failed: an error of the metric, not a zero."""
    return Outcome.failed("no_answer", item.first.error or "no answer")


def answer_scores(item: Graded, names: Sequence[str], score: Callable[[str, str], Scores]) -> Scores:
    """Metrics of the first answer against the reference (`score(answer, reference)`): no_answer when the
    answer failed (whether or not a reference exists, as a failed generation fails every metric of its case),
    absent when the question has no reference."""
    if item.first.status != "ok":
        return dict.fromkeys(names, no_answer(item))
    reference = reference_answer(item.case)
    return {} if reference is None else score(str(item.first.text), reference)


def text_metrics(graded: Sequence[Graded], settings: Settings) -> tuple[dict[str, Metric], list[Scores]]:
    """ROUGE-1/2/L F and BLEU of each first answer against the reference, and each case's outcomes."""
    rows = [answer_scores(item, names.TEXT, _text_scores) for item in graded]
    return summaries(rows, names.TEXT, settings), rows


def _text_scores(answer: str, reference: str) -> Scores:
    rouge = text.rouge(answer, reference)
    return {"avg_rouge1_f": rouge.rouge1, "avg_rouge2_f": rouge.rouge2, "avg_rougeL_f": rouge.rougeL,
            "avg_bleu": text.bleu(answer, reference)}


def repeat_metrics(graded: Sequence[Graded], embedder: CachedEmbedder, settings: Settings, scale: SimilarityScale
                   ) -> tuple[dict[str, Metric], list[Scores]]:
    """Exact-match rate and semantic consistency over the ok answers of each case's repeats; a case whose
    repeats include a failed call has api_error for both (its agreement over the rest would not be the run's).
    No metrics, and no outcomes, with fewer than two repeats."""
    if settings.repeats < 2:
        return {}, [{} for _ in graded]
    failures = [next((a for a in item.answers if a.status == "api_error"), None) for item in graded]
    answers = [[str(a.text) for a in item.answers if a.status == "ok"] if failed is None else []
               for item, failed in zip(graded, failures, strict=True)]
    texts = [t for group in answers if len(group) > 1 for t in group]  # a single answer has nothing to agree with
    vectors = embedder.encode(texts, purpose="answers") if texts else np.zeros((0, 1))
    rows: list[Scores] = []
    start = 0
    for group, failed in zip(answers, failures, strict=True):
        if failed is not None:
            rows.append(dict.fromkeys(names.REPEATS, Outcome.failed("api_error", failed.error or "a repeat failed")))
            continue
        compared = len(group) if len(group) > 1 else 0
        rows.append({"response_exact_match_rate": text.exact_match(group),
                     "response_semantic_consistency": text.semantic_consistency(vectors[start:start + compared],
                                                                                     scale)})
        start += compared
    return summaries(rows, names.REPEATS, settings), rows
