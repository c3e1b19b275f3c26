"""What an embedding backend declares to the cache that wraps it, so the cache asks and never checks a type.

Its own module because both sides need it: the backends (`embedder`, `openai_embedder`) declare it and the
cache (`embedder.CachedEmbedder`) reads it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Capabilities:
    """dimension_up_front: the dimension is known before any call (declared, or read from the model's files),
    so the stored space or a cached vector may tell it and a cached run loads nothing; otherwise it is
    measured by a call once a run and checked against the stored space, since a server may change its model.

    dimension_in_cache_id: the measured dimension is part of the cache rows' key, so vectors of a model the
    backend no longer serves are never handed out again.

    caches_each_batch: the backend hands every batch to `on_batch` as it arrives, so each is cached at once
    and a failure or Ctrl-C loses only the batches in flight; otherwise the cache is written when `encode`
    returns.
    """

    dimension_up_front: bool
    dimension_in_cache_id: bool
    caches_each_batch: bool
