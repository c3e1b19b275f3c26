"""`bench judge`: how far the LLM judge itself can be trusted (seed 004 §8).

Every score of bench's LLM-judged tiers is only as good as its judge, so this tier grades the
grader. The judge rates every item `repeats` times with one of the seed's ratings; repeat r is an
independent call (`repeat=r` keys the LLM cache apart), so the cache cannot make the repeats agree,
while a rerun of the whole command is answered from the cache. From the repeats come the seed's
consistency score (for more than two repeats: max − min ≤ δ, i.e. every two repeats within δ),
the mean difference between repeats, the error rate and the mean score; with several models,
each model's numbers and how far the models agree.

`--pairwise` asks for A/B/Tie verdicts on answer pairs twice, the answers swapped the second time:
a judge that follows the position rather than the answers shows it as inconsistent preferences
and a first-position rate away from 0.5; labelled pairs also give its accuracy.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
from rich.console import Console

from benchmarks.config import Settings, Source
from benchmarks.dataset import Warning
from benchmarks.errors import BenchError
from benchmarks.evaluate import ERROR_STATUSES, judge_models
from benchmarks.judge.llm_judge import status_counts
from benchmarks.judge.offline_ratings import OFFLINE_RATINGS, describe_rating, offline_rating
from benchmarks.judge.prompts import Language
from benchmarks.judge.ratings import (
    RATINGS,
    PairOutcome,
    Rater,
    RatingOutcome,
    Verdict,
    pairwise_outcome,
    prompt_hashes,
)
from benchmarks.metrics.agreement import krippendorff_alpha, mean_over_models, model_agreement
from benchmarks.metrics.judge_quality import (
    consistency_score,
    error_rate,
    mean_repeat_difference,
    rate_against_thresholds,
)
from benchmarks.metrics.stats import latency_summary, summarize
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.runner import RunOutcome, journaled_run, progress_bar
from benchmarks.services.embedder import CachedEmbedder, open_embedder
from benchmarks.services.llm import LLMService, require_llm
from benchmarks.services.run_journal import RunJournal
from benchmarks.services.show_items import (
    FILE_NAME,
    PAIRS_FILE_NAME,
    AnswerPair,
    Better,
    RatedItem,
    load_pairs,
    load_rated_items,
    resolve,
)
from benchmarks.tiers.base import Metric, ReportKind, TierResult

VERSION = "1.0"
KIND = ReportKind("judge", VERSION, "Judge — repeatability, errors and latency of the LLM judge", "consistency_score")
PAIRWISE_KIND = ReportKind("judge-pairwise", VERSION, "Judge — position bias and accuracy on answer pairs",
                           "position_consistency")
DEFAULT_RATING = "faithfulness"
FIELD_ORDER = ("question", "context", "answer", "reference")  # how missing fields are listed
LATENCY_CALLS = "judge calls answered by the endpoint (cached replies excluded)"
Preference = Literal["a", "b", "tie", "inconsistent"]
_PREFERENCES: dict[str, Preference] = {"first": "a", "second": "b", "tie": "tie", "inconsistent": "inconsistent"}
Judged = TypeVar("Judged")  # what the judge gave one model on one unit: its repeats, or its two verdicts


@dataclass(frozen=True)
class JudgeRequest:
    spec: str
    rating: str | None  # a RATINGS name; None: the default rating (ratings) or nothing (pairwise)
    pairwise: bool
    language: Language
    models: tuple[str, ...] | None


@dataclass(frozen=True)
class ItemFile:
    """The judged file as a report names it: the shipped dataset's name, or the file's stem."""

    name: str
    format: str
    language: str
    content_sha256: str
    items: int
    warnings: tuple[Warning, ...] = ()

    @classmethod
    def of(cls, path: Path, format: str, language: str, items: int) -> ItemFile:
        name = path.parent.name if path.name in (FILE_NAME, PAIRS_FILE_NAME) else path.stem
        return cls(name, format, language, hashlib.sha256(path.read_bytes()).hexdigest(), items)

    def report_block(self) -> dict[str, object]:
        return {"name": self.name, "language": self.language, "format": self.format,
                "content_sha256": self.content_sha256, "items": self.items}


# --- pure parts ---------------------------------------------------------------------------------


def repeats_agree(scores: Sequence[float | None], delta: float) -> bool | None:
    """Whether an item's scored repeats all lie within δ of each other (max − min ≤ δ).

    For two repeats this is the seed's |s1 − s2| ≤ δ. A failed repeat (None or NaN) is left out;
    with fewer than two scored repeats there is nothing to compare: None.
    """
    scored = _scored(scores)
    if len(scored) < 2:
        return None
    return consistency_score([min(scored)], [max(scored)], delta).value == 1.0


def repeat_difference(scores: Sequence[float | None]) -> float | None:
    """Mean |s_i − s_j| over every two of an item's scored repeats; None with fewer than two."""
    scored = _scored(scores)
    if len(scored) < 2:
        return None
    pairs = list(itertools.combinations(scored, 2))
    return mean_repeat_difference([a for a, _ in pairs], [b for _, b in pairs]).value


