"""Shared by tiers 2 and 3: ask the system under test, grade its answers, count every failure.

Per case (a question with the contexts it is answered from) the generator is asked `repeats`
times; the first answer is graded by the judge (seed ratings, plus any `bench evaluate` metric
named in `extra_metrics`) and compared with the reference (ROUGE, BLEU); all answers feed the
repeatability metrics. Generation and judging of different cases overlap, bounded only by the
services' concurrency, so a run costs about its calls × latency / concurrency.

A failed generation is an error of every metric of its case (it could not be graded), a failed repeat an
error of the repeatability metrics; a failed judge call is an error of that metric only; an undetermined
value (no reference answer, a rating with no offline proxy) is left out of the mean and counted in notes,
never scored as zero. Every metric is one outcome per case, keyed by its report name (`item_record`): the
report's mean and errors are computed from those outcomes, and the item records carry the same ones, so
`bench compare` reproduces the report from items.jsonl.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict
from typing import Any

import numpy as np

from benchmarks.chat.backend import ChatBackend, open_chat
from benchmarks.chat.request import ROLES
from benchmarks.config import Settings
from benchmarks.dataset import Dataset
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.generation.base import Answer, GenerationRequest, Generator
from benchmarks.generation.extractive import ExtractiveGenerator
from benchmarks.generation.extractive import texts_to_embed as extractive_texts
from benchmarks.generation.openai_generator import OpenAIGenerator, load_rag_template
from benchmarks.generation.precomputed import PrecomputedGenerator
from benchmarks.judge import catalog
from benchmarks.judge.catalog import offline_score
from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import Language
from benchmarks.judge.offline import proxies
from benchmarks.judge.options import JudgeOptions
from benchmarks.judge.ratings.offline import offline_rating, proxy_fields
from benchmarks.judge.ratings.rater import RATINGS, Rater
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.report_model import LlmUsage
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.samples import Sample
from benchmarks.tiers.answering.cases import (
    CONTEXT_SEPARATOR,
    Case,
    Graded,
    Plan,
    judged_metrics,
    language_of,
    metric_key,
    reference_answer,
)
from benchmarks.tiers.answering.report_blocks import scorer
from benchmarks.tiers.base import RunContext


def answer_and_grade(ctx: RunContext[Dataset], cases: Sequence[Case], plan: Plan, embedder: CachedEmbedder,
                     scale: SimilarityScale, runner: asyncio.Runner | None = None
                     ) -> tuple[list[Graded], LlmUsage | None, Generator]:
    """Run the generator and the judge over every case; returns the graded cases, LLM usage (None when no LLM was
    asked), the generator.
    `scale` is the embedder's similarity scale, on which the judged similarities are read. `runner`: the run's
    event loop when the tier already awaited something in it (tier 3's probes), else the answering's own."""
    work = _answer_and_grade(ctx, cases, plan, embedder, scale)
    return runner.run(work) if runner is not None else asyncio.run(work)


async def _answer_and_grade(ctx: RunContext[Dataset], cases: Sequence[Case], plan: Plan, embedder: CachedEmbedder,
                            scale: SimilarityScale) -> tuple[list[Graded], LlmUsage | None, Generator]:
    s = ctx.settings
    language = language_of(ctx.inputs)
    known = judged_metrics(s)
    if s.judge_backend != "offline":
        catalog.require_language(plan.extra_metrics, known, language)  # a rubric's criteria in the dataset's language
    embed = EmbeddingMemo(embedder, purpose="answers")
    needs_llm = s.generator == "openai" or s.judge_backend != "offline"
    offline_fields = _offline_fields(plan, known) if s.judge_backend == "offline" else frozenset()
    async with AsyncExitStack() as stack:
        service = await stack.enter_async_context(open_chat(s, roles=ROLES)) if needs_llm else None
        generator = await _generator(s, ctx.inputs, service, embed, language, stack)
        todo = [c for c in cases if ctx.journal is None or _case_key(c) not in ctx.journal.restored]
        embed.prefetch(_texts_ahead(todo, offline_fields, extractive=isinstance(generator, ExtractiveGenerator)),
                       ctx.progress, label="embedding the texts known before answering")
        judge_model = scorer(s)
        rater = Rater(service, language, s.judge_mode) if s.judge_backend != "offline" and service else None
        options = JudgeOptions.from_settings(s)  # the run's, for either judge
        ragas = (LLMJudge(service, language, embed, options, metrics=known, scale=scale)
                 if rater and service else None)
        task = progress_task(ctx.progress, f"answering ({generator.name}) and judging", cases, _case_key,
                             ctx.journal)

        async def one(case: Case) -> Graded:
            answers = await asyncio.gather(*(
                generator.answer(GenerationRequest(case.question.id, case.question.text, case.contexts, r))
                for r in range(s.repeats)
            ))
            graded = Graded(case, list(answers))
            if graded.first.status != "ok":
                reason = graded.first.error or "no answer"
                graded.grades = {name: Outcome.failed("no_answer", reason) for name in plan.keys}
            elif rater and ragas:
                variables = _variables(case, str(graded.first.text), reference_answer(case))
                found = await asyncio.gather(
                    *(_llm_rating(rater, name, variables, judge_model) for name in plan.ratings),
                    *(ragas.score(metric, _sample(case, graded.first, reference_answer(case)), judge_model)
                      for metric in plan.extra_metrics),
                )
                graded.grades = dict(zip(plan.keys, found, strict=True))
            else:
                await embed.gather(proxies.texts_to_embed(_sample(case, graded.first, reference_answer(case)),
                                                          offline_fields))
                _grade_offline(graded, plan, embed, scale, language, options)
            return graded

        # a generator over HTTP without an LLM service keeps as many open as the LLM setting would
        open_at_once = await service.open_at_once() if service else 2 * s.llm_concurrency
        graded = await each_once(cases, _case_key, one, journal=ctx.journal, encode=_journal_row,
                                 decode=functools.partial(_restore, plan=plan), open_at_once=open_at_once,
                                 advance=lambda: ctx.progress.advance(task))
        ctx.progress.remove_task(task)
        usage = service.usage_report() if service else None
    return graded, usage, generator


def _case_key(case: Case) -> str:
    return case.question.id


def _journal_row(graded: Graded) -> dict[str, Any]:
    """All a resumed run needs to rebuild the case's outcome exactly."""
    return {"answers": [asdict(a) for a in graded.answers],
            "grades": {name: asdict(g) for name, g in graded.grades.items()}}


def _restore(case: Case, row: dict[str, Any], plan: Plan) -> Graded:
    graded = Graded(case, [revive(Answer, a) for a in row["answers"]],
                    {name: revive(Outcome, g) for name, g in row["grades"].items()})
    if set(graded.grades) != set(plan.keys):
        raise ValueError(f"grades {sorted(graded.grades)}, but this run grades {sorted(plan.keys)}")
    return graded


def _offline_fields(plan: Plan, known: Mapping[str, JudgedMetric]) -> frozenset[str]:
    """The sample fields the plan's offline proxies read."""
    proxies = [known[m].offline for m in plan.extra_metrics]
    return frozenset({f for name in plan.ratings for f in proxy_fields(name)}
                     | {f for proxy in proxies if proxy for f in proxy.needs})


def _texts_ahead(cases: Sequence[Case], offline_fields: frozenset[str], *, extractive: bool) -> list[str]:
    """What can be embedded before any answer exists, so that it is embedded in one call rather than one per
    question: what the extractive generator compares, and the contexts' and references' texts the offline
    proxies compare (the answers' own texts follow as they come, `EmbeddingMemo.gather`)."""
    texts: list[str] = []
    for case in cases:
        if extractive:
            texts += extractive_texts(case.question.text, case.contexts)
        texts += proxies.texts_to_embed(_sample(case, None, reference_answer(case)), offline_fields)
    return texts


async def _generator(settings: Settings, dataset: Dataset, service: ChatBackend | None, embed: EmbeddingMemo,
                     language: Language, stack: AsyncExitStack) -> Generator:
    if settings.generator == "openai":
        assert service is not None
        return OpenAIGenerator(service, load_rag_template(settings.generator_template, language))
    if settings.generator == "precomputed":
        return PrecomputedGenerator({q.id: q.responses for q in dataset.questions}, dataset.content_sha256)
    if settings.generator == "extractive":
        return ExtractiveGenerator(embed, settings.extractive_sentences, embed.embedder.model_id)
    from benchmarks.generation.http_generator import HttpGenerator

    return await stack.enter_async_context(HttpGenerator.from_settings(settings))


def _variables(case: Case, answer: str, reference: str | None) -> dict[str, str]:
    variables = {"question": case.question.text, "context": CONTEXT_SEPARATOR.join(case.contexts), "answer": answer}
    if reference is not None:
        variables["reference"] = reference
    return variables


def _sample(case: Case, answer: Answer | None, reference: str | None) -> Sample:
    return Sample(id=case.question.id, user_input=case.question.text, retrieved_contexts=case.contexts,
                  response=answer.text if answer is not None else None, reference=reference)


async def _llm_rating(rater: Rater, name: str, variables: dict[str, str], model: str) -> Outcome:
    missing = sorted(RATINGS[name].needs - set(variables))
    if missing:
        return Outcome.undetermined(f"no {', '.join(missing)} for this question")
    return await rater.rate(name, variables, model)


def _grade_offline(item: Graded, plan: Plan, embed: Callable[[Sequence[str]], np.ndarray], scale: SimilarityScale,
                   language: Language, options: JudgeOptions) -> None:
    reference = reference_answer(item.case)
    variables = _variables(item.case, str(item.first.text), reference)
    for name in plan.ratings:
        if RATINGS[name].needs - set(variables):
            item.grades[name] = Outcome.undetermined("no reference answer for this question")
        else:
            item.grades[name] = offline_rating(name, variables, embed, scale=scale, language=language)
    for metric in plan.extra_metrics:
        sample = _sample(item.case, item.first, reference)
        item.grades[metric_key(metric)] = offline_score(metric, sample, embed, scale=scale, language=language,
                                                        options=options)
