"""Dataset loading: bench and BEIR layouts, located validation errors, warnings, content hashes."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from benchmarks.errors import BenchError, InputError
from benchmarks.readers.datasets import SHIPPED, load_dataset, resolve

CORPUS = [
    {"id": "c1", "text": "Alpha is the first letter.", "title": "Alpha", "url": "https://ex.org/a",
     "topic": "greek"},
    {"id": "c2", "text": "Alpha has a capital form.", "url": "https://ex.org/a"},
    {"id": "c3", "text": "Beta is the second letter.", "url": "https://ex.org/b"},
]
QUESTIONS = [
    {"id": "q1", "question": "What is alpha?", "relevant": {"c1": 3, "c2": 1},
     "reference_answer": "A letter."},
    {"id": "q2", "question": "What is beta?", "relevant": ["c3"], "relevant_urls": ["https://ex.org/c"],
     "reference_answer": None},
    {"id": "q3", "question": "What is omega?", "relevant": {}},
]
BEIR_CORPUS = [
    {"_id": "d1", "title": "One", "text": "first document"},
    {"_id": 2, "title": "Two", "text": "second document"},
    {"_id": "d3", "text": "third document"},
]
BEIR_QUERIES = [
    {"_id": "q1", "text": "first query"},
    {"_id": "q2", "text": "second query"},
    {"_id": "q3", "text": "a query nobody judged"},
]
QRELS_HEADER = "query-id\tcorpus-id\tscore"
QRELS = [QRELS_HEADER, "q1\td1\t2", "q1\t2\t1", "q2\td3\t0"]


def jsonl(records: list[dict | str]) -> str:
    """Records as JSONL; a str is written verbatim, so a test can place a broken line exactly."""
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def bench_dataset(
    root: Path, corpus: list[dict | str] = CORPUS, questions: list[dict | str] = QUESTIONS
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text(jsonl(corpus), encoding="utf-8")
    (root / "questions.jsonl").write_text(jsonl(questions), encoding="utf-8")
    return root


def beir_dataset(
    root: Path,
    corpus: list[dict | str] = BEIR_CORPUS,
    queries: list[dict | str] = BEIR_QUERIES,
    qrels: list[str] = QRELS,
) -> Path:
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_text(jsonl(corpus), encoding="utf-8")
    (root / "queries.jsonl").write_text(jsonl(queries), encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text("".join(line + "\n" for line in qrels), encoding="utf-8")
    return root


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- bench format ---------------------------------------------------------------------------------


def test_bench_format_loads(tmp_path):
    dataset = load_dataset(str(bench_dataset(tmp_path / "letters")))

    assert (dataset.name, dataset.format, dataset.version) == ("letters", "bench", "")
    assert dataset.language == "en"  # no manifest: detected from the (Latin) texts
    assert [c.id for c in dataset.chunks] == ["c1", "c2", "c3"]
    first = dataset.chunks[0]
    assert (first.title, first.url, first.topic) == ("Alpha", "https://ex.org/a", "greek")
    assert (dataset.chunks[1].title, dataset.chunks[1].topic) == ("", "")
    assert [q.id for q in dataset.questions] == ["q1", "q2", "q3"]
    q1, q2, q3 = dataset.questions
    assert q1.text == "What is alpha?"
    assert q1.relevant == {"c1": 3, "c2": 1}
    assert q2.relevant == {"c3": 1}  # the list form means grade 1 each
    assert q2.relevant_urls == ("https://ex.org/c",)
    assert (q1.reference_answer, q2.reference_answer) == ("A letter.", None)
    assert q3.relevant == {}
    assert dataset.warnings == ()


def test_chunk_and_url_qrels(tmp_path):
    dataset = load_dataset(str(bench_dataset(tmp_path / "letters")))

    assert dataset.chunk_qrels() == {"q1": {"c1": 3, "c2": 1}, "q2": {"c3": 1}, "q3": {}}
    assert dataset.url_qrels() == {
        "q1": {"https://ex.org/a": 3},  # two judged chunks of one page: the best grade wins
        "q2": {"https://ex.org/c": 1, "https://ex.org/b": 1},
        "q3": {},
    }


def test_url_qrels_raise_a_listed_url_to_its_best_chunk_grade(tmp_path):
    questions = [{"id": "q1", "question": "?", "relevant": {"c2": 2}, "relevant_urls": ["https://ex.org/a"]}]
    dataset = load_dataset(str(bench_dataset(tmp_path / "d", questions=questions)))
    assert dataset.url_qrels() == {"q1": {"https://ex.org/a": 2}}


def test_relevant_urls_alone_are_enough(tmp_path):
    questions = [{"id": "q1", "question": "?", "relevant_urls": ["https://ex.org/b"]}]
    dataset = load_dataset(str(bench_dataset(tmp_path / "d", questions=questions)))
    assert dataset.questions[0].relevant == {}
    assert dataset.url_qrels() == {"q1": {"https://ex.org/b": 1}}


def test_judgments_of_unknown_documents_are_dropped_with_a_warning(tmp_path):
    questions = [
        {"id": "q1", "question": "?", "relevant": {"c1": 1, "ghost": 2}},
        {"id": "q2", "question": "?", "relevant": ["nowhere"]},
    ]
    dataset = load_dataset(str(bench_dataset(tmp_path / "d", questions=questions)))

    assert dataset.chunk_qrels() == {"q1": {"c1": 1}, "q2": {}}
    (warning,) = dataset.warnings
    assert (warning.code, warning.count) == ("unknown_qrel_document", 2)
    assert warning.examples == ("q1 -> ghost", "q2 -> nowhere")


def test_manifest_is_read_and_checked(tmp_path):
    root = bench_dataset(tmp_path / "d")
    manifest = {
        "version": "2024.1",
        "language": "en",
        "files": {name: sha256(root / name) for name in ("corpus.jsonl", "questions.jsonl")},
    }
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")

    dataset = load_dataset(str(root))
    assert (dataset.version, dataset.language, dataset.warnings) == ("2024.1", "en", ())

    with (root / "corpus.jsonl").open("a", encoding="utf-8") as corpus:
        corpus.write(json.dumps({"id": "c4", "text": "Gamma."}) + "\n")
    (warning,) = load_dataset(str(root)).warnings
    assert (warning.code, warning.count, warning.examples) == ("manifest_hash_mismatch", 1, ("corpus.jsonl",))


RU_CORPUS = [
    {"id": "c1", "text": "Альфа — первая буква греческого алфавита.", "url": "https://ex.org/a"},
    {"id": "c2", "text": "Бета — вторая буква.", "url": "https://ex.org/b"},
]
RU_QUESTIONS = [{"id": "q1", "question": "Что такое альфа?", "relevant": ["c1"]}]


def write_manifest(root: Path, **fields: object) -> None:
    (root / "manifest.json").write_text(json.dumps(fields), encoding="utf-8")


def test_without_a_manifest_the_language_is_detected_from_the_texts(tmp_path):
    russian = load_dataset(str(bench_dataset(tmp_path / "ru", RU_CORPUS, RU_QUESTIONS)))
    assert (russian.language, russian.warnings) == ("ru", ())
    numbers = [{"id": "c1", "text": "42"}, {"id": "c2", "text": "3.14 2.71"}]
    unknown = load_dataset(str(bench_dataset(tmp_path / "n", numbers, [{"id": "q1", "question": "?",
                                                                          "relevant": ["c1"]}])))
    assert (unknown.language, unknown.warnings) == ("", ())


def test_a_manifest_without_language_leaves_it_to_the_texts(tmp_path):
    root = bench_dataset(tmp_path / "ru", RU_CORPUS, RU_QUESTIONS)
    write_manifest(root, version="1", language="")
    assert load_dataset(str(root)).language == "ru"
    write_manifest(root, version="1")
    assert load_dataset(str(root)).language == "ru"


def test_a_manifest_the_texts_contradict_is_kept_with_a_warning(tmp_path):
    root = bench_dataset(tmp_path / "ru", RU_CORPUS, RU_QUESTIONS)
    without = load_dataset(str(root))
    write_manifest(root, language="en")

    dataset = load_dataset(str(root))
    assert dataset.language == "en"
    (warning,) = dataset.warnings
    assert (warning.code, warning.count, warning.examples) == ("language_mismatch", 1,
                                                               ("manifest: en", "detected: ru"))
    assert "'en'" in warning.message and "'ru'" in warning.message
    assert dataset.content_sha256 == without.content_sha256  # the manifest is not hashed, detection never is


@pytest.mark.parametrize("declared", ["ru", "ru-RU", "uk", "sr"])
def test_a_manifest_the_texts_agree_with_gives_no_warning(tmp_path, declared):
    root = bench_dataset(tmp_path / "ru", RU_CORPUS, RU_QUESTIONS)
    write_manifest(root, language=declared)
    dataset = load_dataset(str(root))
    assert (dataset.language, dataset.warnings) == (declared, ())


def test_a_latin_script_language_is_not_contradicted_by_latin_texts(tmp_path):
    root = bench_dataset(tmp_path / "d")
    write_manifest(root, language="de")
    assert (load_dataset(str(root)).language, load_dataset(str(root)).warnings) == ("de", ())
    write_manifest(root, language="ru")
    (warning,) = load_dataset(str(root)).warnings
    assert (warning.code, warning.examples) == ("language_mismatch", ("manifest: ru", "detected: en"))


def test_content_hash_is_stable_and_follows_the_files(tmp_path):
    root = bench_dataset(tmp_path / "one")
    first = load_dataset(str(root)).content_sha256
    assert len(first) == 64
    assert load_dataset(str(root)).content_sha256 == first
    copy = shutil.copytree(root, tmp_path / "elsewhere")
    assert load_dataset(str(copy)).content_sha256 == first  # the folder's own name is not hashed

    (root / "questions.jsonl").write_text(jsonl(QUESTIONS[:2]), encoding="utf-8")
    assert load_dataset(str(root)).content_sha256 != first


GOOD_CHUNK = json.dumps(CORPUS[0])
GOOD_QUESTION = json.dumps({"id": "q1", "question": "?", "relevant": ["c1"]})


def corpus_case(bad: str, field: str | None, message: str):
    return pytest.param("corpus.jsonl", bad, field, message, id=f"corpus-{field}-{message}")


def question_case(bad: str, field: str | None, message: str):
    return pytest.param("questions.jsonl", bad, field, message, id=f"questions-{field}-{message}")


@pytest.mark.parametrize(
    ("file", "bad", "field", "message"),
    [
        corpus_case('{"id": "c9", "text": ', None, "not valid JSON"),
        corpus_case('{"id": "c9", "text": "open', None, "not valid JSON (Unterminated string starting at column 22)"),
        corpus_case('["c9", "a text"]', None, "expected a JSON object"),
        corpus_case('{"text": "no id"}', "id", "missing"),
        corpus_case('{"id": 9, "text": "numeric id"}', "id", "expected a string, got int"),
        corpus_case('{"id": "c9"}', "text", "missing"),
        corpus_case('{"id": "c9", "text": "  "}', "text", "empty"),
        corpus_case('{"id": "c9", "text": "x", "url": 5}', "url", "expected a string, got int"),
        corpus_case('{"id": "c 9", "text": "x"}', "id", "id 'c 9' contains whitespace"),
        corpus_case('{"id": "c1", "text": "again"}', "id", "duplicate id 'c1' (first on line 1)"),
        question_case('{"id": "q9", "relevant": {}}', "question", "missing"),
        question_case('{"id": "q9", "question": "?"}', "relevant", "missing"),
        question_case('{"id": "q9", "question": "?", "relevant": {"c1": -1}}', "relevant", "got -1"),
        question_case('{"id": "q9", "question": "?", "relevant": {"c1": 1.5}}', "relevant", "got 1.5"),
        question_case('{"id": "q9", "question": "?", "relevant": [["c1"]]}', "relevant",
                      "expected an object of chunk id -> grade, or a list of chunk ids, got list"),
        question_case('{"id": "q9", "question": "?", "relevant": {"c1": "2"}}', "relevant", "got '2'"),
        question_case('{"id": "q9", "question": "?", "relevant": {"c1": true}}', "relevant", "got True"),
        question_case('{"id": "q9", "question": "?", "relevant": "c1"}', "relevant", "a list of chunk ids"),
        question_case('{"id": "q9", "question": "?", "relevant_urls": "https://ex.org/a"}', "relevant_urls",
                      "expected a list of non-empty strings"),
        question_case('{"id": "q9", "question": "?", "relevant": [], "reference_answer": 5}',
                      "reference_answer", "expected a string or null"),
        question_case('{"id": "q 9", "question": "?", "relevant": []}', "id", "contains whitespace"),
        question_case('{"id": "q1", "question": "?", "relevant": []}', "id",
                      "duplicate id 'q1' (first on line 1)"),
    ],
)
def test_bench_errors_name_file_line_and_field(tmp_path, file, bad, field, message):
    """The bad record sits on line 3, after a blank line, so lines are counted as the editor shows them."""
    corpus, questions = [GOOD_CHUNK], [GOOD_QUESTION]
    (corpus if file == "corpus.jsonl" else questions).extend(["", bad])
    root = bench_dataset(tmp_path / "d", corpus=corpus, questions=questions)

    with pytest.raises(InputError) as caught:
        load_dataset(str(root))

    error = caught.value
    assert (Path(error.path).name, error.line, error.field) == (file, 3, field)
    text = str(error)
    assert f"{file}:3: " in text
    if field:
        assert f"field '{field}': " in text
    assert message in text


def test_grade_error_names_the_chunk(tmp_path):
    questions = [{"id": "q1", "question": "?", "relevant": {"c1": 1, "c2": -2}}]
    with pytest.raises(InputError, match="grade of 'c2' must be a whole number >= 0, got -2"):
        load_dataset(str(bench_dataset(tmp_path / "d", questions=questions)))


@pytest.mark.parametrize(("corpus", "questions", "file", "message"), [
    ([], QUESTIONS, "corpus.jsonl", "no documents"),
    (CORPUS, ["", "  "], "questions.jsonl", "no questions"),
])
def test_empty_files_are_refused(tmp_path, corpus, questions, file, message):
    root = bench_dataset(tmp_path / "d", corpus=corpus, questions=questions)
    with pytest.raises(InputError) as caught:
        load_dataset(str(root))
    assert str(caught.value) == f"{root / file}: {message}"


def test_undecodable_bytes_give_a_located_input_error(tmp_path):
    root = bench_dataset(tmp_path / "d")
    (root / "corpus.jsonl").write_bytes(GOOD_CHUNK.encode() + b'\n{"id": "c9", "text": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"corpus\.jsonl:2"):
        load_dataset(str(root))


def test_a_byte_order_mark_opening_a_file_or_a_line_is_no_part_of_the_json(tmp_path):
    """Windows editors and spreadsheets write one first; files joined together carry one on a later line."""
    root = bench_dataset(tmp_path / "d")
    corpus = root / "corpus.jsonl"
    corpus.write_text("\ufeff" + jsonl(CORPUS[:2]) + "\ufeff" + jsonl(CORPUS[2:]) + "\r\n", encoding="utf-8")
    assert [chunk.id for chunk in load_dataset(str(root)).chunks] == ["c1", "c2", "c3"]


def test_manifest_files_must_be_an_object(tmp_path):
    root = bench_dataset(tmp_path / "d")
    (root / "manifest.json").write_text(json.dumps({"files": ["corpus.jsonl"]}), encoding="utf-8")
    with pytest.raises(InputError, match="manifest.json"):
        load_dataset(str(root))


def test_dataset_given_as_dot_is_named_after_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(bench_dataset(tmp_path / "letters"))
    assert load_dataset(".").name == "letters"


# --- BEIR format ----------------------------------------------------------------------------------


def test_beir_format_loads(tmp_path):
    dataset = load_dataset(str(beir_dataset(tmp_path / "scifact")))

    assert (dataset.name, dataset.format) == ("scifact", "beir")
    assert [(c.id, c.title, c.text) for c in dataset.chunks] == [
        ("d1", "One", "first document"),
        ("2", "Two", "second document"),  # numeric ids are read as strings
        ("d3", "", "third document"),
    ]
    # only judged queries become questions
    assert [(q.id, q.text) for q in dataset.questions] == [("q1", "first query"), ("q2", "second query")]
    assert dataset.chunk_qrels() == {"q1": {"d1": 2, "2": 1}, "q2": {"d3": 0}}
    assert dataset.warnings == ()
    assert dataset.language == "en"  # BEIR has no manifest: detected from the texts


def test_beir_language_is_detected_from_the_texts(tmp_path):
    corpus = [{"_id": "d1", "title": "Один", "text": "первый документ"}, {"_id": "d2", "text": "второй документ"}]
    queries = [{"_id": "q1", "text": "первый запрос"}]
    dataset = load_dataset(str(beir_dataset(tmp_path / "ru", corpus, queries, [QRELS_HEADER, "q1\td1\t1"])))
    assert (dataset.language, dataset.warnings) == ("ru", ())


def test_beir_judgments_of_unknown_documents_are_dropped_with_a_warning(tmp_path):
    root = beir_dataset(tmp_path / "d", qrels=[*QRELS, "q2\tghost\t1", "q1\tmissing\t2"])
    dataset = load_dataset(str(root))

    assert dataset.chunk_qrels() == {"q1": {"d1": 2, "2": 1}, "q2": {"d3": 0}}
    (warning,) = dataset.warnings
    assert (warning.code, warning.count, warning.examples) == (
        "unknown_qrel_document", 2, ("q2 -> ghost", "q1 -> missing"))


def test_beir_qrels_without_header(tmp_path):
    dataset = load_dataset(str(beir_dataset(tmp_path / "d", qrels=QRELS[1:])))
    assert dataset.chunk_qrels() == {"q1": {"d1": 2, "2": 1}, "q2": {"d3": 0}}


def test_beir_content_hash_follows_the_qrels(tmp_path):
    root = beir_dataset(tmp_path / "d")
    first = load_dataset(str(root)).content_sha256
    beir_dataset(root, qrels=[QRELS_HEADER, "q1\td1\t1", "q1\t2\t1", "q2\td3\t0"])
    assert load_dataset(str(root)).content_sha256 != first


@pytest.mark.parametrize(
    ("bad", "field", "message"),
    [
        ("q1\td3", None, "expected 3 tab-separated columns, got 2"),
        ("q1 d3 1", None, "expected 3 tab-separated columns, got 1"),
        ("q1\t0\td3\t1", None, "expected 3 tab-separated columns, got 4"),
        ("q1\td3\t1.5", "score", "expected a whole number, got '1.5'"),
        ("q1\td3\thigh", "score", "expected a whole number, got 'high'"),
        ("q1\td3\t-1", "score", "must be >= 0, got -1"),
        ("q9\td3\t1", "query-id", "query 'q9' is not in queries.jsonl"),
        ("q1\td1\t1", "corpus-id", "duplicate judgment for (q1, d1)"),
    ],
)
def test_beir_qrels_errors_name_file_line_and_field(tmp_path, bad, field, message):
    root = beir_dataset(tmp_path / "d", qrels=[QRELS_HEADER, "q1\td1\t2", "", bad])

    with pytest.raises(InputError) as caught:
        load_dataset(str(root))

    error = caught.value
    assert (Path(error.path).name, error.line, error.field) == ("test.tsv", 4, field)
    assert f"test.tsv:4: {f'field {field!r}: ' if field else ''}{message}" in str(error)


def test_beir_duplicate_judgment_names_the_first_line(tmp_path):
    root = beir_dataset(tmp_path / "d", qrels=[*QRELS, "q1\td1\t1"])
    with pytest.raises(InputError, match="first on line 2"):
        load_dataset(str(root))


@pytest.mark.parametrize(
    ("file", "records", "field", "message"),
    [
        ("corpus.jsonl", [BEIR_CORPUS[0], {"title": "no id", "text": "x"}], "_id", "missing"),
        ("corpus.jsonl", [BEIR_CORPUS[0], {"_id": "d1", "text": "x"}], "_id",
         "duplicate id 'd1' (first on line 1)"),
        ("queries.jsonl", [BEIR_QUERIES[0], {"_id": "q2"}], "text", "missing"),
        ("queries.jsonl", [BEIR_QUERIES[0], {"_id": "q2", "text": ""}], "text", "empty"),
    ],
)
def test_beir_record_errors_name_file_line_and_field(tmp_path, file, records, field, message):
    root = beir_dataset(tmp_path / "d")
    (root / file).write_text(jsonl(records), encoding="utf-8")

    with pytest.raises(InputError) as caught:
        load_dataset(str(root))

    assert f"{file}:2: field '{field}': {message}" in str(caught.value)


def test_beir_missing_qrels_file(tmp_path):
    root = beir_dataset(tmp_path / "d")
    (root / "qrels" / "test.tsv").unlink()
    with pytest.raises(InputError, match=r"test\.tsv: file not found"):
        load_dataset(str(root))


# --- resolving names and paths --------------------------------------------------------------------


def test_missing_directory_is_a_bench_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BenchError, match="dataset 'no/such/dir': no such directory") as caught:
        load_dataset("no/such/dir")
    assert "synthetic" in str(caught.value)  # the shipped names are offered instead


def test_file_instead_of_directory_is_a_bench_error(tmp_path):
    (tmp_path / "corpus.jsonl").write_text(jsonl(CORPUS), encoding="utf-8")
    with pytest.raises(BenchError, match="a dataset is a directory"):
        load_dataset(str(tmp_path / "corpus.jsonl"))


def test_directory_without_a_known_layout_is_a_bench_error(tmp_path):
    (tmp_path / "corpus.jsonl").write_text(jsonl(CORPUS), encoding="utf-8")
    with pytest.raises(BenchError, match="not a dataset") as caught:
        load_dataset(str(tmp_path))
    assert not isinstance(caught.value, InputError)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_names_resolve_and_load(name):
    path = resolve(name)
    assert path.parts[-2:] == ("datasets", name)
    assert path.is_dir(), f"shipped dataset folder {path} is missing: it is committed under datasets/"
    dataset = load_dataset(name)
    assert (dataset.name, dataset.format) == (name, "bench")
    assert dataset.chunks and dataset.questions


def test_each_data_file_is_read_once_and_hashed_from_that_read(tmp_path, monkeypatch):
    """The content hash is computed from the bytes that were parsed, never from a second read that could see
    another version of the file (a bench-format file is streamed in blocks, a BEIR file read whole)."""
    import benchmarks.readers.blocks as blocks
    import benchmarks.readers.datasets as datasets

    reads: list[str] = []
    read_bytes, open_input = Path.read_bytes, blocks.open_input

    def counted(path):
        reads.append(path.name)
        return read_bytes(path)

    def opened(path):
        reads.append(path.name)
        return open_input(path)

    monkeypatch.setattr(datasets, "read_file", counted)
    monkeypatch.setattr(blocks, "open_input", opened)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self.name} read a second time"))
    load_dataset(str(bench_dataset(tmp_path / "bench")))
    load_dataset(str(beir_dataset(tmp_path / "beir")))
    assert sorted(reads) == sorted(["corpus.jsonl", "questions.jsonl", "corpus.jsonl", "queries.jsonl", "test.tsv"])
