"""The in-memory shape of a retrieval dataset, whatever file format it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from benchmarks.inputs import InputSet


@dataclass(frozen=True, slots=True)  # slots: a million of them are held, each without a __dict__
class Chunk:
    id: str
    text: str
    title: str = ""
    url: str = ""
    topic: str = ""


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)
    relevant_urls: tuple[str, ...] = ()
    reference_answer: str | None = None
    topic: str = ""
    variant: str = ""
    responses: tuple[str, ...] = ()  # logged answers of the system under test, one per repeat (precomputed)


@dataclass(frozen=True, kw_only=True)
class Dataset(InputSet):
    """A corpus and its questions. Everything known about a question (its judgments, reference answer, logged
    responses) lives on the question, so a `--limit` sample of questions carries exactly its own data while the
    corpus, which every question searches, stays whole."""

    version: str
    chunks: tuple[Chunk, ...]
    questions: tuple[Question, ...]
    unit: ClassVar[str] = "questions"

    def counts(self) -> dict[str, object]:
        return {"version": self.version, "documents": len(self.chunks), "questions": len(self.questions)}

    def url_qrels(self) -> dict[str, dict[str, int]]:
        """Judgments at page level: a url is as relevant as its best judged chunk."""
        url_of = {c.id: c.url for c in self.chunks}
        qrels: dict[str, dict[str, int]] = {}
        for q in self.questions:
            judged: dict[str, int] = {url: 1 for url in q.relevant_urls}
            for chunk_id, grade in q.relevant.items():
                url = url_of.get(chunk_id, "")
                if url:
                    judged[url] = max(judged.get(url, 0), grade)
            qrels[q.id] = judged
        return qrels

    def chunk_qrels(self) -> dict[str, dict[str, int]]:
        return {q.id: dict(q.relevant) for q in self.questions}
