"""The bench-format loader's fast path (blocks streamed, many lines validated per call, a --limit sample drawn while
reading) against its exact path (the whole file, line by line): the same Dataset for every input the exact path
accepts, the same located error for every one it refuses."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import benchmarks.readers.blocks as blocks
import benchmarks.readers.datasets as datasets
import benchmarks.readers.survey as survey
from benchmarks.config import Settings
from benchmarks.dataset import Chunk, Dataset
from benchmarks.errors import InputError
from benchmarks.inputs import Sampling
from benchmarks.readers.blocks import Unhandled
from benchmarks.readers.datasets import content_hash, load_dataset
from benchmarks.tiers import TIERS

CORPUS = [
    '{"id": "c1", "text": "Alpha is the first letter.", "title": "Alpha", "url": "https://ex.org/a", "topic": "greek"}',
    '{"id": "c2", "text": "Caf\\u00e9 \\"quoted\\" \\/ tab\\t and \\ud83d\\ude00", "title": null, "url": null}',
    '{"id": "c3", "text": "Ünïcödé — straight, not escaped 😀", "url": "https://ex.org/b"}',
    '{"id": "c4", "text": "Beta", "extra": [1, {"nested": NaN}], "big": 123456789012345678901234567890}',
    '{"id": "c5", "id": "c6", "text": "a duplicate key: the last wins", "text": "the last text"}',
]
QUESTIONS = [
    '{"id": "q1", "question": "What is alpha?", "relevant": {"c1": 3, "c2": 1}, "reference_answer": "A letter."}',
    '{"id": "q2", "question": "What is beta?", "relevant": ["c3", "c4"], "relevant_urls": ["https://ex.org/c"]}',
    '{"id": "q3", "question": "Nothing answers it", "relevant": {}, "reference_answer": null}',
    '{"id": "q4", "question": "Logged once", "relevant": {"c1": 0, "ghost": 2}, "response": "an answer"}',
    '{"id": "q5", "question": "Logged per repeat", "relevant": ["nowhere"], "responses": ["one", "two"]}',
    '{"id": "q6", "question": "Pages only", "relevant_urls": ["https://ex.org/a"], "topic": "t", "variant": "v"}',
    '{"id": "q7", "question": "Graded twice", "relevant": {"c1": 1, "c6": 2, "c1": 4}, "relevant": {"c6": 2}}',
]


def write(root: Path, corpus: list[str] = CORPUS, questions: list[str] = QUESTIONS, *, end: str = "\n",
          corpus_bytes: bytes | None = None, questions_bytes: bytes | None = None) -> Path:
    """A bench-format dataset from verbatim lines (or verbatim bytes), so a test places every byte."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_bytes(corpus_bytes if corpus_bytes is not None
                                        else "".join(line + end for line in corpus).encode())
    (root / "questions.jsonl").write_bytes(questions_bytes if questions_bytes is not None
                                           else "".join(line + end for line in questions).encode())
    return root


@pytest.fixture
def exact(monkeypatch):
    """Loads `root` the exact way only (each fast path refused at once), as bench loaded every dataset before."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise Unhandled

    def load(root: Path, sample: Sampling | None = None) -> Dataset:
        with monkeypatch.context() as patch:
            patch.setattr(datasets, "_streamed_chunks", refuse)
            patch.setattr(datasets, "_streamed_questions", refuse)
            patch.setattr(datasets, "_surveyed_questions", refuse)
            return load_dataset(str(root), sample=sample)

    return load


@pytest.fixture
def fallbacks(monkeypatch):
    """The files the fast path handed to the exact one (read whole with `read_file`)."""
    read: list[str] = []
    read_file = datasets.read_file

    def counted(path: Path) -> bytes:
        read.append(path.name)
        return read_file(path)

    monkeypatch.setattr(datasets, "read_file", counted)
    return read


def fast(root: Path, sample: Sampling | None = None) -> Dataset:
    return load_dataset(str(root), sample=sample)


def error_of(load, *args: object) -> str:
    with pytest.raises(InputError) as caught:
        load(*args)
    return str(caught.value)


def hashed(root: Path) -> str:
    """The content hash as bench computed it from the whole files' bytes."""
    files = {root / name: (root / name).read_bytes() for name in ("corpus.jsonl", "questions.jsonl")}
    return content_hash(files, root)


