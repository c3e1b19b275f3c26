"""Bring a dataset's corpus into pgvector: connect, embed what changed, build HNSW if asked.

Tier 0 and Tier 1 (and later tiers that retrieve) share this step, so "the second run re-embeds
nothing" holds for all of them.
"""

from __future__ import annotations

import math
import os
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from benchmarks.config import Settings, megabytes
from benchmarks.dataset import Dataset
from benchmarks.embedding.backends import build_embedder
from benchmarks.embedding.embedder import ENGLISH_ONLY_MODELS, CachedEmbedder, embed_slices, embed_with_progress
from benchmarks.errors import BenchError
from benchmarks.inputs import Warning
from benchmarks.machine import usable_cores
from benchmarks.metrics.language import detect_language
from benchmarks.nearest import ExactSpace
from benchmarks.progress import Bars
from benchmarks.report_model import HnswBuildBlock, Index, Indexing, Provenance, Store, Volatile
from benchmarks.store import vector_file
from benchmarks.store.database import Database, connect, database_errors
from benchmarks.store.vectors import Hit, HnswBuild, SyncStats, VectorStore


@dataclass
class IndexedCorpus:
    database: Database
    store: VectorStore
    embedder: CachedEmbedder
    space_id: int
    sync: SyncStats
    hnsw_build: HnswBuild | None  # None: no index asked for, or the stored one was reused
    seconds: float
    settings: Settings
    dataset: Dataset  # the corpus the rows were made equal to
    hnsw_used: str | None = None  # the index EXPLAIN showed the HNSW search using
    vectors_read_seconds: float | None = None
    vectors_read_from: str | None = None  # "postgresql", or "file": kept by an earlier run (store.vector_file)
    _exact: tuple[ExactSpace, list[str]] | None = field(default=None, repr=False)

    @property
    def dimension(self) -> int:
        return self.embedder.dimension

    def embed(self, texts: list[str], *, purpose: str, progress: Bars) -> np.ndarray:
        return embed_with_progress(self.embedder, texts, purpose, progress)

    @property
    def ef_search(self) -> int | None:
        """hnsw.ef_search for the queries, None for exact search (which never touches the index)."""
        return self.settings.ef_search if self.settings.index == "hnsw" else None

    def retrieve(self, vectors: np.ndarray, depth: int, *, progress: Bars, label: str = "retrieving",
                 exact: bool = False) -> list[list[Hit]]:
        """Each query's `depth` nearest chunks, with a progress bar. Exact search (the run's index, or `exact`:
        the ground truth of ANN recall) ranks the stored vectors in numpy (benchmarks.nearest); HNSW search is
        pgvector's, batched on `retrieval_workers` connections."""
        s = self.settings
        task = progress.add_task(label, total=len(vectors))
        advance = partial(progress.advance, task)
        if exact or self.ef_search is None:
            space, urls = self.exact_space(progress)
            found = space.search(vectors, depth, progress=advance)
            assert space.ids is not None  # exact_space gives the stored chunks' ids
            hits = [[Hit(space.ids[n.row], urls[n.row], n.score) for n in row] for row in found]
        else:
            hits = self.store.search_many(self.space_id, self.dimension, vectors, depth,
                                          batch_size=s.retrieval_batch_size, workers=s.retrieval_workers,
                                          hnsw_ef_search=self.ef_search, progress=advance)
        progress.remove_task(task)
        return hits

    def exact_space(self, progress: Bars) -> tuple[ExactSpace, list[str]]:
        """The space's stored vectors and their urls, read once per run (a caller that times searches reads them
        first, so the one-time read is not charged to a search; `vectors_read_seconds`)."""
        if self._exact is None:
            task = progress.add_task("reading the stored vectors", total=None)
            started = time.perf_counter()
            ids, urls, matrix = self._stored_vectors()  # in the table's order: ties are settled by id
            self._exact = ExactSpace(ids, matrix), urls
            self.vectors_read_seconds = time.perf_counter() - started
            progress.remove_task(task)
        return self._exact

    def _stored_vectors(self) -> tuple[list[str], list[str], np.ndarray]:
        """The vectors kept by an earlier run from these very rows (benchmarks.store.vector_file), memory-mapped;
        else read from PostgreSQL and kept for the next run. They are kept only when the rows' key is the same
        before and after the read: a sync that ran meanwhile changed what was read, and a later run reads again."""
        data_dir, chunks, digest = self.settings.data_dir, self.dataset.chunks, self.dataset.corpus_digest
        key = self.store.rows_key(self.space_id, digest)
        kept = vector_file.read(data_dir, self.space_id, key, len(chunks), self.dimension) if key else None
        if kept is not None:
            self.vectors_read_from = "file"
            rows = [chunks[i] for i in kept.places.tolist()]
            return [c.id for c in rows], [c.url for c in rows], kept.matrix
        ids, urls, matrix = self.store.embeddings(self.space_id, by_id=False)
        self.vectors_read_from = "postgresql"
        if key is not None and key == self.store.rows_key(self.space_id, digest):
            place = {c.id: i for i, c in enumerate(chunks)}
            vector_file.write(data_dir, self.space_id, key, matrix,
                              np.fromiter(map(place.__getitem__, ids), dtype=np.int64, count=len(ids)))
        return ids, urls, matrix

    def provenance(self) -> Provenance:
        s = self.settings
        index = (Index(type=s.index, exact_search=EXACT_SEARCH) if s.index == "exact" else
                 Index(type=s.index, m=s.hnsw_m, ef_construction=s.hnsw_ef_construction, ef_search=s.ef_search,
                       distance="cosine", used_by_plan=self.hnsw_used))
        versions = self.store.versions()
        return Provenance(embedder=self.embedder.provenance(self.dimension),
                          store=Store(backend=self.database.backend, postgres=versions["postgres"],
                                      pgvector=versions["pgvector"]),
                          index=index)

    def warnings(self) -> list[Warning]:
        """What the user should act on: an HNSW build that outgrew its memory, and an English-only model on
        another language."""
        found = [Warning("hnsw_build_memory", f"pgvector while building the index: {notice} (set "
                         "--hnsw-build-memory higher, or the server's maintenance_work_mem)", 1)
                 for notice in (self.hnsw_build.notices if self.hnsw_build else []) if "maintenance_work_mem" in notice]
        return found + self._language_warnings()

    def _language_warnings(self) -> list[Warning]:
        """Say so when an English-only model embeds another language: low scores are then the model's. The
        language is the declared one, or the texts' own (benchmarks.metrics.language) when the dataset is
        declared or detected as English but its texts say otherwise (a manifest they contradict)."""
        if self.embedder.model_id not in ENGLISH_ONLY_MODELS:
            return []
        dataset = self.dataset
        language, how = dataset.language, ""
        if language == "en":
            detected = detect_language([c.text for c in dataset.chunks], [q.text for q in dataset.questions])
            if detected not in ("", "en"):
                language, how = detected, " (detected from its texts)"
        if language in ("", "en"):
            return []
        return [Warning("embedder_language_mismatch",
                        f"{self.embedder.model_id} is trained on English; on a '{language}' dataset{how} "
                        "its retrieval scores reflect the model, not your system (use --embedding-model)", 1)]

    def volatile(self) -> Volatile:
        indexing = Indexing(seconds=round(self.seconds, 3), reused=self.sync.reused, chunks_added=self.sync.added,
                            chunks_updated=self.sync.updated, chunks_removed=self.sync.removed,
                            chunks_unchanged=self.sync.unchanged, hnsw_built=self.hnsw_build is not None,
                            migrations_applied=self.database.migrations_applied)
        if self.hnsw_build:
            indexing.hnsw_build = _build_report(self.hnsw_build)
        return Volatile(indexing=indexing, embedding_cache=self.embedder.cache_report())


