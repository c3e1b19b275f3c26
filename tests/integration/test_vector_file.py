"""The vectors an exact search keeps beside the database: read back only while the table holds the rows they were
written from (`VectorStore.rows_key`), and ignored when they cannot be read whole."""

import numpy as np
import pytest

from benchmarks.dataset import Chunk, chunks_digest
from benchmarks.store import vector_file

pytestmark = pytest.mark.integration


def corpus(n, changed=()):
    return [Chunk(id=f"c{i:03d}", text=f"text {i}{' changed' if i in changed else ''}") for i in range(n)]


def embed(texts):
    yield np.stack([np.random.default_rng(sum(t.encode())).normal(size=8).astype(np.float32) for t in texts])


def test_the_rows_key_names_one_writing_of_one_corpus(store):
    space = store.create_space("rows-key", "test-model", 8)
    chunks = corpus(6)
    assert store.rows_key(space, chunks_digest(chunks)) is None  # nothing synced yet
    store.sync(space, "test-model", chunks, embed)
    key = store.rows_key(space, chunks_digest(chunks))
    assert key is not None and key.startswith(chunks_digest(chunks))
    store.sync(space, "test-model", chunks, embed)
    assert store.rows_key(space, chunks_digest(chunks)) == key  # nothing written: the same rows
    assert store.rows_key(space, chunks_digest(chunks[::-1])) is None  # the rows equal another corpus
    store.sync(space, "test-model", chunks[::-1], embed)  # reordered: a new digest, the rows untouched
    reordered = store.rows_key(space, chunks_digest(chunks[::-1]))
    assert reordered is not None and reordered.split("-")[1] == key.split("-")[1]
    store.sync(space, "test-model", corpus(6, changed={2}), embed)  # a row rewritten: a new token
    rewritten = store.rows_key(space, chunks_digest(corpus(6, changed={2})))
    assert rewritten is not None and rewritten.split("-")[1] != key.split("-")[1]


def test_the_same_texts_written_again_get_a_new_token(store):
    """Dropped and embedded again (by another build of the model, say): same digest, other rows."""
    from benchmarks.store.vectors import drop_collection

    chunks = corpus(4)
    space = store.create_space("rows-again", "test-model", 8)
    store.sync(space, "test-model", chunks, embed)
    before = store.rows_key(space, chunks_digest(chunks))
    drop_collection(store.engine, "rows-again")
    space = store.create_space("rows-again", "test-model", 8)
    store.sync(space, "test-model", chunks, embed)
    assert store.rows_key(space, chunks_digest(chunks)) not in (None, before)


def test_kept_vectors_read_back_mapped_and_replace_the_older_ones(tmp_path):
    matrix = np.random.default_rng(0).normal(size=(5, 8)).astype(np.float32)
    places = np.array([4, 0, 3, 1, 2], dtype=np.int64)
    assert vector_file.write(tmp_path, 7, "d-old", matrix * 2, places)
    assert vector_file.write(tmp_path, 7, "d-new", matrix, places)
    assert vector_file.write(tmp_path, 17, "d-other", matrix, places)  # another space's files are left alone
    kept = vector_file.read(tmp_path, 7, "d-new", 5, 8)
    assert kept is not None and isinstance(kept.matrix, np.memmap) and not kept.matrix.flags.writeable
    assert kept.matrix.tobytes() == matrix.tobytes() and kept.places.tolist() == places.tolist()
    assert vector_file.read(tmp_path, 7, "d-old", 5, 8) is None
    assert vector_file.read(tmp_path, 17, "d-other", 5, 8) is not None
    assert not list((tmp_path / vector_file.FOLDER).glob("*.partial"))


@pytest.mark.parametrize("spoil", ["truncated", "other_shape", "place_out_of_range", "missing_places"])
def test_kept_vectors_that_do_not_fit_are_ignored(tmp_path, spoil):
    matrix = np.ones((5, 8), dtype=np.float32)
    places = np.arange(5, dtype=np.int64)
    if spoil == "place_out_of_range":
        places[2] = 5
    assert vector_file.write(tmp_path, 1, "k", matrix, places)
    vectors_path, places_path = sorted((tmp_path / vector_file.FOLDER).iterdir(), key=lambda p: "places" in p.name,
                                       reverse=True)
    if spoil == "truncated":
        vectors_path.write_bytes(vectors_path.read_bytes()[:-7])
    if spoil == "missing_places":
        places_path.unlink()
    rows = 6 if spoil == "other_shape" else 5
    assert vector_file.read(tmp_path, 1, "k", rows, 8) is None


def test_a_disk_that_refuses_is_no_error(tmp_path):
    (tmp_path / vector_file.FOLDER).write_text("a file where the folder goes")
    assert vector_file.write(tmp_path, 1, "k", np.ones((2, 2), dtype=np.float32), np.arange(2)) is False


def test_dropping_a_collection_removes_its_kept_vectors(bench, data_dir, tmp_path):
    from tests.integration.conftest import write_bench_dataset

    dataset = write_bench_dataset(tmp_path / "kept-then-dropped")
    assert bench("tier1", "--dataset", dataset, "-o", tmp_path / "out").exit_code == 0
    kept = set((data_dir / vector_file.FOLDER).glob("*.npy"))
    dropped = bench("db", "drop-collection", "kept-then-dropped")
    assert dropped.exit_code == 0 and "1 embedding space(s) removed" in dropped.output
    gone = kept - set((data_dir / vector_file.FOLDER).glob("*.npy"))
    assert len(gone) == 2 and all(p.name.endswith((".vectors.npy", ".places.npy")) for p in gone)