# --- valid inputs: the same Dataset -----------------------------------------------------------------


VALID = {
    "plain": {},
    "crlf": {"end": "\r\n"},
    "trailing whitespace": {"end": " \t\r\n"},
    "blank lines": {"corpus": ["", *CORPUS[:2], "  ", "\t", *CORPUS[2:], "\r"],
                    "questions": [*QUESTIONS[:3], "", "", *QUESTIONS[3:]]},
    "no final newline": {"end": ""},  # joined below without one after the last line
    "bom on line 1": {"corpus": ["\ufeff" + CORPUS[0], *CORPUS[1:]], "questions": ["\ufeff", *QUESTIONS]},
}


@pytest.mark.parametrize("case", VALID)
def test_the_fast_path_reads_valid_files_as_the_exact_one(tmp_path, exact, fallbacks, case):
    options = dict(VALID[case])
    if case == "no final newline":
        options = {"corpus_bytes": "\n".join(CORPUS).encode(), "questions_bytes": "\n".join(QUESTIONS).encode()}
    root = write(tmp_path / "d", **options)

    fast = load_dataset(str(root))

    assert fallbacks == []  # every line taken by the fast path
    assert fast == exact(root)
    assert fast.content_sha256 == hashed(root)
    assert fast.chunks[1] == Chunk("c2", 'Café "quoted" / tab\t and 😀')
    assert [c.id for c in fast.chunks][-1] == "c6" and fast.chunks[-1].text == "the last text"
    assert fast.questions[-1].relevant == {"c6": 2}
    (unknown,) = fast.warnings
    assert (unknown.count, unknown.examples) == (2, ("q4 -> ghost", "q5 -> nowhere"))


@pytest.mark.parametrize(("corpus_line", "why"), [
    ('{"id": "c9", "text": "lone \\ud800 surrogate"}', "json.loads keeps a lone surrogate, jiter refuses it"),
    ('\ufeff{"id": "c9", "text": "a BOM opening a later line"}', "the exact reader drops it on every line"),
    ("\u00a0", "a line blank only by Unicode's whitespace is skipped"),
    ("\x1c", "str.strip's whitespace, not bytes.strip's"),
])
def test_what_only_the_exact_path_reads_is_read_by_it(tmp_path, exact, fallbacks, corpus_line, why):
    root = write(tmp_path / "d", corpus=[*CORPUS, corpus_line])
    fast = load_dataset(str(root))
    assert fallbacks == ["corpus.jsonl"], why
    assert fast == exact(root)
    assert fast.content_sha256 == hashed(root)


def test_a_manifest_is_checked_against_the_hashes_taken_while_streaming(tmp_path, exact):
    root = write(tmp_path / "d")
    manifest = {"language": "ru", "files": {"corpus.jsonl": "0" * 64,
                                             "questions.jsonl": datasets.hashlib.sha256(
                                                 (root / "questions.jsonl").read_bytes()).hexdigest()}}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    fast = load_dataset(str(root))
    assert fast == exact(root)
    assert [(w.code, w.examples) for w in fast.warnings][1:] == [
        ("manifest_hash_mismatch", ("corpus.jsonl",)), ("language_mismatch", ("manifest: ru", "detected: en"))]


@pytest.mark.parametrize("size", [1, 2, 5, 64])
def test_blocks_smaller_than_a_line(tmp_path, exact, fallbacks, monkeypatch, size):
    root = write(tmp_path / "d", **VALID["bom on line 1"], end="\r\n")
    monkeypatch.setattr(blocks, "BLOCK_SIZE", size)
    whole, drawn = load_dataset(str(root)), load_dataset(str(root), sample=Sampling(3, 1))
    assert fallbacks == []
    assert whole == exact(root)
    assert drawn == exact(root).sample(3, 1)


# --- invalid inputs: the same located error -------------------------------------------------------


