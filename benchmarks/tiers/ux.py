"""UX tier (docs/metrics.md#ux): how often a response cache could answer, and how dialogs hold together.

The log is split in time: its latest sessions (`test_share` of them) are the test sessions, asked
against a cache of the questions users rated 5 in the earlier ones, so no test question can find
itself in the cache. context_preservation and multi_turn_consistency use every session of two or
more turns, averaged within a session first, then across sessions, as the seed describes; in the
seed's current version the two are computed by the same procedure, and so they are here.
"""

from __future__ import annotations

import math
from collections import defaultdict
from datetime import datetime
from typing import Any

import numpy as np

from benchmarks import item_record
from benchmarks.dataset import Dataset
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.similarity_calibration import similarity_scale
from benchmarks.errors import BenchError
from benchmarks.logs import LogEntry
from benchmarks.metrics.language import detected_or
from benchmarks.metrics.stats import summarize
from benchmarks.metrics.ux_signals import (
    cache_hit_rate,
    context_preservation,
    hit_rate_curve,
    max_similarity,
    multi_turn_consistency,
    session_similarities,
)
from benchmarks.readers.log_sources import load_logs
from benchmarks.report_model import CacheHitRate, CacheNote, Notes, Provenance, SessionCounts, Volatile
from benchmarks.tiers.base import Metric, RunContext, TierResult

CACHED_SCORE = 5


def sessions_of(entries: tuple[LogEntry, ...]) -> list[list[LogEntry]]:
    """Turns grouped by session in turn order, sessions ordered by their first turn's time (then id);
    a turn without a session id is a session of its own."""
    grouped: dict[str, list[LogEntry]] = defaultdict(list)
    for entry in entries:
        grouped[entry.session_id if entry.session_id is not None else f"\0{entry.id}"].append(entry)
    sessions = [sorted(turns, key=_turn_key) for turns in grouped.values()]
    return sorted(sessions, key=lambda turns: (_time(turns[0]), turns[0].session_id or "", turns[0].id))


def split_sessions(sessions: list[list[LogEntry]], test_share: float) -> tuple[list[list[LogEntry]],
                                                                            list[list[LogEntry]]]:
    """(history, test): the latest ceil(share × sessions) sessions are the test, at least one of each."""
    if len(sessions) < 2:
        raise BenchError(f"the log has {len(sessions)} session(s): the cache hit rate needs earlier sessions "
                         "for the cache and later ones to test")
    count = min(len(sessions) - 1, max(1, math.ceil(test_share * len(sessions))))
    return sessions[:-count], sessions[-count:]


