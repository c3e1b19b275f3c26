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
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from benchmarks import item_record, outcome
from benchmarks.chat.backend import ChatBackend, open_chat
from benchmarks.chat.request import ROLES, Role, model_for
from benchmarks.chat.routing import require_chat, url_of
from benchmarks.config import Settings
from benchmarks.dataset import Dataset, Question
from benchmarks.embedding.embedder import CachedEmbedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer, GenerationRequest, Generator
from benchmarks.generation.extractive import ExtractiveGenerator
from benchmarks.generation.extractive import texts_to_embed as extractive_texts
from benchmarks.generation.openai_generator import OpenAIGenerator, load_rag_template
from benchmarks.generation.precomputed import PrecomputedGenerator
from benchmarks.judge import catalog, offline
from benchmarks.judge.catalog import offline_score
from benchmarks.judge.llm_judge import LLMJudge
from benchmarks.judge.offline_ratings import OFFLINE_RATINGS, describe_rating, offline_rating, proxy_fields
from benchmarks.judge.options import JudgeOptions
from benchmarks.judge.prompts import Language
from benchmarks.judge.ratings import RATINGS, Rater, prompt_hashes, read_from_a_lone_number
from benchmarks.metrics import names, text
from benchmarks.metrics.language import detected_or
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.metrics.stats import latency_summary, summarize
from benchmarks.outcome import ERRORS, Outcome
from benchmarks.resumable import each_once, progress_task, revive
from benchmarks.samples import Sample
from benchmarks.tiers.base import Metric, RunContext

CONTEXT_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Case:
    question: Question
    contexts: tuple[str, ...]
    context_ids: tuple[str, ...]


@dataclass
class Graded:
    """A case's answers and its grades: one outcome per metric, whatever produced it (LLM rating, offline
    proxy, RAGAS form); no_answer for every metric when the generation failed."""

    case: Case
    answers: list[Answer]
    grades: dict[str, Outcome] = field(default_factory=dict)

    @property
    def first(self) -> Answer:
        return self.answers[0]


@dataclass(frozen=True)
class Plan:
    """What a tier grades: seed ratings (by RATINGS name) and `bench evaluate` metrics."""

    ratings: tuple[str, ...]
    extra_metrics: tuple[str, ...]

    @property
    def keys(self) -> tuple[str, ...]:
        """Names of an item's grades: a rating's own, a metric's `metric_key`."""
        return (*self.ratings, *map(metric_key, self.extra_metrics))

    @property
    def report_names(self) -> dict[str, str]:
        """Each grade's metric in the report, by grade name: avg_<rating>, a `bench evaluate` metric's own."""
        return {**{name: f"avg_{name}" for name in self.ratings},
                **{metric_key(metric): metric for metric in self.extra_metrics}}


def metric_key(metric: str) -> str:
    """A `bench evaluate` metric among an item's grades, apart from the seed rating of the same name
    (`--metrics faithfulness` must not overwrite the faithfulness rating)."""
    return f"ragas:{metric}"


def reference_answer(case: Case) -> str | None:
    """What tiers 2 and 3 grade against: the question's reference answer."""
    return case.question.reference_answer


def language_of(dataset: Dataset) -> Language:
    return "ru" if dataset.language == "ru" else "en"


def scale_language(dataset: Dataset) -> str:
    """The language whose unrelated sentences calibrate the run's similarities: that of the questions' script,
    else the dataset's own."""
    return detected_or(dataset.language, [q.text for q in dataset.questions])


def require_fields(dataset: Dataset, tier: str, needed: dict[str, Callable[[Question], bool]]) -> None:
    """One message naming every field the tier needs that no question has (a field only some questions
    have is fine: those questions' values are undetermined and counted in the report)."""
    missing = [name for name, has in needed.items() if not any(has(q) for q in dataset.questions)]
    if missing:
        raise BenchError(f"dataset '{dataset.name}': {tier} needs field(s) that no question in questions.jsonl "
                         f"has: {', '.join(missing)}")


def judged_metrics(settings: Settings) -> Mapping[str, catalog.JudgedMetric]:
    """The metrics `--metrics` may name: the built-in judged metrics and the settings' rubrics."""
    return catalog.metrics(settings.rubrics)


def check_local_judge(settings: Settings) -> None:
    """Refuse, before the local judge's server starts, what it cannot serve: the run has one chat endpoint."""
    if settings.generator == "openai" and settings.judge_backend == "local":
        raise BenchError("--judge local with --generator openai: the run has one chat endpoint, and the local judge's "
                         "is its own; judge on the generator's endpoint (--judge llm), or answer with --generator "
                         "http, extractive or precomputed")