BAD_CHUNKS = [
    '{"id": "c9", "text": ',
    '{"id": "c9", "text": "open',
    '["c9", "a text"]',
    '"just a string"',
    '{"text": "no id"}',
    '{"id": 9, "text": "numeric id"}',
    '{"id": "c9"}',
    '{"id": "c9", "text": "  "}',
    '{"id": "c9", "text": "\u00a0"}',
    '{"id": "c9", "text": "x", "url": 5}',
    '{"id": "c 9", "text": "x"}',
    '{"id": "c1", "text": "again"}',
    '{"id": "c9", "text": "x"} {"id": "c10", "text": "y"}',
    '{"id": "c9", "text": "x"}, {"id": "c10", "text": "y"}',
    '{"id": "c9", "text": "x",}',
    '{"id": "c9", "text": "raw\ttab"}',
    '{"id": "c9", "text": "x"}\x0c',
    '\x1c{"id": "c9", "text": "x"}',
    "{'id': 'c9', 'text': 'x'}",
    '{"id": "c9", "text": "x", "n": 01}',
    '{"id": "c9", "text": "x", "n": "\\x41"}',
    '{"id": "c9", "id": "c1", "text": "a duplicate key naming a taken id"}',
]
BAD_QUESTIONS = [
    '{"id": "q9", "relevant": {}}',
    '{"id": "q9", "question": "?"}',
    '{"id": "q9", "question": "?", "relevant": {"c1": -1}}',
    '{"id": "q9", "question": "?", "relevant": {"c1": 1.0}}',
    '{"id": "q9", "question": "?", "relevant": {"c1": 1e2}}',
    '{"id": "q9", "question": "?", "relevant": {"c1": NaN}}',
    '{"id": "q9", "question": "?", "relevant": {"c1": 1, "c1": -2}}',
    '{"id": "q9", "question": "?", "relevant": [["c1"]]}',
    '{"id": "q9", "question": "?", "relevant": "c1"}',
    '{"id": "q9", "question": "?", "relevant": null}',
    '{"id": "q9", "question": "?", "relevant_urls": "https://ex.org/a"}',
    '{"id": "q9", "question": "?", "relevant": [], "reference_answer": 5}',
    '{"id": "q9", "question": "?", "relevant": [], "response": null}',
    '{"id": "q9", "question": "?", "relevant": [], "response": "a", "responses": ["b"]}',
    '{"id": "q1", "question": "?", "relevant": []}',
    '{"id": "q9", "question": "?", "relevant": []}]',
]


@pytest.mark.parametrize("bad", BAD_CHUNKS)
def test_a_bad_corpus_line_gives_the_exact_error(tmp_path, exact, bad):
    root = write(tmp_path / "d", corpus=[CORPUS[0], "", bad, *CORPUS[1:]])
    assert error_of(fast, root) == error_of(exact, root)
    assert "corpus.jsonl:3" in error_of(fast, root)


@pytest.mark.parametrize("bad", BAD_QUESTIONS)
@pytest.mark.parametrize("sample", [None, Sampling(2, 0)])
def test_a_bad_question_line_gives_the_exact_error_even_after_the_sampled_ones(tmp_path, exact, bad, sample):
    root = write(tmp_path / "d", questions=[*QUESTIONS, "", bad])
    assert error_of(fast, root, sample) == error_of(exact, root)
    assert f"questions.jsonl:{len(QUESTIONS) + 2}" in error_of(fast, root, sample)


@pytest.mark.parametrize(("corpus", "questions"), [
    (b"", "\n".join(QUESTIONS).encode()),
    ("\n".join(CORPUS).encode(), b"\n \n\r\n"),
    (b'{"id": "c1", "text": "caf\xe9"}\n', b""),
    ("\n".join(CORPUS).encode(), b'{"id": "q1", "question": "caf\xc3", "relevant": []}'),
    ("\n".join(CORPUS).encode(), b'{"id": "q1", "question": "?", "relevant": {}, "k": "\xed\xa0\x80"}'),
])
def test_empty_and_undecodable_files_give_the_exact_error(tmp_path, exact, corpus, questions):
    root = write(tmp_path / "d", corpus_bytes=corpus, questions_bytes=questions)
    assert error_of(fast, root) == error_of(exact, root)


