"""Two runs syncing or indexing one collection at once (a nightly job running tiers in parallel)."""

import threading
import time

import numpy as np
import pytest
import sqlalchemy as sa

from benchmarks.config import load_settings
from benchmarks.dataset import Chunk
from benchmarks.services.database import connect
from benchmarks.services.store import VectorStore

pytestmark = pytest.mark.integration


def concurrently(threads: int, call):
    """`call` on that many threads released together: what each returned, and what any raised."""
    results, errors = [], []
    start = threading.Barrier(threads)

    def run():
        start.wait()
        try:
            results.append(call())
        except Exception as exc:  # the caller's assertions report it
            errors.append(exc)

    running = [threading.Thread(target=run) for _ in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    return results, errors


def test_concurrent_syncs_of_one_space_embed_once_and_both_succeed(data_dir):
    settings, _ = load_settings({"data_dir": data_dir}, environ={})
    database = connect(settings)
    store = VectorStore(database.engine)
    space = store.create_space("concurrent-sync", "test-model", 4)
    chunks = [Chunk(id=f"c{i}", text=f"text {i}") for i in range(50)]
    embedded: list[int] = []

    def slow_embed(texts):
        embedded.append(len(texts))
        time.sleep(0.3)  # long enough for the second sync to arrive while the first is embedding
        return np.ones((len(texts), 4), dtype=np.float32)

    results, errors = concurrently(2, lambda: store.sync(space, "test-model", chunks, slow_embed))
    try:
        assert errors == []
        assert embedded == [50]
        assert sorted((r.added, r.unchanged) for r in results) == [(0, 50), (50, 0)]
        with database.engine.connect() as conn:
            count = conn.execute(sa.text("SELECT count(*) FROM chunks WHERE space_id = :s"), {"s": space}).scalar()
        assert count == 50
    finally:
        database.engine.dispose()


def test_concurrent_hnsw_builds_of_one_space_build_once_and_both_succeed(data_dir):
    settings, _ = load_settings({"data_dir": data_dir}, environ={})
    database = connect(settings)
    store = VectorStore(database.engine)
    space = store.create_space("concurrent-hnsw", "test-model", 4)
    rng = np.random.default_rng(0)
    store.sync(space, "test-model", [Chunk(id=f"c{i}", text=f"text {i}") for i in range(2000)],
               lambda texts: rng.normal(size=(len(texts), 4)).astype(np.float32))
    built, errors = concurrently(3, lambda: store.ensure_hnsw(space, 4, 16, 64))
    try:
        assert errors == []
        assert [b is None for b in built].count(False) == 1  # one built it, two found it built
    finally:
        database.engine.dispose()
