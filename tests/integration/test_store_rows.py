"""A space's rows: written by binary COPY a slice at a time, read back bit for bit, and skipped by the corpus
digest when nothing changed."""

import numpy as np
import pytest
import sqlalchemy as sa

from benchmarks.dataset import Chunk
from benchmarks.dataset import chunks_digest as corpus_digest
from benchmarks.store import vectors as vectors_module

pytestmark = pytest.mark.integration


class Embedder:
    """Seeded vectors in slices of `size`; counts every text it embeds, and fails after `fail_after` slices."""

    def __init__(self, dimension=8, size=3, fail_after=None):
        self.dimension, self.size, self.fail_after = dimension, size, fail_after
        self.embedded: list[str] = []

    def __call__(self, texts):
        for number, start in enumerate(range(0, len(texts), self.size)):
            if self.fail_after is not None and number == self.fail_after:
                raise ConnectionError("the embedding server went away")
            part = texts[start : start + self.size]
            self.embedded += part
            yield vectors_of(part, self.dimension)


def vectors_of(texts, dimension):
    return np.stack([np.random.default_rng(sum(t.encode())).normal(size=dimension).astype(np.float32)
                     for t in texts])


def corpus(n, changed=()):
    return [Chunk(id=f"c{i:03d}", text=f"text {i}{' changed' if i in changed else ''}", url=f"u{i % 3}")
            for i in range(n)]


def stored_digest(store, space):
    with store.engine.connect() as conn:
        return conn.execute(sa.text("SELECT corpus_sha256 FROM spaces WHERE id = :s"), {"s": space}).scalar()


def test_vectors_written_by_binary_copy_read_back_bit_for_bit(store):
    special = np.array([[0.0, -0.0, 1e-40, -3.4e38, 3.4e38, 1.0, -1.0, 0.1]], dtype=np.float32)
    rng = np.random.default_rng(1)
    vectors = np.concatenate([special, rng.normal(size=(40, 8)).astype(np.float32)])
    chunks = [Chunk(id=f"d{i:02d}", text=f"t{i}", title="ти́тул\t\\", url=f"https://x/{i}\n") for i in range(41)]
    space = store.create_space("binary-copy", "test-model", 8)
    store.sync(space, "test-model", chunks[::-1], lambda texts: [vectors[::-1]])
    ids, urls, matrix = store.embeddings(space)
    assert ids == [c.id for c in chunks] and urls == [c.url for c in chunks]  # by chunk id
    assert matrix.dtype == np.float32 and matrix.tobytes() == vectors.tobytes()
    with store.engine.connect() as conn:
        titles = conn.execute(sa.text("SELECT DISTINCT title FROM chunks WHERE space_id = :s"), {"s": space}).all()
    assert titles == [("ти́тул\t\\",)]


def test_an_empty_space_reads_as_an_empty_matrix(store):
    space = store.create_space("empty-space", "test-model", 8)
    assert store.embeddings(space)[2].shape == (0, 0)


def test_an_unchanged_corpus_is_recognised_by_its_digest_and_embeds_nothing(store):
    space = store.create_space("digest-same", "test-model", 8)
    embed = Embedder()
    first = store.sync(space, "test-model", corpus(10), embed)
    assert (first.added, first.unchanged) == (10, 0) and stored_digest(store, space) == corpus_digest(corpus(10))
    with store.engine.begin() as conn:  # the rows are not read again: a row changed behind bench's back stays
        conn.execute(sa.text("UPDATE chunks SET content_hash = 'x' WHERE space_id = :s AND external_id = 'c000'"),
                     {"s": space})
    again = store.sync(space, "test-model", corpus(10), embed)
    assert (again.added, again.updated, again.removed, again.unchanged) == (0, 0, 0, 10)
    assert len(embed.embedded) == 10