def _scored(scores: Sequence[float | None]) -> list[float]:
    return [s for s in scores if s is not None and not math.isnan(s)]


def preference(original: Verdict, swapped: Verdict) -> Preference:
    """The judge's choice between answer_a and answer_b, from its verdicts on (a, b) and on (b, a)."""
    return _PREFERENCES[pairwise_outcome(original, swapped)]


@dataclass(frozen=True)
class PairwiseIndicators:
    """0/1 per unit, so each rate is a mean with a bootstrap interval."""

    consistent: list[float]  # per pair judged in both orders: its preference survived the swap
    first: list[float]  # per decisive (A or B) verdict: it chose the answer shown first
    tie: list[float]  # per valid verdict: Tie
    correct: list[float]  # per labelled pair judged in both orders: its preference equals the label


def pairwise_indicators(verdicts: Sequence[tuple[Verdict | None, Verdict | None]],
                        labels: Sequence[Better | None]) -> PairwiseIndicators:
    """Per pair the verdicts on (answer_a, answer_b) and on (answer_b, answer_a), None where the call
    failed, and the pair's label. A failed verdict takes its pair out of consistency and accuracy; the
    other verdict still counts for the first-position and tie rates. A tie names no position, so
    the first-position rate is over decisive verdicts: 0.5 for a judge the order does not sway."""
    consistent, first, tie, correct = [], [], [], []
    for (original, swapped), label in zip(verdicts, labels, strict=True):
        valid = [v for v in (original, swapped) if v is not None]
        tie += [float(v == "Tie") for v in valid]
        first += [float(v == "A") for v in valid if v != "Tie"]
        if original is None or swapped is None:
            continue
        chosen = preference(original, swapped)
        consistent.append(float(chosen != "inconsistent"))
        if label is not None:
            correct.append(float(chosen == label))
    return PairwiseIndicators(consistent, first, tie, correct)


# --- the run ------------------------------------------------------------------------------------


def run_judge(request: JudgeRequest, settings: Settings, sources: dict[str, Source], *, output_dir: Path | None,
              resume: Path | None, stderr: Console) -> RunOutcome:
    """Judge every item (or pair) once across the sessions of a run: each finished one is journaled, so
    `resume` (a stopped run's folder) asks the judge only about the rest."""
    _check(request, settings)
    if request.pairwise:
        return _run_pairwise(request, settings, sources, output_dir, resume, stderr)
    return _run_ratings(request, settings, sources, output_dir, resume, stderr)


def _check(request: JudgeRequest, settings: Settings) -> None:
    """Refuse before reading any item what the run could not do."""
    offline = settings.judge_backend == "offline"
    if request.pairwise:
        if request.rating is not None:
            raise BenchError("--metric: not used with --pairwise, which asks which of two answers is better")
        if offline:
            raise BenchError("--pairwise needs an LLM judge: there is no offline A/B verdict")
    else:
        rating = request.rating or DEFAULT_RATING
        if rating not in RATINGS:
            raise BenchError(f"--metric: unknown rating {rating!r}; known: {', '.join(RATINGS)}")
        if settings.repeats < 2:
            raise BenchError(f"--repeats: bench judge compares every item's scores, so it needs at least 2, "
                             f"got {settings.repeats}")
        if offline and rating not in OFFLINE_RATINGS:
            raise BenchError(f"--judge offline cannot rate {rating}: {describe_rating(rating)}")
        if offline and request.models:
            raise BenchError("--models: not used with --judge offline, which asks no model")
    if not offline:
        require_llm(settings)


