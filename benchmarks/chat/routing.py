"""Where a chat model is asked: the run's default endpoint (`llm_base_url`), or a named provider's when the
model is written `<provider>:<model>` (`providers`), each endpoint with its own key and backend.

Decided from the settings alone and light (no HTTP library), so that a command's checks refuse an unknown
provider, a provider whose key variable is unset or a missing model in a second, before any work, and so that
reports name each model's endpoint the way its backend does. A name whose part before the first ':' is no
declared provider is a model of the default endpoint (Ollama's `qwen2.5:7b`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from benchmarks.chat.request import ROLES, Role
from benchmarks.config import Settings
from benchmarks.config.llm_settings import ChatBackendName
from benchmarks.config.provider_settings import Provider
from benchmarks.errors import BenchError, SettingError, closest
from benchmarks.transport.endpoints import endpoint_url
from benchmarks.transport.redaction import redact_url

if TYPE_CHECKING:  # checked before a refused command's heavy imports: pydantic is not one of its own
    from benchmarks.report_model import Judge

LOCAL_URL = "local"  # the local judge's endpoint, as reports and the reply cache name it
_UNCONFIGURED = ("set BENCH_LLM_BASE_URL or OPENAI_BASE_URL, BENCH_LLM_API_KEY or OPENAI_API_KEY, and llm_model "
                 "(bench.toml or BENCH_LLM_MODEL); or grade without an LLM with --judge offline")


@dataclass(frozen=True)
class ChatEndpoint:
    """One endpoint of a run's chat calls, with what opening its backend takes. `provider` is None for the
    default endpoint; `local` is the local judge's server, named `local` (its port is new every run, its weights
    are named beside it)."""

    backend: ChatBackendName
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)
    provider: str | None = None
    local: bool = False

    @property
    def setting(self) -> str:
        """How a message names this endpoint's URL setting."""
        return "llm_base_url" if self.provider is None else f"providers ({self.provider}): base_url"

    @property
    def cache_key(self) -> str:
        """The normalised URL the reply cache keys by (no credentials); a malformed one stops the run at once."""
        return LOCAL_URL if self.local else endpoint_url(str(self.base_url), setting=self.setting)

    @property
    def url(self) -> str:
        """The endpoint as reports name it, beside the model: a model name alone does not say which server, or
        which weights, answered. Any password masked."""
        return LOCAL_URL if self.local else redact_url(str(self.base_url))


@dataclass(frozen=True)
class Route:
    endpoint: ChatEndpoint
    model: str  # as the endpoint knows it: the name without its provider


def providers_of(settings: Settings) -> Mapping[str, Provider]:
    return {p.name: p for p in settings.providers or ()}


def default_endpoint(settings: Settings) -> ChatEndpoint:
    # a tier that has no judge does not read judge_backend
    local = getattr(settings, "judge_backend", None) == "local"
    return ChatEndpoint(settings.chat_backend, settings.llm_base_url, settings.llm_api_key, local=local)


def provider_endpoint(provider: Provider) -> ChatEndpoint:
    """The provider's endpoint with its key, read from the variable it names (None when it names none)."""
    key = os.environ.get(provider.api_key_env) if provider.api_key_env else None
    return ChatEndpoint(provider.backend, provider.base_url, key or None, provider=provider.name)


def route(settings: Settings, name: str) -> Route:
    """The endpoint `name` is asked at, and the model it is there."""
    provider, separated, model = name.partition(":")
    declared = providers_of(settings)
    if separated and provider in declared:
        return Route(provider_endpoint(declared[provider]), model)
    return Route(default_endpoint(settings), name)


def url_of(settings: Settings, name: str) -> str:
    """The endpoint a model is asked at, as reports name it."""
    return route(settings, name).endpoint.url


def judge_endpoints(judge: Judge, settings: Settings, models: Sequence[str]) -> Judge:
    """`judge` naming where the judges were asked: its `url` when every judge shares one endpoint, else its
    `endpoints`, each judge model's (the other left out of the report, not null)."""
    urls = {model: url_of(settings, model) for model in models}
    if len(set(urls.values())) == 1:
        judge.url = next(iter(urls.values()))
    else:
        judge.endpoints = urls
    return judge


def require_chat(settings: Settings, *, roles: Sequence[Role] = ROLES, judges: bool = False,
                 dry_run: bool = False) -> None:
    """Fail before any work when a chat call of these roles (and, with `judges`, of every judge model of a
    multi-model run) could not be made: a model unset, an unknown provider, a provider's key variable unset, a
    model its provider does not list, no default endpoint for a model without a provider. A dry run needs the
    models only. A refused setting is named as the user gave it (`Origins.naming`)."""
    asked = list(_asked(settings, roles, judges))
    if any(model is None for model, _ in asked):
        missing = ["llm_model"] if dry_run or settings.llm_base_url else ["llm_base_url", "llm_model"]
        raise BenchError(f"no LLM is configured (missing: {', '.join(missing)}): {_UNCONFIGURED}")
    declared = providers_of(settings)
    for name, setting in asked:
        assert name is not None
        provider, separated, model = name.partition(":")
        if separated and provider in declared:
            _require_provider(declared[provider], model, setting, dry_run=dry_run)
        elif not (dry_run or settings.llm_base_url):
            if separated and declared:
                close = closest(provider, declared, n=1)
                hint = f"; did you mean {close[0]}:{model}?" if close else ""
                raise SettingError(setting, f"'{name}' names no declared provider ({', '.join(declared)}), and a "
                                            f"model without one is asked at llm_base_url, which is unset{hint}")
            raise BenchError(f"no LLM is configured (missing: llm_base_url): {_UNCONFIGURED}")
        else:
            _require_url(route(settings, name).endpoint)


def _asked(settings: Settings, roles: Sequence[Role], judges: bool) -> Iterator[tuple[str | None, str]]:
    """Each model the run asks, with the setting that names it."""
    for role in roles:
        own = getattr(settings, f"{role}_model")
        yield own or settings.llm_model, f"{role}_model" if own else "llm_model"
    if judges:
        if settings.llm_models:
            yield from ((model, "llm_models") for model in settings.llm_models)
        elif "judge" not in roles:
            yield from _asked(settings, ("judge",), judges=False)


def _require_provider(provider: Provider, model: str, setting: str, *, dry_run: bool) -> None:
    where = f"provider '{provider.name}'"
    if provider.chat_models is not None and model not in provider.chat_models:
        close = closest(model, provider.chat_models, n=1)
        hint = f"; did you mean {provider.name}:{close[0]}?" if close else ""
        raise SettingError(setting, f"{where} lists no chat model '{model}' (its chat_models: "
                                    f"{', '.join(provider.chat_models)}){hint}")
    if dry_run:
        return
    if provider.api_key_env and not os.environ.get(provider.api_key_env):
        raise SettingError("providers", f"{where}: its api_key_env, {provider.api_key_env}, is not set in the "
                                        "environment")
    _require_url(provider_endpoint(provider))


def _require_url(endpoint: ChatEndpoint) -> None:
    """A malformed URL refused now, not at the first call."""
    if not endpoint.local and endpoint.base_url:
        endpoint_url(endpoint.base_url, setting=endpoint.setting)