def check_plan(settings: Settings, plan: Plan) -> None:
    """Refuse before any work what the run could not do: an unknown metric, a proxy that does not exist."""
    known = judged_metrics(settings)
    if plan.extra_metrics:
        catalog.require_known(plan.extra_metrics, known, setting="extra_metrics")
    if settings.judge_backend == "offline":
        catalog.require_proxies(plan.extra_metrics, known)
        catalog.require_offline_settings(plan.extra_metrics, settings)
    if settings.generator == "openai" or settings.judge_backend == "llm":
        asks: dict[Role, bool] = {"generator": settings.generator == "openai", "judge": settings.judge_backend == "llm"}
        try:
            require_chat(settings, roles=[role for role, asked in asks.items() if asked])
        except BenchError as exc:
            raise BenchError(f"{exc}; the whole tier runs offline with --generator extractive --judge offline "
                             "(a baseline system, graded by proxies)") from None
    if settings.generator == "http" and not settings.generator_http_url:
        raise BenchError("--generator http needs generator_http_url (bench.toml, BENCH_GENERATOR_HTTP_URL)")


async def require_reachable_services(settings: Settings) -> None:
    """Probe the services the run will call before a tier's own costly preparation (tier 3 embeds and indexes
    the corpus first), so that a service that is down fails a fresh run in seconds, not after that work.
    Awaited in the run's own event loop, the one its answering runs in."""
    uses: dict[Role, bool] = {"generator": settings.generator == "openai", "judge": settings.judge_backend != "offline"}
    roles = [role for role, used in uses.items() if used]
    if roles:
        async with open_chat(settings, roles=roles) as chat:
            await chat.require_reachable({str(model_for(settings, role)) for role in roles})
    if settings.generator == "http":
        from benchmarks.generation.http_generator import endpoint_config

        await endpoint_config(settings).probe()


def answer_and_grade(ctx: RunContext, cases: Sequence[Case], plan: Plan, embedder: CachedEmbedder,
                     scale: SimilarityScale, runner: asyncio.Runner | None = None
                     ) -> tuple[list[Graded], dict[str, Any], Generator]:
    """Run the generator and the judge over every case; returns the graded cases, LLM usage, the generator.
    `scale` is the embedder's similarity scale, on which the judged similarities are read. `runner`: the run's
    event loop when the tier already awaited something in it (tier 3's probes), else the answering's own."""
    work = _answer_and_grade(ctx, cases, plan, embedder, scale)
    return runner.run(work) if runner is not None else asyncio.run(work)


