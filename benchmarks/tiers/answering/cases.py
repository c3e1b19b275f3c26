"""What tiers 2 and 3 answer and grade: a case (a question with the contexts it is answered from), the plan of
grades, a case's answers and grades, and the facts of the dataset they are read in."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from benchmarks.config import Settings
from benchmarks.dataset import Dataset, Question
from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer
from benchmarks.judge import catalog
from benchmarks.judge.judged_metrics.declaration import JudgedMetric
from benchmarks.judge.llm.prompts import Language
from benchmarks.metrics.language import detected_or
from benchmarks.outcome import Outcome

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


def judged_metrics(settings: Settings) -> Mapping[str, JudgedMetric]:
    """The metrics `--metrics` may name: the built-in judged metrics and the settings' rubrics."""
    return catalog.metrics(settings.rubrics)
