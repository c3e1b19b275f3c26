"""The report's volatile block: what differs from run to run on the same code and data (times, caches, this
machine's folders), kept apart so the rest of the report diffs quietly. Services report their own part
(the chat client its `LlmUsage`, the embedder its `EmbeddingCache`), tiers and the runner the rest."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from benchmarks.report_model._block import Block, Number


class Latency(Block):
    n: int = Field(description="The calls or searches measured (replies from a cache left out).")
    avg: Number | None = Field(default=None, description="Their mean, in milliseconds.")
    p50: Number | None = Field(default=None, description="Their median, in milliseconds.")
    p95: Number | None = Field(default=None, description="Their 95th percentile, in milliseconds.")
    what: str | None = Field(default=None, description="Which calls or searches were measured.")
    limits: str | None = Field(default=None, description="Tier 1: where the measurement stopped.")


class RetrievalTiming(Block):
    search: str | None = Field(default=None, description="The search that ran: numpy exact or pgvector HNSW.")
    vectors_read_seconds: Number | None = Field(
        default=None, description="Time reading the stored vectors for exact search.")
    vectors_read_from: str | None = Field(
        default=None, description="Where they were read from: postgresql, or the file kept of the same rows.")
    seconds_per_pass: Number | None = Field(default=None, description="One retrieval pass over every question.")
    queries_per_second: Number | None = Field(default=None, description="Questions searched per second.")
    exact_queries_per_second: Number | None = Field(
        default=None, description="hnsw: exact search's rate, measured for ann_recall's ground truth.")
    latency_ms: Latency | None = Field(
        default=None, description="One question's search on its own round trip to PostgreSQL, the query's embedding "
        "excluded.")


class StructuredOutput(Block):
    setting: str | None = Field(default=None, description="The llm_structured_output setting.")
    by_model: dict[str, str] | None = Field(
        default=None, description="By model, how it was asked for JSON in the end: json_schema, json_object or off.")


class ModelUsage(Block):
    """One model's calls in one role."""

    calls: int = Field(description="Calls sent (each maybe several attempts).")
    http_requests: int = Field(description="HTTP requests those calls took, retries included.")
    cache_hits: int = Field(description="Calls answered from the reply cache.")
    api_errors: int = Field(description="Calls that failed after their retries.")
    truncated: int = Field(description="Replies cut at the token limit.")
    prompt_tokens: int = Field(description="Prompt tokens of the calls sent.")
    completion_tokens: int = Field(description="Completion tokens of the calls sent.")
    cost_usd: Number | None = Field(description="Their cost by llm_prices; null when the model has no price.")
    system_fingerprints: list[str] = Field(description="The system fingerprints the server answered with.")


class ServedIdentity(Block):
    identity: dict[str, Any] | None = Field(
        description="What the server says it serves under the model's name (its /models or /props entry).")
    source: str = Field(description="Where that was read (the /models list, a reply).")


class Concurrency(Block):
    """How many calls were open at once (transport.concurrency): it falls when the server pushes back."""

    ceiling: int = Field(description="The most calls allowed open at once (llm_concurrency).")
    final: int = Field(description="The limit when the run ended.")
    lowest: int = Field(description="The lowest the limit fell to.")
    reductions: int = Field(description="Times the server's pushback lowered it.")
    server_slots: int | None = Field(default=None, description="The slots the server said it has, where it says.")


class HttpUsage(Block):
    calls: int = Field(description="Calls sent.")
    http_requests: int = Field(description="HTTP requests those calls took, retries included.")
    api_errors: int = Field(description="Calls that failed after their retries.")


