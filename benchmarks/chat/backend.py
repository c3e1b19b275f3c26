"""What bench needs of a chat model service, whatever serves it: the seam for a provider that is not
OpenAI-compatible.

Judges, generators and tiers hold a `ChatBackend`, never a client class, and open one with `open_chat`. The one
shipped is `client.LLMService` (any OpenAI-compatible endpoint: OpenAI, vLLM, llama.cpp's server, Ollama,
LiteLLM); another provider is a module with a class that has these members, registered in BACKENDS. Caching,
retries and counting are each backend's own: what the rest of bench reads is the `Completion` it returns and
its `usage_report()`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:
    from benchmarks.chat.client import Completion
    from benchmarks.chat.request import Message, ResponseSchema, Role
    from benchmarks.config import Settings
    from benchmarks.report_model import LlmUsage

# backend name -> "module:class" of a class built as cls(settings, roles=roles); imported when opened
BACKENDS = {"openai": "benchmarks.chat.client:LLMService"}
SHIPPED = "openai"


class ChatBackend(Protocol):
    url: str  # the endpoint, as reports name it (never a password)

    def model_for(self, role: Role) -> str:
        """The model a role (judge, generator) is answered by."""

    async def complete(self, messages: Sequence[Message], *, role: Role, model: str | None = None,
                       repeat: int = 0, schema: ResponseSchema | None = None, prefix: bool = False,
                       **options: Any) -> Completion:
        """One chat completion: an ok text or why there is none (never an exception for the service's errors)."""

    def discard(self, completion: Completion) -> None:
        """Forget a reply that proved unusable, so a rerun asks again."""

    async def gives_logprobs(self, model: str) -> bool:
        """Whether the model's first-token log-probabilities come with its replies."""

    async def open_at_once(self) -> int:
        """How many calls the service takes at once (what a run's concurrency is sized to)."""

    def usage_report(self) -> LlmUsage:
        """Calls, cache hits, errors, tokens and cost, for the report's `volatile.llm`."""

    async def __aenter__(self) -> Self: ...

    async def __aexit__(self, *exc: object) -> None: ...


def open_chat(settings: Settings, *, roles: Sequence[Role], backend: str = SHIPPED) -> ChatBackend:
    """The chat backend a run asks, for the given roles (checked configured before any work)."""
    module, _, name = BACKENDS[backend].partition(":")
    opened: ChatBackend = getattr(importlib.import_module(module), name)(settings, roles=roles)
    return opened
