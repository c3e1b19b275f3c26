"""`--generator openai`: an OpenAI-compatible chat model answering from a RAG prompt template.

The template is a plain `str.format` file with {question} and {context} (bench ships one per
language; `generator_template` points to yours). Contexts are numbered in the prompt, in the
order given (rank order in tier 3), so a model citing "[2]" can be checked against items.jsonl.
Calls go through the LLM service (role generator): its retries, cache and usage counters apply.
"""

from __future__ import annotations

import hashlib
import string
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer, GenerationRequest, GeneratorName
from benchmarks.judge.prompts import Language
from benchmarks.services.llm import LLMService

VARIABLES = frozenset({"question", "context"})


@dataclass(frozen=True)
class RagTemplate:
    text: str
    source: str  # "bench:<language>" or the file's name, never a machine path
    sha256: str


def load_rag_template(path: Path | None, language: Language) -> RagTemplate:
    if path is None:
        raw, source = (files("benchmarks") / "prompts" / "rag" / f"{language}.txt").read_text("utf-8"), f"bench:{language}"
    elif not path.is_file():
        raise BenchError(f"{path}: generator template not found")
    else:
        raw, source = path.read_text(encoding="utf-8"), path.name
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(raw) if name is not None}
    except ValueError as exc:
        raise BenchError(f"{source}: not a valid template ({exc}); write literal braces as {{{{ and }}}}") from None
    if fields != VARIABLES:
        raise BenchError(f"{source}: a generator template must use exactly {{question}} and {{context}}, "
                         f"found {', '.join(sorted(f'{{{f}}}' for f in fields)) or 'no placeholder'}")
    return RagTemplate(raw, source, hashlib.sha256(raw.encode("utf-8")).hexdigest())


def numbered(contexts: tuple[str, ...]) -> str:
    return "\n\n".join(f"[{i}] {text}" for i, text in enumerate(contexts, start=1))


class OpenAIGenerator:
    name: GeneratorName = "openai"

    def __init__(self, service: LLMService, template: RagTemplate):
        self.service = service
        self.template = template
        self.model = service.model_for("generator")

    def describe(self) -> dict[str, Any]:
        return {"adapter": self.name, "model": self.model, "template": self.template.source,
                "template_sha256": self.template.sha256}

    async def answer(self, request: GenerationRequest) -> Answer:
        prompt = self.template.text.format_map({"question": request.question, "context": numbered(request.contexts)})
        completion = await self.service.complete([{"role": "user", "content": prompt}], role="generator",
                                                 repeat=request.repeat)
        if completion.status != "ok":
            return Answer.failed(completion.error or completion.status, completion.latency_ms)
        return Answer("ok", completion.text, completion.latency_ms, cached=completion.cached)
