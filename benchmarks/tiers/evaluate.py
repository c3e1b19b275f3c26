"""`bench evaluate`: RAGAS-style metrics on single-turn samples, by one or several judges.

Every (metric, sample, judge model) is one outcome with a status; a metric's value is the mean of
its ok outcomes, with n and the error count beside it, and with several judge models the report
also gives each model's mean and the agreement between them (mean absolute difference and
Krippendorff's alpha), which no peer tool reports. The metrics are the catalog's declarations
(built-in and the rubrics of bench.toml). Each (sample, metric, judge model) is journaled on its own
as it finishes, so a run stopped in the middle of a sample asks, on --resume, only what did not finish.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.chat.backend import open_chat
from benchmarks.chat.request import judge_models
from benchmarks.chat.routing import judge_endpoints, require_chat
from benchmarks.config import Settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.embedding.similarity_calibration import similarity_scale
from benchmarks.errors import BenchError
from benchmarks.judge import catalog
from benchmarks.judge.catalog import offline_score
from benchmarks.judge.llm.judge import LLMJudge, verdict_readings
from benchmarks.judge.offline.proxies import texts_to_embed as offline_texts
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics.inter_rater import mean_over_models, model_agreement
from benchmarks.metrics.label_agreement import labelled_entry
from benchmarks.metrics.language import detected_or
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.stats import summarize
from benchmarks.outcome import ERRORS, Outcome, status_counts
from benchmarks.report_model import EmbedderBlock, Judge, JudgesAgreement, LlmUsage, Notes, Provenance, Volatile
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.samples import Sample, SampleSet
from benchmarks.tiers.base import Metric, RunContext, TierResult
from benchmarks.tiers.evaluate_checks import Judged, checked_metrics

Unit = tuple[Sample, str, str]  # (sample, metric, judge model): one outcome, the smallest part a run journals
UnitKey = tuple[str, str, str]  # (sample id, metric, judge model): a unit's journal id
# `each_once` over the run's units: (judge one unit, open_at_once=…) -> one outcome per unit, in the units' order
EachUnit = Callable[..., Awaitable[list[Outcome]]]
# the rows a journal of this module holds: a resumed run refuses a stopped one whose rows are another shape
JOURNAL_ROWS = "one outcome per (sample, metric, judge model)"


def identity(settings: Settings) -> dict[str, Any]:
    """The journal's row shape is part of what a resumed run must match: a run stopped by a bench that journaled
    whole samples is refused by name rather than having its rows silently ignored."""
    return {"journal_rows": JOURNAL_ROWS}


def run(ctx: RunContext[SampleSet]) -> TierResult:
    settings, samples = ctx.settings, ctx.inputs
    judged, metrics = checked_metrics(settings), tuple(settings.metrics or ())  # checked: one at least
    offline = settings.judge_backend == "offline"
    models = ("offline",) if offline else judge_models(settings)
    units = judged_units(samples.samples, metrics, models)
    with _embedder(settings, metrics, judged) as embedder:
        scale = embed = None
        if embedder is not None:
            scale = similarity_scale(embedder, settings, sample_language(samples.samples, settings.language))
            embed = EmbeddingMemo(embedder, purpose="evaluate")
            todo = [u for u in units if ctx.journal is None or unit_key(u) not in ctx.journal.restored]
            embed.prefetch(texts_ahead(todo, judged, offline=offline), ctx.progress,
                           label="embedding the samples' sentences")
        task = progress_task(ctx.progress, "judging", units, unit_key, ctx.journal)
        # each unit judged once per run: the journal's units restored, the rest judged and journaled one by one
        each_unit: EachUnit = functools.partial(
            each_once, units, unit_key, journal=ctx.journal, encode=journal_row, decode=restore,
            advance=lambda: ctx.progress.advance(task))
        if offline:
            assert embed is not None and scale is not None
            found, usage = asyncio.run(_offline(settings, each_unit, embed, scale)), None
        else:
            found, usage = asyncio.run(_judge(settings, judged, each_unit, embed, scale))
        outcomes = {unit_key(unit): outcome for unit, outcome in zip(units, found, strict=True)}
        result = _result(settings, judged, samples, outcomes, models,
                         embedder_info=embedder.provenance() if embedder else None, scale=scale)
        result.volatile.llm = usage
        result.volatile.embedding_cache = embedder.cache_report() if embedder else None
    result.main_metric = metrics[0]
    return result


def judged_units(samples: Sequence[Sample], metrics: Sequence[str], models: Sequence[str]) -> list[Unit]:
    """Model by model, metric by metric, sample by sample: the calls in flight together then share their
    instructions (a metric's template) and model, which a llama.cpp-style server keeps cached per slot, so it
    reads each template once per slot rather than once per call. The journal keeps every unit, so the order
    costs a stopped run nothing."""
    return [(sample, metric, model) for model in models for metric in metrics for sample in samples]


def unit_key(unit: Unit) -> UnitKey:
    sample, metric, model = unit
    return sample.id, metric, model


def journal_row(outcome: Outcome) -> dict[str, Any]:
    """The whole outcome, floats at full precision: a resumed run rebuilds the same report and items from it."""
    return {"outcome": asdict(outcome)}


def restore(unit: Unit, row: dict[str, Any]) -> Outcome:
    """A journaled unit's outcome; a row without one, or with another metric's or model's, is a ValueError (or
    KeyError): not a row this command wrote."""
    _, metric, model = unit
    outcome = revive(Outcome, row["outcome"])
    if (outcome.name, outcome.model) != (metric, model):
        raise ValueError(f"its outcome is {outcome.name!r} by {outcome.model!r}, not {metric!r} by {model!r}")
    return outcome


def plan(settings: Settings, samples: SampleSet) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    """What a run would cost, computed without any call: the judge models, and judge calls per metric with a
    token estimate. Calls follow each metric's declared count (e.g. faithfulness 2, context precision one per
    context, a rubric 1); tokens are the characters of the first prompt and the sample's fields over 4, per
    call."""
    if settings.judge_backend == "offline":
        raise BenchError("--dry-run counts LLM calls; --judge offline makes none")
    require_chat(settings, roles=(), judges=True, dry_run=True)
    judged, models = checked_metrics(settings), judge_models(settings)
    options = JudgeOptions.from_settings(settings)
    rows = []
    for name in settings.metrics or ():  # checked: one at least
        metric = judged[name]
        prompt = metric.prompt_text(settings.language, settings.judge_verdicts)
        calls = tokens = 0
        for sample in samples.samples:
            if sample.missing(metric.needs):
                continue
            count = metric.planned_calls(sample, options)
            calls += count
            tokens += count * math.ceil(len(prompt + _sample_text(sample)) / 4)
        rows.append({"metric": name, "what": metric.help, "calls": calls * len(models),
                     "estimated_prompt_tokens": tokens * len(models)})
    return models, rows


def _sample_text(sample: Sample) -> str:
    return "".join(sample.texts())


@contextmanager
def _embedder(settings: Settings, metrics: Sequence[str], judged: Judged) -> Iterator[CachedEmbedder | None]:
    """The cached embedder, only when a chosen metric or the offline backend needs embeddings."""
    if settings.judge_backend != "offline" and not any(judged[m].embeddings for m in metrics):
        yield None
        return
    with open_embedder(settings) as embedder:
        yield embedder


def sample_language(samples: Sequence[Sample], declared: str) -> str:
    """The language the samples' similarities are calibrated for: their script's, else the declared one."""
    return detected_or(declared, [text for sample in samples for text in sample.texts()])


def texts_ahead(units: Sequence[Unit], judged: Judged, *, offline: bool) -> list[str]:
    """Every text the units will embed that is known before judging, so a cold run embeds each distinct
    sentence once, in large batches, rather than a few per sample: the offline proxies' sentences, or the
    whole response and reference the LLM metrics compare (the questions a judge writes come later)."""
    texts: list[str] = []
    for sample, metric, _ in units:
        declared = judged[metric]
        if sample.missing(declared.reads("offline" if offline else "llm")):
            continue  # undetermined without embedding anything
        if offline and declared.offline is not None:
            texts += offline_texts(sample, declared.offline.needs)
        else:
            texts += [getattr(sample, field) for field in declared.embeds]
    return list(dict.fromkeys(texts))


async def _judge(settings: Settings, judged: Judged, each_unit: EachUnit, embed: EmbeddingMemo | None,
                 scale: SimilarityScale | None) -> tuple[list[Outcome], LlmUsage]:
    """Every unit's outcome by its judge model. Twice as many units open as calls may be in flight: a unit's
    calls follow one another (statements, then verdicts), so the endpoint stays busy while units finish."""
    async with open_chat(settings, roles=(), judges=True) as service:
        judge = LLMJudge(service, settings.language, embed, JudgeOptions.from_settings(settings),
                         metrics=judged, scale=scale)

        async def one(unit: Unit) -> Outcome:
            sample, metric, model = unit
            return await judge.score(metric, sample, model)

        return await each_unit(one, open_at_once=await service.open_at_once()), service.usage_report()


async def _offline(settings: Settings, each_unit: EachUnit, embed: EmbeddingMemo, scale: SimilarityScale
                   ) -> list[Outcome]:
    options = JudgeOptions.from_settings(settings)  # a threshold, a mode, weights: as the LLM form reads them

    async def one(unit: Unit) -> Outcome:
        sample, metric, _ = unit
        return replace(offline_score(metric, sample, embed, scale=scale, language=settings.language,
                                     options=options), name=metric, model="offline")

    return await each_unit(one, open_at_once=1)  # CPU work: one unit at a time


def _result(settings: Settings, judged: Judged, samples: SampleSet, by_key: Mapping[UnitKey, Outcome],
            models: tuple[str, ...], *, embedder_info: EmbedderBlock | None,
            scale: SimilarityScale | None) -> TierResult:
    """The report from every unit's outcome (`by_key`: by (sample id, metric, model)), restored or judged now:
    built from the units alone, so it is the same whichever session judged which unit."""
    metric_names, backend, language = tuple(settings.metrics or ()), settings.judge_backend, settings.language
    ids = [s.id for s in samples.samples]
    metrics: dict[str, Metric] = {}
    statuses: dict[str, dict[str, int]] = {}
    agreement: dict[str, JudgesAgreement] = {}
    for metric in metric_names:
        higher = judged[metric].higher_is_better
        table = np.array([[_value(by_key[i, metric, m]) for i in ids] for m in models], dtype=float)
        errors = sum(by_key[i, metric, m].status in ERRORS for i in ids for m in models)
        per_sample = mean_over_models(table)
        agree = functools.partial(_agreement, samples.samples, metric, judged[metric].threshold, settings)
        metrics[metric] = replace(Metric.from_summary(
            summarize(per_sample[~np.isnan(per_sample)], errors=errors, resamples=settings.bootstrap_resamples,
                      seed=settings.seed), higher_is_better=higher), agreement=agree(per_sample))
        if len(models) > 1:
            for row, model in enumerate(models):
                values = table[row]
                metrics[f"{metric}/{model}"] = replace(Metric.from_summary(summarize(
                    values[~np.isnan(values)], errors=sum(by_key[i, metric, model].status in ERRORS for i in ids),
                    resamples=settings.bootstrap_resamples, seed=settings.seed), higher_is_better=higher),
                    agreement=agree(values))
            agreement[metric] = JudgesAgreement(**model_agreement(table, models))
        statuses[metric] = status_counts([by_key[i, metric, m] for i in ids for m in models])
    notes = Notes(backend=backend, language=language, models=list(models),
                  options=asdict(JudgeOptions.from_settings(settings)), statuses=statuses, agreement=agreement,
                  means="mean over samples of the judges' mean; undetermined samples are left out of it and counted "
                        "under statuses, failed calls count as errors",
                  pass_marks={m: judged[m].case_pass_mark for m in metric_names})
    if backend == "offline":
        notes.offline_proxies = {m: judged[m].offline_note() for m in metric_names}
    rubrics = catalog.rubric_notes(metric_names, judged)
    if rubrics:
        notes.rubrics = rubrics
    judge = Judge(backend=backend, models=list(models), language=language,
                  metrics=graded_metrics(metric_names, judged, models))
    if backend == "offline":
        judge.offline_sha256 = catalog.offline_sha256()
    else:
        judge_endpoints(judge, settings, models)
        judge.prompts_sha256 = catalog.prompt_hashes(metric_names, judged, language, settings.judge_verdicts)
        if any(judged[m].yes_no for m in metric_names):
            judge.verdicts = settings.judge_verdicts
            readings = verdict_readings(by_key.values())
            if readings:
                judge.verdict_reading = readings
    provenance = Provenance(judge=judge)
    if embedder_info:
        provenance.embedder = embedder_info
    if scale is not None:
        provenance.similarity = scale.describe([name for name in metrics if backend == "offline"
                                                or judged[name.split("/", 1)[0]].embeddings])
    items = sorted((_item(sample, metric_names, models, by_key) for sample in samples.samples),
                   key=lambda item: item["id"])
    return TierResult(metrics=metrics, items=items, notes=notes, provenance=provenance, volatile=Volatile())


def _agreement(samples: Sequence[Sample], metric: str, threshold: float, settings: Settings, values: np.ndarray
               ) -> dict[str, Any] | None:
    """The judge's agreement with the samples' labels for this metric (None when no sample has one); `values`
    are its per-sample scores in sample order, NaN where it gave none. A question's answers are grouped by
    their user_input, for pairwise accuracy and the bootstrap."""
    return labelled_entry(values, [s.label(metric) for s in samples],
                          [s.user_input if s.user_input is not None else s.id for s in samples],
                          threshold=threshold, resamples=settings.bootstrap_resamples, seed=settings.seed)


def graded_metrics(names: Sequence[str], judged: Judged, models: Sequence[str]) -> list[str]:
    """The report's metrics the judge (or its offline proxies) graded, each model's own too: every metric that
    asks the judge something, so `bench compare` marks them not comparable when the judge changes, while
    semantic_similarity (embeddings only) stays comparable."""
    per_model = len(models) > 1  # the report then has each model's own mean too
    return [metric for name in names if judged[name].calls
            for metric in (name, *(f"{name}/{model}" for model in models if per_model))]


def _value(outcome: Outcome) -> float:
    return np.nan if outcome.number is None else outcome.number


def _item(sample: Sample, metrics: tuple[str, ...], models: tuple[str, ...],
          by_key: Mapping[UnitKey, Outcome]) -> dict[str, Any]:
    """A sample's record: its question and reference are the inputs, its response and retrieved contexts what
    the system under test answered (as `SampleSet.report_block` splits them); every metric scored by each judge
    model. A sample names no document, so it is its own cluster."""
    inputs = {"user_input": sample.user_input, "reference": sample.reference,
              **({"labels": dict(sample.labels)} if sample.labels else {})}
    contexts = None if sample.retrieved_contexts is None else list(sample.retrieved_contexts)
    scores = {metric: {model: _score(by_key[sample.id, metric, model]) for model in models} for metric in metrics}
    return item_record.record(sample.id, inputs, {"response": sample.response, "retrieved_contexts": contexts},
                              scores)


def _score(outcome: Outcome) -> dict[str, Any]:
    """The outcome with the cost of getting it and the raw completions, which a changed metric can re-score."""
    return {**item_record.outcome_score(outcome),
            "calls": outcome.calls, "duration_ms": outcome.duration_ms, "raw": list(outcome.raw)}
