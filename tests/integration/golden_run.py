"""`bench tier1 --dataset synthetic` on pinned vectors, in a process of its own, so the test can start it under
another floating-point configuration (environment variables read when the libraries load).

    python -m tests.integration.golden_run run    # seed the embedding cache with the pinned vectors, then run
    python -m tests.integration.golden_run pin    # run with the real embedder, then pin the vectors it cached

BENCH_DATA_DIR (a fresh folder: its own embedded PostgreSQL) and BENCH_REPORTS_DIR come from the environment.
The pinned file holds the embedding cache's rows for the default model: the sha256 of each prompted text
(the cache key) and its float32 vector, exactly as the run read them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from benchmarks.cli import app
from benchmarks.config import load_settings
from benchmarks.config.embedding_settings import E5_MODEL_ID
from benchmarks.store.database import connect
from benchmarks.store.vectors import VectorStore, _decoded

PINNED = Path(__file__).resolve().parents[1] / "golden" / "synthetic-e5-vectors.npz"


def seed() -> None:
    """Put the pinned vectors in the cache, so the run embeds nothing and never loads the model."""
    pinned = np.load(PINNED)
    database = connect(load_settings()[0])
    try:
        VectorStore(database.engine).cache_embeddings(E5_MODEL_ID, [d.decode() for d in pinned["digests"]],
                                                      pinned["vectors"])
    finally:
        database.engine.dispose()


def pin() -> None:
    """The cache rows of the default model, in digest order: what a run on this machine embedded."""
    database = connect(load_settings()[0])
    try:
        with database.engine.connect() as conn:
            cursor = conn.connection.driver_connection.cursor(binary=True)
            cursor.execute("SELECT text_sha256, vector_send(embedding) FROM embedding_cache WHERE model_id = %s "
                           "ORDER BY text_sha256", (E5_MODEL_ID,))
            rows = cursor.fetchall()
    finally:
        database.engine.dispose()
    np.savez_compressed(PINNED, digests=np.array([d.encode() for d, _ in rows], dtype="S64"),
                        vectors=_decoded([v for _, v in rows]))


def tier1() -> int:
    try:
        app(["tier1", "--dataset", "synthetic"], prog_name="bench")
    except SystemExit as stop:  # the CLI always ends with its exit code
        return stop.code if isinstance(stop.code, int) else 1
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["run"]:
        seed()
        sys.exit(tier1())
    if sys.argv[1:] == ["pin"]:
        status = tier1()
        if status == 0:
            pin()
        sys.exit(status)
    sys.exit(f"usage: python -m tests.integration.golden_run run|pin, not {sys.argv[1:]}")
