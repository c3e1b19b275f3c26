"""A single-turn evaluation sample, whatever file it came from (RAGAS or bench column names)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import ClassVar

from benchmarks.inputs import InputSet

FIELDS = ("user_input", "retrieved_contexts", "response", "reference")


@dataclass(frozen=True)
class Sample:
    """RAGAS's SingleTurnSample fields; a field the file did not give is None, never a guessed value."""

    id: str
    user_input: str | None = None
    retrieved_contexts: tuple[str, ...] | None = None
    response: str | None = None
    reference: str | None = None
    # people's verdicts on this sample, by metric, on the metric's scale: what a judge's agreement is measured on
    labels: tuple[tuple[str, float], ...] = ()

    def missing(self, needed: tuple[str, ...]) -> list[str]:
        """The fields a metric needs that this sample lacks, by name, for a per-sample error. A text of
        whitespace alone is lacking too ("response (empty)"): an empty answer states nothing a judge could
        verify, and scoring it would give a number (a similarity of an empty string) that means nothing."""
        return [name if getattr(self, name) is None else f"{name} (empty)" for name in needed
                if getattr(self, name) is None or self.blank(name)]

    def blank(self, name: str) -> bool:
        """Whether a text field is given but holds whitespace alone."""
        value = getattr(self, name)
        return isinstance(value, str) and not value.strip()

    def label(self, metric: str) -> float | None:
        return dict(self.labels).get(metric)

    def texts(self) -> tuple[str, ...]:
        """Every text the sample gives (question, response, reference, contexts): what its language is told
        from, and what a dry run's token estimate counts."""
        return tuple(t for t in (self.user_input, self.response, self.reference, *(self.retrieved_contexts or ()))
                     if t)


@dataclass(frozen=True, kw_only=True)
class SampleSet(InputSet):
    """The samples of one file, identified like a dataset so reports compare only like with like."""

    samples: tuple[Sample, ...]
    unit: ClassVar[str] = "samples"

    def counts(self) -> dict[str, object]:
        return {"samples": len(self.samples)}

    def unit_texts(self) -> list[tuple[str, tuple[str, ...]]]:
        return [(s.id, s.texts()) for s in self.samples]

    def report_block(self) -> dict[str, object]:
        """The set's identity, plus that of its questions alone: `response` and `retrieved_contexts` are the
        system under test, so two versions of a RAG system answering the same questions compare by it."""
        return {**super().report_block(), "questions_sha256": self.questions_sha256()}

    def questions_sha256(self) -> str:
        """sha256 of each sample's id, user_input and reference, and its labels when it has some, in id order (the
        file's order does not matter, compare pairs samples by id): two judges compared on labels are compared
        on the same labels."""
        rows = sorted((s.id, s.user_input, s.reference, *([dict(s.labels)] if s.labels else [])) for s in self.samples)
        return hashlib.sha256(json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()