async def _answer_and_grade(ctx: RunContext, cases: Sequence[Case], plan: Plan, embedder: CachedEmbedder,
                            scale: SimilarityScale) -> tuple[list[Graded], dict[str, Any], Generator]:
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
                await embed.gather(offline.texts_to_embed(_sample(case, graded.first, reference_answer(case)),
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
    return graded, usage or {}, generator


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


def _offline_fields(plan: Plan, known: Mapping[str, catalog.JudgedMetric]) -> frozenset[str]:
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
        texts += offline.texts_to_embed(_sample(case, None, reference_answer(case)), offline_fields)
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


# --- numbers ------------------------------------------------------------------------------------


Scores = dict[str, Outcome]  # a case's outcome per report metric; a metric that does not apply is absent


def calibrated_metrics(metrics: Mapping[str, Metric], plan: Plan, settings: Settings) -> list[str]:
    """The report's metrics read on the similarity scale: every grade of the offline proxies (their support
    test), the LLM metrics that compare embeddings, and what bench computes from embeddings itself."""
    known, offline = judged_metrics(settings), settings.judge_backend == "offline"
    graded = {plan.report_names[name] for name in plan.ratings if offline and name in OFFLINE_RATINGS} | {
        metric for metric in plan.extra_metrics if offline or known[metric].embeddings}
    own = {"response_semantic_consistency", "avg_semantic_similarity"}
    return [name for name in metrics if name in graded | own]


def grade_metrics(graded: Sequence[Graded], plan: Plan, settings: Settings) -> dict[str, Metric]:
    """avg_<rating> for the seed ratings, the metric's own name for `bench evaluate` metrics."""
    known = judged_metrics(settings)
    lower = {m for m in plan.extra_metrics if not known[m].higher_is_better}
    return summaries([grade_scores(g, plan) for g in graded], list(plan.report_names.values()), settings,
                     lower_is_better=lower)


def grade_scores(item: Graded, plan: Plan) -> Scores:
    """The case's grades under their report names."""
    return {plan.report_names[name]: grade for name, grade in item.grades.items()}


def summaries(rows: Sequence[Scores], names: Sequence[str], settings: Settings, *,
              lower_is_better: Collection[str] = ()) -> dict[str, Metric]:
    """Each named metric's mean over the cases' outcomes: ok values in the mean, failures (errors and failed
    answers) counted as errors, undetermined and absent ones left out, as `item_record.value_of` reads them."""
    return {name: _summary([row[name] for row in rows if name in row], settings,
                           higher_is_better=name not in lower_is_better) for name in names}


def _summary(grades: Sequence[Outcome], settings: Settings, *, higher_is_better: bool) -> Metric:
    values = np.array([g.number for g in grades if g.number is not None], dtype=float)
    errors = sum(g.status in (*ERRORS, "no_answer") for g in grades)
    return mean_metric(values, settings, errors=errors, higher_is_better=higher_is_better)


def mean_metric(values: np.ndarray | Sequence[float], settings: Settings, *, errors: int = 0,
                higher_is_better: bool = True) -> Metric:
    """A per-item mean with its bootstrap interval, seeded and sized by the run's settings."""
    return Metric.from_summary(summarize(np.asarray(values, dtype=float), errors=errors,
                                         resamples=settings.bootstrap_resamples, seed=settings.seed),
                               higher_is_better=higher_is_better)


def no_answer(item: Graded) -> Outcome:
    """What a metric of the first answer is when that answer failed: an error of the metric, not a zero."""
    return Outcome.failed("no_answer", item.first.error or "no answer")


def answer_scores(item: Graded, names: Sequence[str], score: Callable[[str, str], Scores]) -> Scores:
    """Metrics of the first answer against the reference (`score(answer, reference)`): no_answer when the
    answer failed (whether or not a reference exists, as a failed generation fails every metric of its case),
    absent when the question has no reference."""
    if item.first.status != "ok":
        return dict.fromkeys(names, no_answer(item))
    reference = reference_answer(item.case)
    return {} if reference is None else score(str(item.first.text), reference)


def text_metrics(graded: Sequence[Graded], settings: Settings) -> tuple[dict[str, Metric], list[Scores]]:
    """ROUGE-1/2/L F and BLEU of each first answer against the reference, and each case's outcomes."""
    rows = [answer_scores(item, names.TEXT, _text_scores) for item in graded]
    return summaries(rows, names.TEXT, settings), rows


def _text_scores(answer: str, reference: str) -> Scores:
    rouge = text.rouge(answer, reference)
    return {"avg_rouge1_f": rouge.rouge1, "avg_rouge2_f": rouge.rouge2, "avg_rougeL_f": rouge.rougeL,
            "avg_bleu": text.bleu(answer, reference)}


def repeat_metrics(graded: Sequence[Graded], embedder: CachedEmbedder, settings: Settings, scale: SimilarityScale
                   ) -> tuple[dict[str, Metric], list[Scores]]:
    """Exact-match rate and semantic consistency over the ok answers of each case's repeats; a case whose
    repeats include a failed call has api_error for both (its agreement over the rest would not be the run's).
    No metrics, and no outcomes, with fewer than two repeats."""
    if settings.repeats < 2:
        return {}, [{} for _ in graded]
    failures = [next((a for a in item.answers if a.status == "api_error"), None) for item in graded]
    answers = [[str(a.text) for a in item.answers if a.status == "ok"] if failed is None else []
               for item, failed in zip(graded, failures, strict=True)]
    texts = [t for group in answers if len(group) > 1 for t in group]  # a single answer has nothing to agree with
    vectors = embedder.encode(texts, purpose="answers") if texts else np.zeros((0, 1))
    rows: list[Scores] = []
    start = 0
    for group, failed in zip(answers, failures, strict=True):
        if failed is not None:
            rows.append(dict.fromkeys(names.REPEATS, Outcome.failed("api_error", failed.error or "a repeat failed")))
            continue
        compared = len(group) if len(group) > 1 else 0
        rows.append({"response_exact_match_rate": text.exact_match(group),
                     "response_semantic_consistency": text.semantic_consistency(vectors[start:start + compared],
                                                                                     scale)})
        start += compared
    return summaries(rows, names.REPEATS, settings), rows


def item_scores(judged: Scores, computed: Scores, judge: str) -> dict[str, dict[str, dict[str, Any]]]:
    """An item record's scores: the grades under the judge model ("offline" for the proxies), what bench
    computes itself (text, similarity, repeatability, retrieval) under `item_record.BENCH`."""
    return {**{name: {judge: item_record.outcome_score(g)} for name, g in judged.items()},
            **{name: {item_record.BENCH: item_record.outcome_score(g)} for name, g in computed.items()}}


def scorer(settings: Settings) -> str:
    """Who graded a run's answers: the judge model, or "offline" for the proxies."""
    return str(model_for(settings, "judge")) if settings.judge_backend != "offline" else "offline"


def grading_counts(graded: Sequence[Graded], plan: Plan) -> dict[str, dict[str, dict[str, int]] | dict[str, int]]:
    """The notes' `statuses` and, per rating, the grades whose score was read from a reply holding only a
    number instead of JSON (`read_from_a_lone_number`: a count a reader weighs the scores by)."""
    return {"statuses": status_counts(graded, plan),
            "read_from_a_lone_number": {name: sum(read_from_a_lone_number(item.grades[name]) for item in graded)
                                        for name in plan.ratings}}


def status_counts(graded: Sequence[Graded], plan: Plan) -> dict[str, dict[str, int]]:
    """Per grade, and for the generations, the statuses that occurred (sorted by name)."""
    counts = {name: dict(sorted(outcome.status_counts((item.grades[name] for item in graded), listed=()).items()))
              for name in plan.keys}
    answers: dict[str, int] = {}
    for item in graded:
        for answer in item.answers:
            answers[answer.status] = answers.get(answer.status, 0) + 1
    counts["generation"] = dict(sorted(answers.items()))
    return counts


def judge_notes(settings: Settings, plan: Plan) -> dict[str, Any]:
    notes: dict[str, Any] = {
        "backend": settings.judge_backend,
        "mode": settings.judge_mode if settings.judge_backend != "offline" else None,
        "graded_answer": "the first of each question's repeated answers",
        "repeats": settings.repeats,
        "means": "over questions whose value is determined; failed generations and failed judge calls are the "
                 "metric's errors, a failed repeat an error of the repeatability metrics; undetermined values "
                 "are counted under statuses",
    }
    known = judged_metrics(settings)
    if settings.judge_backend == "offline":
        notes["offline_proxies"] = {**{f"avg_{n}": describe_rating(n) for n in plan.ratings},
                                    **{m: known[m].offline_note() for m in plan.extra_metrics}}
    rubrics = catalog.rubric_notes(plan.extra_metrics, known)
    if rubrics:
        notes["rubrics"] = rubrics
    return notes


def judge_provenance(settings: Settings, plan: Plan, language: Language, generator: Generator) -> dict[str, Any]:
    """Who answered and who graded. `metrics`: the report's metrics the judge graded (the ratings, and the
    `--metrics` that ask a judge), which `bench compare` makes not comparable when the judge changes."""
    known = judged_metrics(settings)
    judge: dict[str, Any] = {"backend": settings.judge_backend, "language": language,
                             "metrics": [*(f"avg_{r}" for r in plan.ratings),
                                         *(m for m in plan.extra_metrics if known[m].calls)]}
    if settings.judge_backend == "offline":
        judge["offline_sha256"] = catalog.offline_sha256()
    else:
        model = str(model_for(settings, "judge"))
        judge.update(model=model, mode=settings.judge_mode, url=url_of(settings, model),
                     prompts_sha256={**prompt_hashes(language, settings.judge_mode, plan.ratings),
                                     **catalog.prompt_hashes(plan.extra_metrics, known, language,
                                                             settings.judge_verdicts)})
        if any(known[m].yes_no for m in plan.extra_metrics):
            judge["verdicts"] = settings.judge_verdicts
    return {"generator": generator.describe(), "judge": judge}


def latency_block(graded: Sequence[Graded]) -> dict[str, Any]:
    """Generation and judge latency over calls the services answered live (cached replies excluded)."""
    generation = np.array([a.latency_ms for item in graded for a in item.answers
                           if a.status == "ok" and not a.cached and a.latency_ms > 0])
    judging = np.array([ms for item in graded for g in item.grades.values() if not g.cached for ms in g.latency_ms])
    return {"generation_latency_ms": latency_summary(generation), "judge_latency_ms": latency_summary(judging)}


def case_record(item: Graded, inputs: dict[str, Any], scores: dict[str, Any], **detail: Any) -> dict[str, Any]:
    """A case's item record, as tiers 2 and 3 write it: the graded (first) answer, the document its question is
    about, and beside them every repeat's answer with its status, error and latency."""
    q = item.case.question
    answers = [{key: value for key, value in asdict(a).items() if value is not None} for a in item.answers]
    return item_record.record(q.id, inputs, item.first.text, scores, cluster=item_record.top_document(q.relevant),
                              **detail, answers=answers)
