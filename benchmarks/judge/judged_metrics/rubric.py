"""A user's rubric metric, declared in bench.toml with no code change (RAGAS's AspectCritic and
RubricsScore, DeepEval's G-Eval): criteria in words, a scale, and the sample fields the judge sees.
The table's shape and its check are `benchmarks.rubric_table`'s (a setting, checked when loaded).

The criteria are given per prompt language (en, ru); a language may be left out, and a run in that
language is then refused before any call, naming the rubric (a team that only judges in Russian
need not write English criteria). A rubric is one judge call per sample, rendered from the packaged
template `prompts/<lang>/rubric.txt` with the criteria and the needed fields, answered with a short
reason and a whole score on the scale, and validated (`shapes.RubricScore`) with one repair attempt
like every judge call. The score is reported as given: 0–1 for binary (the mean is then the share of
samples that meet the criteria), 1–5 for a 1-5 rubric, never rescaled. It has no offline proxy
(`NO_PROXY`). The report's prompt hashes carry the sha256 of the template together with the
rubric's criteria, scale and fields, so a changed rubric shows in `bench compare`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks.config import check_rubrics
from benchmarks.judge.llm import shapes
from benchmarks.judge.llm.asking import JudgeFailed, Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import RUBRIC, Language, load_template
from benchmarks.outcome import Outcome
from benchmarks.readers.templates import packaged
from benchmarks.report_model import RubricNote
from benchmarks.rubric_table import SCALES
from benchmarks.samples import Sample

NO_PROXY = ("a rubric is a judgement its criteria put into words; no embedding or word-overlap test stands "
            "for an arbitrary criterion")
_LABELS: Mapping[str, Mapping[str, str]] = {
    "en": {"user_input": "Question", "retrieved_contexts": "Contexts", "reference": "Reference answer",
           "response": "Response"},
    "ru": {"user_input": "Вопрос", "retrieved_contexts": "Контексты", "reference": "Эталонный ответ",
           "response": "Ответ"},
}
_NONE = {"en": "(none)", "ru": "(нет)"}


@dataclass(frozen=True)
class Rubric:
    name: str
    criteria: Mapping[str, str]  # prompt language -> the criteria in that language
    scale: str  # a key of SCALES
    needs: tuple[str, ...]

    @property
    def low(self) -> int:
        return SCALES[self.scale][0]

    @property
    def high(self) -> int:
        return SCALES[self.scale][1]

    @property
    def scale_note(self) -> str:
        return ("binary: 0 or 1, reported on 0–1 (the mean is the share of samples meeting the criteria)"
                if self.scale == "binary" else "1-5: a whole number from 1 to 5, reported on 1–5 (not rescaled)")

    def missing_language(self, language: str) -> str | None:
        """Why the rubric cannot be judged in `language`, or None when it can."""
        if language in self.criteria:
            return None
        return (f"rubric '{self.name}' has no criteria in '{language}' (it gives {', '.join(self.criteria)}): "
                f"add criteria.{language} to [rubrics.{self.name}]")

    def prompt_sha256(self, language: Language) -> str:
        """The template's bytes and the rubric's own text (criteria in `language`, scale, fields): what makes
        the prompt, so a changed criterion changes the hash a report carries."""
        own = json.dumps({"criteria": self.criteria.get(language), "scale": self.scale, "needs": list(self.needs)},
                         ensure_ascii=False, sort_keys=True)
        return hashlib.sha256(packaged("prompts", language, f"{RUBRIC.name}.txt") + b"\n" + own.encode()).hexdigest()

    def prompt_text(self, language: Language) -> str:
        """The prompt without the sample (for `--dry-run`'s token estimate)."""
        return load_template(RUBRIC.name, language) + self.criteria.get(language, "")

    def describe(self) -> RubricNote:
        """The rubric as a report's notes show it."""
        return RubricNote(criteria=dict(self.criteria), scale=self.scale_note, needs=list(self.needs))


def rubrics_of(setting: Mapping[str, Any] | None) -> tuple[Rubric, ...]:
    """The rubrics of the `rubrics` setting (checked again: Settings may be built without bench.toml)."""
    checked = check_rubrics(setting or {}, "setting rubrics")
    return tuple(Rubric(name, t["criteria"], t["scale"], tuple(t["needs"])) for name, t in checked.items())


def sample_block(sample: Sample, needs: tuple[str, ...], language: Language) -> str:
    """The fields a rubric shows, labelled in the prompt language; contexts numbered [1], [2], …"""
    labels, lines = _LABELS[language], []
    for name in needs:
        if name == "retrieved_contexts":
            contexts = sample.retrieved_contexts or ()
            shown = "\n".join(f"[{i}] {c}" for i, c in enumerate(contexts, 1)) if contexts else _NONE[language]
            lines.append(f"{labels[name]}:\n{shown}" if contexts else f"{labels[name]}: {shown}")
        else:
            lines.append(f"{labels[name]}: {getattr(sample, name)}")
    return "\n".join(lines)


def rubric_score(score: int, *, low: int, high: int) -> Outcome:
    """A user rubric's score for one sample: the judge's whole score, on the rubric's own scale.

    Formula: the score itself, as a float; not rescaled, so a 1-5 rubric is reported on 1–5 and a
    binary one on 0–1 (a mean over samples is then the share of samples that meet the criteria).
    LLM calls: 1.
    Degenerate: none; a score that is not a whole number on the scale is a parsing bug (the answer's
    shape rejects it) and raises ValueError.
    """
    if low >= high:
        raise ValueError(f"rubric: a scale needs low < high, got {low} to {high}")
    if isinstance(score, (bool, np.bool_)) or not isinstance(score, (int, np.integer)) or not low <= score <= high:
        raise ValueError(f"rubric: a score must be a whole number from {low} to {high}, got {score!r}")
    return Outcome.scored(float(score))


async def score(rubric: Rubric, judge: LLMJudge, sample: Sample, model: str, trace: Trace
                ) -> tuple[Outcome, str]:
    """One judge call: the rubric's criteria and fields in, a reason and a whole score on the scale out."""
    why_not = rubric.missing_language(judge.language)
    if why_not:
        raise JudgeFailed("undetermined", why_not)
    answer = await judge.ask(RUBRIC, {"criteria": rubric.criteria[judge.language], "low": str(rubric.low),
                                      "high": str(rubric.high),
                                      "sample": sample_block(sample, rubric.needs, judge.language)},
                             model, trace, shapes.RubricScore.on_scale(rubric.low, rubric.high))
    return rubric_score(answer.score, low=rubric.low, high=rubric.high), answer.reason