EXACT_SEARCH = "numpy over the vectors pgvector stores (float32 products, candidates rescored in float64)"
PLAN_PROBE_K = 10  # the depth of the search whose plan is checked: any depth plans the same scan
DIMENSION_PROBE = 16  # chunks whose cached vectors are looked up to tell a new space's dimension


@contextmanager
def open_index(settings: Settings, dataset: Dataset, progress: Bars) -> Iterator[IndexedCorpus]:
    """The dataset's corpus stored and indexed; a database failure in here or in the caller's block (a
    server stopped, a connection ended) is one line that names the database and says what was kept."""
    started = time.perf_counter()
    status = progress.add_task("starting PostgreSQL with pgvector", total=None)
    database = connect(settings)
    progress.remove_task(status)
    try:
        with database_errors(database):
            yield _build(settings, dataset, progress, database, started)
    finally:
        database.engine.dispose()


def _build(settings: Settings, dataset: Dataset, progress: Bars, database: Database,
           started: float) -> IndexedCorpus:
    """Find or create the dataset's space, embed what changed, build HNSW if asked."""
    store = VectorStore(database.engine)
    embedder = build_embedder(settings, store)
    found = store.find_space(dataset.name, embedder.model_id)
    if found:
        space_id, embedder.known_dimension = found
    else:  # a new space: its dimension from a cached vector or the model's declaration, loading no model
        embedder.learn_dimension([c.text for c in dataset.chunks[:DIMENSION_PROBE]], purpose="corpus")
        space_id = store.create_space(dataset.name, embedder.model_id, embedder.dimension)
    sync = store.sync(space_id, embedder.model_id, dataset.chunks,
                      lambda texts: embed_slices(embedder, texts, "corpus", progress), digest=dataset.corpus_digest)
    hnsw_build, hnsw_used = None, None
    if settings.index == "hnsw":
        status = progress.add_task("building HNSW index", total=None)
        memory, workers = build_resources(settings, database.backend, len(dataset.chunks), embedder.dimension)
        hnsw_build = store.ensure_hnsw(space_id, embedder.dimension, settings.hnsw_m, settings.hnsw_ef_construction,
                                       memory=memory, workers=workers)
        hnsw_used = _checked_plan(store, space_id, embedder.dimension, settings)
        progress.remove_task(status)
    return IndexedCorpus(database, store, embedder, space_id, sync, hnsw_build, time.perf_counter() - started,
                         settings, dataset, hnsw_used)


