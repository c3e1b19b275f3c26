"""`bench judge-pipeline`: the production show/no-show judge measured as a classifier (seed 004 §9).

Each labelled item goes through the production prompt (the user's template file, or bench's default)
and the LLM service; the answer is read as Yes/No (Да/Нет) by `parse_show_decision`, and anything
else is counted as unparseable, never guessed. A failed call is an error, not a "No".
"""

from __future__ import annotations

import asyncio
import hashlib
import string
from dataclasses import asdict, dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console

from benchmarks.config import Settings, Source
from benchmarks.errors import BenchError
from benchmarks.judge.prompts import Language
from benchmarks.judge.show_decision import parse_show_decision
from benchmarks.metrics.classification import Ratio, classification_report
from benchmarks.metrics.judge_quality import rate_against_thresholds
from benchmarks.metrics.stats import percentile, summarize
from benchmarks.runner import RunClock, RunOutcome, progress_bar, publish
from benchmarks.services.llm import Completion, LLMService, model_for, require_llm
from benchmarks.services.show_items import FILE_NAME, ShowItem, ShowItemSet, load_show_items, resolve
from benchmarks.tiers.base import Metric, ReportKind, TierResult

KIND_VERSION = "1.0"
VARIABLES = frozenset({"question", "context", "answer"})


@dataclass(frozen=True)
class Template:
    text: str
    source: str  # "bench:<language>" or the user's file name, never a machine path
    sha256: str


def load_template(path: Path | None, language: Language) -> Template:
    """The user's production prompt, checked for placeholders bench cannot fill, or bench's default."""
    if path is None:
        raw = (files("benchmarks") / "prompts" / "show_decision" / f"{language}.txt").read_text(encoding="utf-8")
        source = f"bench:{language}"
    else:
        if not path.is_file():
            raise BenchError(f"{path}: prompt template not found")
        raw, source = path.read_text(encoding="utf-8"), path.name
    try:
        fields = {field for _, field, _, _ in string.Formatter().parse(raw) if field is not None}
    except ValueError as exc:
        raise BenchError(f"{source}: not a valid template ({exc}); write literal braces as {{{{ and }}}}") from None
    unknown = sorted(fields - VARIABLES)
    if unknown:
        raise BenchError(f"{source}: unknown placeholder(s) {', '.join(unknown)}; the template may use "
                         f"{{question}}, {{context}} and {{answer}}")
    return Template(raw, source, hashlib.sha256(raw.encode("utf-8")).hexdigest())


def run_judge_pipeline(spec: str, settings: Settings, sources: dict[str, Source], *, template: Template,
                       model: str | None, language: Language, output_dir: Path | None,
                       stderr: Console) -> RunOutcome:
    path = resolve(spec)
    items = load_show_items(path)
    require_llm(settings)
    model = model or str(model_for(settings, "judge"))
    clock = RunClock.start()
    with progress_bar(stderr) as progress:
        task = progress.add_task("asking the production judge", total=len(items))
        completions, usage = asyncio.run(_ask_all(items, template, model, settings,
                                                  lambda: progress.advance(task)))
    dataset = ShowItemSet(name=path.parent.name if path.name == FILE_NAME else path.stem, language=language,
                          content_sha256=hashlib.sha256(path.read_bytes()).hexdigest(), items=tuple(items))
    result = _result(items, completions, template, model, settings)
    result.volatile["llm"] = usage
    kind = ReportKind("judge-pipeline", KIND_VERSION, "Judge pipeline — production show/no-show judge", "accuracy")
    return publish(kind, result, dataset, settings, sources, clock, output_dir)


async def _ask_all(items: list[ShowItem], template: Template, model: str, settings: Settings,
                   advance: Any) -> tuple[list[Completion], dict[str, Any]]:
    async with LLMService(settings) as service:
        async def one(item: ShowItem) -> Completion:
            prompt = template.text.format_map({"question": item.question, "context": item.context,
                                               "answer": item.answer})
            completion = await service.complete([{"role": "user", "content": prompt}], role="judge", model=model)
            advance()
            return completion

        completions = await asyncio.gather(*(one(item) for item in items))
        return list(completions), service.usage_report()


def _result(items: list[ShowItem], completions: list[Completion], template: Template, model: str,
            settings: Settings) -> TierResult:
    decisions = [parse_show_decision(c.text) if c.status == "ok" else None for c in completions]
    judged = [i for i, c in enumerate(completions) if c.status == "ok"]
    errors = len(items) - len(judged)
    predicted = [decisions[i].decision for i in judged]  # type: ignore[union-attr]
    truth = ["yes" if items[i].show else "no" for i in judged]
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
    live = np.array([c.latency_ms for c in completions if c.status == "ok" and not c.cached])
    notes = {
        "positive_class": "yes (show the answer)",
        "confusion": asdict(report.confusion),
        "unparseable": report.confusion.unparseable,
        "accuracy": "over every judged item, an unparseable answer counted as wrong; precision, recall and F1 "
                    "over parseable answers only",
        "accuracy_band": rate_against_thresholds("judge_pipeline_accuracy", report.accuracy.value)
        if report.accuracy.value is not None else None,
        "undefined": {name: r.reason for name, r in (("precision", report.precision), ("recall", report.recall),
                                                      ("f1_score", report.f1)) if r.value is None},
        "api_errors": errors,
    }
    volatile = {"latency_ms": {"avg": _rounded(float(live.mean())) if live.size else None,
                               "p95": _rounded(percentile(live, 95)), "n": int(live.size),
                               "what": "calls answered by the endpoint (cached replies excluded)"}}
    items_out = [
        {"id": item.id, "ground_truth_show": item.show, "status": c.status,
         "decision": d.decision if d else None, "rule": d.rule if d else None, "raw": c.text, "error": c.error,
         "latency_ms": round(c.latency_ms, 3), "cached": c.cached}
        for item, c, d in zip(items, completions, decisions, strict=True)
    ]
    return TierResult(
        metrics=metrics,
        items=sorted(items_out, key=lambda row: row["id"]),
        notes=notes,
        provenance={"production_judge": {"model": model, "template": template.source,
                                         "template_sha256": template.sha256}},
        volatile=volatile,
    )


def _ratio_metric(ratio: Ratio, n: int, errors: int) -> Metric:
    return Metric(ratio.value, n, errors, None, higher_is_better=True)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)
