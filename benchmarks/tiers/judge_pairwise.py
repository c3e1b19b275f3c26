"""`bench judge --pairwise`: the judge asked which of two answers is better, in both orders
(docs/metrics.md#pairwise-verdicts).

Each pair is judged twice, the answers swapped the second time: a judge that follows the position
rather than the answers shows it as inconsistent preferences and a first-position rate away from
0.5; labelled pairs also give its accuracy; several judge models, how far their preferences agree.
A pair is journaled with every model's two verdicts, so a stopped run asks only about the rest.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from typing import Any, cast

from benchmarks import item_record
from benchmarks.chat.backend import open_chat
from benchmarks.chat.request import judge_models
from benchmarks.chat.routing import judge_endpoints, require_chat
from benchmarks.config import Origins, Settings
from benchmarks.errors import BenchError
from benchmarks.inputs import ItemSet
from benchmarks.judge.llm.prompts import Language
from benchmarks.judge.ratings.rater import Rater, prompt_hashes
from benchmarks.metrics.judge_quality import error_rate
from benchmarks.metrics.pairwise import (
    Better,
    Preference,
    Verdict,
    pairwise_indicators,
    preference,
    preference_agreement,
)
from benchmarks.metrics.stats import latency_summary
from benchmarks.outcome import ERRORS, Outcome, status_counts
from benchmarks.readers.show_items import AnswerPair
from benchmarks.report_model import Judge, JudgesAgreement, LlmUsage, Notes, Provenance, Volatile
from benchmarks.resumable import each_once, progress_task
from benchmarks.run_files.journal import RunJournal
from benchmarks.tiers.base import Metric, RunContext, TierResult
from benchmarks.tiers.judge import (
    LATENCY_CALLS,
    by_unit_and_model,
    call_detail,
    journal_row,
    live_latencies,
    restore,
    summary,
)


def check(settings: Settings, origins: Origins) -> None:
    if settings.judge_backend == "offline":
        raise BenchError("--pairwise needs an LLM judge: there is no offline A/B verdict")
    if settings.judge_backend == "llm":
        require_chat(settings, roles=(), judges=True)


def run(ctx: RunContext[ItemSet[AnswerPair]]) -> TierResult:
    settings, pairs = ctx.settings, list(ctx.inputs.items)
    models = judge_models(settings)
    task = progress_task(ctx.progress, "comparing answers in both orders", pairs, _pair_key, ctx.journal,
                         steps_per_unit=len(models) * 2)
    verdicts, usage = asyncio.run(_compare_all(pairs, models, settings.language, settings, ctx.journal,
                                               functools.partial(ctx.progress.advance, task)))
    result = _pairwise_result(pairs, verdicts, models, settings.language, settings)
    result.volatile.llm = usage
    return result


Verdicts = dict[tuple[str, str], tuple[Outcome, Outcome]]  # (pair id, model) -> (a first, b first)


def _pair_key(pair: AnswerPair) -> str:
    return pair.id


async def _compare_all(pairs: Sequence[AnswerPair], models: Sequence[str], language: Language, settings: Settings,
                       journal: RunJournal | None, advance: Callable[[], None]) -> tuple[Verdicts, LlmUsage]:
    """The unit journaled is one pair with every model's verdicts in both orders: a preference needs both."""
    async with open_chat(settings, roles=(), judges=True) as service:
        rater = Rater(service, language, settings.judge_mode)

        async def one(pair: AnswerPair, model: str, first: str, second: str) -> Outcome:
            outcome = await rater.compare({"question": pair.question, "context": pair.context, "answer_a": first,
                                           "answer_b": second}, model)
            advance()
            return outcome

        async def compare_pair(pair: AnswerPair) -> dict[str, tuple[Outcome, Outcome]]:
            found = await asyncio.gather(*(
                asyncio.gather(one(pair, model, pair.answer_a, pair.answer_b),
                               one(pair, model, pair.answer_b, pair.answer_a))
                for model in models))
            return {model: (original, swapped) for model, (original, swapped) in zip(models, found, strict=True)}

        def decode(_: AnswerPair, row: dict[str, Any]) -> dict[str, tuple[Outcome, Outcome]]:
            return {model: _both_orders(found) for model, found in restore(row, models).items()}

        found = await each_once(pairs, _pair_key, compare_pair, journal=journal, encode=journal_row, decode=decode,
                                open_at_once=await service.open_at_once())
        return by_unit_and_model([pair.id for pair in pairs], found), service.usage_report()


def _both_orders(found: Sequence[Outcome]) -> tuple[Outcome, Outcome]:
    """A journaled row holds exactly the two orders; any other count is a ValueError: not a row bench wrote."""
    original, swapped = found
    return original, swapped


