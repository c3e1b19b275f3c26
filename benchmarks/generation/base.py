"""What a system under test is to bench: (question, contexts) in, an answer with a status out.

An adapter never raises for a failed answer: like the LLM service, it returns an `Answer` with
status `api_error` and the reason, so one failed question is counted, not fatal. `describe()` is
the adapter's block in the report's provenance (adapter name, model or endpoint, template hash),
so every number says which system produced the answers it grades.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from benchmarks.report_model import GeneratorBlock

Status = Literal["ok", "api_error", "missing"]  # missing: a precomputed answer the dataset lacks
GeneratorName = Literal["openai", "http", "precomputed", "extractive"]


@dataclass(frozen=True)
class GenerationRequest:
    question_id: str
    question: str
    contexts: tuple[str, ...]
    repeat: int  # 0-based; an adapter with a cache keys on it, so repeats are real generations


@dataclass(frozen=True)
class Answer:
    """A system under test's answer to one request, whichever adapter produced it.

    Its own type, at the generation level, because it is the one shape every adapter returns: it adds the
    `missing` status (a precomputed answer the dataset lacks) and keeps only what tiers 2 and 3 grade and
    report, not the services' per-call details (attempts, model, usage) of `Completion` or `EndpointReply`.
    """

    status: Status
    text: str | None
    latency_ms: float
    cached: bool = False
    error: str | None = None

    @classmethod
    def failed(cls, error: str, latency_ms: float = 0.0) -> Answer:
        return cls("api_error", None, latency_ms, error=error)


class Generator(Protocol):
    name: GeneratorName

    def describe(self) -> GeneratorBlock: ...

    async def answer(self, request: GenerationRequest) -> Answer: ...
