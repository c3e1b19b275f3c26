"""`bench judge`: how far the LLM judge itself can be trusted (docs/metrics.md#the-judges-own-quality-bench-judge).

Every score of bench's LLM-judged tiers is only as good as its judge, so this tier grades the
grader. The judge rates every item `repeats` times with one of the seed's ratings; repeat r is an
independent call (`repeat=r` keys the LLM cache apart), so the cache cannot make the repeats agree,
while a rerun of the whole command is answered from the cache. From the repeats come the seed's
consistency score (for more than two repeats: max − min ≤ δ, i.e. every two repeats within δ),
the mean difference between repeats, the error rate and the mean score; with several models,
each model's numbers and how far the models agree. Items may carry people's `labels` (by rating, on its
scale, as `bench evaluate` reads them): the mean score is then also measured against them
(`metrics.label_agreement`). Each item is journaled with every model's repeats once they are all in, so a
stopped run asks the judge only about the rest.
"""

from __future__ import annotations

import asyncio
import functools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, replace
from typing import Any, TypeVar

import numpy as np

from benchmarks import item_record
from benchmarks.chat.backend import open_chat
from benchmarks.chat.request import judge_models
from benchmarks.chat.routing import judge_endpoints, require_chat
from benchmarks.config import Origins, Settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.embedding.similarity_calibration import similarity_scale
from benchmarks.errors import BenchError
from benchmarks.inputs import ItemSet
from benchmarks.judge.llm.prompts import Language
from benchmarks.judge.offline.proxies import texts_to_embed as offline_texts
from benchmarks.judge.ratings.offline import (
    OFFLINE_RATINGS,
    describe_rating,
    offline_rating,
    proxy_fields,
    rated_sample,
)
from benchmarks.judge.ratings.rater import RATINGS, Rater, prompt_hashes, read_from_a_lone_number
from benchmarks.label_names import unknown_label_lines
from benchmarks.metrics.inter_rater import mean_over_models, model_agreement
from benchmarks.metrics.judge_quality import (
    error_rate,
    repeat_difference,
    repeats_agree,
    scored_of,
)
from benchmarks.metrics.label_agreement import labelled_entry
from benchmarks.metrics.language import detected_or
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.stats import latency_summary, summarize
from benchmarks.outcome import ERRORS, Outcome, status_counts
from benchmarks.readers.show_items import RatedItem, rated_input
from benchmarks.report_model import Judge, JudgesAgreement, LlmUsage, Notes, Provenance, Volatile
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.run_files.journal import RunJournal
from benchmarks.tiers.base import Metric, RunContext, TierResult

FIELD_ORDER = ("question", "context", "answer", "reference")  # how missing fields are listed
LATENCY_CALLS = "judge calls answered by the endpoint (cached replies excluded)"
Judged = TypeVar("Judged")  # what the judge gave one model on one unit: its repeats, or its two verdicts


def load_items(spec: str, settings: Settings) -> ItemSet[RatedItem]:
    """The answers to rate; a line without a field the rating reads is refused before any call."""
    rating = RATINGS[settings.judge_rating]
    return rated_input(spec, settings, [f for f in FIELD_ORDER if f in rating.needs],
                       f"bench judge --metric {rating.name}")


def check(settings: Settings, origins: Origins) -> None:
    """Refuse before reading any item what the run could not do."""
    rating, offline = settings.judge_rating, settings.judge_backend == "offline"
    if settings.repeats < 2:
        raise BenchError(f"{origins.named('repeats')}: bench judge compares every item's scores, so it needs "
                         f"at least 2, got {settings.repeats}")
    if offline and rating not in OFFLINE_RATINGS:
        raise BenchError(f"--judge offline cannot rate {rating}: {describe_rating(rating)}")
    if offline and "llm_models" in origins.typed():
        raise BenchError(f"{origins.named('llm_models')}: not used with --judge offline, which asks no model")
    if settings.judge_backend == "llm":
        require_chat(settings, roles=(), judges=True)


def check_inputs(settings: Settings, items: ItemSet[Any]) -> list[str]:
    """Labels under a name that is no rating, a line per name: agreement reads the rated rating's labels only."""
    return unknown_label_lines(((item.id, item.labels) for item in items.items), RATINGS, source=items.name,
                               noun="item", kind="rating")


