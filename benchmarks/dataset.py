"""The in-memory shape of a retrieval dataset, whatever file format it came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Chunk:
    id: str
    text: str
    title: str = ""
    url: str = ""
    topic: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    relevant: dict[str, int] = field(default_factory=dict)
    relevant_urls: tuple[str, ...] = ()
    reference_answer: str | None = None
    topic: str = ""
    variant: str = ""
    responses: tuple[str, ...] = ()  # logged answers of the system under test, one per repeat (precomputed)


@dataclass(frozen=True)
class Warning:
    """A problem in the data that does not stop the run but must be seen in the report."""

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = ()


class ReportedData(Protocol):
    """What a report says about its input: a name for the run folder, warnings, and an identity block."""

    @property
    def name(self) -> str: ...

    @property
    def warnings(self) -> tuple[Warning, ...]: ...

    def report_block(self) -> dict[str, object]: ...


@dataclass(frozen=True)
class Dataset:
    name: str
    version: str
    language: str
    format: str
    content_sha256: str
    chunks: tuple[Chunk, ...]
    questions: tuple[Question, ...]
    warnings: tuple[Warning, ...] = ()

    def report_block(self) -> dict[str, object]:
        return {
            "name": self.name,
            "version": self.version,
            "language": self.language,
            "format": self.format,
            "content_sha256": self.content_sha256,
            "documents": len(self.chunks),
            "questions": len(self.questions),
        }

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
