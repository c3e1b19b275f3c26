"""`bench evaluate`: RAGAS-style metrics on single-turn samples, by one or several judges.

Every (metric, sample, judge model) is one outcome with a status; a metric's value is the mean of
its ok outcomes, with n and the error count beside it, and with several judge models the report
also gives each model's mean and the agreement between them (mean absolute difference and
Krippendorff's alpha), which no peer tool reports.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import math
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from rich.console import Console

from benchmarks.config import Settings, Source
from benchmarks.errors import BenchError
from benchmarks.judge.llm_judge import (
    LOWER_IS_BETTER,
    NEEDS,
    JudgeOptions,
    JudgeOutcome,
    LLMJudge,
    require_known,
    status_counts,
)
from benchmarks.judge.offline import describe, offline_score, require_proxies
from benchmarks.judge.prompts import METRIC_CALLS, Language, calls_of, load_template, template_sha256
from benchmarks.metrics.agreement import mean_over_models, model_agreement
from benchmarks.metrics.judged import WEIGHT_PRESETS, AnswerCorrectnessWeights
from benchmarks.metrics.stats import summarize
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.runner import RunOutcome, journaled_run, progress_bar
from benchmarks.samples import Sample, SampleSet
from benchmarks.services.embedder import CachedEmbedder, open_embedder
from benchmarks.services.llm import LLMService, model_for, require_llm
from benchmarks.services.samples import load_samples
from benchmarks.tiers.base import Metric, ReportKind, TierResult

Backend = Literal["llm", "offline"]
EMBEDDING_METRICS = frozenset({"response_relevancy", "semantic_similarity", "answer_correctness"})
ERROR_STATUSES = ("parse_error", "api_error")
VERSION = "1.0"
# `each_once` over the run's samples: (judge one sample, open_at_once=…) -> outcomes per sample
EachSample = Callable[..., Awaitable[list[list[JudgeOutcome]]]]


@dataclass(frozen=True)
class EvaluateRequest:
    path: Path
    metrics: tuple[str, ...]
    backend: Backend
    language: Language
    models: tuple[str, ...] | None
    options: JudgeOptions


def parse_weights(text: str) -> str | AnswerCorrectnessWeights:
    """A preset name, or 'F,S' for custom factual and semantic weights."""
    if text in WEIGHT_PRESETS:
        return text
    try:
        factual, semantic = (float(part) for part in text.split(","))
    except ValueError:
        raise BenchError(f"--weights: expected one of {', '.join(WEIGHT_PRESETS)} or 'F,S', got {text!r}") from None
    return AnswerCorrectnessWeights(factual=factual, semantic=semantic)


def parse_metrics(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    require_known(names)
    return names


def run_evaluate(request: EvaluateRequest, settings: Settings, sources: dict[str, Source], *,
                 output_dir: Path | None, resume: Path | None = None, stderr: Console) -> RunOutcome:
    samples = read_samples(request)
    if request.backend == "offline":
        require_proxies(request.metrics)
    else:
        require_llm(settings)
    kind = ReportKind("evaluate", VERSION, "RAGAS-style evaluation", main_metric=request.metrics[0])
    with journaled_run(kind, samples, settings, spec=str(request.path), output_dir=output_dir, resume=resume,
                       options=_identifying_options(request)) as run:
        with progress_bar(stderr) as progress, _embedder(settings, request) as embedder:
            task = progress_task(progress, "judging", samples.samples, _sample_key, run.journal)
            # each sample judged once per run: the journal's samples restored, the rest judged and journaled
            each_sample: EachSample = functools.partial(
                each_once, samples.samples, _sample_key, journal=run.journal, encode=_journal_row, decode=_restore,
                advance=lambda: progress.advance(task))
            if request.backend == "offline":
                per_sample, llm_usage, models = asyncio.run(_offline(request, each_sample, embedder)), None, ("offline",)
            else:
                per_sample, llm_usage, models = asyncio.run(_judge(request, settings, each_sample, embedder))
        result = _result(request, samples, per_sample, models, settings,
                         embedder_info=embedder.provenance() if embedder else None)
        result.volatile.update(llm=llm_usage, embedding_cache=asdict(embedder.stats) if embedder else None)
        return run.publish(result, sources)


def _identifying_options(request: EvaluateRequest) -> dict[str, Any]:
    """The run's choices beside the settings, named by their flags: a resumed run must not change them."""
    chosen = {"metrics": list(request.metrics), "judge": request.backend, "language": request.language,
              "models": list(request.models) if request.models else None, **asdict(request.options)}
    return {f"--{name.replace('_', '-')}": value for name, value in chosen.items()}


