"""Real users' logs (bench ux and real-users): where they are read and how they are analysed."""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchmarks.config.declare import AT_LEAST_1, CALIBRATED, Range, Rule, setting

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class UserLogsSettings:
    logs: str | None = setting(
        None, "bench ux and real-users: the log to read, a JSONL/CSV file or the name of a log loaded with "
        "bench import-logs (default: the dataset's logs.jsonl; ignored when logs_database_url is set)."
    )
    logs_database_url: str | None = setting(
        None,
        "The production PostgreSQL whose logs_table the tiers read real users' turns from, read only: bench "
        "never migrates or writes into it (postgresql://reader:password@host:5432/db).",
        env=("BENCH_LOGS_DATABASE_URL",),
        secret=True,
        url=True,
    )
    logs_table: str = setting(
        "question_answer",
        "Table of logged turns in logs_database_url (a plain identifier; set the schema through the URL's "
        "search_path).",
        Rule(_IDENTIFIER.fullmatch,
             "must be a plain identifier (letters, digits, underscores; not starting with a digit)"),
    )
    cache_threshold: float = setting(
        0.85, "bench ux: a question is a cache hit when its best calibrated similarity to a cached question (0 = as "
        "alike as unrelated texts, 1 = identical) is above this.", CALIBRATED
    )
    test_share: float = setting(
        0.2, "bench ux: share of the log's sessions, the latest ones, asked against a cache of the earlier ones.",
        Range(0, 1, low_open=True, high_open=True),
    )
    topics: int = setting(
        8, "bench real-users: KMeans topics over the logged questions (seeded).", AT_LEAST_1
    )
