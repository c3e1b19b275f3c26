"""What a chat call is and whom it asks, decided from the settings alone: the roles and their models, the
judges of a run and the answer's schema (where each model is asked: `chat.routing`).

Apart from the client (`chat.client`) because it needs no HTTP library: a command's checks and the judge's
metric declarations import it, and a refused command then never loads the openai client.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from benchmarks.config import Settings

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


TOP_LOGPROBS = 10  # alternatives asked for a verdict's first token (OpenAI allows up to 20)


def model_for(settings: Settings, role: Role) -> str | None:
    return getattr(settings, f"{role}_model") or settings.llm_model


def judge_models(settings: Settings) -> tuple[str, ...]:
    """The judges of a run: the configured list for multi-model evaluation, else the judge role's model."""
    return settings.llm_models or (str(model_for(settings, "judge")),)