def _sample_key(sample: Sample) -> str:
    return sample.id


def _journal_row(outcomes: list[JudgeOutcome]) -> dict[str, Any]:
    return {"outcomes": [asdict(o) for o in outcomes]}


def _restore(sample: Sample, row: dict[str, Any]) -> list[JudgeOutcome]:
    return [revive(JudgeOutcome, o) for o in row["outcomes"]]


def judge_models(models: tuple[str, ...] | None, settings: Settings) -> tuple[str, ...]:
    """--models, else the configured list for multi-model evaluation, else the judge role's model."""
    return models or settings.llm_models or (str(model_for(settings, "judge")),)


def read_samples(request: EvaluateRequest) -> SampleSet:
    loaded = tuple(load_samples(request.path))
    return SampleSet(
        name=request.path.stem,
        format=request.path.suffix.lstrip(".").lower(),
        content_sha256=hashlib.sha256(request.path.read_bytes()).hexdigest(),
        samples=loaded,
        language=request.language,
    )


def plan(request: EvaluateRequest, samples: SampleSet, models: Sequence[str]) -> list[dict[str, Any]]:
    """What a run would cost, computed without any call: judge calls per metric and a token estimate.

    Calls follow each metric's documented count (e.g. faithfulness 2, context precision one per
    context); tokens are the characters of the first prompt and the sample's fields over 4, per call.
    """
    rows = []
    for metric in request.metrics:
        calls = tokens = 0
        for sample in samples.samples:
            if sample.missing(NEEDS[metric]):
                continue
            count = planned_calls(metric, sample, request.options)
            first = calls_of(metric)[0] if count else None
            text = (load_template(first.name, request.language) if first else "") + _sample_text(sample)
            calls += count
            tokens += count * math.ceil(len(text) / 4)
        rows.append({"metric": metric, "calls": calls * len(models), "estimated_prompt_tokens": tokens * len(models)})
    return rows


def planned_calls(metric: str, sample: Sample, options: JudgeOptions) -> int:
    contexts = len(sample.retrieved_contexts or ())
    return {
        "faithfulness": 2,
        "context_precision": contexts,
        "context_recall": 1,
        "context_entity_recall": 2,
        "noise_sensitivity": 3 + 2 * contexts,
        "response_relevancy": options.questions,
        "semantic_similarity": 0,
        "factual_correctness": 4 if options.factual_mode == "f1" else 2,
        "answer_correctness": 3,
        "context_relevance": contexts,
    }[metric]


def _sample_text(sample: Sample) -> str:
    return "".join(filter(None, (sample.user_input, sample.response, sample.reference,
                                 *(sample.retrieved_contexts or ()))))


@contextmanager
def _embedder(settings: Settings, request: EvaluateRequest) -> Iterator[CachedEmbedder | None]:
    """The cached embedder, only when a chosen metric or the offline backend needs embeddings."""
    if request.backend == "llm" and not EMBEDDING_METRICS.intersection(request.metrics):
        yield None
        return
    with open_embedder(settings) as embedder:
        yield embedder


def _embed_fn(embedder: CachedEmbedder | None) -> Any:
    if embedder is None:
        return None
    return lambda texts: embedder.encode(list(texts), purpose="evaluate")


async def _judge(request: EvaluateRequest, settings: Settings, each_sample: EachSample,
                 embedder: CachedEmbedder | None
                 ) -> tuple[list[list[JudgeOutcome]], dict[str, Any], tuple[str, ...]]:
    """Every metric by every model on each sample; per sample, outcomes metric by metric, model by model."""
    async with LLMService(settings) as service:
        models = judge_models(request.models, settings)
        judge = LLMJudge(service, request.language, _embed_fn(embedder), request.options)

        async def one(sample: Sample) -> list[JudgeOutcome]:
            return list(await asyncio.gather(*(judge.score(metric, sample, model)
                                               for metric in request.metrics for model in models)))

        per_sample = await each_sample(one, open_at_once=2 * settings.llm_concurrency)
        return per_sample, service.usage_report(), tuple(models)


