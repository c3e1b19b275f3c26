"""Sample files for `bench evaluate`: JSONL and CSV, RAGAS and bench column names, located errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from benchmarks.errors import BenchError, InputError
from benchmarks.readers.samples import LABELLED, load_samples, resolve
from benchmarks.samples import Sample

RAGAS_RECORD = {"user_input": "What is alpha?", "retrieved_contexts": ["Alpha is a letter.", "Beta too."],
                "response": "A letter.", "reference": "The first Greek letter."}
BENCH_RECORD = {"question": "What is alpha?", "contexts": ["Alpha is a letter.", "Beta too."],
                "answer": "A letter.", "reference_answer": "The first Greek letter."}
EXPECTED = Sample(id="x", user_input="What is alpha?", retrieved_contexts=("Alpha is a letter.", "Beta too."),
                  response="A letter.", reference="The first Greek letter.")


def write_jsonl(tmp_path: Path, records: list[dict | str], name: str = "samples.jsonl") -> Path:
    """A str record is written verbatim, so a test can place a broken line exactly."""
    path = tmp_path / name
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n"
                            for r in records), encoding="utf-8")
    return path


def write_csv(tmp_path: Path, rows: list[list[str]], name: str = "samples.csv") -> Path:
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    path = tmp_path / name
    path.write_text(buffer.getvalue(), encoding="utf-8", newline="")
    return path


def error(path: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        load_samples(path)
    return caught.value


@pytest.mark.parametrize("record", [RAGAS_RECORD, BENCH_RECORD], ids=["ragas", "bench"])
def test_jsonl_reads_both_naming_styles(tmp_path: Path, record: dict) -> None:
    path = write_jsonl(tmp_path, [{"id": "x", **record}])
    assert load_samples(path) == [EXPECTED]


@pytest.mark.parametrize("record", [RAGAS_RECORD, BENCH_RECORD], ids=["ragas", "bench"])
def test_csv_reads_both_naming_styles(tmp_path: Path, record: dict) -> None:
    cells = [json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v for v in record.values()]
    path = write_csv(tmp_path, [["id", *record], ["x", *cells]])
    assert load_samples(path) == [EXPECTED]


def test_ground_truth_is_an_alias_of_reference(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"question": "q", "ground_truth": "g"}])
    assert load_samples(path)[0].reference == "g"


def test_missing_and_null_fields_are_none_and_unknown_columns_ignored(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"question": "q", "answer": None, "score": 0.7, "meta": {"k": 1}}])
    assert load_samples(path) == [Sample(id="s00001", user_input="q")]
    assert load_samples(path)[0].missing(("user_input", "response")) == ["response"]


def test_jsonl_keeps_empty_values_it_was_given(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path, [{"question": "q", "answer": "", "contexts": []}])
    assert load_samples(path)[0] == Sample(id="s00001", user_input="q", response="", retrieved_contexts=())


def test_csv_context_cell_forms(tmp_path: Path) -> None:
    path = write_csv(tmp_path, [
        ["question", "contexts"],
        ["json", '["one", "two, with comma"]'],
        ["python repr", str(["one", "it's two"])],
        ["single", "just one context"],
        ["empty list", "[]"],
        ["not given", ""],
    ])
    assert [s.retrieved_contexts for s in load_samples(path)] == [
        ("one", "two, with comma"), ("one", "it's two"), ("just one context",), (), None,
    ]


def test_csv_empty_cells_are_none(tmp_path: Path) -> None:
    path = write_csv(tmp_path, [["id", "user_input", "response", "reference"], ["", "q", "", ""]])
    assert load_samples(path) == [Sample(id="s1", user_input="q")]


def test_csv_multiline_cells_blank_rows_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "samples.csv"
    path.write_text('\ufeffquestion,answer\n"two\nlines",a\n\n,,\nq2,b\n', encoding="utf-8")
    samples = load_samples(path)
    assert [(s.id, s.user_input, s.response) for s in samples] == [("s1", "two\nlines", "a"), ("s2", "q2", "b")]


def test_default_ids(tmp_path: Path) -> None:
    jsonl = write_jsonl(tmp_path, [{"question": "a"}, "", {"id": "given", "question": "b"}, {"question": "c"}])
    assert [s.id for s in load_samples(jsonl)] == ["s00001", "given", "s00004"]
    table = write_csv(tmp_path, [["question"], ["a"], ["b"]])
    assert [s.id for s in load_samples(table)] == ["s1", "s2"]


def test_russian_text_round_trips(tmp_path: Path) -> None:
    record = {"id": "р1", "question": "Что такое альфа?", "contexts": ["Альфа — первая буква."],
              "answer": "Буква.", "reference": "Первая буква греческого алфавита."}
    expected = Sample(id="р1", user_input="Что такое альфа?", retrieved_contexts=("Альфа — первая буква.",),
                      response="Буква.", reference="Первая буква греческого алфавита.")
    assert load_samples(write_jsonl(tmp_path, [record])) == [expected]
    cells = [json.dumps(v, ensure_ascii=False) if isinstance(v, list) else v for v in record.values()]
    assert load_samples(write_csv(tmp_path, [list(record), cells])) == [expected]


@pytest.mark.parametrize(("records", "line", "field", "message"), [
    ([{"id": "a", "question": "q"}, {"id": "a", "question": "q"}], 2, "id", "duplicate id 'a' (first on line 1)"),
    ([{"id": "s00002", "question": "q"}, {"question": "q"}], 2, "id", "duplicate id 's00002' (first on line 1)"),
    ([{"id": "a b"}], 1, "id", "contains whitespace"),
    ([{"id": ""}], 1, "id", "empty"),
    ([{"question": "q", "user_input": "q"}], 1, "user_input", "columns 'question' and 'user_input'"),
    ([{"reference_answer": "r", "ground_truth": "r"}], 1, "reference",
     "columns 'reference_answer' and 'ground_truth'"),
    ([{"question": "q"}, {"contexts": "one"}], 2, "contexts", "expected a list of strings"),
    ([{"retrieved_contexts": ["ok", 3]}], 1, "retrieved_contexts", "item 2 is int"),
    ([{"retrieved_contexts": {"a": 1}}], 1, "retrieved_contexts", "expected a list of strings, got dict"),
    ([{"answer": 42}], 1, "answer", "expected a string, got int"),
    ([{"question": "q"}, "{not json"], 2, None, "not valid JSON"),
    (['["a list"]'], 1, None, "expected a JSON object"),
])
def test_jsonl_errors_are_located(
    tmp_path: Path, records: list[dict | str], line: int, field: str | None, message: str
) -> None:
    path = write_jsonl(tmp_path, records)
    caught = error(path)
    assert (caught.line, caught.field) == (line, field)
    assert message in caught.detail
    prefix = f"{path}:{line}: " + (f"field '{field}': " if field else "")
    assert str(caught).startswith(prefix)


@pytest.mark.parametrize(("rows", "line", "field", "message"), [
    ([["id", "question"], ["a", "q"], ["a", "q"]], 3, "id", "duplicate id 'a' (first on line 2)"),
    ([["id", "question"], ["a b", "q"]], 2, "id", "contains whitespace"),
    ([["question", "user_input"], ["q", "q"]], 1, "user_input", "columns 'question' and 'user_input'"),
    ([["answer", "answer"], ["a", "a"]], 1, "response", "column 'answer' appears twice"),
    ([["question", "contexts"], ["q", "[not a list"]], 2, "contexts", "starts with '['"),
    ([["question", "contexts"], ["q", "[1, 2]"]], 2, "contexts", "not a list of strings"),
])
def test_csv_field_errors_are_located(
    tmp_path: Path, rows: list[list[str]], line: int, field: str, message: str
) -> None:
    path = write_csv(tmp_path, rows)
    caught = error(path)
    assert (caught.line, caught.field) == (line, field)
    assert message in caught.detail
    assert str(caught).startswith(f"{path}:{line}: field '{field}': ")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("question,answer\n\nq,a,extra\n", 3, "expected 2 cells as in the header, got 3"),
    ('question,answer\nq,a\n"open,a\n', 3, "malformed CSV"),
    ("foo,bar\n1,2\n", 1, "names none of the known columns"),
])
def test_csv_malformed_lines_are_located(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "samples.csv"
    path.write_text(text, encoding="utf-8")
    caught = error(path)
    assert caught.line == line
    assert message in caught.detail


@pytest.mark.parametrize("name", ["samples.jsonl", "samples.csv"])
def test_non_utf8_bytes_are_located(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    first = b'{"question": "q"}\n' if name.endswith(".jsonl") else b"question\nq\n"
    path.write_bytes(first + "Что".encode("cp1251") + b"\n")
    caught = error(path)
    assert caught.line == (3 if name.endswith(".csv") else 2)
    assert "not UTF-8" in caught.detail


@pytest.mark.parametrize(("name", "content"), [("samples.jsonl", ""), ("samples.jsonl", "\n\n"),
                                               ("samples.csv", ""), ("samples.csv", "question,answer\n")])
def test_a_file_without_samples_is_an_error(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    assert error(path).detail == "no samples"


@pytest.mark.parametrize("name", ["samples.jsonl", "samples.csv"])
def test_missing_file(tmp_path: Path, name: str) -> None:
    assert error(tmp_path / name).detail == "file not found"


@pytest.mark.parametrize("name", ["samples.json", "samples.tsv", "samples"])
def test_unsupported_extension_names_file_and_accepted_types(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text('{"question": "q"}\n', encoding="utf-8")
    with pytest.raises(BenchError) as caught:
        load_samples(path)
    assert not isinstance(caught.value, InputError)
    assert str(path) in str(caught.value) and ".jsonl, .csv" in str(caught.value)


def test_every_shipped_labelled_set_has_a_name_that_finds_it() -> None:
    """`--dataset labelled-en` from any install: a file added to datasets/labelled gets its name here too."""
    folder = Path(__file__).resolve().parents[3] / "datasets" / "labelled"
    assert sorted(LABELLED) == sorted(f"labelled-{path.stem}" for path in folder.glob("*.jsonl"))
    for name in LABELLED:
        assert resolve(name).samefile(folder / f"{name.removeprefix('labelled-')}.jsonl")
        assert len(load_samples(resolve(name))) >= 9


def test_a_mistyped_name_is_refused_with_the_closest_and_a_file_is_left_to_the_reader(tmp_path: Path) -> None:
    with pytest.raises(BenchError) as caught:
        resolve("labeled-en")
    assert str(caught.value) == ("dataset 'labeled-en': no such file, and not a shipped labelled set "
                                 "(did you mean labelled-en?)")
    with pytest.raises(BenchError, match=r"^dataset 'zzz': no such file, and not a shipped labelled set "
                                         r"\(labelled-en, labelled-ru, "):
        resolve("zzz")
    assert resolve(str(tmp_path / "missing.jsonl")) == tmp_path / "missing.jsonl"  # "file not found" then