def _options(request: JudgeRequest, rating: str | None, models: Sequence[str]) -> dict[str, Any]:
    """The choices that decide a run's numbers but are not settings: a resume must make the same ones."""
    return {"rating": rating, "pairwise": request.pairwise, "language": request.language, "models": list(models)}


def _run_ratings(request: JudgeRequest, settings: Settings, sources: dict[str, Source], output_dir: Path | None,
                 resume: Path | None, stderr: Console) -> RunOutcome:
    rating = RATINGS[request.rating or DEFAULT_RATING]
    path = resolve(request.spec)
    items = load_rated_items(path, [f for f in FIELD_ORDER if f in rating.needs],
                             f"bench judge --metric {rating.name}")
    offline = settings.judge_backend == "offline"
    models = ("offline",) if offline else judge_models(request.models, settings)
    dataset = ItemFile.of(path, "judge-items-jsonl", request.language, len(items))
    with journaled_run(KIND, dataset, settings, spec=request.spec, output_dir=output_dir, resume=resume,
                       options=_options(request, rating.name, models)) as run:
        with progress_bar(stderr) as progress, _embedder(offline, settings) as embedder:
            task = progress_task(progress, f"rating {rating.name}", items, _item_key, run.journal,
                                 steps_per_unit=len(models) * settings.repeats)
            advance = functools.partial(progress.advance, task)
            if embedder is not None:
                outcomes, usage = asyncio.run(_rate_offline(items, rating.name, embedder, request.language,
                                                            settings.repeats, run.journal, advance)), None
            else:
                outcomes, usage = asyncio.run(_rate_llm(items, rating.name, models, request.language, settings,
                                                        run.journal, advance))
        result = _ratings_result(items, outcomes, models, rating.name, request.language, settings)
        if embedder is not None:
            result.provenance["embedder"] = embedder.provenance()
        result.volatile.update(llm=usage, embedding_cache=asdict(embedder.stats) if embedder else None)
        return run.publish(result, sources)


def _item_key(item: RatedItem) -> str:
    return item.id