class LlmUsage(Block):
    endpoint: str | None = Field(default=None, description="The endpoint asked, any password masked.")
    cache: bool | None = Field(default=None, description="Whether the reply cache was on.")
    calls: int | None = Field(
        default=None, description="Calls sent to the endpoint (each maybe several attempts); replies from the cache "
        "apart.")
    http_requests: int | None = Field(default=None, description="HTTP requests, retries included.")
    cache_hits: int | None = Field(default=None, description="Calls answered from the reply cache.")
    api_errors: int | None = Field(default=None, description="Calls that failed after their retries.")
    truncated: int | None = Field(default=None, description="Replies cut at the token limit.")
    prompt_tokens: int | None = Field(default=None, description="Prompt tokens of the calls sent.")
    completion_tokens: int | None = Field(default=None, description="Completion tokens of the calls sent.")
    cost_usd: Number | None = Field(default=None, description="The calls' cost by llm_prices, priced models only.")
    unpriced_models: list[str] | None = Field(default=None, description="Models llm_prices has no price for.")
    by_role: dict[str, dict[str, ModelUsage]] | None = Field(
        default=None, description="By role (judge, generator) and model, the same counts.")
    concurrency: Concurrency | None = Field(
        default=None, description="The adaptive concurrency: its ceiling, final and lowest limits, reductions.")
    structured_output: StructuredOutput | None = Field(default=None, description="How each model was asked for JSON.")
    by_endpoint: dict[str, LlmUsage] | None = Field(
        default=None, description="With models at several endpoints (named providers): each endpoint's own usage, by "
        "its URL; the counts above are their sums.")
    served: dict[str, ServedIdentity] | None = Field(
        default=None, description="By model, what the server says it serves.")


class HnswBuildBlock(Block):
    seconds: Number = Field(description="The build's wall time.")
    index_megabytes: Number = Field(description="The index's size.")
    maintenance_work_mem: str = Field(description="The memory PostgreSQL gave the build.")
    parallel_workers: int = Field(description="The parallel workers PostgreSQL gave the build.")
    notices: list[str] | None = Field(default=None, description="What PostgreSQL said while building.")


class Indexing(Block):
    seconds: Number | None = Field(default=None, description="Time storing and indexing the corpus.")
    reused: bool = Field(description="True when the stored corpus needed no change.")
    chunks_added: int = Field(description="Chunks stored anew.")
    chunks_updated: int = Field(description="Stored chunks whose text or fields changed.")
    chunks_removed: int = Field(description="Stored chunks the corpus no longer has.")
    chunks_unchanged: int | None = Field(default=None, description="Stored chunks left as they were.")
    hnsw_built: bool | None = Field(default=None, description="Whether this run built the HNSW index.")
    hnsw_build: HnswBuildBlock | None = Field(
        default=None, description="The HNSW index built by this run; absent when none was asked for or the stored one "
        "was reused.")
    migrations_applied: list[str] | None = Field(
        default=None, description="The database migrations this run applied.")


class EmbeddingCache(Block):
    embedded: int | None = Field(default=None, description="Texts embedded by this run.")
    cache_hits: int | None = Field(default=None, description="Texts whose vectors came from the embedding cache.")
    seconds_embedding: Number | None = Field(default=None, description="Time spent embedding.")
    by_purpose: dict[str, dict[str, int]] | None = Field(
        default=None, description="The same counts by purpose (corpus, questions, answers).")


class Resumed(Block):
    restored_items: int = Field(description="Items restored from the journal of an earlier, stopped session.")


class Volatile(Block):
    """What differs from run to run on the same code and data: times, caches, machine-local paths."""

    run_id: str | None = Field(default=None, description="The run's folder name: its start time and a random suffix.")
    started_at: str | None = Field(default=None, description="When the run started (ISO 8601).")
    duration_s: Number | None = Field(default=None, description="The run's wall time in seconds.")
    local_settings: dict[str, Any] | None = Field(
        default=None, description="The settings that name this machine's folders (data_dir, reports_dir), kept out of "
        "settings.")
    resumed: Resumed | None = Field(default=None, description="A resumed run: what it restored.")
    retrieval: RetrievalTiming | None = Field(default=None, description="Tier 1: how fast retrieval ran.")
    latency_ms: Latency | None = Field(
        default=None, description="The latency of the calls the tier measures (the judge's in bench judge, the "
        "production judge's in judge-pipeline).")
    latency_ms_by_model: dict[str, Latency] | None = Field(
        default=None, description="The judges with several models: each model's latency.")
    generation_latency_ms: Latency | None = Field(
        default=None, description="Tiers 2 and 3: the system under test's answers, as answered live.")
    judge_latency_ms: Latency | None = Field(
        default=None, description="Tiers 2 and 3: the judge's calls, as answered live.")
    llm: LlmUsage | None = Field(default=None, description="The LLM endpoint's calls, cache hits, errors and tokens.")
    http: HttpUsage | None = Field(
        default=None, description="judge-pipeline --via http: the service's calls, requests and errors.")
    indexing: Indexing | None = Field(default=None, description="What indexing the corpus did.")
    embedding_cache: EmbeddingCache | None = Field(
        default=None, description="Texts embedded, and texts read from the embedding cache.")
