"""The in-memory shape of a retrieval dataset, whatever file format it came from."""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
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

    @cached_property
    def corpus_digest(self) -> str:
        """`chunks_digest` of the corpus, computed once per dataset (a few seconds at a million chunks): the store
        compares it with the one its rows were made equal to, and a dataset read back from the checked-set cache
        (benchmarks.readers.checked) comes with it."""
        return chunks_digest(self.chunks)

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


DIGEST_SLICE = 100_000  # chunks joined at once for the corpus digest


def chunks_digest(chunks: Sequence[Chunk]) -> str:
    """One sha256 over every chunk's id, text, title and url, in the corpus's order: equal digests mean equal
    stored rows, so a rerun need not compare them one by one. Each field of a slice of chunks goes in as its
    values' lengths then their concatenation (which the lengths split back unambiguously), so the work per
    chunk is done by C loops."""
    digest = hashlib.sha256()
    for start in range(0, len(chunks), DIGEST_SLICE):
        part = chunks[start : start + DIGEST_SLICE]
        for name in ("id", "text", "title", "url"):
            values = list(map(attrgetter(name), part))
            digest.update(array("q", map(len, values)).tobytes())
            digest.update("".join(values).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()
