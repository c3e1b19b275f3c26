"""Stand-in embeddings for the scale series: the cache of the default model filled with vectors made from
the texts' words, so 100,000 chunks are "embedded" in seconds instead of the half hour the real model takes
on two cores.

A vector is the sum of one seeded Gaussian vector per word (lower-cased `\\w+`), normalised: texts that
share words are near each other, as under a real sentence embedder, so the geometry has clusters and an
HNSW graph is searched as it would be on real vectors (uniform random vectors would understate its
recall). The vectors are written through bench's own cache (`CachedEmbedder` keys, `VectorStore`), so the
commands measured afterwards run exactly as on a warm cache and load no model. Retrieval quality under
these vectors means nothing; only costs are measured with them.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy import sparse

WORD = re.compile(r"\w+")


def standin_vectors(texts: Sequence[str], dimension: int) -> np.ndarray:
    vocabulary: dict[str, int] = {}
    rows, columns = [], []
    for row, text in enumerate(texts):
        for word in WORD.findall(text.lower()):
            rows.append(row)
            columns.append(vocabulary.setdefault(word, len(vocabulary)))
    counts = sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, columns)),
                               shape=(len(texts), len(vocabulary)))
    words = np.empty((len(vocabulary), dimension), dtype=np.float32)
    for word, column in vocabulary.items():
        words[column] = np.random.default_rng(zlib.crc32(word.encode("utf-8"))).standard_normal(dimension)
    vectors = np.asarray(counts @ words, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def fill_cache(data_dir: Path, texts_by_purpose: dict[str, Sequence[str]]) -> str:
    """Put stand-in vectors for `texts_by_purpose` in the default model's cache in `data_dir`; its model id."""
    from benchmarks.config import load_settings
    from benchmarks.embedding.backends import build_embedder
    from benchmarks.embedding.embedder import role_of
    from benchmarks.store.database import connect
    from benchmarks.store.vectors import VectorStore

    settings = load_settings({"data_dir": data_dir}, environ={})[0]
    database = connect(settings)
    try:
        embedder = build_embedder(settings, VectorStore(database.engine))
        dimension = embedder.inner.dimension
        for purpose, texts in texts_by_purpose.items():
            unique = sorted(set(texts))
            digests = embedder._digests(unique, role_of(purpose))
            for start in range(0, len(unique), 20_000):
                embedder.store.cache_embeddings(embedder.cache_id, digests[start:start + 20_000],
                                                standin_vectors(unique[start:start + 20_000], dimension))
        return embedder.model_id
    finally:
        database.engine.dispose()
