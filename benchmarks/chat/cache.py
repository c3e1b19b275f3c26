"""A disk cache of chat replies, so a rerun pays only for the prompts it has not sent before.

A reply is keyed by what produced it: the sha256 of the canonical JSON of the endpoint's normalised URL
(`endpoints.endpoint_url`: no user, password or query), what that endpoint says it serves under the model
name (`endpoints.served_identity`, None where it does not say), the model, the messages and the parameters.
A model name does not identify weights (local servers and gateways serve anything under any alias), so
two servers, or one server redeployed with other weights, never answer for each other; changing any
parameter makes another key too. Only successful replies are stored: an error is retried next run.

What an endpoint served is also kept per (endpoint, model) as last read completely, so that a rerun whose
endpoint cannot be asked (it is down: the run must be answered by the cache alone) keys its calls as the
last run that could ask it did.

The cache is one sqlite file under data_dir, beside the embedded PostgreSQL, and needs no server. Rows of
the earlier table (`replies`, keyed without the endpoint) could never match again and are dropped.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from benchmarks.errors import BenchError

FILE_NAME = "llm-cache.sqlite3"
_SCHEMA = (
    "DROP TABLE IF EXISTS replies",  # keyed without the endpoint before: no row of it can match again
    """CREATE TABLE IF NOT EXISTS chat_replies (
        key TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        text TEXT NOT NULL,
        prompt_tokens INTEGER NOT NULL,
        completion_tokens INTEGER NOT NULL,
        system_fingerprint TEXT,
        created_at REAL NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS chat_replies_by_model ON chat_replies (endpoint, model)",
    """CREATE TABLE IF NOT EXISTS served_models (
        endpoint TEXT NOT NULL,
        model TEXT NOT NULL,
        identity TEXT NOT NULL,
        read_at REAL NOT NULL,
        PRIMARY KEY (endpoint, model)
    )""",
)


@dataclass(frozen=True)
class CachedReply:
    text: str
    prompt_tokens: int
    completion_tokens: int
    system_fingerprint: str | None = None  # the backend configuration the reply came from, where the server says
    # the first token's alternatives with their log-probabilities, where the call asked for them
    top_logprobs: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Served:
    """What keys a model's replies at an endpoint: what the endpoint says it serves under the name (None: nothing
    that tells weights apart), and how bench knows it: `endpoint`, asked in this run; `recorded`, the endpoint
    could not be asked (down, or failing), so its last complete answer; `partial`, it could not be asked fully
    and never was, so what it did answer."""

    identity: Mapping[str, Any] | None
    source: Literal["endpoint", "recorded", "partial"]


def cache_key(endpoint: str, served: Mapping[str, Any] | None, model: str, messages: Sequence[Mapping[str, Any]],
              params: Mapping[str, Any]) -> str:
    """Sorted keys and fixed separators: the same request always hashes the same, whatever dict order.
    `endpoint` must be normalised (`endpoints.endpoint_url`): it is hashed as given."""
    canonical = json.dumps({"endpoint": endpoint, "served": served, "model": model, "messages": list(messages),
                            "params": dict(params)}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class LLMCache:
    def __init__(self, path: Path):
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # autocommit: a reply is on disk as soon as it is paid for, even if the run is interrupted
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")  # two bench processes may share one data_dir
            self._db.execute("PRAGMA synchronous=NORMAL")
            for statement in _SCHEMA:
                self._db.execute(statement)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(chat_replies)")}
            if "top_logprobs" not in columns:  # a cache written before replies kept their token alternatives
                self._db.execute("ALTER TABLE chat_replies ADD COLUMN top_logprobs TEXT")
        except (OSError, sqlite3.Error) as exc:
            raise BenchError(f"{path}: the LLM cache cannot be opened ({exc}); delete the file or set "
                             "llm_cache = false") from None

    def get(self, key: str) -> CachedReply | None:
        row = self._db.execute("SELECT text, prompt_tokens, completion_tokens, system_fingerprint, top_logprobs "
                               "FROM chat_replies WHERE key = ?", (key,)).fetchone()
        if not row:
            return None
        text, prompt_tokens, completion_tokens, fingerprint, top_logprobs = row
        alternatives = tuple((token, float(logprob)) for token, logprob in json.loads(top_logprobs or "[]"))
        return CachedReply(text, prompt_tokens, completion_tokens, fingerprint, top_logprobs=alternatives)

    def put(self, key: str, endpoint: str, model: str, reply: CachedReply) -> None:
        self._db.execute("INSERT OR REPLACE INTO chat_replies (key, endpoint, model, text, prompt_tokens, "
                         "completion_tokens, system_fingerprint, created_at, top_logprobs) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         (key, endpoint, model, reply.text, reply.prompt_tokens, reply.completion_tokens,
                          reply.system_fingerprint, time.time(),
                          json.dumps(reply.top_logprobs, ensure_ascii=False) if reply.top_logprobs else None))

    def forget(self, key: str) -> None:
        self._db.execute("DELETE FROM chat_replies WHERE key = ?", (key,))

    def knows(self, endpoint: str, model: str) -> bool:
        """Whether a reply of `model` at `endpoint` is cached: then a run may be a rerun the cache answers whole."""
        return self._db.execute("SELECT 1 FROM chat_replies WHERE endpoint = ? AND model = ? LIMIT 1",
                                (endpoint, model)).fetchone() is not None

    def record_served(self, endpoint: str, model: str, identity: Mapping[str, Any] | None) -> None:
        """What `endpoint` said it serves under `model`, read completely (None: it said nothing)."""
        self._db.execute("INSERT OR REPLACE INTO served_models VALUES (?, ?, ?, ?)",
                         (endpoint, model, json.dumps(identity, sort_keys=True), time.time()))

    def recorded_served(self, endpoint: str, model: str) -> Served | None:
        """The last complete reading of what `endpoint` serves under `model`; None when it was never read so."""
        row = self._db.execute("SELECT identity FROM served_models WHERE endpoint = ? AND model = ?",
                               (endpoint, model)).fetchone()
        return Served(json.loads(row[0]), "recorded") if row else None

    def close(self) -> None:
        self._db.close()