def _pairwise_result(pairs: Sequence[AnswerPair], verdicts: Verdicts, models: Sequence[str], language: Language,
                     settings: Settings) -> TierResult:
    labelled = any(pair.better is not None for pair in pairs)

    def block(chosen: Sequence[str]) -> dict[str, Metric]:
        keys = [(pair, model) for model in chosen for pair in pairs]
        asked = [o for pair, model in keys for o in verdicts[pair.id, model]]
        errors = sum(o.status in ERRORS for o in asked)
        units = pairwise_indicators([_verdict_pair(verdicts[pair.id, model]) for pair, model in keys],
                                    [pair.better for pair, _ in keys])
        metrics = {
            "position_consistency": summary(units.consistent, errors, settings),
            "first_position_rate": summary(units.first, errors, settings, higher_is_better=None),
            "tie_rate": summary(units.tie, errors, settings, higher_is_better=None),
        }
        if labelled:
            metrics["pairwise_accuracy"] = summary(units.correct, errors, settings)
        failed = error_rate(errors, len(asked))
        metrics["error_rate"] = Metric(failed.value, len(asked), errors, None, higher_is_better=False)
        return metrics

    metrics = block(models)
    if len(models) > 1:
        for model in models:
            metrics.update({f"{name}/{model}": metric for name, metric in block([model]).items()})
    everything = [o for found in verdicts.values() for o in found]
    chosen = [p for p in map(_preference, verdicts.values()) if p is not None]
    notes = Notes(
        mode=settings.judge_mode,
        language=language,
        models=list(models),
        orders="every pair is judged twice: answer_a shown first, then answer_b shown first",
        position_consistency="share of pairs judged in both orders whose preference survived the swap (the same "
                             "answer chosen both times, or Tie both times)",
        first_position_rate="share of decisive (A or B) verdicts that chose whichever answer was shown first: 0.5 "
                            "means the order does not sway the judge, 1.0 that it always picks the first answer, 0.0 "
                            "the second; ties name no position and are left out",
        tie_rate="share of valid verdicts that were Tie",
        error_rate="verdict calls that ended in api_error or parse_error (after one repair attempt) over the calls "
                   "asked (2 per pair and model); a pair with a failed verdict is left out of position_consistency "
                   "and pairwise_accuracy",
        preferences={p: chosen.count(p) for p in ("a", "b", "tie", "inconsistent")},
        statuses=status_counts(everything),
        labelled_pairs=sum(pair.better is not None for pair in pairs),
    )
    if labelled:
        notes.pairwise_accuracy = ("share of labelled pairs judged in both orders whose preference equals the label "
                                   "(a, b or tie); an inconsistent preference counts as wrong")
    if len(models) > 1:
        notes.models_pooled = "the metrics without a model suffix pool every (pair, model)"
        notes.agreement = {"preferences": JudgesAgreement(**preference_agreement(
            [[_preference(verdicts[pair.id, model]) for pair in pairs] for model in models]))}
    # every metric here describes the judge, the system this tier measures: none is graded by it
    judge = judge_endpoints(Judge(backend=settings.judge_backend, models=list(models), language=language,
                                  mode=settings.judge_mode, metrics=[],
                                  prompts_sha256=prompt_hashes(language, settings.judge_mode, (), pairwise=True)),
                            settings, models)
    rows = [_pair_row(pair, {m: verdicts[pair.id, m] for m in models}) for pair in pairs]
    volatile = Volatile(latency_ms=latency_summary(live_latencies(everything), LATENCY_CALLS))
    if len(models) > 1:
        volatile.latency_ms_by_model = {
            model: latency_summary(live_latencies([o for pair in pairs for o in verdicts[pair.id, model]]))
            for model in models}
    return TierResult(metrics=metrics, items=sorted(rows, key=lambda row: row["id"]), notes=notes,
                      provenance=Provenance(judge=judge), volatile=volatile)


def _preference(found: tuple[Outcome, Outcome]) -> Preference | None:
    """A model's preference on a pair, None when one of its two verdicts failed."""
    original, swapped = _verdict_pair(found)
    return None if original is None or swapped is None else preference(original, swapped)


def _verdict_pair(found: tuple[Outcome, Outcome]) -> tuple[Verdict | None, Verdict | None]:
    """The two verdicts (an outcome's value: A, B or Tie in the order shown), None where a call failed."""
    original, swapped = found
    return cast("Verdict | None", original.value), cast("Verdict | None", swapped.value)


def _pair_row(pair: AnswerPair, by_model: dict[str, tuple[Outcome, Outcome]]) -> dict[str, Any]:
    """The judge is the system under test: its answer is every model's two verdicts and the preference they make;
    the per-pair metrics are scored by the model whose verdicts they read, so a report's "<metric>/<model>" is
    scores[metric][model]. First-position and tie rates are means over verdicts, not pairs: no per-pair value."""
    inputs = {"question": pair.question, "context": pair.context, "answer_a": pair.answer_a,
              "answer_b": pair.answer_b}
    answer: dict[str, dict[str, str | None]] = {}
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for model, found in by_model.items():
        original, swapped = _verdict_pair(found)
        answer[model] = {"original": original, "swapped": swapped, "preference": _preference(found)}
        for metric, outcome in _model_scores(found, pair.better).items():
            scores.setdefault(metric, {})[model] = outcome
    judges = {model: call_detail(found) for model, found in by_model.items()}
    return item_record.record(pair.id, inputs, answer, scores, better=pair.better, judges=judges)


def _model_scores(found: tuple[Outcome, Outcome], better: Better | None) -> dict[str, dict[str, Any]]:
    """One model's per-pair values, as the report's means take them: whether its preference survived the swap and,
    for a labelled pair, whether it equals the label; a failed verdict fails both (it carries the call's error)."""
    chosen = _preference(found)
    if chosen is None:
        failed = next(o for o in found if o.value is None)
        unscored = item_record.outcome_score(failed)
        return {"position_consistency": unscored, **({} if better is None else {"pairwise_accuracy": unscored})}
    scores = {"position_consistency": item_record.score(float(chosen != "inconsistent"), explanation=chosen)}
    if better is not None:
        scores["pairwise_accuracy"] = item_record.score(float(chosen == better),
                                                        explanation=f"{chosen}, labelled {better}")
    return scores