def test_random_edits_read_alike_on_both_paths(tmp_path, exact):
    """Bytes deleted, doubled or swapped at random in valid files: the fast path either gives the exact path's
    dataset or hands over to it, never a dataset of its own."""
    rng = random.Random(20240)
    pieces = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\\", b"\n", b"\r", b" ", b"\xc3", b"\xef\xbb\xbf", b"\x00",
              b"NaN", b"1", b"-", b"null", b'"c1"', b"\\ud800"]
    for case in range(150):
        lines = list(CORPUS if case % 2 else QUESTIONS)
        data = bytearray("\n".join(lines).encode())
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            data[at:at + rng.randint(0, 2)] = rng.choice(pieces)
        options = {"corpus_bytes": bytes(data)} if case % 2 else {"questions_bytes": bytes(data)}
        root = write(tmp_path / f"case{case}", **options)
        for sample in (None, Sampling(2, case)):
            assert outcome(fast, root, sample) == outcome(exact, root, sample), bytes(data)


def outcome(load, root: Path, sample: Sampling | None) -> Dataset | str:
    try:
        return load(root, sample)
    except InputError as error:
        return str(error)


# --- a --limit sample drawn while reading ----------------------------------------------------------


def many_questions(count: int) -> list[str]:
    """Questions whose every other text is Cyrillic, so language detection depends on which it samples (every
    k-th of more than 2,000), and some of which judge documents the corpus lacks."""
    lines = []
    for n in range(count):
        text = "Что такое альфа и бета?" if n % 2 == 0 else "What is the alpha and the beta?"
        relevant = {"c1": 1, f"ghost{n}": 1} if n % 7 == 3 else {"c3": 2}
        lines.append(json.dumps({"id": f"q{n}", "question": text, "relevant": relevant}))
    return lines


@pytest.mark.parametrize("count", [7, 2500])
@pytest.mark.parametrize(("n", "seed"), [(1, 0), (3, 0), (3, 1), (6, 7), (7, 0), (50, 3), (3000, 0)])
def test_a_sample_drawn_while_reading_equals_the_whole_set_sampled(tmp_path, exact, count, n, seed):
    root = write(tmp_path / "d", questions=QUESTIONS if count == 7 else many_questions(count))
    whole = load_dataset(str(root))

    drawn = load_dataset(str(root), sample=Sampling(n, seed))

    assert drawn == whole.sample(n, seed) == exact(root, Sampling(n, seed))
    assert (drawn.language, drawn.warnings, drawn.content_sha256) == (whole.language, whole.warnings,
                                                                      whole.content_sha256)
    assert drawn.limit == (None if n >= count else whole.sample(n, seed).limit)


def test_language_is_detected_over_all_the_questions_not_the_sample(tmp_path):
    root = write(tmp_path / "d", questions=many_questions(2500))
    assert load_dataset(str(root)).language == "ru"  # the every-2nd sample of 2,500 reads the Cyrillic ones
    assert load_dataset(str(root), sample=Sampling(1, 1)).language == "ru"


def test_a_duplicate_id_anywhere_refuses_the_sample(tmp_path, exact):
    root = write(tmp_path / "d", questions=[*many_questions(50), many_questions(50)[10]])
    assert error_of(fast, root, Sampling(2, 0)) == error_of(exact, root)
    assert "duplicate id 'q10' (first on line 11)" in error_of(fast, root, Sampling(2, 0))


def test_a_file_changed_before_the_drawn_lines_are_read_again_is_read_whole_again(tmp_path, monkeypatch):
    """The drawn lines are parsed from a second read: one that no longer holds the bytes first hashed is not
    used; the file is read again, whole, and hashed and parsed from that read."""
    root = write(tmp_path / "d", questions=many_questions(40))
    edited = write(tmp_path / "edited", questions=[line.replace("alpha", "gamma") for line in many_questions(40)])
    opened, open_input = [], blocks.open_input

    def opening(path: Path):
        opened.append(path.name)
        if opened.count("questions.jsonl") == 2:  # the lines drawn are about to be read again
            (root / "questions.jsonl").write_bytes((edited / "questions.jsonl").read_bytes())
        return open_input(path)

    monkeypatch.setattr(blocks, "open_input", opening)
    drawn = load_dataset(str(root), sample=Sampling(5, 2))
    monkeypatch.undo()
    expected = load_dataset(str(edited)).sample(5, 2)
    assert drawn.questions == expected.questions and drawn.content_sha256 == hashed(root)


