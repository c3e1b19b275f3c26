"""Retrieval from pgvector: the index, its build, the search and its timing (tiers 1 and 3)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from benchmarks.config.declare import ABOVE_0, AT_LEAST_1, NOT_NEGATIVE, Range, Rule, setting

_MEMORY = re.compile(r"([1-9][0-9]*)\s*(kB|MB|GB|TB)")


def megabytes(size: str) -> int:
    """A size as PostgreSQL writes it ('512MB', '2GB'), in whole megabytes."""
    found = _MEMORY.fullmatch(size)
    if found is None:
        raise ValueError(f"not a PostgreSQL size: {size!r}")
    return int(found[1]) * {"kB": 1, "MB": 1024, "GB": 1024**2, "TB": 1024**3}[found[2]] // 1024


def _memory_ok(size: str) -> bool:
    return size == "auto" or bool(_MEMORY.fullmatch(size) and 1 <= megabytes(size) < 2 * 1024**2)


@dataclass(frozen=True)
class RetrievalSettings:
    index: Literal["exact", "hnsw"] = setting(
        "exact", "exact scans every vector (the ground truth); hnsw builds and uses a pgvector HNSW index."
    )
    ef_search: int = setting(
        40, "hnsw.ef_search for HNSW queries: larger is slower and more exact.", AT_LEAST_1
    )
    hnsw_m: int = setting(16, "HNSW m (links per node) when the index is built.", AT_LEAST_1)
    hnsw_ef_construction: int = setting(64, "HNSW ef_construction when the index is built.", AT_LEAST_1)
    hnsw_build_memory: str = setting(
        "auto", "maintenance_work_mem while the HNSW index is built, e.g. '2GB': 'auto' sizes it for the graph on "
        "the embedded server (at most a quarter of this machine's memory) and keeps an external server's own.",
        Rule(_memory_ok, "expected 'auto' or a size PostgreSQL takes for maintenance_work_mem (1MB to 2047GB), "
             "such as 512MB or 2GB"),
    )
    hnsw_build_workers: int | None = setting(
        None, "Parallel workers for the HNSW build (max_parallel_maintenance_workers); unset: every core but one on "
        "the embedded server, the server's own setting on an external one.",
        Range(0, 1024, text="must be from 0 to 1024 "
                            "(PostgreSQL's range for max_parallel_maintenance_workers)"),
    )
    retrieval_batch_size: int = setting(256, "HNSW search: questions per SQL round trip.", AT_LEAST_1)
    retrieval_workers: int = setting(
        2, "HNSW search: batches sent at once on separate connections (PostgreSQL runs each statement on one core).",
        AT_LEAST_1,
    )
    top_k: int = setting(
        10, "Retrieval depth: results per question (at least the largest metric cutoff, 10).",
        AT_LEAST_1, Range(10, why="the largest metric cutoff"),
    )
    relevance: Literal["chunk", "url"] = setting(
        "chunk",
        "chunk: a result is relevant when its chunk id is judged relevant; url: when its page url is "
        "(results are then deduplicated by url, keeping each page's best chunk).",
    )
    consistency_runs: int = setting(
        2, "Retrieval repeats for retrieval_consistency (1 skips the metric).", AT_LEAST_1
    )
    latency_queries: int = setting(
        200, "Questions timed one SQL round trip at a time for latency p50/p95 (a seeded sample; 0 skips).",
        NOT_NEGATIVE,
    )
    latency_seconds: float = setting(
        10.0, "Timing single queries stops when the next one, as slow as the slowest so far, would end past this "
        "many seconds, however few were timed (at least one; the report gives how many): an exact scan on "
        "PostgreSQL takes about half a second a question at 100,000 chunks, three at a million.",
        ABOVE_0,
    )
    e2e_top_k: int = setting(
        1, "Tier 3: retrieved chunks given to the generator (the production system's: 1).", AT_LEAST_1
    )
