"""The system under test in tiers 2 and 3: how answers are produced, and how often."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchmarks.config.declare import AT_LEAST_1, setting


@dataclass(frozen=True)
class GenerationSettings:
    generator: Literal["openai", "http", "precomputed", "extractive"] = setting(
        "openai",
        "The system under test in tiers 2 and 3. openai: generator_model with a RAG prompt template; http: your "
        "RAG service over HTTP; precomputed: the answers already in the dataset (a response field); extractive: "
        "an offline baseline that answers with the context sentences closest to the question.",
    )
    generator_template: Path | None = setting(
        None, "RAG prompt template for the openai generator, with {question} and {context} (default: bench's, "
        "in the dataset's language)."
    )
    generator_http_url: str | None = setting(
        None, "http generator: URL your RAG service answers a question at.", url=True
    )
    generator_http_request: str = setting(
        '{"question": "{question}", "contexts": "{contexts}"}',
        "http generator: JSON body template. A string holding exactly {contexts} becomes the list of contexts; "
        "{question}, {context} (contexts joined) and {question_id} are filled in inside strings.",
    )
    generator_http_response_path: str = setting(
        "answer", "http generator: where the answer is in the response JSON, as a dotted path (data.answer, "
        "choices.0.text)."
    )
    generator_http_api_key: str | None = setting(
        None, "http generator: bearer token sent as Authorization (environment only).", secret=True
    )
    extractive_sentences: int = setting(2, "extractive generator: context sentences per answer.", AT_LEAST_1)
    repeats: int = setting(
        2, "Tiers 2 and 3: generations per question (exact-match rate and semantic consistency need 2); "
        "bench judge: scorings per item.", AT_LEAST_1
    )
