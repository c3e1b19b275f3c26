"""One `ChatBackend` over several endpoints: each model asked at its provider's (`chat.routing`), through that
endpoint's own backend, with its own key, cache key, concurrency bound and counters.

What callers see is unchanged: a completion names the model as the run named it (`api:gpt-4o-mini`), so judges,
journals and reports tell two providers' models apart even when both serve the same name.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Self

from benchmarks.chat.request import Role, model_for
from benchmarks.chat.routing import ChatEndpoint, route, url_of
from benchmarks.report_model import LlmUsage, StructuredOutput

if TYPE_CHECKING:
    from benchmarks.chat.backend import ChatBackend
    from benchmarks.chat.client import Completion
    from benchmarks.chat.request import Message, ResponseSchema
    from benchmarks.config import Settings

class RoutedChat:
    """Opened by `open_chat` when the settings declare providers, for the models the run asks (`models`, their
    routes checked before any work): each endpoint's backend is opened at once, so the run's concurrency is sized
    to them all; a model asked later opens its endpoint's when first routed."""

    def __init__(self, settings: Settings, roles: Sequence[Role], models: Iterable[str],
                 opens: Callable[[Settings, ChatEndpoint, Sequence[Role]], ChatBackend]):
        self.settings, self.roles, self._opens = settings, roles, opens
        self._backends: dict[str, ChatBackend] = {}  # by backend and endpoint, as its cache keys it
        self._routes: dict[str, tuple[str, str]] = {}  # a model as the run names it -> (backend key, name there)
        for name in models:
            self._routed(name)

    def _routed(self, name: str) -> tuple[ChatBackend, str]:
        """The backend `name` is asked through, and the model it is there."""
        found = route(self.settings, name)
        key = f"{found.endpoint.backend} {found.endpoint.cache_key}"
        if key not in self._backends:
            self._backends[key] = self._opens(self.settings, found.endpoint, self.roles)
        self._routes[name] = (key, found.model)
        return self._backends[key], found.model

    def model_for(self, role: Role) -> str:
        return str(model_for(self.settings, role))

    def url_of(self, model: str) -> str:
        return url_of(self.settings, model)

    async def require_reachable(self, models: Iterable[str]) -> None:
        by_backend: dict[int, tuple[ChatBackend, list[str]]] = {}
        for name in models:
            backend, model = self._routed(name)
            by_backend.setdefault(id(backend), (backend, []))[1].append(model)
        await asyncio.gather(*(backend.require_reachable(asked) for backend, asked in by_backend.values()))

    async def complete(self, messages: Sequence[Message], *, role: Role, model: str | None = None,
                       repeat: int = 0, schema: ResponseSchema | None = None, prefix: bool = False,
                       **options: Any) -> Completion:
        name = model or self.model_for(role)
        backend, asked = self._routed(name)
        completion = await backend.complete(messages, role=role, model=asked, repeat=repeat, schema=schema,
                                            prefix=prefix, **options)
        return replace(completion, model=name)

    def discard(self, completion: Completion) -> None:
        backend, asked = self._routed(completion.model)
        backend.discard(replace(completion, model=asked))

    async def gives_logprobs(self, model: str) -> bool:
        backend, asked = self._routed(model)
        return await backend.gives_logprobs(asked)

    async def open_at_once(self) -> int:
        """Each endpoint's own, summed: every endpoint is kept busy while the units of the others wait on it."""
        return sum([await backend.open_at_once() for backend in self._backends.values()])

    def usage_report(self) -> LlmUsage:
        """One endpoint's report as it is; with several, their counts and cost summed and each endpoint's report
        under `by_endpoint`, by its URL."""
        by_key = {key: backend.usage_report() for key, backend in self._backends.items()}
        reports = list(by_key.values())
        if len(reports) == 1:
            return reports[0].model_copy(update={"structured_output": self._structured_output(by_key)})
        costs = [report.cost_usd for report in reports]

        def summed(name: str) -> int:
            return sum(getattr(report, name) or 0 for report in reports)

        return LlmUsage(calls=summed("calls"), http_requests=summed("http_requests"), cache_hits=summed("cache_hits"),
                        api_errors=summed("api_errors"), truncated=summed("truncated"),
                        prompt_tokens=summed("prompt_tokens"), completion_tokens=summed("completion_tokens"),
                        cost_usd=None if any(cost is None for cost in costs) else math.fsum(c for c in costs if c),
                        structured_output=self._structured_output(by_key),
                        by_endpoint={str(report.endpoint): report for report in reports})

    def _structured_output(self, by_key: dict[str, LlmUsage]) -> StructuredOutput:
        """How each model was asked for JSON, by the name the run gave it (`api:gpt-4o-mini`, as the report's judge
        models name it, so `bench compare` sees a changed mode), read from its endpoint's report."""
        found: dict[str, str] = {}
        for name, (key, asked) in sorted(self._routes.items()):
            recorded = by_key[key].structured_output
            mode = recorded.by_model.get(asked) if recorded and recorded.by_model else None
            if mode is not None:
                found[name] = mode
        return StructuredOutput(setting=self.settings.llm_structured_output, by_model=found)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for backend in self._backends.values():
            await backend.__aexit__(*exc)
