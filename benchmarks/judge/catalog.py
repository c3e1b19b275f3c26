"""Every judged metric, declared once: what it reads, which judge calls it makes and how many for a
sample, its direction, whether it needs embeddings, its offline proxy (or why it has none), and the
coroutine with which the LLM judge scores it.

Everything else is derived from these declarations: `--metrics` checking (`require_known`), what
`--dry-run` shows and counts, `--judge offline` (`require_proxies`, `offline_score`, `describe`),
`--dry-run` (`JudgedMetric.planned_calls`), the judge (`LLMJudge.score`), and the report (direction,
prompt hashes, notes). A user's rubric metric from bench.toml (`benchmarks.judge.rubric`) becomes a
declaration like the built-in ones: `metrics(settings.rubrics)` gives both.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from benchmarks.config import Settings
from benchmarks.errors import BenchError, SettingError, closest
from benchmarks.judge import offline
from benchmarks.judge.judged_metric import JudgedMetric, fixed, per_context
from benchmarks.judge.llm_judge import LLMJudge
from benchmarks.judge.offline import OfflineProxy
from benchmarks.judge.prompts import (
    CLAIMS,
    CONTEXT_RATING,
    CONTEXT_USEFULNESS,
    ENTITIES,
    QUESTION_GENERATION,
    REFERENCE_ATTRIBUTION,
    RUBRIC,
    STATEMENT_CLASSIFICATION,
    STATEMENT_VERDICTS,
    STATEMENTS,
    JudgeCall,
    Language,
    TemplateError,
)
from benchmarks.judge.rubric import NO_PROXY, Rubric, rubrics_of
from benchmarks.judge.rubric import score as score_rubric
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample

_SENTENCE_SUPPORT = "calibrated embedding similarity or content-word overlap, numbers must match"

_BUILTINS = (
    JudgedMetric(
        name="faithfulness",
        help="share of the response's statements that the retrieved contexts support",
        needs=("user_input", "response", "retrieved_contexts"),
        calls=(STATEMENTS, STATEMENT_VERDICTS),
        planned_calls=fixed(2),
        score=LLMJudge.faithfulness,
        offline=OfflineProxy(("response", "retrieved_contexts"), offline.faithfulness,
                       "offline proxy: share of response sentences supported by a retrieved context "
                       f"({_SENTENCE_SUPPORT}), not LLM-verified claims"),
    ),
    JudgedMetric(
        name="context_precision",
        help="average precision of the contexts judged useful (against the reference or the response)",
        needs=("user_input", "retrieved_contexts"),
        calls=(CONTEXT_USEFULNESS,),
        planned_calls=per_context,
        score=LLMJudge.context_precision,
        offline=OfflineProxy(("reference", "retrieved_contexts"), offline.context_precision,
                       "offline proxy: average precision in rank order, a context counting as relevant when it "
                       "supports some reference sentence, not an LLM usefulness verdict"),
    ),
    JudgedMetric(
        name="context_recall",
        help="share of the reference's sentences attributable to the retrieved contexts",
        needs=("user_input", "retrieved_contexts", "reference"),
        calls=(REFERENCE_ATTRIBUTION,),
        planned_calls=fixed(1),
        score=LLMJudge.context_recall,
        offline=OfflineProxy(("reference", "retrieved_contexts"), offline.context_recall,
                       "offline proxy: share of reference sentences supported by a retrieved context "
                       f"({_SENTENCE_SUPPORT}), not LLM-attributed claims"),
    ),
    JudgedMetric(
        name="context_entity_recall",
        help="share of the reference's entities found in the retrieved contexts",
        needs=("retrieved_contexts", "reference"),
        calls=(ENTITIES,),
        planned_calls=fixed(2),
        score=LLMJudge.context_entity_recall,
        no_offline="it needs entity extraction; capitalised words are no entity detector (Russian sentence "
                   "starts, English titles) and numbers alone are too few",
    ),
    JudgedMetric(
        name="noise_sensitivity",
        help="share of wrong response statements traceable to relevant (or irrelevant) contexts; lower is better",
        needs=("user_input", "response", "reference", "retrieved_contexts"),
        calls=(STATEMENTS, STATEMENT_VERDICTS),
        planned_calls=lambda sample, options: 3 + 2 * per_context(sample, options),
        score=LLMJudge.noise_sensitivity,
        higher_is_better=False,
        no_offline="it counts wrong statements, exactly the near-copies with a swapped detail that the support "
                   "test lets through, so a proxy would report almost no noise whatever the system",
    ),
    JudgedMetric(
        name="response_relevancy",
        help="mean calibrated similarity of the question and questions generated from the response; 0 if "
             "noncommittal",
        needs=("user_input", "response"),
        calls=(QUESTION_GENERATION,),
        planned_calls=lambda sample, options: options.questions,
        score=LLMJudge.response_relevancy,
        embeds=("user_input",),  # and the questions the judge writes, known only then
        no_offline="it compares the question with questions generated from the answer and zeroes noncommittal "
                   "answers; a question-to-answer cosine lives on another scale and sees no evasion",
    ),
    JudgedMetric(
        name="semantic_similarity",
        help="calibrated similarity of the response's and the reference's embeddings (no judge call)",
        needs=("response", "reference"),
        calls=(),
        planned_calls=fixed(0),
        score=LLMJudge.semantic_similarity,
        embeds=("response", "reference"),
        offline=OfflineProxy(("response", "reference"), offline.semantic_similarity,
                       "calibrated similarity of the response's and the reference's embeddings: the metric "
                       "itself, which needs no LLM"),
    ),
    JudgedMetric(
        name="factual_correctness",
        help="claim-level F-beta (or precision, recall) of the response against the reference",
        needs=("response", "reference"),
        calls=(CLAIMS, STATEMENT_VERDICTS),
        planned_calls=lambda sample, options: 4 if options.factual_mode == "f1" or (
            options.claim_counting == "ragas" and options.factual_mode == "recall") else 2,
        score=LLMJudge.factual_correctness,
        offline=OfflineProxy(("response", "reference"), offline.factual_correctness,
                       "offline proxy: F1 of response sentences supported by the reference and reference "
                       "sentences supported by the response, sentences standing in for LLM-extracted claims"),
    ),
    JudgedMetric(
        name="answer_correctness",
        help="weighted factual F1 and semantic similarity of the response against the reference",
        needs=("user_input", "response", "reference"),
        calls=(STATEMENTS, STATEMENT_CLASSIFICATION),
        planned_calls=fixed(3),
        score=LLMJudge.answer_correctness,
        embeds=("response", "reference"),
        offline=OfflineProxy(("response", "reference"), offline.answer_correctness,
                       "offline proxy: 0.75 x sentence-support F1 (as factual_correctness offline) + 0.25 x "
                       "calibrated embedding similarity of response and reference, not LLM-classified statements"),
    ),
    JudgedMetric(
        name="context_relevance",
        help="each context rated 0-2 for relevance to the question, normalised by 2, averaged",
        needs=("user_input", "retrieved_contexts"),
        calls=(CONTEXT_RATING,),
        planned_calls=per_context,
        score=LLMJudge.context_relevance,
        no_offline="mapping a question-to-context cosine onto the judge's 0/1/2 ratings would rest on cut-offs "
                   "with nothing behind them",
    ),
)

BUILTINS: Mapping[str, JudgedMetric] = MappingProxyType({m.name: m for m in _BUILTINS})
OFFLINE_METRICS: frozenset[str] = frozenset(name for name, m in BUILTINS.items() if m.offline)


def rubric_metric(declared: Rubric) -> JudgedMetric:
    """A bench.toml rubric as a judged metric: one call per sample, higher is better, no offline proxy."""
    criteria = declared.criteria.get("en") or next(iter(declared.criteria.values()))
    return JudgedMetric(
        name=declared.name,
        help=f"rubric ({declared.scale}, bench.toml): {criteria}",
        needs=declared.needs,
        calls=(RUBRIC,),
        planned_calls=fixed(1),
        score=functools.partial(score_rubric, declared),
        no_offline=NO_PROXY,
        rubric=declared,
    )


def metrics(rubrics: Mapping[str, Mapping[str, object]] | None = None) -> Mapping[str, JudgedMetric]:
    """The built-in metrics, then the rubrics of the `rubrics` setting (pass `settings.rubrics`)."""
    found = dict(BUILTINS)
    for declared in rubrics_of(rubrics):
        found[declared.name] = rubric_metric(declared)
    return MappingProxyType(found)


def require_known(names: Sequence[str], known: Mapping[str, JudgedMetric] = BUILTINS, *,
                  setting: str = "metrics") -> None:
    """The metrics of evaluate (`setting` metrics) and tiers 2/3 (extra_metrics): one message for every unknown
    name, with the metrics it is probably a typo of, the whole list only when none is close. Raised as the
    setting's error, so the command line names its flag and Python its argument."""
    if not names:
        raise SettingError(setting, f"no metric given; known: {', '.join(known)}")
    unknown = {m: closest(m, known) for m in names if m not in known}
    if unknown:
        clauses = [f"unknown metric {m!r}" + (f"; did you mean {' or '.join(map(repr, close))}?" if close else "")
                   for m, close in unknown.items()]
        listed = "" if all(unknown.values()) else f"; known: {', '.join(known)}"
        raise SettingError(setting, "; ".join(clauses) + listed)


