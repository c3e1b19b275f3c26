"""The `http` adapter: the user's own RAG service, called over HTTP with the configured JSON mapping.

It is the live system under test, so nothing is cached: every repeat is a real call, and repeat
consistency measures the service, not bench's cache.
"""

from __future__ import annotations

import asyncio
import random as randomness
from typing import Self

from benchmarks.config import Settings
from benchmarks.generation.base import Answer, GenerationRequest, GeneratorName
from benchmarks.report_model import GeneratorBlock, HttpUsage
from benchmarks.transport.http_endpoint import EndpointConfig, HttpEndpoint
from benchmarks.transport.retry import Random, Sleep

TEXT_VARIABLES = ("question", "question_id", "context")
LIST_VARIABLES = ("contexts",)
CONTEXT_SEPARATOR = "\n\n"


class HttpGenerator:
    name: GeneratorName = "http"

    def __init__(self, config: EndpointConfig, *, sleep: Sleep = asyncio.sleep, random: Random = randomness.random):
        self.config = config
        self.endpoint = HttpEndpoint(config, sleep=sleep, random=random)

    @classmethod
    def from_settings(cls, settings: Settings, *, sleep: Sleep = asyncio.sleep, random: Random = randomness.random
                      ) -> Self:
        """Checks the generator_http_* settings at once, so a bad template stops the run before any call."""
        return cls(endpoint_config(settings), sleep=sleep, random=random)

    def describe(self) -> GeneratorBlock:
        endpoint = self.config.provenance()
        return GeneratorBlock(adapter=self.name, url=endpoint.url,
                              request_template_sha256=endpoint.request_template_sha256,
                              response_path=endpoint.response_path)

    async def answer(self, request: GenerationRequest) -> Answer:
        reply = await self.endpoint.call({
            "question": request.question,
            "question_id": request.question_id,
            "contexts": list(request.contexts),
            "context": CONTEXT_SEPARATOR.join(request.contexts),
        })
        return Answer(reply.status, reply.text, reply.latency_ms, error=reply.error)

    def usage_report(self) -> HttpUsage:
        return self.endpoint.usage_report()

    async def aclose(self) -> None:
        await self.endpoint.aclose()

    async def __aenter__(self) -> Self:
        await self.endpoint.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def endpoint_config(settings: Settings) -> EndpointConfig:
    """The generator_http_* settings, checked: a bad template stops the run before any call."""
    return EndpointConfig.from_settings(settings, "generator", texts=TEXT_VARIABLES, lists=LIST_VARIABLES)
