"""What bench needs of a chat model service, whatever serves it: the seam for a provider that is not
OpenAI-compatible.

Judges, generators and tiers hold a `ChatBackend`, never a client class, and open one with `open_chat`. The one
shipped is `client.LLMService` (any OpenAI-compatible endpoint: OpenAI, vLLM, llama.cpp's server, Ollama,
LiteLLM); another provider is a module with a class that has these members, registered in BACKENDS and named in
the `chat_backend` setting's choices. Caching, retries, counting and the endpoint's probe are each backend's own:
what the rest of bench reads is the `Completion` it returns, its `usage_report()` and `url_of(model)`.

With named providers (`providers`), a run's models may live at several endpoints: `open_chat` then gives a
`routed.RoutedChat`, one backend per endpoint behind the same members.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, Self

from benchmarks.chat.request import ROLES, judge_models, model_for
from benchmarks.chat.routed import RoutedChat
from benchmarks.chat.routing import ChatEndpoint, default_endpoint, require_chat
from benchmarks.config.llm_settings import ChatBackendName

if TYPE_CHECKING:
    from benchmarks.chat.client import Completion
    from benchmarks.chat.request import Message, ResponseSchema, Role
    from benchmarks.config import Settings
    from benchmarks.report_model import LlmUsage


class ChatBackend(Protocol):
    def model_for(self, role: Role) -> str:
        """The model a role (judge, generator) is answered by."""

    def url_of(self, model: str) -> str:
        """The endpoint `model` is asked at, as reports name it (never a password nor a key)."""

    async def require_reachable(self, models: Iterable[str]) -> None:
        """The endpoint reachable, or one BenchError naming it: awaited before a tier's own costly preparation
        (embedding a corpus), so a fresh run against a service that is down fails in seconds. A backend whose
        cache answers these models may skip it, so a fully cached rerun works offline."""

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


# a backend built for one endpoint: (the run's settings, the endpoint, the roles it answers)
Opener = Callable[["Settings", ChatEndpoint, Sequence["Role"]], ChatBackend]


def _openai_compatible(settings: Settings, at: ChatEndpoint, roles: Sequence[Role]) -> ChatBackend:
    from benchmarks.chat.client import LLMService  # imported when opened: a refused command never loads openai

    return LLMService(settings, at=at, roles=roles)


# the chat backends by name, as the `chat_backend` setting and a provider's `backend` choose them
BACKENDS: dict[ChatBackendName, Opener] = {"openai": _openai_compatible}


def open_endpoint(settings: Settings, at: ChatEndpoint, roles: Sequence[Role]) -> ChatBackend:
    """The backend its endpoint names, opened for it."""
    return BACKENDS[at.backend](settings, at, roles)


def open_chat(settings: Settings, *, roles: Sequence[Role] = ROLES, judges: bool = False) -> ChatBackend:
    """The chat backend a run asks, for the given roles and, with `judges`, every judge model of a multi-model run
    (checked configured before any work). Without named providers, the default endpoint's backend itself."""
    require_chat(settings, roles=roles, judges=judges)
    if not settings.providers:
        return open_endpoint(settings, default_endpoint(settings), roles)
    asked = [model for role in roles if (model := model_for(settings, role)) is not None]
    return RoutedChat(settings, roles, [*asked, *(judge_models(settings) if judges else ())], open_endpoint)
