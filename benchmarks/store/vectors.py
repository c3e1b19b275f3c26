"""pgvector storage: chunks per embedding space, exact or HNSW search, the embedding cache.

Search is batched: one SQL statement answers a whole batch of questions through a LATERAL join,
instead of one round trip per question. Exact search orders by the raw column, which no index
covers, so it is a true scan; HNSW search orders by the same expression its partial index is
built on, so the planner uses that index.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from json.encoder import encode_basestring as encode_json_string
from typing import Any

import numpy as np
import sqlalchemy as sa

from benchmarks.dataset import Chunk, chunks_digest
from benchmarks.errors import BenchError

# the vectors of texts, in order, as consecutive slices: each slice is written as it arrives
EmbedSlices = Callable[[list[str]], Iterable[np.ndarray]]
READ_SLICE = 16_384  # rows fetched at once when a space's ids are read
DECODE_ROWS = 2048  # vectors decoded at once when a space's vectors are read
SYNC_LOCK = 0x62656E63  # the first key of bench's advisory locks ("benc"), the space id is the second


@dataclass(frozen=True)
class Hit:
    chunk_id: str
    url: str
    score: float  # cosine similarity, 1 - pgvector's cosine distance


@dataclass(frozen=True)
class SyncStats:
    added: int
    updated: int
    removed: int
    unchanged: int

    @property
    def reused(self) -> bool:
        return self.added == self.updated == self.removed == 0


@dataclass(frozen=True)
class HnswBuild:
    """What building an HNSW index took: a build whose graph outgrew its memory is many times slower, and
    a report that says so saves the user from guessing."""

    seconds: float
    maintenance_work_mem: str
    parallel_workers: int  # max_parallel_maintenance_workers during the build: pgvector may start fewer
    bytes: int  # the index's size on disk
    notices: list[str]


def chunk_hash(chunk: Chunk) -> str:
    """What decides whether a stored row is still current: text and the metadata shown to users. The sha256
    of `json.dumps([text, title, url], ensure_ascii=False)`, spelled out with json's C string encoder (twice
    as fast for a million chunks; the stored hashes stay what they were)."""
    payload = f"[{encode_json_string(chunk.text)}, {encode_json_string(chunk.title)}, {encode_json_string(chunk.url)}]"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class VectorStore:
    def __init__(self, engine: sa.Engine):
        self.engine = engine

    def versions(self) -> dict[str, str]:
        with self.engine.connect() as conn:
            pg = conn.execute(sa.text("SHOW server_version")).scalar_one()
            vector = conn.execute(sa.text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).scalar()
        return {"postgres": str(pg), "pgvector": str(vector)}

    def find_space(self, collection: str, model_id: str) -> tuple[int, int] | None:
        """(id, dimension) of a stored (collection, model) space, or None before its first run."""
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.text("SELECT id, dimension FROM spaces WHERE collection = :c AND model_id = :m"),
                {"c": collection, "m": model_id},
            ).one_or_none()
        return None if row is None else (int(row[0]), int(row[1]))

    def create_space(self, collection: str, model_id: str, dimension: int) -> int:
        with self.engine.begin() as conn:
            conn.execute(
                sa.text(
                    "INSERT INTO spaces (collection, model_id, dimension) VALUES (:c, :m, :d) "
                    "ON CONFLICT (collection, model_id) DO NOTHING"
                ),
                {"c": collection, "m": model_id, "d": dimension},
            )
        found = self.find_space(collection, model_id)
        assert found is not None
        return found[0]

    def sync(self, space_id: int, model_id: str, chunks: Sequence[Chunk], embed: EmbedSlices, *,
             digest: str | None = None) -> SyncStats:
        """Make the stored rows equal the dataset, embedding only new or changed chunks.

        A space remembers the digest of the corpus it was last made equal to (`digest`: the chunks'
        `chunks_digest`, given by a caller that knows it already; written with the sync's last statement), so a
        rerun on the same corpus compares one digest instead of a million rows; and a token that changes
        whenever its rows are written (`rows_key`). Otherwise the stored rows' hashes are compared: stale rows
        are deleted first, then the fresh chunks are embedded and written one slice at a time, each slice in its
        own short transaction, so a million chunks never sit in memory at once and a run stopped halfway keeps
        every slice it wrote (the rerun embeds only the rest).

        Runs under a per-space advisory lock: a nightly job running two tiers at once on one dataset
        then waits for the first sync and finds nothing left to embed, instead of failing on a
        duplicate key. The lock is a session lock on an autocommit connection, so no transaction is
        open while the embedder runs (hosted servers end a session left idle in a transaction:
        idle_in_transaction_session_timeout); each statement and each write is a short transaction.
        """
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as lock:
            lock.execute(sa.text("SELECT pg_advisory_lock(:ns, :s)"), {"ns": SYNC_LOCK, "s": space_id})
            try:
                return self._sync(space_id, model_id, chunks, digest or chunks_digest(chunks), embed, lock)
            finally:
                _unlock(lock, space_id)

    def _sync(self, space_id: int, model_id: str, chunks: Sequence[Chunk], digest: str, embed: EmbedSlices,
              lock: sa.Connection) -> SyncStats:
        with self.engine.connect() as conn:
            if conn.execute(sa.text("SELECT corpus_sha256 FROM spaces WHERE id = :s"), {"s": space_id}
                            ).scalar() == digest:
                return SyncStats(added=0, updated=0, removed=0, unchanged=len(chunks))
            stored: dict[str, str] = dict(
                conn.execute(
                    sa.text("SELECT external_id, content_hash FROM chunks WHERE space_id = :s"), {"s": space_id}
                ).all()
            )
        wanted = {c.id: (c, chunk_hash(c)) for c in chunks}
        stale = [cid for cid, hashed in stored.items() if cid not in wanted or wanted[cid][1] != hashed]
        fresh = [(c, hashed) for cid, (c, hashed) in wanted.items() if stored.get(cid) != hashed]
        updated = sum(1 for c, _ in fresh if c.id in stored)
        unchanged = len(wanted) - len(fresh)
        del wanted, stored  # a million entries: not held while the vectors are
        if stale or fresh:  # the rows are about to change: no digest vouches for them until the sync completes
            with self.engine.begin() as conn:
                conn.execute(sa.text("UPDATE spaces SET corpus_sha256 = NULL, rows_token = NULL WHERE id = :s"),
                             {"s": space_id})
                if stale:
                    conn.execute(sa.text("DELETE FROM chunks WHERE space_id = :s AND external_id = ANY(:ids)"),
                                 {"s": space_id, "ids": stale})
        written = 0
        for vectors in embed([c.text for c, _ in fresh]) if fresh else ():
            lock.execute(sa.text("SELECT 1"))  # the lock's session still lives: writing without it could race
            with self.engine.begin() as conn:
                _copy_chunks(conn, space_id, model_id, fresh[written : written + len(vectors)], vectors)
            written += len(vectors)
        if written != len(fresh):
            raise ValueError(f"the embedder gave {written} vectors for {len(fresh)} texts")
        if stale or fresh:
            # vacuumed as well as analysed, on the lock's autocommit session (VACUUM runs in no transaction): a
            # million rows written would otherwise set the server's autovacuum off on them during the next run
            lock.execute(sa.text("VACUUM (ANALYZE) chunks"))
        lock.execute(sa.text("SELECT 1"))
        with self.engine.begin() as conn:
            conn.execute(sa.text("UPDATE spaces SET corpus_sha256 = :d, rows_token = CASE WHEN :written OR "
                                 "rows_token IS NULL THEN :t ELSE rows_token END WHERE id = :s"),
                         {"d": digest, "written": bool(stale or fresh), "t": uuid.uuid4().hex, "s": space_id})
        return SyncStats(
            added=len(fresh) - updated,
            updated=updated,
            removed=len(stale) - updated,
            unchanged=unchanged,
        )

    def rows_key(self, space_id: int, digest: str) -> str | None:
        """A name for the space's rows as they stand, when a completed sync made them equal the corpus whose
        digest is `digest`: that digest and the token of their last writing (`sync`). None otherwise."""
        with self.engine.connect() as conn:
            row = conn.execute(sa.text("SELECT corpus_sha256, rows_token FROM spaces WHERE id = :s"),
                               {"s": space_id}).one()
        return f"{digest}-{row[1]}" if row[0] == digest and row[1] is not None else None

    def ensure_hnsw(self, space_id: int, dimension: int, m: int, ef_construction: int, *,
                    memory: str | None = None, workers: int | None = None) -> HnswBuild | None:
        """Build the space's HNSW index unless one with these parameters exists; what the build took, or None
        when the index was already there.

        `memory` (maintenance_work_mem) and `workers` (max_parallel_maintenance_workers) hold for the build's
        transaction only; None keeps the server's own. pgvector says in a NOTICE when the graph outgrows the
        memory (the build then goes on many times slower): the notices are kept for the report.

        Under the space's lock, held to the end of the transaction: a second run asking for the same index
        waits and finds it built, instead of failing on a duplicate relation (or dropping it mid-build)."""
        name = f"chunks_hnsw_s{space_id}_m{m}_ef{ef_construction}"
        with self.engine.begin() as conn:
            conn.execute(sa.text("SELECT pg_advisory_xact_lock(:ns, :s)"), {"ns": SYNC_LOCK, "s": space_id})
            existing = _hnsw_indexes(conn, space_id)
            if name in existing:
                return None
            for other in existing:
                conn.execute(sa.text(f'DROP INDEX "{other}"'))
            if memory is not None:
                conn.execute(sa.text("SELECT set_config('maintenance_work_mem', :v, true)"), {"v": memory})
            if workers is not None:
                conn.execute(sa.text("SELECT set_config('max_parallel_maintenance_workers', :v, true)"),
                             {"v": str(int(workers))})
            notices: list[str] = []
            driver = _driver(conn)

            def keep(diagnostic: Any) -> None:
                notices.append(" ".join(filter(None, (diagnostic.message_primary, diagnostic.message_detail))))

            driver.add_notice_handler(keep)
            started = time.perf_counter()
            try:
                conn.execute(
                    sa.text(
                        f'CREATE INDEX "{name}" ON chunks USING hnsw ((embedding::vector({int(dimension)})) '
                        f"vector_cosine_ops) WITH (m = {int(m)}, ef_construction = {int(ef_construction)}) "
                        f"WHERE space_id = {int(space_id)}"
                    )
                )
            finally:
                driver.remove_notice_handler(keep)
            seconds = time.perf_counter() - started
            shown = {setting: conn.execute(sa.text(f"SHOW {setting}")).scalar_one()
                     for setting in ("maintenance_work_mem", "max_parallel_maintenance_workers")}
            size = conn.execute(sa.text("SELECT pg_relation_size(CAST(:n AS regclass))"),
                                {"n": f'"{name}"'}).scalar_one()
        return HnswBuild(seconds, shown["maintenance_work_mem"], int(shown["max_parallel_maintenance_workers"]),
                         int(size), notices)

    def search(
        self,
        space_id: int,
        dimension: int,
        queries: np.ndarray,
        k: int,
        *,
        hnsw_ef_search: int | None = None,
    ) -> list[list[Hit]]:
        """Top-k per query vector in one statement; HNSW when `hnsw_ef_search` is given, else exact."""
        sql = _search_sql(space_id, dimension, k, hnsw=hnsw_ef_search is not None)
        results: list[list[Hit]] = [[] for _ in range(len(queries))]
        with self.engine.begin() as conn:
            if hnsw_ef_search is not None:
                _use_hnsw(conn, hnsw_ef_search)
            cursor = _driver(conn).cursor(binary=True)
            cursor.execute(sql, (list(range(len(queries))), [np.asarray(q, dtype=np.float32) for q in queries]))
            for ordinal, chunk_id, url, score in cursor.fetchall():
                results[ordinal].append(Hit(chunk_id, url, float(score)))
        return results

    def search_plan(self, space_id: int, dimension: int, k: int, ef_search: int) -> str | None:
        """The HNSW index PostgreSQL's plan for an HNSW search uses, or None when the plan does not use one.

        The search asks for the index (planner settings local to its transaction), but a plan is the
        planner's: checked once per run by EXPLAIN of the very statement the search sends, so a report that
        says "hnsw" measured the index."""
        sql = _search_sql(space_id, dimension, k, hnsw=True)
        probe = [np.ones(dimension, dtype=np.float32)]
        with self.engine.begin() as conn:
            _use_hnsw(conn, ef_search)
            cursor = _driver(conn).cursor(binary=True)
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", ([0], probe))
            plan = cursor.fetchone()[0]
            indexes = set(_hnsw_indexes(conn, space_id))
        used = _plan_indexes(plan[0]["Plan"] if isinstance(plan, list) else plan)
        return next((name for name in used if name in indexes), None)

    def search_many(
        self,
        space_id: int,
        dimension: int,
        queries: np.ndarray,
        k: int,
        *,
        batch_size: int,
        workers: int,
        hnsw_ef_search: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[list[Hit]]:
        """Batches on `workers` connections at once: PostgreSQL runs each statement on one core, so
        concurrent batches are what uses the server's other cores for exact scans."""
        batches = [queries[start : start + batch_size] for start in range(0, len(queries), batch_size)]
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(self.search, space_id, dimension, batch, k, hnsw_ef_search=hnsw_ef_search)
                       for batch in batches]
            for done in as_completed(futures):
                if progress:
                    progress(len(done.result()))
        return [hits for future in futures for hits in future.result()]

    def embeddings(self, space_id: int, *, by_id: bool = True) -> tuple[list[str], list[str], np.ndarray]:
        """Every stored vector of a space with its chunk's id and url: ordered by chunk id, as production search
        sees them, or (`by_id` False) in the table's own order, for a caller that settles ties by id itself
        (exact search), so the matrix is never copied to reorder it.

        Two reads of one snapshot: the vectors by binary COPY, whose rows (the row's key, then the vector as
        vector_send gives it) all have one size, so each block of them is decoded by one numpy call into its
        place in a matrix sized by a count first; and the ids and urls by a cursor. A vector per Python object,
        a detour through the TOAST table (see migration 0003), a server-side sort of the vectors, or the whole
        result in memory at once would each cost more than the search (1.5 GB at a million chunks)."""
        with self.engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:  # one snapshot
            rows, dimension = conn.execute(
                sa.text("SELECT (SELECT count(*) FROM chunks WHERE space_id = :s), dimension FROM spaces "
                        "WHERE id = :s"), {"s": space_id}).one()
            matrix = np.empty((rows, dimension if rows else 0), dtype=np.float32)
            keys = _copy_vectors(_driver(conn), space_id, matrix)
            order, ids, urls = _ids_and_urls(_driver(conn), space_id)
        if not np.array_equal(order, keys):  # the two reads took different plans: the ids follow the vectors
            where = np.argsort(order)
            ids, urls = ([values[i] for i in where[np.searchsorted(order, keys, sorter=where)]]
                         for values in (ids, urls))
        if by_id and ids != sorted(ids):
            rank = sorted(range(len(ids)), key=ids.__getitem__)
            ids, urls, matrix = [ids[i] for i in rank], [urls[i] for i in rank], matrix[rank]
        return ids, urls, matrix

    def cached_embeddings(self, model_id: str, digests: Sequence[str]) -> dict[str, np.ndarray]:
        if not digests:
            return {}
        with self.engine.connect() as conn:
            cursor = _driver(conn).cursor(binary=True)
            cursor.execute(
                "SELECT text_sha256, vector_send(embedding) FROM embedding_cache WHERE model_id = %s "
                "AND text_sha256 = ANY(%s)",
                (model_id, list(digests)),
            )
            rows = cursor.fetchall()
        if not rows:
            return {}
        return dict(zip([r[0] for r in rows], _decoded([r[1] for r in rows]), strict=True))

    def cache_embeddings(self, model_id: str, digests: Sequence[str], vectors: np.ndarray) -> None:
        """Store new cache rows; a row another process wrote meanwhile is kept, not an error."""
        if not len(digests):
            return
        with self.engine.begin() as conn:
            cursor = _driver(conn).cursor()
            cursor.execute("CREATE TEMP TABLE incoming (text_sha256 text, embedding vector) ON COMMIT DROP")
            with cursor.copy("COPY incoming (text_sha256, embedding) FROM STDIN (FORMAT BINARY)") as copy:
                copy.set_types(("text", "bytea"))
                for digest, sent in zip(digests, _sent(vectors), strict=True):
                    copy.write_row((digest, sent))
            cursor.execute(
                "INSERT INTO embedding_cache (model_id, text_sha256, embedding) "
                "SELECT %s, text_sha256, embedding FROM incoming ON CONFLICT DO NOTHING",
                (model_id,),
            )


