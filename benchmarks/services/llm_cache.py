"""A disk cache of chat replies, so a rerun pays only for the prompts it has not sent before.

The key is the sha256 of the canonical JSON of (model, messages, parameters): changing any
parameter makes another key, while the endpoint's address is left out, so one model served through
two gateways shares its replies. Only successful replies are stored: an error is retried next run.
The cache is one sqlite file under data_dir, beside the embedded PostgreSQL, and needs no server.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError

FILE_NAME = "llm-cache.sqlite3"
_SCHEMA = """CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created_at REAL NOT NULL
)"""


@dataclass(frozen=True)
class CachedReply:
    text: str
    prompt_tokens: int
    completion_tokens: int


def cache_key(model: str, messages: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> str:
    """Sorted keys and fixed separators: the same request always hashes the same, whatever dict order."""
    canonical = json.dumps({"model": model, "messages": list(messages), "params": dict(params)},
                           sort_keys=True, separators=(",", ":"), ensure_ascii=False)
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
            self._db.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise BenchError(f"{path}: the LLM cache cannot be opened ({exc}); delete the file or set "
                             "llm_cache = false") from None

    def get(self, key: str) -> CachedReply | None:
        row = self._db.execute("SELECT text, prompt_tokens, completion_tokens FROM replies WHERE key = ?",
                               (key,)).fetchone()
        return CachedReply(*row) if row else None

    def put(self, key: str, model: str, reply: CachedReply) -> None:
        self._db.execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                         (key, model, reply.text, reply.prompt_tokens, reply.completion_tokens, time.time()))

    def forget(self, key: str) -> None:
        self._db.execute("DELETE FROM replies WHERE key = ?", (key,))

    def knows(self, model: str) -> bool:
        """Whether any reply of `model` is cached: then a run may be a rerun the cache answers whole."""
        return self._db.execute("SELECT 1 FROM replies WHERE model = ? LIMIT 1", (model,)).fetchone() is not None

    def close(self) -> None:
        self._db.close()
