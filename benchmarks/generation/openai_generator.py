"""`--generator openai`: an OpenAI-compatible chat model answering from a RAG prompt template.

The template is a plain `str.format` file with {question} and {context} (bench ships one per
language; `generator_template` points to yours). Contexts are numbered in the prompt, in the
order given (rank order in tier 3), so a model citing "[2]" can be checked against items.jsonl.
Calls go through the LLM service (role generator): its retries, cache and usage counters apply.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.chat.backend import ChatBackend
from benchmarks.errors import BenchError
from benchmarks.generation.base import Answer, GenerationRequest, GeneratorName
from benchmarks.judge.llm.prompts import Language
from benchmarks.readers import templates
from benchmarks.readers.templates import Template
from benchmarks.report_model import GeneratorBlock

VARIABLES = frozenset({"question", "context"})


def load_rag_template(path: Path | None, language: Language) -> Template:
    template = templates.prompt_template(path, ("prompts", "rag", f"{language}.txt"), what="generator template",
                                         language=language)
    if template.fields != VARIABLES:
        raise BenchError(f"{template.source}: a generator template must use exactly {{question}} and {{context}}, "
                         f"found {', '.join(sorted(f'{{{f}}}' for f in template.fields)) or 'no placeholder'}")
    return template


def numbered(contexts: tuple[str, ...]) -> str:
    return "\n\n".join(f"[{i}] {text}" for i, text in enumerate(contexts, start=1))


class OpenAIGenerator:
    name: GeneratorName = "openai"

    def __init__(self, service: ChatBackend, template: Template):
        self.service = service
        self.template = template
        self.model = service.model_for("generator")

    def describe(self) -> GeneratorBlock:
        """The endpoint beside the model: one model name may be served by many servers, with other weights."""
        return GeneratorBlock(adapter=self.name, model=self.model, url=self.service.url_of(self.model),
                              template=self.template.source, template_sha256=self.template.sha256)

    async def answer(self, request: GenerationRequest) -> Answer:
        prompt = self.template.text.format_map({"question": request.question, "context": numbered(request.contexts)})
        completion = await self.service.complete([{"role": "user", "content": prompt}], role="generator",
                                                 repeat=request.repeat)
        if completion.status != "ok":
            return Answer.failed(completion.error or completion.status, completion.latency_ms)
        return Answer("ok", completion.text, completion.latency_ms, cached=completion.cached)