def run(ctx: RunContext[ItemSet[RatedItem]]) -> TierResult:
    settings, items = ctx.settings, list(ctx.inputs.items)
    rating, language = RATINGS[settings.judge_rating], settings.language
    offline = settings.judge_backend == "offline"
    models = ("offline",) if offline else judge_models(settings)
    with _embedder(offline, settings) as embedder:
        task = progress_task(ctx.progress, f"rating {rating.name}", items, _item_key, ctx.journal,
                             steps_per_unit=len(models) * settings.repeats)
        advance = functools.partial(ctx.progress.advance, task)
        if embedder is not None:
            texts = [text for item in items for text in item.variables().values()]
            scale = similarity_scale(embedder, settings, detected_or(language, texts))
            outcomes, usage = asyncio.run(_rate_offline(items, rating.name, embedder, scale, language,
                                                        settings.repeats, ctx.journal, advance)), None
        else:
            outcomes, usage = asyncio.run(_rate_llm(items, rating.name, models, language, settings, ctx.journal,
                                                    advance))
        result = _ratings_result(items, outcomes, models, rating.name, language, settings)
        if embedder is not None:
            result.provenance.embedder = embedder.provenance()
            result.provenance.similarity = scale.describe([name for name in result.metrics
                                                           if name.startswith("avg_")])
        result.volatile.llm = usage
        result.volatile.embedding_cache = embedder.cache_report() if embedder else None
    return result


def _item_key(item: RatedItem) -> str:
    return item.id


