"""A large dataset kept in data_dir once checked (benchmarks.readers.checked): read back only by the same code from
the same bytes, equal in every field to what reading the files gives, and never trusted when anything differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import benchmarks.readers.checked as checked
from benchmarks.errors import InputError
from benchmarks.inputs import Sampling
from benchmarks.readers.datasets import load_dataset
from tests.unit.readers.test_datasets_streaming import CORPUS, QUESTIONS, write


@pytest.fixture(autouse=True)
def every_set_is_large(monkeypatch):
    monkeypatch.setattr(checked, "KEPT_FROM_BYTES", 0)


@pytest.fixture
def counted(monkeypatch):
    """How many times the files were read and checked (each load that did not come from a kept copy)."""
    reads = []
    original = checked.kept_or_read

    def counting(root, name, sample, data_dir, read):
        return original(root, name, sample, data_dir, lambda: reads.append(root) or read())

    monkeypatch.setattr("benchmarks.readers.datasets.kept_or_read", counting)
    return reads


def copies(data_dir: Path) -> list[Path]:
    return sorted((data_dir / checked.FOLDER).glob("*.marshal"))


def as_fields(dataset):
    return (dataset, dataset.corpus_digest, dataset.warnings, dataset.limit, dataset.chunks, dataset.questions)


@pytest.mark.parametrize("sample", [None, Sampling(3, 7)])
def test_a_kept_copy_is_the_dataset_the_files_give(tmp_path, counted, sample):
    root = write(tmp_path / "set")
    (root / "manifest.json").write_text(json.dumps({"version": 2024.1, "language": "en",
                                                    "files": {"corpus.jsonl": "0" * 64}}))
    data_dir = tmp_path / "data"
    read = load_dataset(str(root), sample=sample, data_dir=data_dir)
    kept = load_dataset(str(root), sample=sample, data_dir=data_dir)
    assert len(counted) == 1 and len(copies(data_dir)) == 1
    assert "corpus_digest" in vars(kept)  # the digest came with the copy, not computed again
    assert as_fields(kept) == as_fields(read) == as_fields(load_dataset(str(root), sample=sample))
    assert read.warnings and (read.limit is not None) == (sample is not None)  # both kept, not just empty ones


def test_changed_bytes_another_sample_or_other_code_read_the_files_again(tmp_path, counted, monkeypatch):
    root, data_dir = write(tmp_path / "set"), tmp_path / "data"
    load_dataset(str(root), data_dir=data_dir)
    write(root, questions=[*QUESTIONS[:-1], QUESTIONS[-1].replace("Graded twice", "Graded thrice")])
    edited = load_dataset(str(root), data_dir=data_dir)
    assert len(counted) == 2 and "Graded thrice" in {q.text for q in edited.questions}
    load_dataset(str(root), sample=Sampling(2, 0), data_dir=data_dir)
    assert len(counted) == 3 and len(copies(data_dir)) == 1  # one copy per dataset name
    monkeypatch.setattr(checked, "_code", lambda: "another build of bench")
    load_dataset(str(root), sample=Sampling(2, 0), data_dir=data_dir)
    assert len(counted) == 4


def test_the_same_bytes_in_another_folder_are_read_again(tmp_path, counted):
    """A warning may name the folder it was read from: a copy serves only the folder it was read in."""
    data_dir = tmp_path / "data"
    load_dataset(str(write(tmp_path / "one" / "set")), data_dir=data_dir)
    load_dataset(str(write(tmp_path / "two" / "set")), data_dir=data_dir)
    assert len(counted) == 2


def test_a_copy_that_cannot_be_read_is_ignored_and_written_again(tmp_path, counted):
    root, data_dir = write(tmp_path / "set"), tmp_path / "data"
    first = load_dataset(str(root), data_dir=data_dir)
    copy, = copies(data_dir)
    copy.write_bytes(copy.read_bytes()[: len(copy.read_bytes()) // 2])
    assert as_fields(load_dataset(str(root), data_dir=data_dir)) == as_fields(first)
    assert len(counted) == 2
    assert as_fields(load_dataset(str(root), data_dir=data_dir)) == as_fields(first) and len(counted) == 2  # rewritten


def test_a_file_that_changes_while_it_is_read_is_not_kept(tmp_path, monkeypatch):
    root, data_dir = write(tmp_path / "set"), tmp_path / "data"
    original = checked.kept_or_read

    def edited_meanwhile(root_, name, sample, data_dir_, read):
        def read_then_edit():
            dataset = read()
            write(root, corpus=[*CORPUS, '{"id": "c9", "text": "added while the set was read"}'])
            return dataset
        return original(root_, name, sample, data_dir_, read_then_edit)

    monkeypatch.setattr("benchmarks.readers.datasets.kept_or_read", edited_meanwhile)
    load_dataset(str(root), data_dir=data_dir)
    assert copies(data_dir) == []


def test_a_small_set_is_read_from_its_files_each_time(tmp_path, monkeypatch):
    monkeypatch.setattr(checked, "KEPT_FROM_BYTES", 1 << 20)
    root, data_dir = write(tmp_path / "set"), tmp_path / "data"
    load_dataset(str(root), data_dir=data_dir)
    assert not (data_dir / checked.FOLDER).exists()


def test_a_bad_line_is_refused_every_time_and_nothing_is_kept(tmp_path):
    root, data_dir = write(tmp_path / "set", corpus=[*CORPUS, '{"id": "c9", "text": ""}']), tmp_path / "data"
    for _ in range(2):
        with pytest.raises(InputError, match=r"corpus.jsonl:6: field .text.: empty"):
            load_dataset(str(root), data_dir=data_dir)
    assert copies(data_dir) == []
