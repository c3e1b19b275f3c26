"""The chat endpoint, its models, sampling, limits and cache, shared by the generator and every judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from benchmarks.config.coercion import prices_table
from benchmarks.config.declare import ABOVE_0, AT_LEAST_1, Range, setting

ChatBackendName = Literal["openai"]  # chat/backend.py's BACKENDS, by name (checked equal by a test)
CHAT_BACKENDS: tuple[ChatBackendName, ...] = get_args(ChatBackendName)


@dataclass(frozen=True)
class LLMSettings:
    chat_backend: ChatBackendName = setting(
        "openai", "What serves the chat calls at llm_base_url: openai (any OpenAI-compatible endpoint: OpenAI, "
        "OpenRouter, vLLM, llama.cpp's server, Ollama, LiteLLM). A provider of `providers` names its own."
    )
    llm_base_url: str | None = setting(
        None,
        "Base URL of the OpenAI-compatible chat endpoint (https://api.openai.com/v1, "
        "https://openrouter.ai/api/v1, a local vLLM).",
        env=("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL"),
        url=True,
    )
    llm_api_key: str | None = setting(
        None,
        "API key of the chat endpoint (environment only).",
        env=("BENCH_LLM_API_KEY", "OPENAI_API_KEY"),
        secret=True,
    )
    llm_model: str | None = setting(None, "Default chat model, e.g. google/gemini-2.5-flash.")
    llm_models: tuple[str, ...] | None = setting(
        None,
        "Chat models compared by multi-model evaluation (bench.toml: a list; environment: comma-separated). "
        "Unset means llm_model alone.",
    )
    generator_model: str | None = setting(None, "Chat model that writes answers (default: llm_model).")
    judge_model: str | None = setting(None, "Chat model that grades answers (default: llm_model).")
    llm_temperature: float = setting(
        0.0, "Sampling temperature of every chat call (0 for repeatable runs).", Range(0, 2)
    )
    llm_max_tokens: int = setting(1000, "Most tokens a chat call may generate.", AT_LEAST_1)
    llm_top_p: float = setting(1.0, "Nucleus sampling top_p of every chat call.", Range(0, 1, low_open=True))
    llm_concurrency: int = setting(
        16, "Most chat calls in flight at once; fewer while the endpoint times out or answers 429/503.",
        AT_LEAST_1,
    )
    llm_structured_output: Literal["auto", "json_schema", "json_object", "off"] = setting(
        "auto", "How judge calls ask for JSON: json_schema sends each answer's schema as response_format (a grammar "
        "on llama.cpp, vLLM, Ollama), json_object asks for any JSON object, off relies on the prompt alone; auto tries "
        "json_schema, then json_object, then off, once per endpoint and model."
    )
    llm_max_attempts: int = setting(
        6, "Tries per chat call on 429, 5xx, timeouts and connection errors (backoff 2 s doubling to 30 s).",
        AT_LEAST_1,
    )
    llm_timeout_s: float = setting(
        120.0, "Seconds one chat request may take before it counts as timed out.", ABOVE_0
    )
    llm_cache: bool = setting(
        True, "Keep chat replies in a cache under data_dir, so a rerun pays only for prompts it has not sent."
    )
    llm_prices: dict[str, dict[str, float]] | None = setting(
        None,
        "USD per 1M tokens by model, for the cost in reports. bench.toml, at the end of the file: "
        '[llm_prices] then one line per model, "openai/gpt-4o-mini" = { input = 0.15, output = 0.6 }; '
        "environment: the same table as JSON.",
        parse=prices_table,
    )