def journal_row(by_model: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """All a resumed run needs to rebuild one item's outcomes exactly (floats keep full precision)."""
    return {"judges": {model: [asdict(o) for o in found] for model, found in by_model.items()}}


def restore(row: dict[str, Any], models: Sequence[str]) -> dict[str, list[Outcome]]:
    judges = row["judges"]
    if list(judges) != list(models):
        raise ValueError(f"judged by {list(judges)}, but this run asks {list(models)}")
    return {model: [revive(Outcome, o) for o in judges[model]] for model in models}


def by_unit_and_model(ids: Sequence[str], found: Sequence[Mapping[str, Judged]]) -> dict[tuple[str, str], Judged]:
    return {(unit, model): outcome for unit, by_model in zip(ids, found, strict=True)
            for model, outcome in by_model.items()}


@contextmanager
def _embedder(offline: bool, settings: Settings) -> Iterator[CachedEmbedder | None]:
    """The offline proxies embed sentences; an LLM judge needs no embedder (nor the database)."""
    if not offline:
        yield None
        return
    with open_embedder(settings) as embedder:
        yield embedder


Outcomes = dict[tuple[str, str], list[Outcome]]  # (item id, model) -> one outcome per repeat


async def _rate_llm(items: Sequence[RatedItem], rating: str, models: Sequence[str], language: Language,
                    settings: Settings, journal: RunJournal | None, advance: Callable[[], None]
                    ) -> tuple[Outcomes, LlmUsage]:
    """The unit journaled is one item with every model's repeats: its scores are only compared together."""
    async with open_chat(settings, roles=(), judges=True) as service:
        rater = Rater(service, language, settings.judge_mode)

        async def one(item: RatedItem, model: str, repeat: int) -> Outcome:
            outcome = await rater.rate(rating, item.variables(), model, repeat=repeat)
            advance()
            return outcome

        async def rate_item(item: RatedItem) -> dict[str, list[Outcome]]:
            found = await asyncio.gather(*(asyncio.gather(*(one(item, model, r) for r in range(settings.repeats)))
                                           for model in models))
            return dict(zip(models, found, strict=True))

        found = await each_once(items, _item_key, rate_item, journal=journal, encode=journal_row,
                                decode=lambda _, row: restore(row, models),
                                open_at_once=await service.open_at_once())
        return by_unit_and_model([item.id for item in items], found), service.usage_report()


async def _rate_offline(items: Sequence[RatedItem], rating: str, embedder: CachedEmbedder, scale: SimilarityScale,
                        language: Language, repeats: int, journal: RunJournal | None, advance: Callable[[int], None]
                        ) -> Outcomes:
    """A proxy is a deterministic function of its inputs: it is computed once and stands for every repeat.
    It is journaled like the LLM path's items, so every `bench judge` run can be resumed."""
    embed = EmbeddingMemo(embedder, purpose="judge")
    todo = [item for item in items if journal is None or _item_key(item) not in journal.restored]
    embed.prefetch([text for item in todo for text in offline_texts(rated_sample(rating, item.variables()),
                                                                     proxy_fields(rating))])

    async def rate_item(item: RatedItem) -> dict[str, list[Outcome]]:
        score = offline_rating(rating, item.variables(), embed, scale=scale, language=language)
        outcome = replace(score, name=rating, model="offline")
        advance(repeats)
        return {"offline": [outcome] * repeats}

    found = await each_once(items, _item_key, rate_item, journal=journal, encode=journal_row,
                            decode=lambda _, row: restore(row, ("offline",)), open_at_once=1)
    return by_unit_and_model([item.id for item in items], found)


def _ratings_result(items: Sequence[RatedItem], outcomes: Outcomes, models: Sequence[str], rating: str,
                    language: Language, settings: Settings) -> TierResult:
    delta, offline = settings.delta, settings.judge_backend == "offline"
    scores = {key: [o.number for o in found] for key, found in outcomes.items()}
    table = np.array([[_mean(scores[item.id, model]) for item in items] for model in models], dtype=float)
    item_means = mean_over_models(table)

    def block(chosen: Sequence[str]) -> dict[str, Metric]:
        keys = [(item.id, model) for model in chosen for item in items]
        ratings = [o for key in keys for o in outcomes[key]]
        errors = sum(o.status in ERRORS for o in ratings)
        agree = [repeats_agree(scores[key], delta) for key in keys]
        spread = [repeat_difference(scores[key]) for key in keys]
        means = mean_over_models(table[[models.index(m) for m in chosen]])
        failed = error_rate(errors, len(ratings))
        return {
            "consistency_score": summary([float(a) for a in agree if a is not None], errors, settings),
            "mean_abs_difference": summary([s for s in spread if s is not None], errors, settings,
                                            higher_is_better=False),
            "error_rate": Metric(failed.value, len(ratings), errors, None, higher_is_better=False),
            f"avg_{rating}": replace(summary(means[~np.isnan(means)].tolist(), errors, settings),
                                     agreement=_agreement(items, rating, means, settings)),
        }

    metrics = block(models)
    if len(models) > 1:
        for model in models:
            metrics.update({f"{name}/{model}": metric for name, metric in block([model]).items()})
    everything = [o for found in outcomes.values() for o in found]
    missing = sum(repeats_agree(s, delta) is None for s in scores.values())
    notes = Notes(
        rating=rating,
        scale=[RATINGS[rating].low, RATINGS[rating].high],
        backend=settings.judge_backend,
        mode=None if offline else settings.judge_mode,
        language=language,
        models=list(models),
        repeats=settings.repeats,
        delta=delta,
        consistency_score=f"share of items whose scored repeats all lie within δ = {delta:g} of each other "
                          "(max − min ≤ δ; for 2 repeats the seed's |s1 − s2| ≤ δ); an item with fewer than two "
                          "scored repeats is left out and counted under missing",
        mean_abs_difference="mean over items of the mean |s_i − s_j| over every two scored repeats; 0 is a "
                            "perfectly repeatable judge, and it shows drifts smaller than δ",
        error_rate="ratings (item × repeat × model) that ended in api_error, truncated or parse_error (after one "
                   "repair attempt) over the ratings attempted",
        means=f"avg_{rating}: mean over items of the item's mean score (over its scored repeats, then over models)",
        missing=missing,
        undetermined=sum(o.status == "undetermined" for o in everything),
        statuses=status_counts(everything),
        read_from_a_lone_number=sum(read_from_a_lone_number(o) for o in everything),
    )
    if len(models) > 1:
        notes.models_pooled = ("the metrics without a model suffix pool every (item, model); avg_ takes each item's "
                               "mean over the models")
        notes.agreement = {f"avg_{rating}": JudgesAgreement(**model_agreement(table, models))}
    labelled = {show: [m for item, m in zip(items, item_means, strict=True) if item.show is show and not np.isnan(m)]
                for show in (True, False)}
    if labelled[True] or labelled[False]:
        notes.means_by_ground_truth_show = {
            str(show).lower(): float(np.mean(values)) if values else None for show, values in labelled.items()}
    if offline:
        notes.offline = (f"{describe_rating(rating)}. A proxy is deterministic: every repeat is the same "
                         "computation, so consistency_score is 1.0 and mean_abs_difference 0.0 by construction; "
                         "they say nothing about an LLM judge")
    # the mean rating is the judge's grade of fixed items; consistency, spread and errors describe the judge itself,
    # which is what this tier measures, so only the ratings are the judge's metrics for `bench compare`
    graded = [f"avg_{rating}", *(f"avg_{rating}/{model}" for model in models if len(models) > 1)]
    judge = Judge(backend=settings.judge_backend, models=list(models), language=language,
                  mode=None if offline else settings.judge_mode, metrics=graded)
    if not offline:
        judge_endpoints(judge, settings, models)
        judge.prompts_sha256 = prompt_hashes(language, settings.judge_mode, (rating,))
    volatile = Volatile(latency_ms=latency_summary(live_latencies(everything), LATENCY_CALLS))
    if len(models) > 1:
        volatile.latency_ms_by_model = {
            model: latency_summary(live_latencies([o for item in items for o in outcomes[item.id, model]]))
            for model in models}
    rows = [_item_row(item, {m: outcomes[item.id, m] for m in models}, rating, delta) for item in items]
    return TierResult(metrics=metrics, items=sorted(rows, key=lambda row: row["id"]), notes=notes,
                      provenance=Provenance(judge=judge), volatile=volatile)


def _agreement(items: Sequence[RatedItem], rating: str, means: np.ndarray, settings: Settings
               ) -> dict[str, Any] | None:
    """The judge's agreement with the items' labels for the rating (None when no item has one); `means` are the
    items' mean scores in item order, NaN where no repeat was scored. Answers to one question are grouped by
    it, for pairwise accuracy and the bootstrap; a verdict is a yes from the middle of the rating's scale.
    `label` names the labels read: the rating's, not the metric's (`avg_<rating>`), which is how `bench
    compare` finds them in the items' `inputs.labels`."""
    scale = RATINGS[rating]
    found = labelled_entry(means, [item.label(rating) for item in items], [item.question for item in items],
                           threshold=(scale.low + scale.high) / 2, resamples=settings.bootstrap_resamples,
                           seed=settings.seed)
    return None if found is None else {"label": rating, **found}


def _mean(scores: Sequence[float | None]) -> float:
    scored = scored_of(scores)
    return math.fsum(scored) / len(scored) if scored else math.nan


def summary(values: Sequence[float], errors: int, settings: Settings, *, higher_is_better: bool | None = True
             ) -> Metric:
    return Metric.from_summary(summarize(np.array(values, dtype=float), errors=errors,
                                         resamples=settings.bootstrap_resamples, seed=settings.seed),
                               higher_is_better=higher_is_better)


def live_latencies(outcomes: Sequence[Outcome]) -> list[float]:
    return [ms for o in outcomes for ms, call in zip(o.latency_ms, o.raw, strict=True)
            if call["status"] == "ok" and not call["cached"]]


def _item_row(item: RatedItem, by_model: dict[str, list[Outcome]], rating: str, delta: float) -> dict[str, Any]:
    """The judge is the system under test: its answer is every model's repeated score, and each per-item metric
    is scored by the model whose repeats it reads, so a report's "<metric>/<model>" is scores[metric][model]."""
    needs = RATINGS[rating].needs
    inputs: dict[str, Any] = {field: value for field, value in item.variables().items() if field in needs}
    if item.labels:  # what `bench compare` measures two judges' agreement on
        inputs["labels"] = dict(item.labels)
    answer = {model: _repeat_scores(found) for model, found in by_model.items()}
    scores: dict[str, dict[str, dict[str, Any]]] = {"consistency_score": {}, "mean_abs_difference": {},
                                                    f"avg_{rating}": {}}
    for model, found in by_model.items():
        for metric, outcome in _model_scores(found, rating, delta).items():
            scores[metric][model] = outcome
    detail: dict[str, Any] = {"judges": {model: call_detail(found) for model, found in by_model.items()}}
    if item.show is not None:
        detail["ground_truth_show"] = item.show
    return item_record.record(item.id, inputs, answer, scores, **detail)


def call_detail(found: Sequence[Outcome]) -> dict[str, list[Any]]:
    """What only the row keeps of a model's repeats: how each call ended, what the judge said, its raw replies."""
    return {"statuses": [o.status for o in found], "explanations": [o.explanation for o in found],
            "raw": [list(o.raw) for o in found]}


def _repeat_scores(found: Sequence[Outcome]) -> list[float | None]:
    return [o.number for o in found]


def _model_scores(found: Sequence[Outcome], rating: str, delta: float) -> dict[str, dict[str, Any]]:
    """One model's per-item values, as the report's means take them. A value the repeats cannot give (no scored
    repeat for the mean, fewer than two for agreement and spread) carries the failed repeat's status, so compare
    counts it as failed, or undetermined when none failed: no value, no error."""
    scores = _repeat_scores(found)
    mean, agree, spread = _mean(scores), repeats_agree(scores, delta), repeat_difference(scores)
    unscored = _unscored(found)
    # what the per-item values are read from, so a low one shows why (report.md's lowest-scoring items)
    shown = ", ".join("—" if s is None else f"{s:g}" for s in scores)
    scored = f"repeats {shown}: {len(scored_of(scores))} of {len(found)} scored"
    return {
        "consistency_score": unscored if agree is None else item_record.score(float(agree), explanation=scored),
        "mean_abs_difference": unscored if spread is None else item_record.score(spread, explanation=scored),
        f"avg_{rating}": unscored if math.isnan(mean) else item_record.score(mean, explanation=scored),
    }


def _unscored(found: Sequence[Outcome]) -> dict[str, Any]:
    """Why too few repeats were scored: the first failed repeat's error, else the first undetermined one's reason."""
    failed = next((o for o in found if o.status in ERRORS), None) or next((o for o in found if o.status != "ok"),
                                                                           None)
    if failed is None:
        return item_record.score(None, "undetermined", "too few repeats scored")
    return item_record.outcome_score(failed)
