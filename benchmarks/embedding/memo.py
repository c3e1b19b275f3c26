"""The vectors of a run's per-item work, fetched through the cached embedder in a few large calls.

Why: every `CachedEmbedder.encode` call is a round trip to the embedding cache in PostgreSQL, plus a
model call and a cache write for the texts it has not seen. Tiers 2 and 3 used to ask for a few
sentences per question (the extractive generator, then each offline proxy), so a cold run spent its
time on thousands of small calls rather than on embedding. Here the caller hands over every text it
knows ahead (`prefetch`: one call, with its own progress bar), items that are open together ask for
what they learn later (their answers) with `gather`, which embeds all those asks in one call, and the
per-item code reads the held vectors (`__call__`).

Reading never depends on having been told: a text nobody fetched is embedded there and then (one
call for all of a read's missing texts), so a text left out of a prefetch costs a round trip, never a
wrong or missing vector. The vectors are the cached embedder's own, for the same purpose (so the same
prompt and cache rows), hence the scores are those of a call per item: the cache hands out the vector
it stored first, and the packaged e5 model gives a text the same vector in any batch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence

import numpy as np

from benchmarks.embedding.embedder import CachedEmbedder, embed_with_progress
from benchmarks.progress import Bars


class EmbeddingMemo:
    """Texts embedded for one purpose, held for the run; callable as an `Embed` (texts to rows). It keeps every
    vector it was given until the run ends (4 bytes a dimension a text: ~3 MB for the shipped sets, ~0.8 GB for
    200,000 context sentences of 1024 dimensions)."""

    def __init__(self, embedder: CachedEmbedder, purpose: str):
        self.embedder = embedder
        self.purpose = purpose
        self._held: dict[str, np.ndarray] = {}
        self._asked: dict[str, None] = {}  # texts items are waiting for, in the order asked
        self._flush: asyncio.Future[None] | None = None

    def prefetch(self, texts: Iterable[str], progress: Bars | None = None, label: str | None = None) -> None:
        """Embed, in one pass through the cache, every distinct text of `texts` not held yet; with a
        progress bar of its own (saying `label`) when `progress` is given."""
        wanted = [t for t in dict.fromkeys(texts) if t not in self._held]
        if not wanted:
            return
        vectors = (embed_with_progress(self.embedder, wanted, self.purpose, progress, label=label)
                   if progress is not None else self.embedder.encode(wanted, purpose=self.purpose))
        self._held.update(zip(wanted, vectors, strict=True))

    async def gather(self, texts: Iterable[str]) -> None:
        """Have `texts` held before a step that reads them. The asks of items open at the same time are
        embedded together: the call waits until the other running items have had their turn to ask."""
        wanted = [t for t in texts if t not in self._held]
        if not wanted:
            return
        self._asked.update(dict.fromkeys(wanted))
        if self._flush is None:
            self._flush = asyncio.ensure_future(self._embed_asked())
        await asyncio.shield(self._flush)  # one item cancelled must not cancel the call the others wait for

    async def _embed_asked(self) -> None:
        try:
            asked = -1
            while asked != len(self._asked):  # another item asked during the last turn: more may follow
                asked = len(self._asked)
                await asyncio.sleep(0)
            texts = list(self._asked)
        finally:
            self._asked, self._flush = {}, None  # whatever happened, the next ask starts a new call
        self.prefetch(texts)

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """The vectors of `texts`, one row each, in order; texts not held are embedded now, in one call."""
        self.prefetch(texts)
        if not texts:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        return np.stack([self._held[t] for t in texts])