def build_resources(settings: Settings, backend: str, rows: int, dimension: int) -> tuple[str | None, int | None]:
    """maintenance_work_mem and parallel workers for an HNSW build; None keeps the server's own.

    On the embedded server bench is the only user, so 'auto' gives the build what its graph needs (pgvector
    builds fastest when the whole graph fits; past it, it spills and says so) and every core but one; an
    external server's settings are its administrator's, changed only when asked. Parallel workers build in
    shared memory, so with less free in /dev/shm than the graph needs (a container's 64 MB) the build stays
    in one process."""
    memory = settings.hnsw_build_memory
    workers = settings.hnsw_build_workers
    if backend != "embedded":
        return (None if memory == "auto" else memory), workers
    if memory == "auto":
        memory = f"{graph_megabytes(rows, dimension, settings.hnsw_m)}MB"
    if workers is None:
        needed = megabytes(memory) * 2**20
        workers = max(usable_cores() - 1, 0) if _shared_memory_free() >= needed else 0
    return memory, workers


def graph_megabytes(rows: int, dimension: int, m: int) -> int:
    """The memory an HNSW graph of `rows` vectors takes while pgvector builds it, with a quarter to spare:
    per element its vector (4 bytes a dimension), 2m neighbours on layer 0 and about as many above (16 bytes
    each with their distances) and ~128 bytes of element bookkeeping. At least PostgreSQL's default 64 MB,
    at most a quarter of this machine's memory."""
    per_row = 4 * dimension + 16 * (2 * m + 1) + 128
    wanted = math.ceil(rows * per_row * 1.25 / 2**20)
    quarter = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4 // 2**20
    return max(64, min(wanted, quarter))


def _shared_memory_free() -> int:
    try:
        return shutil.disk_usage("/dev/shm").free
    except OSError:  # no /dev/shm (not Linux): PostgreSQL's shared memory is then the system's own
        return 2**63


def _build_report(build: HnswBuild) -> HnswBuildBlock:
    return HnswBuildBlock(seconds=round(build.seconds, 3), maintenance_work_mem=build.maintenance_work_mem,
                          parallel_workers=build.parallel_workers, index_megabytes=round(build.bytes / 2**20, 1),
                          notices=build.notices)


def _checked_plan(store: VectorStore, space_id: int, dimension: int, settings: Settings) -> str:
    """The HNSW index the search's plan uses; a run whose plan would not use it stops here, since its numbers
    would be exact search's under an "hnsw" label."""
    used = store.search_plan(space_id, dimension, PLAN_PROBE_K, settings.ef_search)
    if used is None:
        raise BenchError("--index hnsw: PostgreSQL's plan for the search does not use the HNSW index (EXPLAIN "
                         "shows another scan), so the run would measure exact search; check that pgvector's "
                         "hnsw access method is available, or run with --index exact")
    return used
