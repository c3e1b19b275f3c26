"""Load and validate datasets: the shipped synthetic sets, bench's JSONL format, BEIR directories.

Every problem is reported with file, line and field, because the user's next step is to open
that file at that line: each file's record is declared once, as a pydantic model below, and
`input_records.validate` locates its first problem. Judgments that point at unknown documents do not
stop a run (public qrels often reference documents missing from a trimmed corpus); they are dropped,
counted and shown in the report.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, StrictInt, StrictStr, model_validator
from pydantic_core import PydanticCustomError

from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import Warning
from benchmarks.metrics.language import contradicts, detect_language
from benchmarks.readers.lines import decode_line, json_problem, read_file, read_jsonl, unique_id
from benchmarks.readers.records import (
    FIELD,
    Id,
    NumberedId,
    OptionalText,
    Text,
    entries_worded,
    validate,
    worded,
)
from benchmarks.shipped import shipped_dir

SHIPPED = ("synthetic", "synthetic-ru")


def _list_as_grades(value: Any) -> Any:
    """["c1", "c2"] is the binary form of {"c1": 1, "c2": 1}; a list of anything else is refused as the
    object it is not (a list of lists would not even make dictionary keys)."""
    if isinstance(value, list) and all(isinstance(doc, str) for doc in value):
        return dict.fromkeys(value, 1)
    return value


def _grade_problem(doc: Any, grade: Any) -> str:
    return f"grade of '{doc}' must be a whole number >= 0, got {grade!r}"


# relevance judgments: {"chunk": grade} for graded ones, ["chunk", ...] for binary ones
Grades = Annotated[dict[StrictStr, Annotated[StrictInt, Field(ge=0)]],
                   entries_worded(_grade_problem, "expected an object of chunk id -> grade, or a list of chunk ids"),
                   BeforeValidator(_list_as_grades)]


class ChunkRecord(BaseModel):
    """A line of a bench-format corpus.jsonl."""

    id: Id
    text: Text
    title: OptionalText = None
    url: OptionalText = None
    topic: OptionalText = None

    def to_chunk(self) -> Chunk:
        return Chunk(id=self.id, text=self.text, title=self.title or "", url=self.url or "", topic=self.topic or "")


class QuestionRecord(BaseModel):
    """A line of questions.jsonl: the chunks (graded) and pages that answer it, and for --generator precomputed
    the logged answer (`response`) or several, one per repeat (`responses`)."""

    id: Id
    relevant: Grades = Field(default_factory=dict)
    reference_answer: Annotated[StrictStr | None, worded("expected a string or null", null=True)] = None
    question: Text
    relevant_urls: Annotated[tuple[Annotated[StrictStr, Field(min_length=1)], ...],
                             worded("expected a list of non-empty strings")] = ()
    topic: OptionalText = None
    variant: OptionalText = None
    response: Annotated[StrictStr | None, worded("expected a string")] = None
    responses: Annotated[tuple[StrictStr, ...], worded("expected a list of strings")] = ()

    @model_validator(mode="after")
    def _judged_and_answered_once(self) -> QuestionRecord:
        """A question no chunk answers says so with {}, so a forgotten `relevant` is not read as one."""
        given = self.model_fields_set
        if "relevant" not in given and "relevant_urls" not in given:
            raise PydanticCustomError("missing", "missing (give {} for a question nothing answers)",
                                      {FIELD: "relevant"})
        if "response" in given and "responses" in given:
            raise PydanticCustomError("ambiguous", "give either response or responses, not both",
                                      {FIELD: "responses"})
        return self

    def to_question(self, known: Container[str]) -> Question:
        """The question, judging only the chunks the corpus has (`known`)."""
        return Question(
            id=self.id,
            text=self.question,
            relevant={doc: grade for doc, grade in self.relevant.items() if doc in known},
            relevant_urls=self.relevant_urls,
            reference_answer=self.reference_answer,
            topic=self.topic or "",
            variant=self.variant or "",
            responses=self.responses if self.response is None else (self.response,),
        )


class BeirQuery(BaseModel):
    """A line of a BEIR queries.jsonl."""

    id: NumberedId = Field(alias="_id")
    text: Text
    url: OptionalText = None  # never read, but refused as a document's would be


class BeirDocument(BaseModel):
    """A line of a BEIR corpus.jsonl."""

    id: NumberedId = Field(alias="_id")
    text: Text
    title: OptionalText = None
    url: OptionalText = None

    def to_chunk(self) -> Chunk:
        return Chunk(id=self.id, text=self.text, title=self.title or "", url=self.url or "")


def _as_text(value: Any) -> str:
    """A language left out, null or empty is none declared: the texts then say."""
    return str(value or "")


class Manifest(BaseModel):
    """manifest.json: the dataset's version and language, and its files' sha256, which tell an edited file from a
    regenerated one."""

    version: Annotated[str, BeforeValidator(str)] = ""  # any JSON value, as its text (2024.1 is often a number)
    language: Annotated[str, BeforeValidator(_as_text)] = ""
    files: Annotated[dict[str, Any], worded("expected an object of file name -> sha256")] = Field(default_factory=dict)


BeirRecord = TypeVar("BeirRecord", BeirQuery, BeirDocument)


def load_input(spec: str, settings: object) -> Dataset:
    """The input of the dataset tiers (the `--dataset` of tier0–3, ux, real-users)."""
    return load_dataset(spec)


def load_dataset(spec: str) -> Dataset:
    """Resolve a dataset name or path and load it with the loader its layout calls for."""
    path = resolve(spec)
    if (path / "qrels").is_dir():
        return _load_beir(path)
    if (path / "questions.jsonl").is_file():
        return _load_bench(path, name=spec if spec in SHIPPED else path.resolve().name)
    raise BenchError(
        f"{path}: not a dataset: expected corpus.jsonl + questions.jsonl (bench format) "
        "or corpus.jsonl + queries.jsonl + qrels/test.tsv (BEIR)"
    )


def resolve(spec: str) -> Path:
    if spec in SHIPPED:
        return shipped_dir("datasets") / spec
    path = Path(spec)
    if not path.exists():
        raise BenchError(f"dataset '{spec}': no such directory, and not a shipped dataset ({', '.join(SHIPPED)})")
    if not path.is_dir():
        raise BenchError(f"{spec}: a dataset is a directory (bench format or BEIR), not a file")
    return path


def content_hash(files: Mapping[Path, bytes], root: Path) -> str:
    """One hash over the data files' names and bytes (as read to be parsed): two runs compare only if it is
    equal."""
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(files[path])
        digest.update(b"\0")
    return digest.hexdigest()


def _unknown_docs_warning(unknown: list[tuple[str, str]]) -> tuple[Warning, ...]:
    if not unknown:
        return ()
    examples = tuple(f"{q} -> {d}" for q, d in unknown[:5])
    return (
        Warning(
            code="unknown_qrel_document",
            message="relevance judgments that name a document missing from the corpus were dropped",
            count=len(unknown),
            examples=examples,
        ),
    )


def _load_bench(root: Path, name: str) -> Dataset:
    corpus_path, questions_path = root / "corpus.jsonl", root / "questions.jsonl"
    data = {corpus_path: read_file(corpus_path), questions_path: read_file(questions_path)}
    chunks = _bench_chunks(corpus_path, data[corpus_path])
    known = {c.id for c in chunks}
    questions, unknown = _bench_questions(questions_path, known, data[questions_path])
    manifest = _manifest(root)
    language, mismatch = _language(manifest.language, chunks, questions)
    warnings = _unknown_docs_warning(unknown) + _manifest_warnings(root, manifest, data) + mismatch
    return Dataset(
        name=name,
        version=manifest.version,
        language=language,
        format="bench",
        content_sha256=content_hash(data, root),
        chunks=tuple(chunks),
        questions=tuple(questions),
        warnings=warnings,
    )


def _bench_chunks(path: Path, data: bytes) -> list[Chunk]:
    seen: dict[str, int] = {}
    chunks = []
    for line, record in read_jsonl(path, data):
        chunk = validate(ChunkRecord, record, path, line).to_chunk()
        unique_id(seen, chunk.id, path, line, "id")
        chunks.append(chunk)
    if not chunks:
        raise InputError(path, "no documents")
    return chunks


def _bench_questions(path: Path, known: set[str], data: bytes) -> tuple[list[Question], list[tuple[str, str]]]:
    """The questions, judgments of chunks the corpus lacks taken out (and listed, for the warning)."""
    seen: dict[str, int] = {}
    questions, unknown = [], []
    for line, record in read_jsonl(path, data):
        given = validate(QuestionRecord, record, path, line)
        unique_id(seen, given.id, path, line, "id")
        unknown += [(given.id, doc) for doc in given.relevant if doc not in known]
        questions.append(given.to_question(known))
    if not questions:
        raise InputError(path, "no questions")
    return questions, unknown


def _manifest(root: Path) -> Manifest:
    path = root / "manifest.json"
    if not path.is_file():
        return Manifest()
    try:
        manifest = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({json_problem(exc)})", line=exc.lineno) from None
    if not isinstance(manifest, dict):
        raise InputError(path, "expected a JSON object")
    return validate(Manifest, manifest, path)


def _manifest_warnings(root: Path, manifest: Manifest, data: Mapping[Path, bytes]) -> tuple[Warning, ...]:
    """A manifest whose hashes no longer match means the files were edited without regeneration (the data
    files are checked on the bytes already read; other listed files are read here)."""
    files = manifest.files
    stale = sorted(
        name for name, digest in files.items()
        if (root / name).is_file()
        and hashlib.sha256(data.get(root / name) or (root / name).read_bytes()).hexdigest() != digest
    )
    if not stale:
        return ()
    return (Warning("manifest_hash_mismatch", "files differ from the hashes in manifest.json", len(stale),
                    tuple(stale)),)


def _language(declared: str, chunks: Sequence[Chunk], questions: Sequence[Question]) -> tuple[str, tuple[Warning, ...]]:
    """The dataset's language: the manifest's when it gives one, else the one its corpus and question texts
    are mostly written in (benchmarks.metrics.language; "" when they say none). A manifest the texts clearly
    contradict is kept, with a `language_mismatch` warning that names both."""
    detected = detect_language([c.text for c in chunks], [q.text for q in questions])
    if not declared:
        return detected, ()
    if not contradicts(declared, detected):
        return declared, ()
    return declared, (Warning("language_mismatch",
                              f"manifest.json says language '{declared}' but the texts are mostly in the script of "
                              f"'{detected}' (detected from their letters); the manifest's '{declared}' is kept",
                              1, (f"manifest: {declared}", f"detected: {detected}")),)


def _load_beir(root: Path) -> Dataset:
    corpus_path, queries_path, qrels_path = root / "corpus.jsonl", root / "queries.jsonl", root / "qrels" / "test.tsv"
    data = {path: read_file(path) for path in (corpus_path, queries_path, qrels_path)}
    chunks = [document.to_chunk() for document in _beir_records(corpus_path, data[corpus_path], BeirDocument)]
    query_text = {query.id: query.text for query in _beir_records(queries_path, data[queries_path], BeirQuery)}
    judged, unknown = _beir_qrels(qrels_path, data[qrels_path], set(query_text), {c.id for c in chunks})
    questions = tuple(Question(id=qid, text=query_text[qid], relevant=judged[qid]) for qid in sorted(judged))
    if not questions:
        raise InputError(qrels_path, "no judgments")
    language, _ = _language("", chunks, questions)  # BEIR has no manifest: the texts say
    return Dataset(
        name=root.resolve().name,
        version="",
        language=language,
        format="beir",
        content_sha256=content_hash(data, root),
        chunks=tuple(chunks),
        questions=questions,
        warnings=_unknown_docs_warning(unknown),
    )


def _beir_records(path: Path, data: bytes, model: type[BeirRecord]) -> list[BeirRecord]:
    seen: dict[str, int] = {}
    records = []
    for line, record in read_jsonl(path, data):
        given = validate(model, record, path, line)
        unique_id(seen, given.id, path, line, "_id")
        records.append(given)
    if not records:
        raise InputError(path, "no records")
    return records


def _beir_qrels(
    path: Path, data: bytes, queries: set[str], docs: set[str]
) -> tuple[dict[str, dict[str, int]], list[tuple[str, str]]]:
    judged: dict[str, dict[str, int]] = {}
    unknown: list[tuple[str, str]] = []
    first_seen: dict[tuple[str, str], int] = {}
    with io.BytesIO(data) as handle:
        for number, raw in enumerate(handle, start=1):
            text = decode_line(raw, path, number)
            if not text.strip():
                continue
            cols = text.rstrip("\r\n").split("\t")
            if number == 1 and cols[:2] == ["query-id", "corpus-id"]:
                continue
            if len(cols) != 3:
                raise InputError(path, f"expected 3 tab-separated columns, got {len(cols)}", line=number)
            qid, doc, score = cols
            try:
                grade = int(score)
            except ValueError:
                raise InputError(path, f"expected a whole number, got {score!r}", line=number, field="score") from None
            if grade < 0:
                raise InputError(path, f"must be >= 0, got {grade}", line=number, field="score")
            if qid not in queries:
                raise InputError(path, f"query '{qid}' is not in queries.jsonl", line=number, field="query-id")
            grades = judged.setdefault(qid, {})
            if (qid, doc) in first_seen:
                raise InputError(path, f"duplicate judgment for ({qid}, {doc}) (first on line "
                                 f"{first_seen[qid, doc]})", line=number, field="corpus-id")
            first_seen[qid, doc] = number
            if doc not in docs:
                unknown.append((qid, doc))
                continue
            grades[doc] = grade
    return judged, unknown