def run(ctx: RunContext[Dataset]) -> TierResult:
    s = ctx.settings
    logs = load_logs(s, s.logs, ctx.dataset_dir)
    sessions = sessions_of(logs.entries)
    history, test = split_sessions(sessions, s.test_share)
    cached = [e for turns in history for e in turns if e.score == CACHED_SCORE]
    asked = [e for turns in test for e in turns]
    texts = sorted({e.question for e in logs.entries})
    with open_embedder(s) as embedder:
        scale = similarity_scale(embedder, s, detected_or("", texts))
        task = ctx.progress.add_task("embedding logged questions", total=len(texts))
        vectors = embedder.encode(texts, purpose="log questions", progress=lambda n: ctx.progress.advance(task, n))
        ctx.progress.remove_task(task)
        embedder_info = embedder.provenance()
    row = {text: i for i, text in enumerate(texts)}

    def matrix(turns: list[LogEntry]) -> np.ndarray:
        return vectors[[row[e.question] for e in turns]] if turns else np.zeros((0, vectors.shape[1]))

    raw_best = max_similarity(matrix(asked), matrix(cached))
    best = scale.array(raw_best)
    hits = (best > s.cache_threshold).astype(float) if cached else np.zeros(0)
    per_session = session_similarities([matrix(turns) for turns in sessions], scale)
    kept = np.array([v for v in per_session if v is not None], dtype=float)
    resample = {"resamples": s.bootstrap_resamples, "seed": s.seed}
    hit_ci = summarize(hits, **resample).ci95
    session_ci = summarize(kept, **resample).ci95
    metrics = {  # values by the seed's formulas; intervals by bootstrap over test questions or sessions
        "cache_hit_rate": Metric(cache_hit_rate(best, s.cache_threshold) if cached else None, int(hits.size), 0,
                                 hit_ci),
        "context_preservation": Metric(context_preservation(per_session).number, int(kept.size), 0, session_ci),
        "multi_turn_consistency": Metric(multi_turn_consistency(per_session).number, int(kept.size), 0, session_ci),
    }
    return TierResult(
        metrics=metrics,
        items=_items(asked, raw_best, best, s.cache_threshold, cached),
        notes=Notes(
            cache=CacheNote(
                threshold=s.cache_threshold, raw_threshold=round(scale.raw_threshold(s.cache_threshold), 6),
                hit="best calibrated similarity to a cached question above the threshold (the raw cosine above "
                    "raw_threshold, with this embedder)",
                cached_questions=len(cached), cached_score=CACHED_SCORE, test_questions=len(asked),
                history_sessions=len(history), test_sessions=len(test),
                split=f"the latest {len(test)} of {len(sessions)} sessions (test_share {s.test_share}) are asked "
                      "against the earlier sessions' questions rated 5",
                hit_rate_curve=[CacheHitRate(threshold=t, hit_rate=r) for t, r in hit_rate_curve(best)]
                if cached else [],
                undetermined=None if cached else "no question rated 5 in the earlier sessions"),
            sessions=SessionCounts(total=len(sessions), with_two_or_more_turns=int(kept.size)),
            multi_turn_consistency="the seed's current definition: the same procedure as context_preservation "
                                   "(mean calibrated similarity of consecutive questions, within a session, then "
                                   "across)",
        ),
        provenance=Provenance(embedder=embedder_info, similarity=scale.describe(list(metrics))),
        volatile=Volatile(),
        log=logs,
    )


def _items(asked: list[LogEntry], raw_best: np.ndarray, best: np.ndarray, threshold: float, cached: list[LogEntry]
           ) -> list[dict[str, Any]]:
    """One record per test question: the cache's answer is its best similarity and whether that is a hit,
    scored 1 or 0 for cache_hit_rate; undetermined for every question when the cache is empty, as the report's
    rate is. The session metrics are means over sessions, not over these items, so no item scores them."""
    return sorted((item_record.record(
        e.id, {"question": e.question}, _cache_answer(r, b, threshold, cached),
        {"cache_hit_rate": {item_record.BENCH: _hit_score(b, threshold, cached)}},
        cluster=e.session_id or None, session_id=e.session_id)  # one user's questions are not independent
        for e, r, b in zip(asked, raw_best, best, strict=True)), key=lambda item: item["id"])


def _cache_answer(raw: float, best: float, threshold: float, cached: list[LogEntry]) -> dict[str, Any]:
    """What the cache would answer: its best similarity, calibrated and as the raw cosine (None for no cache,
    or a question without a direction), and whether it is a hit."""
    found = cached and np.isfinite(best)
    return {"best_cache_similarity": float(best) if found else None,
            "best_cache_cosine": float(raw) if found else None,
            "cache_hit": bool(cached) and bool(best > threshold)}


def _hit_score(best: float, threshold: float, cached: list[LogEntry]) -> dict[str, Any]:
    """1 for a hit, 0 for a miss; no cache to hit leaves the question undetermined, not failed."""
    if not cached:
        return item_record.score(None, "undetermined", "no question rated 5 in the earlier sessions")
    return item_record.score(1.0 if best > threshold else 0.0)


def _turn_key(entry: LogEntry) -> tuple[int, float, str]:
    return (entry.turn if entry.turn is not None else 0, _time(entry), entry.id)


def _time(entry: LogEntry) -> float:
    return entry.created_at.timestamp() if isinstance(entry.created_at, datetime) else 0.0