def _journal_row(by_model: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """All a resumed run needs to rebuild one item's outcomes exactly (floats keep full precision)."""
    return {"judges": {model: [asdict(o) for o in found] for model, found in by_model.items()}}


def _restore(cls: type[Judged], row: dict[str, Any], models: Sequence[str]) -> dict[str, list[Judged]]:
    judges = row["judges"]
    if list(judges) != list(models):
        raise ValueError(f"judged by {list(judges)}, but this run asks {list(models)}")
    return {model: [revive(cls, o) for o in judges[model]] for model in models}


def _by_unit_and_model(ids: Sequence[str], found: Sequence[Mapping[str, Judged]]) -> dict[tuple[str, str], Judged]:
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


Outcomes = dict[tuple[str, str], list[RatingOutcome]]  # (item id, model) -> one outcome per repeat


async def _rate_llm(items: Sequence[RatedItem], rating: str, models: Sequence[str], language: Language,
                    settings: Settings, journal: RunJournal, advance: Callable[[], None]
                    ) -> tuple[Outcomes, dict[str, Any]]:
    """The unit journaled is one item with every model's repeats: its scores are only compared together."""
    async with LLMService(settings) as service:
        rater = Rater(service, language, settings.judge_mode)

        async def one(item: RatedItem, model: str, repeat: int) -> RatingOutcome:
            outcome = await rater.rate(rating, item.variables(), model, repeat=repeat)
            advance()
            return outcome

        async def rate_item(item: RatedItem) -> dict[str, list[RatingOutcome]]:
            found = await asyncio.gather(*(asyncio.gather(*(one(item, model, r) for r in range(settings.repeats)))
                                           for model in models))
            return dict(zip(models, found, strict=True))

        found = await each_once(items, _item_key, rate_item, journal=journal, encode=_journal_row,
                                decode=lambda _, row: _restore(RatingOutcome, row, models),
                                open_at_once=2 * settings.llm_concurrency)
        return _by_unit_and_model([item.id for item in items], found), service.usage_report()


async def _rate_offline(items: Sequence[RatedItem], rating: str, embedder: CachedEmbedder, language: Language,
                        repeats: int, journal: RunJournal, advance: Callable[[int], None]) -> Outcomes:
    """A proxy is a deterministic function of its inputs: it is computed once and stands for every repeat.
    It is journaled like the LLM path's items, so every `bench judge` run can be resumed."""
    embed = functools.partial(embedder.encode, purpose="judge")

    async def rate_item(item: RatedItem) -> dict[str, list[RatingOutcome]]:
        score = offline_rating(rating, item.variables(), embed, language=language)
        outcome = RatingOutcome(rating, "offline", score.value, score.status, score.reason, 0, (), False)
        advance(repeats)
        return {"offline": [outcome] * repeats}

    found = await each_once(items, _item_key, rate_item, journal=journal, encode=_journal_row,
                            decode=lambda _, row: _restore(RatingOutcome, row, ("offline",)), open_at_once=1)
    return _by_unit_and_model([item.id for item in items], found)


def _ratings_result(items: Sequence[RatedItem], outcomes: Outcomes, models: Sequence[str], rating: str,
                    language: Language, settings: Settings) -> TierResult:
    delta, offline = settings.delta, settings.judge_backend == "offline"
    scores = {key: [o.value if o.status == "ok" else None for o in found] for key, found in outcomes.items()}
    table = np.array([[_mean(scores[item.id, model]) for item in items] for model in models], dtype=float)
    item_means = mean_over_models(table)

    def block(chosen: Sequence[str]) -> dict[str, Metric]:
        keys = [(item.id, model) for model in chosen for item in items]
        ratings = [o for key in keys for o in outcomes[key]]
        errors = sum(o.status in ERROR_STATUSES for o in ratings)
        agree = [repeats_agree(scores[key], delta) for key in keys]
        spread = [repeat_difference(scores[key]) for key in keys]
        means = mean_over_models(table[[models.index(m) for m in chosen]])
        failed = error_rate(errors, len(ratings))
        return {
            "consistency_score": _summary([float(a) for a in agree if a is not None], errors, settings),
            "mean_abs_difference": _summary([s for s in spread if s is not None], errors, settings,
                                            higher_is_better=False),
            "error_rate": Metric(failed.value, len(ratings), errors, None, higher_is_better=False),
            f"avg_{rating}": _summary(means[~np.isnan(means)].tolist(), errors, settings),
        }

    metrics = block(models)
    if len(models) > 1:
        for model in models:
            metrics.update({f"{name}/{model}": metric for name, metric in block([model]).items()})
    consistency = metrics["consistency_score"].value
    everything = [o for found in outcomes.values() for o in found]
    missing = sum(repeats_agree(s, delta) is None for s in scores.values())
    notes: dict[str, Any] = {
        "rating": rating,
        "scale": [RATINGS[rating].low, RATINGS[rating].high],
        "backend": settings.judge_backend,
        "mode": None if offline else settings.judge_mode,
        "language": language,
        "models": list(models),
        "repeats": settings.repeats,
        "delta": delta,
        "consistency_score": f"share of items whose scored repeats all lie within δ = {delta:g} of each other "
                             "(max − min ≤ δ; for 2 repeats the seed's |s1 − s2| ≤ δ); an item with fewer than "
                             "two scored repeats is left out and counted under missing",
        "mean_abs_difference": "mean over items of the mean |s_i − s_j| over every two scored repeats; 0 is a "
                               "perfectly repeatable judge, and it shows drifts smaller than δ",
        "error_rate": "ratings (item × repeat × model) that ended in api_error or parse_error (after one repair "
                      "attempt) over the ratings attempted",
        f"avg_{rating}": "mean over items of the item's mean score (over its scored repeats, then over models)",
        "missing": missing,
        "undetermined": sum(o.status == "undetermined" for o in everything),
        "statuses": status_counts(everything),
        "consistency_band": None if consistency is None else rate_against_thresholds("consistency", consistency),
    }
    if len(models) > 1:
        notes["models_pooled"] = ("the metrics without a model suffix pool every (item, model); avg_ takes each "
                                  "item's mean over the models")
        notes["agreement"] = model_agreement(table, models)
    labelled = {show: [m for item, m in zip(items, item_means, strict=True) if item.show is show and not np.isnan(m)]
                for show in (True, False)}
    if labelled[True] or labelled[False]:
        notes[f"avg_{rating}_by_ground_truth_show"] = {
            str(show).lower(): float(np.mean(values)) if values else None for show, values in labelled.items()}
    if offline:
        notes["offline"] = (f"{describe_rating(rating)}. A proxy is deterministic: every repeat is the same "
                            "computation, so consistency_score is 1.0 and mean_abs_difference 0.0 by construction; "
                            "they say nothing about an LLM judge")
    provenance = {"judge": {"backend": settings.judge_backend, "models": list(models), "language": language,
                            "mode": None if offline else settings.judge_mode}}
    if not offline:
        provenance["judge"]["prompts_sha256"] = prompt_hashes(language, settings.judge_mode, (rating,))
    volatile = {"latency_ms": {**latency_summary(_live_latencies(everything)), "what": LATENCY_CALLS}}
    if len(models) > 1:
        volatile["latency_ms_by_model"] = {
            model: latency_summary(_live_latencies([o for item in items for o in outcomes[item.id, model]]))
            for model in models}
    rows = [_item_row(item, {m: outcomes[item.id, m] for m in models}, mean, delta)
            for item, mean in zip(items, item_means, strict=True)]
    return TierResult(metrics=metrics, items=sorted(rows, key=lambda row: row["id"]), notes=notes,
                      provenance=provenance, volatile=volatile)


def _mean(scores: Sequence[float | None]) -> float:
    scored = _scored(scores)
    return math.fsum(scored) / len(scored) if scored else math.nan


def _summary(values: Sequence[float], errors: int, settings: Settings, *, higher_is_better: bool | None = True
             ) -> Metric:
    return Metric.from_summary(summarize(np.array(values, dtype=float), errors=errors,
                                         resamples=settings.bootstrap_resamples, seed=settings.seed),
                               higher_is_better=higher_is_better)


def _live_latencies(outcomes: Sequence[RatingOutcome | PairOutcome]) -> list[float]:
    return [ms for o in outcomes for ms, call in zip(o.latency_ms, o.raw, strict=True)
            if call["status"] == "ok" and not call["cached"]]


def _item_row(item: RatedItem, by_model: dict[str, list[RatingOutcome]], mean: float, delta: float
              ) -> dict[str, Any]:
    row: dict[str, Any] = {"id": item.id, "question": item.question, "mean": None if np.isnan(mean) else float(mean)}
    if item.show is not None:
        row["ground_truth_show"] = item.show
    row["judges"] = {}
    for model, found in by_model.items():
        scores = [o.value if o.status == "ok" else None for o in found]
        row["judges"][model] = {
            "scores": scores,
            "statuses": [o.status for o in found],
            "explanations": [o.explanation for o in found],
            "consistent": repeats_agree(scores, delta),
            "mean_abs_difference": repeat_difference(scores),
            "raw": [list(o.raw) for o in found],
        }
    return row


# --- pairwise -----------------------------------------------------------------------------------


Verdicts = dict[tuple[str, str], tuple[PairOutcome, PairOutcome]]  # (pair id, model) -> (a first, b first)


def _run_pairwise(request: JudgeRequest, settings: Settings, sources: dict[str, Source], output_dir: Path | None,
                  resume: Path | None, stderr: Console) -> RunOutcome:
    path = resolve(request.spec, PAIRS_FILE_NAME)
    pairs = load_pairs(path)
    models = judge_models(request.models, settings)
    dataset = ItemFile.of(path, "judge-pairs-jsonl", request.language, len(pairs))
    with journaled_run(PAIRWISE_KIND, dataset, settings, spec=request.spec, output_dir=output_dir, resume=resume,
                       options=_options(request, None, models), command="judge --pairwise") as run:
        with progress_bar(stderr) as progress:
            task = progress_task(progress, "comparing answers in both orders", pairs, _pair_key, run.journal,
                                 steps_per_unit=len(models) * 2)
            verdicts, usage = asyncio.run(_compare_all(pairs, models, request.language, settings, run.journal,
                                                       functools.partial(progress.advance, task)))
        result = _pairwise_result(pairs, verdicts, models, request.language, settings)
        result.volatile["llm"] = usage
        return run.publish(result, sources)


def _pair_key(pair: AnswerPair) -> str:
    return pair.id


async def _compare_all(pairs: Sequence[AnswerPair], models: Sequence[str], language: Language, settings: Settings,
                       journal: RunJournal, advance: Callable[[], None]) -> tuple[Verdicts, dict[str, Any]]:
    """The unit journaled is one pair with every model's verdicts in both orders: a preference needs both."""
    async with LLMService(settings) as service:
        rater = Rater(service, language, settings.judge_mode)

        async def one(pair: AnswerPair, model: str, first: str, second: str) -> PairOutcome:
            outcome = await rater.compare({"question": pair.question, "context": pair.context, "answer_a": first,
                                           "answer_b": second}, model)
            advance()
            return outcome

        async def compare_pair(pair: AnswerPair) -> dict[str, tuple[PairOutcome, PairOutcome]]:
            found = await asyncio.gather(*(
                asyncio.gather(one(pair, model, pair.answer_a, pair.answer_b),
                               one(pair, model, pair.answer_b, pair.answer_a))
                for model in models))
            return {model: (original, swapped) for model, (original, swapped) in zip(models, found, strict=True)}

        def restore(_: AnswerPair, row: dict[str, Any]) -> dict[str, tuple[PairOutcome, PairOutcome]]:
            return {model: _both_orders(found) for model, found in _restore(PairOutcome, row, models).items()}

        found = await each_once(pairs, _pair_key, compare_pair, journal=journal, encode=_journal_row, decode=restore,
                                open_at_once=2 * settings.llm_concurrency)
        return _by_unit_and_model([pair.id for pair in pairs], found), service.usage_report()


def _both_orders(found: Sequence[PairOutcome]) -> tuple[PairOutcome, PairOutcome]:
    """A journaled row holds exactly the two orders; any other count is a ValueError: not a row bench wrote."""
    original, swapped = found
    return original, swapped


def _pairwise_result(pairs: Sequence[AnswerPair], verdicts: Verdicts, models: Sequence[str], language: Language,
                     settings: Settings) -> TierResult:
    labelled = any(pair.better is not None for pair in pairs)

    def block(chosen: Sequence[str]) -> dict[str, Metric]:
        keys = [(pair, model) for model in chosen for pair in pairs]
        asked = [o for pair, model in keys for o in verdicts[pair.id, model]]
        errors = sum(o.status in ERROR_STATUSES for o in asked)
        units = pairwise_indicators([_verdict_pair(verdicts[pair.id, model]) for pair, model in keys],
                                    [pair.better for pair, _ in keys])
        metrics = {
            "position_consistency": _summary(units.consistent, errors, settings),
            "first_position_rate": _summary(units.first, errors, settings, higher_is_better=None),
            "tie_rate": _summary(units.tie, errors, settings, higher_is_better=None),
        }
        if labelled:
            metrics["pairwise_accuracy"] = _summary(units.correct, errors, settings)
        failed = error_rate(errors, len(asked))
        metrics["error_rate"] = Metric(failed.value, len(asked), errors, None, higher_is_better=False)
        return metrics

    metrics = block(models)
    if len(models) > 1:
        for model in models:
            metrics.update({f"{name}/{model}": metric for name, metric in block([model]).items()})
    everything = [o for found in verdicts.values() for o in found]
    chosen = [p for p in map(_preference, verdicts.values()) if p is not None]
    notes: dict[str, Any] = {
        "mode": settings.judge_mode,
        "language": language,
        "models": list(models),
        "orders": "every pair is judged twice: answer_a shown first, then answer_b shown first",
        "position_consistency": "share of pairs judged in both orders whose preference survived the swap (the same "
                                "answer chosen both times, or Tie both times)",
        "first_position_rate": "share of decisive (A or B) verdicts that chose whichever answer was shown first: 0.5 "
                               "means the order does not sway the judge, 1.0 that it always picks the first answer, "
                               "0.0 the second; ties name no position and are left out",
        "tie_rate": "share of valid verdicts that were Tie",
        "error_rate": "verdict calls that ended in api_error or parse_error (after one repair attempt) over the "
                      "calls asked (2 per pair and model); a pair with a failed verdict is left out of "
                      "position_consistency and pairwise_accuracy",
        "preferences": {p: chosen.count(p) for p in ("a", "b", "tie", "inconsistent")},
        "statuses": status_counts(everything),
        "labelled_pairs": sum(pair.better is not None for pair in pairs),
    }
    if labelled:
        notes["pairwise_accuracy"] = ("share of labelled pairs judged in both orders whose preference equals the "
                                      "label (a, b or tie); an inconsistent preference counts as wrong")
    if len(models) > 1:
        notes["models_pooled"] = "the metrics without a model suffix pool every (pair, model)"
        notes["agreement"] = preference_agreement(
            [[_preference(verdicts[pair.id, model]) for pair in pairs] for model in models])
    provenance = {"judge": {"backend": "llm", "models": list(models), "language": language,
                            "mode": settings.judge_mode,
                            "prompts_sha256": prompt_hashes(language, settings.judge_mode, (), pairwise=True)}}
    rows = [_pair_row(pair, {m: verdicts[pair.id, m] for m in models}) for pair in pairs]
    volatile = {"latency_ms": {**latency_summary(_live_latencies(everything)), "what": LATENCY_CALLS}}
    if len(models) > 1:
        volatile["latency_ms_by_model"] = {
            model: latency_summary(_live_latencies([o for pair in pairs for o in verdicts[pair.id, model]]))
            for model in models}
    return TierResult(metrics=metrics, items=sorted(rows, key=lambda row: row["id"]), notes=notes,
                      provenance=provenance, volatile=volatile)


def _preference(found: tuple[PairOutcome, PairOutcome]) -> Preference | None:
    """A model's preference on a pair, None when one of its two verdicts failed."""
    verdicts = _verdict_pair(found)
    return None if None in verdicts else preference(*verdicts)  # type: ignore[arg-type]


PREFERENCE_CODES = {"a": 0.0, "b": 1.0, "tie": 2.0, "inconsistent": 3.0}


def preference_agreement(preferences: Sequence[Sequence[Preference | None]]) -> dict[str, Any]:
    """How far several judge models agree on pairs (one row per model): the share of pairs every model judged
    whose preferences are all the same, and Krippendorff's nominal alpha over the preferences (a, b, tie, and
    inconsistent, a preference that flipped with the order), pairs a model could not judge left out."""
    judged = [column for column in zip(*preferences, strict=True) if None not in column]
    alpha = krippendorff_alpha([[None if p is None else PREFERENCE_CODES[p] for p in row] for row in preferences],
                               level="nominal")
    return {"same_preference_rate": sum(len(set(c)) == 1 for c in judged) / len(judged) if judged else None,
            "pairs_judged_by_every_model": len(judged),
            "krippendorff_alpha_nominal": alpha.value}


def _verdict_pair(found: tuple[PairOutcome, PairOutcome]) -> tuple[Verdict | None, Verdict | None]:
    original, swapped = found
    return original.verdict, swapped.verdict


def _pair_row(pair: AnswerPair, by_model: dict[str, tuple[PairOutcome, PairOutcome]]) -> dict[str, Any]:
    judges = {}
    for model, found in by_model.items():
        original, swapped = _verdict_pair(found)
        chosen = preference(original, swapped) if original and swapped else None
        judges[model] = {
            "original": original,
            "swapped": swapped,
            "preference": chosen,
            "correct": None if chosen is None or pair.better is None else chosen == pair.better,
            "statuses": [o.status for o in found],
            "explanations": [o.explanation for o in found],
            "raw": [list(o.raw) for o in found],
        }
    return {"id": pair.id, "question": pair.question, "better": pair.better, "judges": judges}
