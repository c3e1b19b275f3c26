"""`bench judge-pipeline`: the production show/no-show judge measured as a classifier
(docs/metrics.md#the-production-judge-bench-judge-pipeline).

Each labelled item goes to the production judge: either the production prompt (the user's template
file, or bench's default) through the LLM service, or the user's own judge service over HTTP
(`--via http`), whose prompt and model bench never sees. Either way the reply is read as Yes/No
(Да/Нет) by `parse_show_decision`, and anything else is counted as unparseable, never guessed. A
failed call is an error, not a "No".
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.chat.backend import open_chat
from benchmarks.chat.request import model_for
from benchmarks.chat.routing import require_chat, url_of
from benchmarks.config import Origins, Settings
from benchmarks.errors import BenchError
from benchmarks.inputs import ItemSet
from benchmarks.judge.llm.prompts import Language
from benchmarks.metrics.classification import Label, Ratio, classification_report
from benchmarks.metrics.stats import latency_summary, summarize
from benchmarks.outcome import Outcome, Status
from benchmarks.readers import templates
from benchmarks.readers.show_items import ShowItem
from benchmarks.readers.templates import Template
from benchmarks.report_model import HttpUsage, LlmUsage, Notes, ProductionJudgeBlock, Provenance, Volatile
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.tiers.base import Metric, RunContext, TierResult
from benchmarks.tiers.judge_pipeline_parser import ShowDecision, parse_show_decision
from benchmarks.transport.http_endpoint import EndpointConfig, HttpEndpoint

VARIABLES = frozenset({"question", "context", "answer"})
HTTP_VARIABLES = ("question", "context", "answer", "item_id")


def load_template(path: Path | None, language: Language) -> Template:
    """The user's production prompt, checked for placeholders bench cannot fill, or bench's default."""
    template = templates.prompt_template(path, ("prompts", "show_decision", f"{language}.txt"),
                                         what="prompt template", language=language)
    unknown = sorted(template.fields - VARIABLES)
    if unknown:
        raise BenchError(f"{template.source}: unknown placeholder(s) {', '.join(unknown)}; the template may use "
                         f"{{question}}, {{context}} and {{answer}}")
    return template


@dataclass(frozen=True)
class PromptedJudge:
    template: Template
    model: str
    url: str  # the endpoint, any password masked: the model's name alone does not say which server answered

    def provenance(self) -> ProductionJudgeBlock:
        return ProductionJudgeBlock(via="llm", model=self.model, url=self.url, template=self.template.source,
                                    template_sha256=self.template.sha256)


@dataclass(frozen=True)
class HttpJudge:
    endpoint: EndpointConfig

    def provenance(self) -> ProductionJudgeBlock:
        endpoint = self.endpoint.provenance()
        return ProductionJudgeBlock(via="http", url=endpoint.url,
                                    request_template_sha256=endpoint.request_template_sha256,
                                    response_path=endpoint.response_path)


ProductionJudge = PromptedJudge | HttpJudge


# `each_once` over the run's items: (ask one item) -> the replies, in the items' order. A reply is what the metrics
# need of one verdict call, whichever way it went: an `Outcome` whose value is the reply's text (ok) or whose
# explanation is the error (api_error), with the call's latency and whether the cache answered it.
AskEach = Callable[..., Awaitable[list[Outcome]]]  # (ask one item, open_at_once=…) -> the replies


def _reply(status: Status, text: str | None, latency_ms: float, cached: bool, error: str | None) -> Outcome:
    return Outcome(text if status == "ok" else None, status, error or "", calls=1, latency_ms=(latency_ms,),
                   cached=cached)


def production_judge(settings: Settings, origins: Origins) -> ProductionJudge:
    """The judge to measure; over HTTP the service owns prompt and model."""
    if settings.show_judge_via == "http":
        typed = origins.typed()
        given = [typed[name] for name in ("show_judge_template", "show_judge_model") if name in typed]
        if given:
            raise BenchError(f"{' and '.join(given)}: not used with --via http, where your service holds the "
                             "judge's prompt and model; configure show_judge_http_request instead")
        return HttpJudge(EndpointConfig.from_settings(settings, "show_judge", texts=HTTP_VARIABLES))
    template = load_template(settings.show_judge_template, settings.language)
    require_chat(settings, roles=() if settings.show_judge_model else ("judge",))
    model = settings.show_judge_model or str(model_for(settings, "judge"))
    return PromptedJudge(template, model, url_of(settings, model))


def identity(settings: Settings) -> dict[str, Any]:
    """The judge as measured (its template's sha256, model or endpoint): resuming with another would mix two."""
    return production_judge(settings, Origins()).provenance().written()


def check(settings: Settings, origins: Origins) -> None:
    """Refuse before any item is read what the judge could not be asked."""
    production_judge(settings, origins)


def run(ctx: RunContext[ItemSet[ShowItem]]) -> TierResult:
    """Every item's verdict is journaled as it comes in, so a stopped run asks only the rest."""
    settings, items = ctx.settings, list(ctx.inputs.items)
    judge = production_judge(settings, Origins())
    task = progress_task(ctx.progress, "asking the production judge", items, _item_key, ctx.journal)
    # each item asked once per run, whichever judge answers: the journal's restored, a bounded number open
    ask = functools.partial(each_once, items, _item_key, journal=ctx.journal, encode=_journal_row,
                            decode=_restore, open_at_once=2 * settings.llm_concurrency,
                            advance=functools.partial(ctx.progress.advance, task))
    if isinstance(judge, HttpJudge):
        replies, http = asyncio.run(_ask_http(items, judge, ask))
        result = _result(items, replies, judge, settings)
        result.volatile.http = http
    else:
        replies, llm = asyncio.run(_ask_llm(items, judge, settings, ask))
        result = _result(items, replies, judge, settings)
        result.volatile.llm = llm
    return result


def _item_key(item: ShowItem) -> str:
    return item.id


def _journal_row(reply: Outcome) -> dict[str, Any]:
    """The whole reply, latency at full precision: a resumed run rebuilds the same report from it."""
    return {"reply": asdict(reply)}


def _restore(item: ShowItem, row: dict[str, Any]) -> Outcome:
    return revive(Outcome, row["reply"])


async def _ask_llm(items: list[ShowItem], judge: PromptedJudge, settings: Settings,
                   ask: AskEach) -> tuple[list[Outcome], LlmUsage]:
    async with open_chat(settings, roles=()) as service:  # the judge's model: checked by production_judge
        async def one(item: ShowItem) -> Outcome:
            prompt = judge.template.text.format_map({"question": item.question, "context": item.context,
                                                     "answer": item.answer})
            c = await service.complete([{"role": "user", "content": prompt}], role="judge", model=judge.model)
            return _reply(c.status, c.text, c.latency_ms, c.cached, c.error)

        return await ask(one, open_at_once=await service.open_at_once()), service.usage_report()


async def _ask_http(items: list[ShowItem], judge: HttpJudge, ask: AskEach) -> tuple[list[Outcome], HttpUsage]:
    async with HttpEndpoint(judge.endpoint) as endpoint:
        async def one(item: ShowItem) -> Outcome:
            r = await endpoint.call({"question": item.question, "context": item.context,
                                     "answer": item.answer, "item_id": item.id})
            return _reply(r.status, r.text, r.latency_ms, False, r.error)

        return await ask(one), endpoint.usage_report()


def _result(items: list[ShowItem], replies: list[Outcome], judge: ProductionJudge,
            settings: Settings) -> TierResult:
    decisions = [parse_show_decision(str(c.value)) if c.ok else None for c in replies]
    judged = [i for i, c in enumerate(replies) if c.ok]
    errors = len(items) - len(judged)
    predicted = [d.decision for d in decisions if d is not None]  # a decision for each judged item, in order
    truth = [_label(items[i]) for i in judged]
    report = classification_report(predicted, truth)
    correct = np.array([p == t for p, t in zip(predicted, truth, strict=True)], dtype=float)
    metrics = {
        "accuracy": Metric.from_summary(summarize(correct, errors=errors, resamples=settings.bootstrap_resamples,
                                                  seed=settings.seed)),
        "precision": _ratio_metric(report.precision, report.confusion.tp + report.confusion.fp, errors),
        "recall": _ratio_metric(report.recall, report.confusion.tp + report.confusion.fn, errors),
        "f1_score": _ratio_metric(report.f1, report.confusion.parseable, errors),
        "unparseable_rate": Metric(report.unparseable_rate.value, len(judged), errors, None, higher_is_better=False),
    }
    live = np.array([ms for c in replies if c.ok and not c.cached for ms in c.latency_ms])
    notes = Notes(
        positive_class="yes (show the answer)",
        confusion=asdict(report.confusion),
        unparseable=report.confusion.unparseable,
        accuracy="over every judged item, an unparseable answer counted as wrong; precision, recall and F1 over "
                 "parseable answers only",
        undefined={name: r.reason for name, r in (("precision", report.precision), ("recall", report.recall),
                                                   ("f1_score", report.f1)) if r.value is None},
        api_errors=errors,
    )
    volatile = Volatile(latency_ms=latency_summary(live, "calls answered by the endpoint (cached replies excluded)"))
    items_out = [_item_row(item, c, d) for item, c, d in zip(items, replies, decisions, strict=True)]
    return TierResult(
        metrics=metrics,
        items=sorted(items_out, key=lambda row: row["id"]),
        notes=notes,
        provenance=Provenance(production_judge=judge.provenance()),
        volatile=volatile,
    )


def _item_row(item: ShowItem, reply: Outcome, decision: ShowDecision | None) -> dict[str, Any]:
    """The production judge is the system under test: its answer is the decision. Accuracy and the unparseable
    rate are means over the judged items, so each item scores both (bench checks them); an unparseable reply
    counts as wrong, as the report counts it, and a failed call fails both with the call's error."""
    inputs = {"question": item.question, "context": item.context, "answer": item.answer}
    if decision is None:
        failed = item_record.outcome_score(reply)
        scores = {"accuracy": failed, "unparseable_rate": failed}
    else:
        said = decision.decision or "unparseable"
        correct = decision.decision == _label(item)
        scores = {"accuracy": item_record.score(float(correct), explanation=f"{said}, labelled {_label(item)}"),
                  "unparseable_rate": item_record.score(float(decision.decision is None), explanation=decision.rule)}
    return item_record.record(
        item.id, inputs, decision.decision if decision else None,
        {metric: {item_record.BENCH: outcome} for metric, outcome in scores.items()},
        ground_truth_show=item.show, rule=decision.rule if decision else None, raw=reply.value,
        latency_ms=round(sum(reply.latency_ms), 3), cached=reply.cached)


def _label(item: ShowItem) -> Label:
    return "yes" if item.show else "no"


def _ratio_metric(ratio: Ratio, n: int, errors: int) -> Metric:
    return Metric(ratio.value, n, errors, None, higher_is_better=True)

