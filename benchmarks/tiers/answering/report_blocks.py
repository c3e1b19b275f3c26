"""What tiers 2 and 3 write beside their numbers: who graded, the notes on grading, provenance, latency, and a
case's item record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from benchmarks import item_record, outcome
from benchmarks.chat.request import model_for
from benchmarks.chat.routing import url_of
from benchmarks.config import Settings
from benchmarks.generation.base import Generator
from benchmarks.judge import catalog
from benchmarks.judge.llm.prompts import Language
from benchmarks.judge.ratings.offline import describe_rating
from benchmarks.judge.ratings.rater import prompt_hashes, read_from_a_lone_number
from benchmarks.metrics.stats import latency_summary
from benchmarks.report_model import Judge, Notes, Provenance, Volatile
from benchmarks.tiers.answering.cases import Graded, Plan, judged_metrics
from benchmarks.tiers.answering.summaries import Scores


def item_scores(judged: Scores, computed: Scores, judge: str) -> dict[str, dict[str, dict[str, Any]]]:
    """An item record's scores: the grades under the judge model ("offline" for the proxies), what bench
    computes itself (text, similarity, repeatability, retrieval) under `item_record.BENCH`."""
    return {**{name: {judge: item_record.outcome_score(g)} for name, g in judged.items()},
            **{name: {item_record.BENCH: item_record.outcome_score(g)} for name, g in computed.items()}}


def scorer(settings: Settings) -> str:
    """Who graded a run's answers: the judge model, or "offline" for the proxies."""
    return str(model_for(settings, "judge")) if settings.judge_backend != "offline" else "offline"


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


def judge_notes(settings: Settings, plan: Plan, graded: Sequence[Graded]) -> Notes:
    """How tiers 2 and 3 graded, with the `statuses` and, per rating, the grades whose score was read from a reply
    holding only a number instead of JSON (`read_from_a_lone_number`: a count a reader weighs the scores by)."""
    notes = Notes(
        backend=settings.judge_backend,
        mode=settings.judge_mode if settings.judge_backend != "offline" else None,
        graded_answer="the first of each question's repeated answers",
        repeats=settings.repeats,
        means="over questions whose value is determined; failed generations and failed judge calls are the metric's "
              "errors, a failed repeat an error of the repeatability metrics; undetermined values are counted under "
              "statuses",
        statuses=status_counts(graded, plan),
        read_from_a_lone_number={name: sum(read_from_a_lone_number(item.grades[name]) for item in graded)
                                 for name in plan.ratings},
    )
    known = judged_metrics(settings)
    if settings.judge_backend == "offline":
        notes.offline_proxies = {**{f"avg_{n}": describe_rating(n) for n in plan.ratings},
                                 **{m: known[m].offline_note() for m in plan.extra_metrics}}
    rubrics = catalog.rubric_notes(plan.extra_metrics, known)
    if rubrics:
        notes.rubrics = rubrics
    return notes


def judge_provenance(settings: Settings, plan: Plan, language: Language, generator: Generator,
                     provenance: Provenance) -> Provenance:
    """`provenance` with who answered and who graded. `metrics`: the report's metrics the judge graded (the ratings,
    and the `--metrics` that ask a judge), which `bench compare` makes not comparable when the judge changes."""
    known = judged_metrics(settings)
    judge = Judge(backend=settings.judge_backend, language=language,
                  metrics=[*(f"avg_{r}" for r in plan.ratings), *(m for m in plan.extra_metrics if known[m].calls)])
    if settings.judge_backend == "offline":
        judge.offline_sha256 = catalog.offline_sha256()
    else:
        judge.model = str(model_for(settings, "judge"))
        judge.mode = settings.judge_mode
        judge.url = url_of(settings, judge.model)
        judge.prompts_sha256 = {**prompt_hashes(language, settings.judge_mode, plan.ratings),
                                **catalog.prompt_hashes(plan.extra_metrics, known, language, settings.judge_verdicts)}
        if any(known[m].yes_no for m in plan.extra_metrics):
            judge.verdicts = settings.judge_verdicts
    provenance.generator = generator.describe()
    provenance.judge = judge
    return provenance


def latency_block(graded: Sequence[Graded], volatile: Volatile) -> Volatile:
    """`volatile` with the generation and judge latency over calls the services answered live (cached replies
    excluded)."""
    generation = np.array([a.latency_ms for item in graded for a in item.answers
                           if a.status == "ok" and not a.cached and a.latency_ms > 0])
    judging = np.array([ms for item in graded for g in item.grades.values() if not g.cached for ms in g.latency_ms])
    volatile.generation_latency_ms = latency_summary(generation)
    volatile.judge_latency_ms = latency_summary(judging)
    return volatile


def case_record(item: Graded, inputs: dict[str, Any], scores: dict[str, Any], **detail: Any) -> dict[str, Any]:
    """A case's item record, as tiers 2 and 3 write it: the graded (first) answer, the document its question is
    about, and beside them every repeat's answer with its status, error and latency."""
    q = item.case.question
    answers = [{key: value for key, value in asdict(a).items() if value is not None} for a in item.answers]
    return item_record.record(q.id, inputs, item.first.text, scores, cluster=item_record.top_document(q.relevant),
                              **detail, answers=answers)
