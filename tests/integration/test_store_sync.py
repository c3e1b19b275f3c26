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

    results, errors = [], []

    def run():
        try:
            results.append(store.sync(space, "test-model", chunks, slow_embed))
        except Exception as exc:  # the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
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
    built, errors = [], []
    start = threading.Barrier(3)

    def run():
        start.wait()
        try:
            built.append(store.ensure_hnsw(space, 4, 16, 64))
        except Exception as exc:  # the assertion below reports it
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert errors == []
        assert sorted(built) == [False, False, True]
    finally:
        database.engine.dispose()