async def _offline(request: EvaluateRequest, each_sample: EachSample, embedder: CachedEmbedder | None
                   ) -> list[list[JudgeOutcome]]:
    embed = _embed_fn(embedder)

    async def one(sample: Sample) -> list[JudgeOutcome]:
        outcomes = []
        for metric in request.metrics:
            score = offline_score(metric, sample, embed, language=request.language)
            outcomes.append(JudgeOutcome(metric, "offline", score.value, score.status, score.reason, 0, 0.0))
        return outcomes

    return await each_sample(one, open_at_once=1)  # CPU work: one sample at a time


def _result(request: EvaluateRequest, samples: SampleSet, per_sample: list[list[JudgeOutcome]],
            models: tuple[str, ...], settings: Settings, *, embedder_info: dict[str, Any] | None) -> TierResult:
    by_key = {(o.metric, sample.id, o.model): o
              for sample, outcomes in zip(samples.samples, per_sample, strict=True) for o in outcomes}
    ids = [s.id for s in samples.samples]
    metrics: dict[str, Metric] = {}
    notes: dict[str, Any] = {"backend": request.backend, "language": request.language, "models": list(models),
                             "options": asdict(request.options), "statuses": {}, "agreement": {},
                             "means": "mean over samples of the judges' mean; undetermined samples are left "
                                      "out of it and counted under statuses, failed calls count as errors"}
    for metric in request.metrics:
        higher = metric not in LOWER_IS_BETTER
        table = np.array([[_value(by_key[metric, i, m]) for i in ids] for m in models], dtype=float)
        errors = sum(by_key[metric, i, m].status in ERROR_STATUSES for i in ids for m in models)
        per_sample = mean_over_models(table)
        metrics[metric] = Metric.from_summary(
            summarize(per_sample[~np.isnan(per_sample)], errors=errors, resamples=settings.bootstrap_resamples,
                      seed=settings.seed), higher_is_better=higher)
        if len(models) > 1:
            for row, model in enumerate(models):
                values = table[row]
                metrics[f"{metric}/{model}"] = Metric.from_summary(summarize(
                    values[~np.isnan(values)], errors=sum(by_key[metric, i, model].status in ERROR_STATUSES for i in ids),
                    resamples=settings.bootstrap_resamples, seed=settings.seed), higher_is_better=higher)
            notes["agreement"][metric] = model_agreement(table, models)
        notes["statuses"][metric] = status_counts([by_key[metric, i, m] for i in ids for m in models])
    if request.backend == "offline":
        notes["offline_proxies"] = {m: describe(m) for m in request.metrics}
    provenance: dict[str, Any] = {"judge": {"backend": request.backend, "models": list(models),
                                            "language": request.language}}
    if request.backend == "llm":
        provenance["prompts_sha256"] = {
            f"{request.language}/{call.name}": template_sha256(call.name, request.language)
            for metric in request.metrics for call in METRIC_CALLS.get(metric, ())
        }
    if embedder_info:
        provenance["embedder"] = embedder_info
    items = sorted((_item(sample, request.metrics, models, by_key) for sample in samples.samples),
                   key=lambda item: item["id"])
    return TierResult(metrics=metrics, items=items, notes=notes, provenance=provenance, volatile={})


def _value(outcome: JudgeOutcome) -> float:
    return outcome.value if outcome.status == "ok" and outcome.value is not None else np.nan


def _item(sample: Sample, metrics: tuple[str, ...], models: tuple[str, ...],
          by_key: dict[tuple[str, str, str], JudgeOutcome]) -> dict[str, Any]:
    return {
        "id": sample.id,
        "user_input": sample.user_input,
        "metrics": {
            metric: {model: _outcome_row(by_key[metric, sample.id, model]) for model in models}
            for metric in metrics
        },
    }


def _outcome_row(outcome: JudgeOutcome) -> dict[str, Any]:
    return {"value": outcome.value, "status": outcome.status, "explanation": outcome.explanation,
            "calls": outcome.calls, "duration_ms": outcome.duration_ms, "raw": list(outcome.raw)}