def test_the_dataset_input_draws_while_reading_and_other_inputs_sample_once_loaded(tmp_path, monkeypatch):
    from benchmarks.readers import datasets

    root = write(tmp_path / "d")
    asked = []

    def loading(spec, **kwargs):
        asked.append(kwargs["sample"])
        return load_dataset(spec, **kwargs)

    monkeypatch.setattr(datasets, "load_dataset", loading)
    settings = Settings()
    assert TIERS["tier1"].input.load(str(root), settings, Sampling(2, 5)) == load_dataset(str(root)).sample(2, 5)
    assert asked == [Sampling(2, 5)]  # the reader was asked for the sample, not the whole set
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps({"id": f"s{n}", "user_input": f"q{n}?"}) + "\n" for n in range(6)))
    kind = TIERS["evaluate"].input
    assert kind.load(str(samples), settings, Sampling(2, 5)) == kind.load(str(samples), settings, None).sample(2, 5)


# --- the questions surveyed in a second process -----------------------------------------------------


@pytest.fixture
def surveyed(monkeypatch):
    """Every questions file surveyed by a second process (however small), and the one-process streamed read of
    the questions recorded, so a test can tell which way it was read."""
    monkeypatch.setattr(survey, "WORTH_A_PROCESS", 0)
    streamed: list[str] = []
    real = datasets._streamed_questions

    def recorded(path, *args):
        streamed.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(datasets, "_streamed_questions", recorded)
    return streamed


def judged_questions(count: int) -> list[str]:
    """Questions that judge only chunks the corpus has (the survey's own case), half of them Cyrillic."""
    return [json.dumps({"id": f"q{n}", "question": "Что такое альфа?" if n % 2 else "What is alpha?",
                        "relevant": {"c1": 1, "c3": n % 3}}) for n in range(count)]


@pytest.mark.parametrize(("n", "seed"), [(1, 0), (7, 3), (40, 1), (2500, 0)])
def test_a_sample_from_a_survey_equals_the_whole_set_sampled(tmp_path, exact, surveyed, n, seed):
    root = write(tmp_path / "d", questions=judged_questions(60))
    drawn = load_dataset(str(root), sample=Sampling(n, seed))
    assert drawn == exact(root).sample(n, seed) and drawn.content_sha256 == hashed(root)
    assert surveyed == []  # the survey served it


def test_a_judgment_of_a_missing_chunk_is_left_to_the_streamed_read(tmp_path, exact, surveyed):
    root = write(tmp_path / "d")  # q4 and q5 judge chunks the corpus lacks: the warning names them in file order
    drawn = load_dataset(str(root), sample=Sampling(3, 2))
    assert drawn == exact(root).sample(3, 2) and drawn.warnings[0].count == 2
    assert surveyed == ["questions.jsonl"]


def test_a_bad_question_line_found_by_the_survey_gives_the_exact_error(tmp_path, exact, surveyed):
    root = write(tmp_path / "d", questions=[*judged_questions(30), '{"id": "q99", "question": ""}'])
    assert error_of(fast, root, Sampling(2, 0)) == error_of(exact, root) == (
        f"{root / 'questions.jsonl'}:31: field 'question': empty")


def test_questions_changed_after_the_survey_read_them_are_read_again(tmp_path, exact, surveyed, monkeypatch):
    root = write(tmp_path / "d", questions=judged_questions(30))
    real = survey.surveyed

    def then_edited(pending):
        found = real(pending)
        write(root, questions=[q.replace("alpha", "gamma") for q in judged_questions(31)])  # every line edited
        return found

    monkeypatch.setattr(datasets, "surveyed", then_edited)
    drawn = load_dataset(str(root), sample=Sampling(4, 1))
    assert drawn == exact(root).sample(4, 1) and drawn.content_sha256 == hashed(root)
    assert surveyed == ["questions.jsonl"]
