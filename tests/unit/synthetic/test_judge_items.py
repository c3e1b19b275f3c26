"""The shipped answer pairs of `bench judge --pairwise`: labelled by construction, balanced, parallel."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.synthetic.judge_items import PAIR_COUNTS

SHIPPED = Path(__file__).resolve().parents[3] / "datasets"
FIELDS = {"id", "question", "context", "answer_a", "answer_b", "better", "case"}


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(params=["synthetic", "synthetic-ru"])
def dataset(request: pytest.FixtureRequest) -> Path:
    return SHIPPED / request.param


def test_every_case_has_its_count_and_the_reference_sits_first_half_the_time(dataset: Path) -> None:
    pairs = _read(dataset / "judge_pairs.jsonl")
    assert Counter(p["case"] for p in pairs) == PAIR_COUNTS
    assert all(set(p) == FIELDS for p in pairs)
    assert [p["id"] for p in pairs] == sorted({p["id"] for p in pairs})
    decided = Counter(p["better"] for p in pairs if p["case"] != "tie")
    assert decided["a"] == decided["b"] == (len(pairs) - PAIR_COUNTS["tie"]) // 2


def test_the_better_answer_is_the_reference_and_the_other_is_flawed(dataset: Path) -> None:
    references = {q["question"]: q["reference_answer"] for q in _read(dataset / "questions.jsonl")}
    texts = {chunk["text"] for chunk in _read(dataset / "corpus.jsonl")}
    for pair in _read(dataset / "judge_pairs.jsonl"):
        reference = references[pair["question"]]
        assert set(pair["context"].split("\n\n")) <= texts, pair["id"]
        if pair["better"] == "tie":
            assert pair["answer_a"] == pair["answer_b"] == reference, pair["id"]
            continue
        better, worse = ("answer_a", "answer_b") if pair["better"] == "a" else ("answer_b", "answer_a")
        assert pair[better] == reference and pair[worse] != reference, pair["id"]
        if pair["case"] == "unsupported_claim":
            assert pair[worse].startswith(reference), pair["id"]


def test_russian_pairs_are_parallel_to_english() -> None:
    def skeleton(name: str) -> list[tuple[str, str, str]]:
        return [(p["id"], p["better"], p["case"]) for p in _read(SHIPPED / name / "judge_pairs.jsonl")]

    assert skeleton("synthetic-ru") == skeleton("synthetic")
