"""The embedding cache treats a backend by what it declares, never by its type."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np

from benchmarks.embedding.capabilities import Capabilities
from benchmarks.embedding.embedder import LOCAL, CachedEmbedder


class MemoryStore:
    """The two calls of VectorStore the cache makes, in a dict; every write is recorded."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], np.ndarray] = {}
        self.writes: list[tuple[str, int]] = []

    def cached_embeddings(self, model_id: str, digests: Sequence[str]) -> dict[str, np.ndarray]:
        return {d: self.rows[(model_id, d)] for d in digests if (model_id, d) in self.rows}

    def cache_embeddings(self, model_id: str, digests: Sequence[str], vectors: np.ndarray) -> None:
        self.writes.append((model_id, len(digests)))
        self.rows.update({(model_id, d): v for d, v in zip(digests, vectors, strict=True)})


class Backend:
    """Any backend: two texts a batch, handed on one by one when asked for."""

    backend = "test"
    model_id = "test-model"
    dimension = 3
    prompts = MappingProxyType({"query": "", "document": ""})

    def __init__(self, capabilities: Capabilities):
        self.capabilities = capabilities

    def describe(self) -> str:
        return "the test backend"

    def encode(self, texts: Sequence[str], progress: Any = None,
               on_batch: Callable[[list[int], np.ndarray], None] | None = None, *, role: str = "document"
               ) -> np.ndarray:
        out = np.ones((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(texts), 2):
            if on_batch:
                on_batch(list(range(start, min(start + 2, len(texts)))), out[start : start + 2])
        return out


TEXTS = ["one", "two", "three", "four", "five"]


def test_a_backend_that_measures_its_dimension_keys_the_cache_by_it_and_caches_each_batch():
    measured = Capabilities(dimension_up_front=False, dimension_in_cache_id=True, caches_each_batch=True)
    store = MemoryStore()
    cached = CachedEmbedder(Backend(measured), store)  # type: ignore[arg-type]
    assert cached.encode(TEXTS, purpose="corpus").shape == (5, 3)
    assert store.writes == [("test-model|3d", 2), ("test-model|3d", 2), ("test-model|3d", 1)]


def test_a_backend_that_knows_its_dimension_is_cached_by_model_once_it_returns():
    store = MemoryStore()
    cached = CachedEmbedder(Backend(LOCAL), store)  # type: ignore[arg-type]
    cached.encode(TEXTS, purpose="corpus")
    assert store.writes == [("test-model", 5)]
    fresh = CachedEmbedder(Backend(LOCAL), store)  # type: ignore[arg-type]
    fresh.learn_dimension(TEXTS[:1], purpose="corpus")  # told by a cached vector, without asking the backend
    assert fresh.known_dimension == 3