def require_proxies(names: Sequence[str], known: Mapping[str, JudgedMetric] = BUILTINS) -> None:
    """Refuse `--judge offline` for metrics without a proxy before any work, saying why and naming those
    that have one."""
    unsupported = [m for m in names if known[m].offline is None]
    if unsupported:
        offline_names = sorted(name for name, m in known.items() if m.offline)
        why = "; ".join(f"{m}: {known[m].no_offline}" for m in unsupported)
        raise BenchError(f"--judge offline has no proxy for {', '.join(unsupported)}; offline metrics: "
                         f"{', '.join(offline_names)} ({why})")


def require_language(names: Sequence[str], known: Mapping[str, JudgedMetric], language: Language) -> None:
    """Refuse, before any call, a rubric whose criteria are not written in the run's prompt language."""
    problems = [problem for m in names if (r := known[m].rubric) and (problem := r.missing_language(language))]
    if problems:
        raise BenchError("; ".join(problems))


def calls_of(metric: str, known: Mapping[str, JudgedMetric] = BUILTINS) -> tuple[JudgeCall, ...]:
    """The judge calls a metric makes; an unknown metric is an error listing the known ones."""
    if metric not in known:
        raise TemplateError(f"no judge calls for metric {metric!r}; known: {', '.join(known)}")
    return known[metric].calls


