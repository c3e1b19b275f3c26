"""`bench evaluate`: RAGAS-style metrics on single-turn samples, by one or several judges.

Every (metric, sample, judge model) is one outcome with a status; a metric's value is the mean of
its ok outcomes, with n and the error count beside it, and with several judge models the report
also gives each model's mean and the agreement between them (mean absolute difference and
Krippendorff's alpha), which no peer tool reports. The metrics are the catalog's declarations
(built-in and the rubrics of bench.toml); each sample is journaled with all its outcomes.
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

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.judge import catalog
from benchmarks.judge.catalog import JudgedMetric, offline_score
from benchmarks.judge.llm_judge import JudgeOptions, LLMJudge
from benchmarks.metrics.agreement import mean_over_models, model_agreement
from benchmarks.metrics.stats import summarize
from benchmarks.outcome import ERRORS, Outcome, status_counts
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.samples import Sample, SampleSet
from benchmarks.services.embedder import CachedEmbedder, open_embedder
from benchmarks.services.llm import LLMService, judge_models, require_llm
from benchmarks.tiers.base import Metric, RunContext, TierResult

Judged = Mapping[str, JudgedMetric]  # the run's metrics by name: catalog.metrics(settings.rubrics)
# `each_once` over the run's samples: (judge one sample, open_at_once=…) -> outcomes per sample
EachSample = Callable[..., Awaitable[list[list[Outcome]]]]


def checked_metrics(settings: Settings) -> Judged:
    """The run's judged metrics (built-in and the settings' rubrics), refusing before any work an unknown
    name, a metric without a proxy under the offline judge, a rubric without criteria in the language."""
    judged = catalog.metrics(settings.rubrics)
    names = settings.metrics or ()
    catalog.require_known(names, judged)
    if settings.judge_backend == "offline":
        catalog.require_proxies(names, judged)
    catalog.require_language(names, judged, settings.language)
    return judged


def check(settings: Settings, typed: Mapping[str, str]) -> None:
    checked_metrics(settings)
    if settings.judge_backend == "llm":
        require_llm(settings, roles=("judge",))


def run(ctx: RunContext) -> TierResult:
    settings, samples = ctx.settings, ctx.inputs
    judged, metrics = checked_metrics(settings), tuple(settings.metrics)
    with _embedder(settings, metrics, judged) as embedder:
        task = progress_task(ctx.progress, "judging", samples.samples, _sample_key, ctx.journal)
        # each sample judged once per run: the journal's samples restored, the rest judged and journaled
        each_sample: EachSample = functools.partial(
            each_once, samples.samples, _sample_key, journal=ctx.journal, encode=_journal_row, decode=_restore,
            advance=lambda: ctx.progress.advance(task))
        if settings.judge_backend == "offline":
            per_sample = asyncio.run(_offline(metrics, settings.language, each_sample, embedder))
            usage, models = None, ("offline",)
        else:
            per_sample, usage, models = asyncio.run(_judge(metrics, settings, judged, each_sample, embedder))
        result = _result(settings, judged, samples, per_sample, models,
                         embedder_info=embedder.provenance() if embedder else None)
        result.volatile.update(llm=usage, embedding_cache=asdict(embedder.stats) if embedder else None)
    result.main_metric = metrics[0]
    return result


def _sample_key(sample: Sample) -> str:
    return sample.id


def _journal_row(outcomes: list[Outcome]) -> dict[str, Any]:
    return {"outcomes": [asdict(o) for o in outcomes]}


def _restore(sample: Sample, row: dict[str, Any]) -> list[Outcome]:
    return [revive(Outcome, o) for o in row["outcomes"]]


def plan(settings: Settings, samples: SampleSet) -> tuple[tuple[str, ...], list[dict[str, Any]]]:
    """What a run would cost, computed without any call: the judge models, and judge calls per metric with a
    token estimate. Calls follow each metric's declared count (e.g. faithfulness 2, context precision one per
    context, a rubric 1); tokens are the characters of the first prompt and the sample's fields over 4, per
    call."""
    if settings.judge_backend == "offline":
        raise BenchError("--dry-run counts LLM calls; --judge offline makes none")
    require_llm(settings, roles=("judge",), dry_run=True)
    judged, models = checked_metrics(settings), judge_models(settings)
    options = JudgeOptions.from_settings(settings)
    rows = []
    for name in settings.metrics:
        metric = judged[name]
        prompt = metric.prompt_text(settings.language)
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
    return "".join(filter(None, (sample.user_input, sample.response, sample.reference,
                                 *(sample.retrieved_contexts or ()))))


@contextmanager
def _embedder(settings: Settings, metrics: Sequence[str], judged: Judged) -> Iterator[CachedEmbedder | None]:
    """The cached embedder, only when a chosen metric or the offline backend needs embeddings."""
    if settings.judge_backend == "llm" and not any(judged[m].embeddings for m in metrics):
        yield None
        return
    with open_embedder(settings) as embedder:
        yield embedder


def _embed_fn(embedder: CachedEmbedder | None) -> Any:
    if embedder is None:
        return None
    return lambda texts: embedder.encode(list(texts), purpose="evaluate")


async def _judge(metrics: tuple[str, ...], settings: Settings, judged: Judged, each_sample: EachSample,
                 embedder: CachedEmbedder | None
                 ) -> tuple[list[list[Outcome]], dict[str, Any], tuple[str, ...]]:
    """Every metric by every model on each sample; per sample, outcomes metric by metric, model by model."""
    async with LLMService(settings, roles=("judge",)) as service:
        models = judge_models(settings)
        judge = LLMJudge(service, settings.language, _embed_fn(embedder), JudgeOptions.from_settings(settings),
                         metrics=judged)

        async def one(sample: Sample) -> list[Outcome]:
            return list(await asyncio.gather(*(judge.score(metric, sample, model)
                                               for metric in metrics for model in models)))

        per_sample = await each_sample(one, open_at_once=2 * settings.llm_concurrency)
        return per_sample, service.usage_report(), tuple(models)


async def _offline(metrics: tuple[str, ...], language: str, each_sample: EachSample,
                   embedder: CachedEmbedder | None) -> list[list[Outcome]]:
    embed = _embed_fn(embedder)

    async def one(sample: Sample) -> list[Outcome]:
        outcomes = []
        for metric in metrics:
            score = offline_score(metric, sample, embed, language=language)
            outcomes.append(replace(score, name=metric, model="offline"))
        return outcomes

    return await each_sample(one, open_at_once=1)  # CPU work: one sample at a time


def _result(settings: Settings, judged: Judged, samples: SampleSet, per_sample: list[list[Outcome]],
            models: tuple[str, ...], *, embedder_info: dict[str, Any] | None) -> TierResult:
    metric_names, backend, language = tuple(settings.metrics), settings.judge_backend, settings.language
    by_key = {(o.name, sample.id, o.model): o
              for sample, outcomes in zip(samples.samples, per_sample, strict=True) for o in outcomes}
    ids = [s.id for s in samples.samples]
    metrics: dict[str, Metric] = {}
    notes: dict[str, Any] = {"backend": backend, "language": language, "models": list(models),
                             "options": asdict(JudgeOptions.from_settings(settings)), "statuses": {},
                             "agreement": {},
                             "means": "mean over samples of the judges' mean; undetermined samples are left "
                                      "out of it and counted under statuses, failed calls count as errors"}
    for metric in metric_names:
        higher = judged[metric].higher_is_better
        table = np.array([[_value(by_key[metric, i, m]) for i in ids] for m in models], dtype=float)
        errors = sum(by_key[metric, i, m].status in ERRORS for i in ids for m in models)
        per_sample = mean_over_models(table)
        metrics[metric] = Metric.from_summary(
            summarize(per_sample[~np.isnan(per_sample)], errors=errors, resamples=settings.bootstrap_resamples,
                      seed=settings.seed), higher_is_better=higher)
        if len(models) > 1:
            for row, model in enumerate(models):
                values = table[row]
                metrics[f"{metric}/{model}"] = Metric.from_summary(summarize(
                    values[~np.isnan(values)], errors=sum(by_key[metric, i, model].status in ERRORS for i in ids),
                    resamples=settings.bootstrap_resamples, seed=settings.seed), higher_is_better=higher)
            notes["agreement"][metric] = model_agreement(table, models)
        notes["statuses"][metric] = status_counts([by_key[metric, i, m] for i in ids for m in models])
    if backend == "offline":
        notes["offline_proxies"] = {m: judged[m].offline_note() for m in metric_names}
    rubrics = catalog.rubric_notes(metric_names, judged)
    if rubrics:
        notes["rubrics"] = rubrics
    provenance: dict[str, Any] = {"judge": {"backend": backend, "models": list(models),
                                            "language": language}}
    if backend == "llm":
        provenance["prompts_sha256"] = catalog.prompt_hashes(metric_names, judged, language)
    if embedder_info:
        provenance["embedder"] = embedder_info
    items = sorted((_item(sample, metric_names, models, by_key) for sample in samples.samples),
                   key=lambda item: item["id"])
    return TierResult(metrics=metrics, items=items, notes=notes, provenance=provenance, volatile={})


def _value(outcome: Outcome) -> float:
    return np.nan if outcome.number is None else outcome.number


def _item(sample: Sample, metrics: tuple[str, ...], models: tuple[str, ...],
          by_key: dict[tuple[str, str, str], Outcome]) -> dict[str, Any]:
    return {
        "id": sample.id,
        "user_input": sample.user_input,
        "metrics": {
            metric: {model: _outcome_row(by_key[metric, sample.id, model]) for model in models}
            for metric in metrics
        },
    }


def _outcome_row(outcome: Outcome) -> dict[str, Any]:
    return {"value": outcome.value, "status": outcome.status, "explanation": outcome.explanation,
            "calls": outcome.calls, "duration_ms": outcome.duration_ms, "raw": list(outcome.raw)}
