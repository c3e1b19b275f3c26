"""What a chat call is and whom it asks, decided from the settings alone: the roles and their models, the
endpoint as keyed and as reported, the answer's schema, and the check that a call could be made at all.

Apart from the client (`chat.client`) because it needs no HTTP library: a command's checks and the judge's
metric declarations import it, and a refused command then never loads the openai client.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.transport.endpoints import endpoint_url
from benchmarks.transport.redaction import redact_url

Role = Literal["generator", "judge"]
Message = Mapping[str, Any]  # {"role": "system" | "user" | "assistant", "content": str}

ROLES: tuple[Role, ...] = ("generator", "judge")


@dataclass(frozen=True)
class ResponseSchema:
    """The JSON schema a call's answer must follow, under the name `response_format` gives it."""

    name: str
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class ChatRequest:
    messages: Sequence[Message]
    role: Role
    model: str | None = None  # default: the role's model
    options: Mapping[str, Any] = field(default_factory=dict)  # chat parameters; None drops a default
    schema: ResponseSchema | None = None


LOCAL_URL = "local"  # the local judge's endpoint, as reports and the reply cache name it
TOP_LOGPROBS = 10  # alternatives asked for a verdict's first token (OpenAI allows up to 20)


def model_for(settings: Settings, role: Role) -> str | None:
    return getattr(settings, f"{role}_model") or settings.llm_model


def _local(settings: Settings) -> bool:
    """Whether the endpoint is the local judge bench started (a tier that has no judge does not read the setting)."""
    return getattr(settings, "judge_backend", None) == "local"


def llm_endpoint(settings: Settings) -> str:
    """The normalised URL the reply cache keys by (no credentials); a malformed one stops the run at once. The
    local judge's is `local`: its port is new every run, its weights are in the key (the served model's path)."""
    return LOCAL_URL if _local(settings) else endpoint_url(str(settings.llm_base_url), setting="llm_base_url")


def llm_url(settings: Settings) -> str:
    """The endpoint as reports name it, beside the model: a model name alone does not say which server, or which
    weights, answered. Any password masked; the local judge's is `local` (its weights are named beside it)."""
    return LOCAL_URL if _local(settings) else redact_url(str(settings.llm_base_url))


def require_llm(settings: Settings, *, roles: Sequence[Role] = ROLES, dry_run: bool = False) -> None:
    """Fail before any work when a chat call of these roles could not be made; a dry run needs models only."""
    missing = [] if dry_run or settings.llm_base_url else ["llm_base_url"]
    if any(model_for(settings, role) is None for role in roles):
        missing.append("llm_model")
    if missing:
        raise BenchError(
            f"no LLM is configured (missing: {', '.join(missing)}): set BENCH_LLM_BASE_URL or "
            "OPENAI_BASE_URL, BENCH_LLM_API_KEY or OPENAI_API_KEY, and llm_model (bench.toml or "
            "BENCH_LLM_MODEL); or grade without an LLM with --judge offline"
        )


def judge_models(settings: Settings) -> tuple[str, ...]:
    """The judges of a run: the configured list for multi-model evaluation, else the judge role's model."""
    return settings.llm_models or (str(model_for(settings, "judge")),)
