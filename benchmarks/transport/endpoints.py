"""Which server answered: an OpenAI-compatible endpoint named so that two servers never pass for one.

A model name alone does not say which weights answered: llama.cpp's server, vLLM's --served-model-name,
Ollama and gateways serve whatever they loaded under any alias. What bench caches (vectors, chat replies)
is therefore keyed by the endpoint's normalised URL and, where the server says it, by what it serves.

The URL is normalised once, here, for every endpoint bench caches from: scheme, host and port (the
scheme's default port left out) and path (no trailing slash), lower-case host; never the user, password,
query or fragment, which may hold credentials and do not choose the server.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from benchmarks.errors import BenchError
from benchmarks.transport.redaction import redact_url

DEFAULT_PORTS = {"http": 80, "https": 443}
# what a /models entry says about the weights behind its name; never `created`, which vLLM and llama.cpp set
# to the time of the request, nor vLLM's `permission`, whose ids are random per request
LISTED_FIELDS = ("root", "parent")  # vLLM: the weights' path or hub id; a LoRA adapter's base model
# llama.cpp's `meta` of the loaded file; not `n_ctx`, the slot's context size, a server option
LLAMA_META = ("vocab_type", "n_vocab", "n_ctx_train", "n_embd", "n_params", "size", "ftype")


def endpoint_url(base_url: str, *, setting: str) -> str:
    """`scheme://host[:port]/path` of a base URL, the same for every spelling of one server's address."""
    try:
        parts = urlsplit(base_url.strip())
        port = parts.port
    except ValueError:  # a port that is no number, an unclosed IPv6 bracket
        raise BenchError(f"{setting}{_shown(base_url)} has an invalid host or port") from None
    host = (parts.hostname or "").lower()
    if not host or not parts.scheme:
        raise BenchError(f"{setting}{_shown(base_url)} is not a URL (http[s]://host[:port]/path)")
    if ":" in host:
        host = f"[{host}]"  # IPv6
    if port == DEFAULT_PORTS.get(parts.scheme):
        port = None
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{parts.path.rstrip('/')}"


def endpoint_identity(base_url: str, *, setting: str = "embedding_base_url") -> str:
    """`host[:port]/path`: the normalised URL without its scheme, as an embedding model's id names it."""
    return endpoint_url(base_url, setting=setting).split("://", 1)[1]


def props_url(base_url: str) -> str:
    """llama.cpp's `/props`, at the server's root rather than under `/v1`. The user and password stay, so the
    request authenticates as the base URL's do (they are sent to the same server)."""
    parts = urlsplit(base_url.strip())
    root = parts.path.rstrip("/").removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, f"{root}/props", "", ""))


def served_identity(models: Any, props: Any, model: str) -> dict[str, Any] | None:
    """What the endpoint says it serves under `model`, from its `/models` list and llama.cpp's `/props`
    (either may be None: not answered). None when it says nothing that tells weights apart: OpenAI's own
    list and Ollama's name models only, so their replies are keyed by URL and model alone."""
    found: dict[str, Any] = {}
    entry = _listed(models, model)
    if entry is not None:
        found.update({name: entry[name] for name in LISTED_FIELDS if entry.get(name) is not None})
        meta = entry.get("meta")
        if isinstance(meta, Mapping):
            kept = {name: meta[name] for name in LLAMA_META if name in meta}
            if kept:
                found["meta"] = kept
    if isinstance(props, Mapping) and isinstance(props.get("model_path"), str):
        found["model_path"] = props["model_path"]
    return found or None


def _shown(base_url: str) -> str:
    """The URL for an error message, its password masked; left out without `scheme://`, where `redact_url` would
    read it as libpq's key=value form and could not tell a user:password@ from the host."""
    return f" {redact_url(base_url)}" if "://" in base_url else ""


def _listed(models: Any, model: str) -> Mapping[str, Any] | None:
    """The `/models` entry of `model`, by id or (llama.cpp) by one of its aliases."""
    data = models.get("data") if isinstance(models, Mapping) else None
    for entry in data if isinstance(data, list) else ():
        if not isinstance(entry, Mapping):
            continue
        aliases = entry.get("aliases")
        if entry.get("id") == model or (isinstance(aliases, list) and model in aliases):
            return entry
    return None
