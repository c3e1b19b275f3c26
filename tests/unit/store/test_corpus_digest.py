"""The hashes that decide whether stored rows are current: a chunk's, unchanged in meaning since rows were first
stored, and the whole corpus's, which must tell apart every change a row comparison would see."""

import hashlib
import json
from dataclasses import replace

import pytest

from benchmarks.dataset import Chunk
from benchmarks.dataset import chunks_digest as corpus_digest
from benchmarks.store.vectors import chunk_hash

TEXTS = ["plain", 'quote " and \\ backslash', "tab\tnew\nline\r\x00\x1f", "кириллица — тире", "emoji 🙂 ́",
         "\u2028\u2029", ""]


@pytest.mark.parametrize("text", TEXTS)
def test_a_chunks_hash_is_the_sha256_of_its_json_as_rows_were_always_stored(text):
    chunk = Chunk(id="c", text=text, title=text[::-1], url=f"https://x/{text}")
    stored = hashlib.sha256(json.dumps([chunk.text, chunk.title, chunk.url], ensure_ascii=False).encode()).hexdigest()
    assert chunk_hash(chunk) == stored


def corpus(**changes):
    """Five chunks, with `c<i>={field: value}` changed."""
    chunks = [Chunk(id=f"c{i}", text=f"text {i}", title=f"title {i}", url=f"u{i}") for i in range(5)]
    for name, fields in changes.items():
        chunks[int(name[1:])] = replace(chunks[int(name[1:])], **fields)
    return chunks


def test_the_corpus_digest_changes_with_every_field_a_row_holds_and_with_order():
    same = corpus_digest(corpus())
    assert corpus_digest(corpus()) == same
    changed = [corpus(c1={"text": "text 1 "}), corpus(c1={"title": ""}), corpus(c4={"url": "u5"}),
               corpus(c0={"id": "c9"}), corpus()[::-1], corpus()[:4]]
    digests = {corpus_digest(chunks) for chunks in changed}
    assert same not in digests and len(digests) == len(changed)


def test_moving_characters_between_neighbouring_values_changes_the_digest():
    one = [Chunk(id="a", text="xy"), Chunk(id="b", text="z")]
    other = [Chunk(id="a", text="x"), Chunk(id="b", text="yz")]
    assert corpus_digest(one) != corpus_digest(other)
    assert corpus_digest([Chunk(id="a", text="b", title="")]) != corpus_digest([Chunk(id="a", text="", title="b")])