def _driver(conn: sa.Connection) -> Any:
    """The psycopg connection under `conn`: SQLAlchemy types it optional for a pool entry whose driver
    connection is gone, which a connection in use never is."""
    driver = conn.connection.driver_connection
    assert driver is not None
    return driver


CHUNK_COLUMNS = ("space_id", "external_id", "url", "title", "text", "content_hash", "model_id", "embedding")
# the columns' types for binary COPY; the vector goes as the bytes of pgvector's vector_recv form (see `_sent`)
CHUNK_TYPES = ("int4", "text", "text", "text", "text", "text", "text", "bytea")


def _copy_chunks(conn: sa.Connection, space_id: int, model_id: str, chunks: Sequence[tuple[Chunk, str]],
                 vectors: np.ndarray) -> None:
    """Rows of (chunk, its hash) with their vectors, by binary COPY: every vector is packed by one numpy call
    for the slice, where a text COPY formats each of its floats in Python."""
    cursor = _driver(conn).cursor()
    with cursor.copy(f"COPY chunks ({', '.join(CHUNK_COLUMNS)}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(CHUNK_TYPES)
        for (chunk, digest), sent in zip(chunks, _sent(vectors), strict=True):
            copy.write_row((space_id, chunk.id, chunk.url, chunk.title, chunk.text, digest, model_id, sent))


def _sent(vectors: np.ndarray) -> list[bytes]:
    """Each row as pgvector's binary input reads it (vector_recv): int16 dimension, int16 unused, big-endian
    float32s; the inverse of `_decoded`."""
    rows, dimension = vectors.shape
    packed = np.zeros((rows, 4 + 4 * dimension), dtype=np.uint8)
    packed[:, :2] = np.frombuffer(dimension.to_bytes(2, "big"), dtype=np.uint8)
    packed[:, 4:] = np.ascontiguousarray(vectors, dtype=">f4").view(np.uint8).reshape(rows, 4 * dimension)
    return [row.tobytes() for row in packed]


def _unlock(lock: sa.Connection, space_id: int) -> None:
    """Release the sync lock. A session that broke took its lock with it, and the error that broke it
    is the one to show: a second one from here would hide it."""
    try:
        lock.execute(sa.text("SELECT pg_advisory_unlock(:ns, :s)"), {"ns": SYNC_LOCK, "s": space_id})
    except (sa.exc.DBAPIError, sa.exc.InvalidRequestError):  # the driver's error, or the broken connection's
        pass


def _hnsw_indexes(conn: sa.Connection, space_id: int) -> list[str]:
    return list(
        conn.execute(
            sa.text("SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexname ~ :p"),
            {"p": f"^chunks_hnsw_s{int(space_id)}_m"},
        ).scalars()
    )


def _copy_vectors(driver: Any, space_id: int, matrix: np.ndarray) -> np.ndarray:
    """Fill `matrix` with the space's vectors by binary COPY; the rows' keys (chunks.id) in the same order.

    A row of (int8, vector) in COPY's binary format is: int16 field count, int32 length, the int8, int32
    length, then vector_send's int16 dimension, int16 unused and big-endian float32s: one fixed size, so a
    numpy record type reads a block of whole rows at once."""
    dimension = matrix.shape[1]
    row = np.dtype([("fields", ">i2"), ("key_size", ">i4"), ("key", ">i8"), ("vector_size", ">i4"),
                    ("dimension", ">i2"), ("unused", ">i2"), ("vector", ">f4", (dimension,))])
    keys = np.empty(len(matrix), dtype=np.int64)
    pending, filled, started = bytearray(), 0, False
    with driver.cursor().copy(f"COPY (SELECT id, embedding FROM chunks WHERE space_id = {int(space_id)}) "
                              "TO STDOUT (FORMAT BINARY)") as copy:
        for block in copy:
            pending += block
            if not started:  # the header: signature, flags, and an extension area of the length given
                skip = 19 + int.from_bytes(pending[15:19], "big")
                if len(pending) < skip:
                    continue
                del pending[:skip]
                started = True
            whole = min(len(pending) // row.itemsize, len(matrix) - filled)
            if whole >= DECODE_ROWS or whole == len(matrix) - filled > 0:  # PostgreSQL sends a message a row
                decoded = np.frombuffer(pending, dtype=row, count=whole)
                if not (np.all(decoded["fields"] == 2) and np.all(decoded["dimension"] == dimension)):
                    raise BenchError(f"space {space_id} holds a vector that is not {dimension}-dimensional")
                matrix[filled : filled + whole] = decoded["vector"]
                keys[filled : filled + whole] = decoded["key"]
                del decoded
                del pending[: whole * row.itemsize]
                filled += whole
    if filled != len(matrix) or bytes(pending) != b"\xff\xff":  # every row, then the trailer
        raise BenchError(f"space {space_id}: its vectors could not be read whole ({filled} of {len(matrix)} rows)")
    return keys


def _ids_and_urls(driver: Any, space_id: int) -> tuple[np.ndarray, list[str], list[str]]:
    """Each row's key, chunk id and url, a slice at a time through a server-side cursor (one string per url:
    a page's chunks share it, a million rows have far fewer pages)."""
    keys: list[int] = []
    ids: list[str] = []
    urls: list[str] = []
    pages: dict[str, str] = {}
    cursor = driver.cursor(name="bench_space_ids")
    cursor.execute("SELECT id, external_id, url FROM chunks WHERE space_id = %s", (space_id,))
    while found := cursor.fetchmany(READ_SLICE):
        keys += [r[0] for r in found]
        ids += [r[1] for r in found]
        urls += [pages.setdefault(r[2], r[2]) for r in found]
    cursor.close()
    return np.asarray(keys, dtype=np.int64), ids, urls


def _decoded(sent: list[bytes]) -> np.ndarray:
    """Rows of pgvector's vector_send output (int16 dimension, int16 unused, big-endian float32s) as a matrix."""
    dimension = int.from_bytes(sent[0][:2], "big")
    packed = np.frombuffer(b"".join(sent), dtype=np.uint8).reshape(len(sent), 4 + 4 * dimension)
    return packed[:, 4:].copy().view(">f4").astype(np.float32)


def _use_hnsw(conn: sa.Connection, ef_search: int) -> None:
    """Make the transaction's searches use the HNSW index: on a small table the planner prefers a scan and a
    sort (exact results under an "hnsw" label), so scans and sorts are priced out for this transaction only."""
    conn.execute(sa.text(f"SET LOCAL hnsw.ef_search = {int(ef_search)}"))
    conn.execute(sa.text("SET LOCAL enable_seqscan = off"))
    conn.execute(sa.text("SET LOCAL enable_sort = off"))


def _plan_indexes(node: dict[str, Any]) -> list[str]:
    """Every index an EXPLAIN (FORMAT JSON) plan node and its children scan."""
    found = [node["Index Name"]] if "Index Name" in node else []
    for child in node.get("Plans", ()):
        found += _plan_indexes(child)
    return found


def _search_sql(space_id: int, dimension: int, k: int, *, hnsw: bool) -> str:
    column = f"(c.embedding::vector({int(dimension)}))" if hnsw else "c.embedding"
    query = f"q.vec::vector({int(dimension)})" if hnsw else "q.vec"
    return (
        "SELECT q.ord, hit.external_id, hit.url, 1 - hit.distance "
        "FROM unnest(%s::int[], %s::vector[]) AS q(ord, vec) "
        "CROSS JOIN LATERAL ("
        f"  SELECT c.external_id, c.url, {column} <=> {query} AS distance FROM chunks c"
        f"  WHERE c.space_id = {int(space_id)} ORDER BY {column} <=> {query} LIMIT {int(k)}"
        ") AS hit ORDER BY q.ord, hit.distance"
    )


def drop_collection(engine: sa.Engine, collection: str) -> list[int]:
    """Delete every space of a collection (all models), its chunks and its HNSW indexes; the spaces' ids."""
    with engine.begin() as conn:
        ids = conn.execute(sa.text("SELECT id FROM spaces WHERE collection = :c"), {"c": collection}).scalars().all()
        for space_id in ids:
            for name in _hnsw_indexes(conn, space_id):
                conn.execute(sa.text(f'DROP INDEX "{name}"'))
        conn.execute(sa.text("DELETE FROM spaces WHERE collection = :c"), {"c": collection})
    return list(ids)
