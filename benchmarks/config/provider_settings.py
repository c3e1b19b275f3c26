"""Named chat providers: several endpoints in one run, each with its own base URL and key, so judges from two
providers (a local server and an API model, say) grade the same samples.

A provider is declared once (bench.toml's `[[providers]]` tables, or BENCH_PROVIDERS as the same list in
JSON) and named where a model is: `llm_models = ["local:qwen2.5-7b", "api:openai/gpt-4o-mini"]` asks each
model at its provider's endpoint. The key itself is never a setting: a provider names the environment
variable that holds it (`api_key_env`), read when the run checks and opens its chat backends, so it is in
no file, report, log or argument list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from benchmarks.config.coercion import first_repeated, from_json_text
from benchmarks.config.declare import setting
from benchmarks.config.llm_settings import CHAT_BACKENDS, ChatBackendName
from benchmarks.errors import BenchError, closest

_NAME = re.compile(r"[A-Za-z0-9_.-]+")  # no ':' (it separates the provider from the model) and no spaces
_KEYS = ("name", "base_url", "api_key_env", "chat_models", "backend")


@dataclass(frozen=True)
class Provider:
    """One chat endpoint of a run, as declared. `chat_models`, when given, are the only models a run may ask
    of it (a mistyped model is then refused before any call, as the seed's chat-models list reads)."""

    name: str
    base_url: str
    api_key_env: str | None = None
    chat_models: tuple[str, ...] | None = None
    backend: ChatBackendName = "openai"


def providers_list(raw: Any, where: str) -> tuple[Provider, ...]:
    """The `providers` list checked: each a table of the known keys with a name and a base URL; no name twice."""
    raw = from_json_text(raw, f"{where}: expected a list of provider tables")
    if not isinstance(raw, list):
        raise BenchError(f"{where}: expected a list of provider tables ([[providers]] in bench.toml), got {raw!r}")
    providers = tuple(_provider(entry, f"{where}[{index}]") for index, entry in enumerate(raw))
    repeated = first_repeated([provider.name for provider in providers])
    if repeated is not None:
        raise BenchError(f"{where}: provider '{repeated}' is declared twice")
    return providers


def _provider(entry: Any, where: str) -> Provider:
    if not isinstance(entry, dict):
        raise BenchError(f"{where}: expected a table with name, base_url, api_key_env, chat_models, got {entry!r}")
    name = entry.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise BenchError(f"{where}: 'name' must be a word of letters, digits, '_', '.' or '-', got {name!r}")
    where = f"{where} ({name})"
    for key in entry:
        if key not in _KEYS:
            close = closest(key, _KEYS, n=1)
            raise BenchError(f"{where}: unknown key '{key}'" + (f" (did you mean {close[0]}?)" if close else
                                                                f" (known: {', '.join(_KEYS)})"))
    base_url = entry.get("base_url")
    if not isinstance(base_url, str) or not base_url.strip():
        raise BenchError(f"{where}: 'base_url' is missing (the URL its chat calls go to)")
    key_env = entry.get("api_key_env")
    if key_env is not None and (not isinstance(key_env, str) or not key_env.strip()):
        raise BenchError(f"{where}: 'api_key_env' must name an environment variable, got {key_env!r}")
    models = entry.get("chat_models")
    if models is not None and (not isinstance(models, list) or not models
                               or not all(isinstance(m, str) and m for m in models)):
        raise BenchError(f"{where}: 'chat_models' must be a list of model names, got {models!r}")
    backend = next((known for known in CHAT_BACKENDS if known == entry.get("backend", "openai")), None)
    if backend is None:
        raise BenchError(f"{where}: 'backend' must be one of {', '.join(CHAT_BACKENDS)}, got {entry['backend']!r}")
    return Provider(name, base_url.strip(), key_env, None if models is None else tuple(models), backend)


@dataclass(frozen=True)
class ProviderSettings:
    providers: tuple[Provider, ...] | None = setting(
        None,
        "Named chat endpoints, for judges from several providers in one run: name a model '<provider>:<model>' in "
        "llm_models, judge_model or generator_model to ask it there. bench.toml, at the end of the file, one "
        "table each: [[providers]] then name = \"api\", base_url = \"https://openrouter.ai/api/v1\", api_key_env = "
        "\"OPENROUTER_API_KEY\" (the variable holding its key; none for a local server), optionally chat_models = "
        "[...] (the only models it may be asked) and backend = \"openai\"; environment: the same list as JSON.",
        parse=providers_list,
    )