def prompt_hashes(names: Sequence[str], known: Mapping[str, JudgedMetric], language: Language) -> dict[str, str]:
    """sha256 of every prompt the named metrics send, for a report's provenance."""
    return {key: digest for m in names for key, digest in known[m].prompt_hashes(language).items()}


def rubric_notes(names: Sequence[str], known: Mapping[str, JudgedMetric]) -> dict[str, object]:
    """The rubrics among the named metrics, as a report's notes describe them (criteria, scale, fields)."""
    return {m: r.describe() for m in names if (r := known[m].rubric)}


def require_llm_counting(settings: Settings) -> None:
    """RAGAS's claim counting is a way of counting an LLM judge's claims: the offline proxies count sentences."""
    if settings.claim_counting == "ragas":
        raise BenchError("claim_counting ragas counts the claims an LLM judge extracts; --judge offline scores "
                         "sentences, so it has no RAGAS number to give (leave claim_counting at sides)")


def offline_score(metric: str, sample: Sample, embed: offline.Embed, *, scale: SimilarityScale,
                  language: str = "en", **thresholds: float) -> Outcome:
    """The offline proxy a built-in metric declares, on one sample (`offline.score_with`)."""
    return offline.score_with(_proxy(metric), sample, embed, scale=scale, language=language, **thresholds)


def describe(metric: str) -> str:
    """One line for the report, so an offline number is never read as the LLM metric's."""
    return _proxy(metric).description


def _proxy(metric: str) -> OfflineProxy:
    declared = BUILTINS.get(metric)
    if declared is None or declared.offline is None:
        raise ValueError(f"metric {metric!r} has no offline proxy; offline metrics: "
                         f"{', '.join(sorted(OFFLINE_METRICS))}")
    return declared.offline
