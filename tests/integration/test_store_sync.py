"""Two runs syncing or indexing one collection at once (a nightly job running tiers in parallel)."""

import threading
import time

import numpy as np
import pytest
import sqlalchemy as sa

from benchmarks.config import load_settings
from benchmarks.dataset import Chunk
from benchmarks.store.database import connect
from benchmarks.store.vectors import VectorStore

pytestmark = pytest.mark.integration
# a session waiting for the advisory lock VectorStore.sync takes on a space: pg_advisory_lock(ns, space) is the
# lock (classid ns, objid space, objsubid 2) of this database
WAITING_FOR_THE_SYNC_LOCK = sa.text(
    "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = :s AND objsubid = 2 "
    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")


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

    def embed_while_the_other_waits(texts):
        """The first sync embeds until the second one is seen waiting for the space's lock (PostgreSQL's
        pg_locks), so the two overlap however the threads are scheduled; a second embedding would find no one
        waiting and fail here."""
        embedded.append(len(texts))
        deadline = time.monotonic() + 60
        with database.engine.connect() as conn:
            while not conn.execute(WAITING_FOR_THE_SYNC_LOCK, {"s": space}).scalar():
                assert time.monotonic() < deadline, "the second sync never waited for the first one's lock"
                time.sleep(0.01)
        return [np.ones((len(texts), 4), dtype=np.float32)]

    results, errors = concurrently(2, lambda: store.sync(space, "test-model", chunks, embed_while_the_other_waits))
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
               lambda texts: [rng.normal(size=(len(texts), 4)).astype(np.float32)])
    built, errors = concurrently(3, lambda: store.ensure_hnsw(space, 4, 16, 64))
    try:
        assert errors == []
        assert [b is None for b in built].count(False) == 1  # one built it, two found it built
    finally:
        database.engine.dispose()
