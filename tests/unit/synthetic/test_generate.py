"""The shipped synthetic datasets: reproducible, internally consistent, parallel across languages."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import pytest

from benchmarks.readers.datasets import load_dataset
from benchmarks.synthetic.__main__ import main
from benchmarks.synthetic.generate import LANGUAGES, BankMismatch, check_bank, load_bank, write_dataset
from benchmarks.synthetic.judge_items import CASE_COUNTS, SHOWN

SHIPPED = Path(__file__).resolve().parents[3] / "datasets"
FILES = ("corpus.jsonl", "questions.jsonl", "judge_pipeline.jsonl", "judge_pairs.jsonl", "logs.jsonl", "manifest.json")
CYRILLIC = re.compile("[А-Яа-яЁё]")


def _read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


class Generated:
    """Generates each language once per module, on first use, for the read-only checks."""

    def __init__(self, out: Path) -> None:
        self._out = out
        self._done: dict[str, Path] = {}

    def __getitem__(self, language: str) -> Path:
        if language not in self._done:
            self._done[language] = write_dataset(load_bank(language), self._out)
        return self._done[language]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Generated:
    return Generated(tmp_path_factory.mktemp("synthetic"))


@pytest.fixture(params=LANGUAGES)
def dataset(request: pytest.FixtureRequest, generated: Generated) -> Path:
    return generated[request.param]


def test_generation_is_deterministic(dataset: Path, tmp_path: Path) -> None:
    language = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))["language"]
    again = write_dataset(load_bank(language), tmp_path)
    for name in FILES:
        assert (again / name).read_bytes() == (dataset / name).read_bytes(), name


def test_shipped_dataset_is_a_fresh_generation(dataset: Path) -> None:
    shipped = SHIPPED / dataset.name
    for name in FILES:
        assert (shipped / name).read_bytes() == (dataset / name).read_bytes(), (
            f"{shipped / name} is stale: run python -m benchmarks.synthetic --out datasets"
        )


def test_ids_are_unique_and_free_of_whitespace(dataset: Path) -> None:
    for name in ("corpus.jsonl", "questions.jsonl"):
        ids = [record["id"] for record in _read_jsonl(dataset / name)]
        assert len(ids) == len(set(ids)), name
        assert not [i for i in ids if re.search(r"\s", i)], name


def test_corpus_is_sorted_by_id(dataset: Path) -> None:
    ids = [record["id"] for record in _read_jsonl(dataset / "corpus.jsonl")]
    assert ids == sorted(ids)


def test_every_relevant_chunk_exists(dataset: Path) -> None:
    chunks = {record["id"] for record in _read_jsonl(dataset / "corpus.jsonl")}
    for question in _read_jsonl(dataset / "questions.jsonl"):
        assert set(question["relevant"]) <= chunks, question["id"]
        assert all(grade >= 1 for grade in question["relevant"].values()), question["id"]


def test_counts_meet_the_minimums(dataset: Path) -> None:
    chunks = _read_jsonl(dataset / "corpus.jsonl")
    questions = _read_jsonl(dataset / "questions.jsonl")
    originals = [q for q in questions if q["variant"] == "original"]
    paraphrased = {q["paraphrase_of"] for q in questions if q["variant"] == "paraphrase"}
    graded = [q for q in questions if len(q["relevant"]) >= 2 and len(set(q["relevant"].values())) >= 2]
    assert len(chunks) >= 300
    assert len(questions) >= 350
    assert len(graded) >= 0.2 * len(questions)
    assert len(paraphrased) >= 0.3 * len(originals)
    assert sum(q["variant"] == "unanswerable" for q in questions) >= 5


def test_paraphrases_reword_an_existing_original(dataset: Path) -> None:
    questions = {q["id"]: q for q in _read_jsonl(dataset / "questions.jsonl")}
    for question in questions.values():
        if question["variant"] != "paraphrase":
            assert "paraphrase_of" not in question
            continue
        original = questions[question["paraphrase_of"]]
        assert original["variant"] == "original"
        assert question["question"] != original["question"]
        assert question["relevant"] == original["relevant"]


def test_only_unanswerable_questions_lack_relevant_chunks(dataset: Path) -> None:
    for question in _read_jsonl(dataset / "questions.jsonl"):
        assert (question["variant"] == "unanswerable") == (question["relevant"] == {}), question["id"]


def test_manifest_describes_the_files(dataset: Path) -> None:
    manifest = json.loads((dataset / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["name"] == dataset.name
    assert manifest["version"] == "1.0.0"
    assert manifest["generator"] == "python -m benchmarks.synthetic --out datasets"
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((dataset / name).read_bytes()).hexdigest() == digest, name
    assert manifest["counts"]["chunks"] == len(_read_jsonl(dataset / "corpus.jsonl"))
    assert manifest["counts"]["questions"] == len(_read_jsonl(dataset / "questions.jsonl"))
    assert manifest["counts"]["judge_pipeline"] == len(_read_jsonl(dataset / "judge_pipeline.jsonl"))
    assert set(manifest["files"]) == set(FILES) - {"manifest.json"}


def test_bench_loads_it_without_warnings(dataset: Path) -> None:
    loaded = load_dataset(str(dataset))
    assert loaded.warnings == ()
    assert len(loaded.chunks) == len(_read_jsonl(dataset / "corpus.jsonl"))


def test_russian_text_is_russian(generated: Generated) -> None:
    root = generated["ru"]
    for chunk in _read_jsonl(root / "corpus.jsonl"):
        assert CYRILLIC.search(chunk["text"]), chunk["id"]
    for question in _read_jsonl(root / "questions.jsonl"):
        assert CYRILLIC.search(question["question"]), question["id"]


def test_russian_is_parallel_to_english(generated: Generated) -> None:
    def skeleton(root: Path, name: str, keys: tuple[str, ...]) -> list[dict]:
        return [{key: record.get(key) for key in keys} for record in _read_jsonl(root / name)]

    for name, keys in (
        ("corpus.jsonl", ("id", "url", "topic")),
        ("questions.jsonl", ("id", "relevant", "topic", "variant", "paraphrase_of")),
        ("judge_pipeline.jsonl", ("id", "ground_truth_show", "case")),
    ):
        assert skeleton(generated["ru"], name, keys) == skeleton(generated["en"], name, keys), name


JUDGE_FIELDS = {"id": str, "question": str, "context": str, "answer": str, "ground_truth_show": bool, "case": str}


def test_judge_items_have_typed_fields_and_sorted_ids(dataset: Path) -> None:
    items = _read_jsonl(dataset / "judge_pipeline.jsonl")
    assert [item["id"] for item in items] == sorted({item["id"] for item in items})
    for item in items:
        assert {key: type(value) for key, value in item.items()} == JUDGE_FIELDS, item["id"]
        assert item["question"] and item["context"] and item["answer"], item["id"]


def test_judge_labels_are_balanced_and_every_case_is_present(dataset: Path) -> None:
    items = _read_jsonl(dataset / "judge_pipeline.jsonl")
    assert 150 <= len(items) <= 250
    assert 0.4 <= sum(item["ground_truth_show"] for item in items) / len(items) <= 0.6
    assert {item["case"] for item in items} == set(CASE_COUNTS)
    for item in items:
        assert item["ground_truth_show"] == (item["case"] in SHOWN), item["id"]


def test_judge_items_rest_on_the_corpus(dataset: Path) -> None:
    """Shown answers are the reference answers with their own chunks; rejected ones differ from them."""
    texts = {chunk["text"] for chunk in _read_jsonl(dataset / "corpus.jsonl")}
    answers = {q["question"]: q["reference_answer"] for q in _read_jsonl(dataset / "questions.jsonl")}
    for item in _read_jsonl(dataset / "judge_pipeline.jsonl"):
        assert set(item["context"].split("\n\n")) <= texts, item["id"]
        if item["case"] == "correct":
            assert item["answer"] == answers[item["question"]], item["id"]
        else:
            assert item["answer"] != answers[item["question"]] or item["case"] == "context_lacks_answer", item["id"]
        if item["case"] == "unsupported_claim":
            assert item["answer"].startswith(answers[item["question"]]), item["id"]


def test_scale_adds_entities_without_changing_the_curated_ones(generated: Generated, tmp_path: Path) -> None:
    scaled = write_dataset(load_bank("en"), tmp_path, scale=2)
    assert scaled.name == "synthetic-x2"
    base = {c["id"]: c for c in _read_jsonl(generated["en"] / "corpus.jsonl")}
    bigger = {c["id"]: c for c in _read_jsonl(scaled / "corpus.jsonl")}
    assert len(bigger) > len(base)
    assert all(bigger[chunk_id] == chunk for chunk_id, chunk in base.items())


def test_a_bank_that_drifts_from_the_skeleton_is_rejected() -> None:
    bank = load_bank("en")
    with pytest.raises(BankMismatch, match="unanswerable"):
        check_bank(dataclasses.replace(bank, unanswerable=bank.unanswerable[:-1]))
    with pytest.raises(BankMismatch, match="vocabulary 'person'"):
        check_bank(dataclasses.replace(bank, vocabularies={**bank.vocabularies, "person": ()}))


def test_cli_writes_the_requested_language(generated: Generated, tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path), "--languages", "en"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["synthetic"]
    for name in FILES:
        assert (tmp_path / "synthetic" / name).read_bytes() == (generated["en"] / name).read_bytes()


def test_cli_refuses_a_language_without_a_bank(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no bank for language 'xx'"):
        main(["--out", str(tmp_path), "--languages", "en,xx"])
    assert not any(tmp_path.iterdir())