def test_a_changed_corpus_is_compared_row_by_row_and_its_digest_rewritten(store):
    space = store.create_space("digest-changed", "test-model", 8)
    embed = Embedder()
    store.sync(space, "test-model", corpus(10), embed)
    changed = corpus(9, changed={4})  # c004 edited, c009 gone
    stats = store.sync(space, "test-model", changed, embed)
    assert (stats.added, stats.updated, stats.removed, stats.unchanged) == (0, 1, 1, 8)
    assert embed.embedded[10:] == ["text 4 changed"]
    assert stored_digest(store, space) == corpus_digest(changed)
    reordered = store.sync(space, "test-model", changed[::-1], embed)  # another digest, the same rows
    assert (reordered.added, reordered.updated, reordered.removed, reordered.unchanged) == (0, 0, 0, 9)
    assert len(embed.embedded) == 11 and stored_digest(store, space) == corpus_digest(changed[::-1])
    ids, _, matrix = store.embeddings(space)
    assert ids == [c.id for c in corpus(9)]
    assert np.array_equal(matrix, vectors_of([c.text for c in changed], 8))


def test_a_sync_stopped_halfway_keeps_its_written_slices_and_the_rerun_embeds_the_rest(store):
    space = store.create_space("digest-stopped", "test-model", 8)
    with pytest.raises(ConnectionError):
        store.sync(space, "test-model", corpus(10), Embedder(size=4, fail_after=2))
    assert len(store.embeddings(space)[0]) == 8 and stored_digest(store, space) is None
    embed = Embedder()
    stats = store.sync(space, "test-model", corpus(10), embed)
    assert (stats.added, stats.unchanged) == (2, 8) and embed.embedded == ["text 8", "text 9"]
    assert stored_digest(store, space) == corpus_digest(corpus(10))


def test_an_embedder_that_gives_too_few_vectors_writes_no_digest(store):
    space = store.create_space("digest-short", "test-model", 8)
    with pytest.raises(ValueError, match="gave 9 vectors for 10 texts"):
        store.sync(space, "test-model", corpus(10), lambda texts: [vectors_of(texts[:9], 8)])
    assert stored_digest(store, space) is None


def test_the_tables_own_order_pairs_every_id_with_its_own_vector(store, monkeypatch):
    chunks = [Chunk(id=f"e{i:02d}", text=f"t{i}", url=f"u{i % 4}") for i in (5, 1, 7, 0, 3, 6, 2, 4)]
    space = store.create_space("table-order", "test-model", 8)
    store.sync(space, "test-model", chunks, lambda texts: [vectors_of(texts, 8)])
    by_id = store.embeddings(space)
    as_stored = store.embeddings(space, by_id=False)
    assert len(as_stored[0]) == len(chunks)  # in the table's order, which free space from other rows decides
    pairs = {i: (u, v.tobytes()) for i, u, v in zip(*by_id, strict=True)}
    assert {i: (u, v.tobytes()) for i, u, v in zip(*as_stored, strict=True)} == pairs
    real = vectors_module._ids_and_urls  # a plan that reads the ids in another order: they follow the vectors

    def reversed_ids(driver, space_id):
        keys, ids, urls = real(driver, space_id)
        return keys[::-1], ids[::-1], urls[::-1]

    monkeypatch.setattr(vectors_module, "_ids_and_urls", reversed_ids)
    again = store.embeddings(space, by_id=False)
    assert {i: (u, v.tobytes()) for i, u, v in zip(*again, strict=True)} == pairs


def test_a_sync_stopped_halfway_leaves_no_digest_to_vouch_for_the_old_rows(store):
    space = store.create_space("digest-cleared", "test-model", 8)
    store.sync(space, "test-model", corpus(10), Embedder())
    with pytest.raises(ConnectionError):  # c000-c003 edited: their old rows deleted, one new slice written
        store.sync(space, "test-model", corpus(10, changed={0, 1, 2, 3}), Embedder(size=2, fail_after=1))
    assert stored_digest(store, space) is None
    embed = Embedder()
    back = store.sync(space, "test-model", corpus(10), embed)  # the first corpus again: its rows are compared
    assert (back.added, back.updated, back.removed, back.unchanged) == (2, 2, 0, 6)  # 2 rewritten, 2 deleted
    assert embed.embedded == ["text 0", "text 1", "text 2", "text 3"]
    assert dict(zip(*store.embeddings(space)[:2], strict=True)) == {c.id: c.url for c in corpus(10)}
