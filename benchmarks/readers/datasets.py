"""Load and validate datasets: the shipped synthetic sets, bench's JSONL format, BEIR directories.

Every problem is reported with file, line and field, because the user's next step is to open
that file at that line: each file's record is declared once, as a pydantic model below, and
`input_records.validate` locates its first problem. Judgments that point at unknown documents do not
stop a run (public qrels often reference documents missing from a trimmed corpus); they are dropped,
counted and shown in the report.
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import operator
from array import array
from collections.abc import Container, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from itertools import compress
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, StrictInt, StrictStr, model_validator
from pydantic_core import PydanticCustomError

from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import Limit, Sampling, Warning, seeded_indices
from benchmarks.metrics import language as script
from benchmarks.metrics.language import contradicts, detect_language
from benchmarks.readers.blocks import (
    BLOCK_SIZE,
    Unhandled,
    line_checksum,
    open_input,
    read_records,
    reread,
    validated,
)
from benchmarks.readers.checked import kept_or_read
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
from benchmarks.readers.survey import surveyed, surveying
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
        return Chunk(self.id, self.text, self.title or "", self.url or "", self.topic or "")  # positional: a million


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


def load_input(spec: str, settings: Any, *, sample: Sampling | None = None) -> Dataset:
    """The input of the dataset tiers (the `--dataset` of tier0–3, ux, real-users)."""
    return load_dataset(spec, sample=sample, data_dir=settings.data_dir)


def load_dataset(spec: str, *, sample: Sampling | None = None, data_dir: Path | None = None) -> Dataset:
    """Resolve a dataset name or path and load it with the loader its layout calls for. With `sample`, the result
    is `load_dataset(spec).sample(sample.n, sample.seed)`: a bench-format set draws it while reading, so the
    questions left out are never held; a BEIR set is loaded whole and then drawn from. With `data_dir`, a large
    bench-format set is read back from the copy an earlier run kept of these very bytes (benchmarks.readers.checked)
    and kept there otherwise."""
    path = resolve(spec)
    if (path / "qrels").is_dir():
        with _collection_paused():
            dataset = _load_beir(path)
        return dataset if sample is None else dataset.sample(sample.n, sample.seed)
    if (path / "questions.jsonl").is_file():
        name = spec if spec in SHIPPED else path.resolve().name
        with _collection_paused():
            if data_dir is None:
                return _load_bench(path, name, sample)
            return kept_or_read(path, name, sample, data_dir, lambda: _load_bench(path, name, sample))
    raise BenchError(
        f"{path}: not a dataset: expected corpus.jsonl + questions.jsonl (bench format) "
        "or corpus.jsonl + queries.jsonl + qrels/test.tsv (BEIR)"
    )


@contextmanager
def _collection_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a dataset is built: a load allocates millions of objects and
    leaves no cycles behind, and every full collection on the way would walk each chunk already held (a third of
    the time of a 100k-chunk load)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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


EXAMPLES = 5  # unknown-document judgments a warning names


def _unknown_docs_warning(count: int, examples: Sequence[tuple[str, str]]) -> tuple[Warning, ...]:
    if not count:
        return ()
    return (
        Warning(
            code="unknown_qrel_document",
            message="relevance judgments that name a document missing from the corpus were dropped",
            count=count,
            examples=tuple(f"{q} -> {d}" for q, d in examples[:EXAMPLES]),
        ),
    )


@dataclass
class _Unjudged:
    """Judgments that name a document the corpus lacks, over every question read: counted, the first few kept."""

    count: int = 0
    examples: list[tuple[str, str]] = field(default_factory=list)

    def add(self, pairs: Sequence[tuple[str, str]]) -> None:
        self.count += len(pairs)
        self.examples += pairs[:EXAMPLES - len(self.examples)]

    def warnings(self) -> tuple[Warning, ...]:
        return _unknown_docs_warning(self.count, self.examples)


@dataclass(frozen=True)
class _Questions:
    """What a questions file gave: the questions kept (all, or the sample), how many it holds, the texts language
    detection reads (all, or the every-k-th of them it would sample), and the unknown-document judgments."""

    kept: list[Question]
    total: int
    texts: Sequence[str]
    unjudged: _Unjudged

    def limit(self, sample: Sampling | None) -> Limit | None:
        """The marker `InputSet.sample` sets: only when the sample dropped questions."""
        return Limit(sample.n, self.total, sample.seed) if sample and sample.n < self.total else None


class _FileHash:
    """A data file's digests, fed as its bytes are read: its share of the dataset's content hash (going on from
    the files before it, names and bytes in path order, as `content_hash`) and its own sha256 when manifest.json
    lists it. A fresh one per read, so a file read again the exact way is hashed from that read alone."""

    def __init__(self, before: Any, path: Path, root: Path, listed: bool):
        self._start = (before, path, root, listed)
        self.content = before.copy()
        self.content.update(path.relative_to(root).as_posix().encode() + b"\0")
        self.own = hashlib.sha256() if listed else None

    def again(self) -> _FileHash:
        """Fresh digests for reading the file again, from the content hash as it was before the file."""
        return _FileHash(*self._start)

    def digests(self) -> list[Any]:
        return [self.content] if self.own is None else [self.content, self.own]

    def update(self, data: bytes) -> None:
        for digest in self.digests():
            digest.update(data)

    def finish(self) -> Any:
        """The content hash with this file in."""
        self.content.update(b"\0")
        return self.content


def _load_bench(root: Path, name: str, sample: Sampling | None = None) -> Dataset:
    """Each file streamed in blocks and validated many lines per call (benchmarks.readers.blocks), or, when that
    meets anything it does not handle, read whole the exact way, for the same result or the located error."""
    corpus_path, questions_path = root / "corpus.jsonl", root / "questions.jsonl"
    listed = _listed(root)
    corpus_hash = _FileHash(hashlib.sha256(), corpus_path, root, corpus_path in listed)
    with surveying(questions_path, QuestionRecord) if sample else nullcontext() as pending:
        chunks, corpus_hash = _read_chunks(corpus_path, corpus_hash)
        known = {c.id for c in chunks}
        questions_hash = _FileHash(corpus_hash.finish(), questions_path, root, questions_path in listed)
        questions, questions_hash = _read_questions(questions_path, questions_hash, known, sample, pending)
    content = questions_hash.finish()
    manifest = _manifest(root)
    language, mismatch = _language(manifest.language, [c.text for c in chunks], questions.texts)
    digests = {path: hashed.own.hexdigest() for path, hashed in ((corpus_path, corpus_hash),
                                                                 (questions_path, questions_hash)) if hashed.own}
    warnings = questions.unjudged.warnings() + _manifest_warnings(root, manifest, digests) + mismatch
    return Dataset(
        name=name,
        version=manifest.version,
        language=language,
        format="bench",
        content_sha256=content.hexdigest(),
        chunks=tuple(chunks),
        questions=tuple(questions.kept),
        warnings=warnings,
        limit=questions.limit(sample),
    )


def _listed(root: Path) -> set[Path]:
    """The files manifest.json lists, whose own sha256 the read computes too; read leniently, since a broken
    manifest is refused after the data files, as it always was."""
    try:
        return {root / name for name in _manifest(root).files}
    except InputError:
        return set()


def _read_chunks(path: Path, hashed: _FileHash) -> tuple[list[Chunk], _FileHash]:
    try:
        return _streamed_chunks(path, hashed), hashed
    except Unhandled:
        hashed = hashed.again()
        data = read_file(path)
        hashed.update(data)
        return _bench_chunks(path, data), hashed


def _streamed_chunks(path: Path, hashed: _FileHash) -> list[Chunk]:
    chunks: list[Chunk] = []
    for batch in read_records(path, ChunkRecord, hashed.digests()):
        chunks += [record.to_chunk() for record in batch.records]
    if not chunks or len({c.id for c in chunks}) < len(chunks):  # the exact read words both
        raise Unhandled
    return chunks


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


def _read_questions(path: Path, hashed: _FileHash, known: set[str], sample: Sampling | None, pending: Any
                    ) -> tuple[_Questions, _FileHash]:
    """The questions by the second process's survey when one ran (benchmarks.readers.survey), else streamed here,
    else read whole the exact way: each way falls to the next on anything it does not handle."""
    if pending is not None and sample is not None:
        try:
            return _surveyed_questions(path, hashed, known, sample, pending), hashed
        except Unhandled:
            hashed = hashed.again()
    try:
        return _streamed_questions(path, hashed, known, sample), hashed
    except Unhandled:
        hashed = hashed.again()
        data = read_file(path)
        hashed.update(data)
        questions, unknown = _bench_questions(path, known, data)
        return _drawn_from_all(questions, unknown, sample), hashed


def _drawn_from_all(questions: list[Question], unknown: list[tuple[str, str]], sample: Sampling | None
                    ) -> _Questions:
    """Every question read, then drawn from as `InputSet.sample` draws."""
    unjudged = _Unjudged(len(unknown), unknown[:EXAMPLES])
    texts = [q.text for q in questions]
    if sample is None or sample.n >= len(questions):
        return _Questions(questions, len(questions), texts, unjudged)
    kept = [questions[i] for i in seeded_indices(len(questions), sample.n, sample.seed)]
    return _Questions(kept, len(questions), texts, unjudged)


def _surveyed_questions(path: Path, hashed: _FileHash, known: set[str], sample: Sampling, pending: Any
                        ) -> _Questions:
    """The drawn questions from the worker's survey: the file's bytes read here into the content hash while the
    worker finishes, then checked to be the bytes it validated. A judgment of a chunk the corpus lacks is left to
    the streamed read, which keeps the warning's examples in file order."""
    own = hashlib.sha256()
    with open_input(path) as handle:
        while block := handle.read(BLOCK_SIZE):
            hashed.update(block)
            own.update(block)
    survey = surveyed(pending)
    if own.hexdigest() != survey.sha256 or not survey.referenced <= known:
        raise Unhandled
    return _drawn_while_reading(path, known, sample, survey.starts, survey.checksums, _Unjudged())


def _streamed_questions(path: Path, hashed: _FileHash, known: set[str], sample: Sampling | None) -> _Questions:
    """Every line validated and its id checked unique (by its hash: a clash, even a false one, is left to the
    exact read to word); with `sample`, only where each question's line starts is kept, and the drawn lines (and
    those language detection reads) are read again once the count is known."""
    kept: list[Question] = []
    ids: set[int] = set()
    unjudged = _Unjudged()
    starts, checksums = array("q"), array("L")
    for batch in read_records(path, QuestionRecord, hashed.digests(), starts=sample is not None):
        ids.update(map(hash, map(attrgetter("id"), batch.records)))
        judged = map(known.issuperset, map(attrgetter("relevant"), batch.records))
        unjudged.add([(record.id, doc) for record in compress(batch.records, map(operator.not_, judged))
                      for doc in record.relevant if doc not in known])
        if sample is None:
            kept += [record.to_question(known) for record in batch.records]
        else:
            starts.extend(batch.starts)
            checksums.extend(map(line_checksum, batch.lines))
    total = len(starts) if sample else len(kept)
    if not total or len(ids) < total:  # the exact read words both
        raise Unhandled
    if sample is None:
        return _Questions(kept, total, [q.text for q in kept], unjudged)
    return _drawn_while_reading(path, known, sample, starts, checksums, unjudged)


def _drawn_while_reading(path: Path, known: set[str], sample: Sampling, starts: array[int],
                         checksums: array[int], unjudged: _Unjudged) -> _Questions:
    """The drawn questions, and the texts language detection reads of all of them: its every-k-th sample of the
    `total` (`language.sample`, which leaves a list already that short as it is), read again by line start."""
    total = len(starts)
    drawn = seeded_indices(total, sample.n, sample.seed) if sample.n < total else range(total)
    read = script.sample(range(total))
    wanted = sorted(set(drawn).union(read))
    lines = reread(path, [starts[i] for i in wanted], [checksums[i] for i in wanted])
    records = dict(zip(wanted, validated(QuestionRecord, lines), strict=True))
    kept = [records[i].to_question(known) for i in drawn]
    return _Questions(kept, total, [records[i].question for i in read], unjudged)


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


def _manifest_warnings(root: Path, manifest: Manifest, digests: Mapping[Path, str]) -> tuple[Warning, ...]:
    """A manifest whose hashes no longer match means the files were edited without regeneration (the data
    files are checked on their sha256 taken as they were read; other listed files are read here)."""
    files = manifest.files
    stale = sorted(
        name for name, digest in files.items()
        if (root / name).is_file()
        and (digests.get(root / name) or hashlib.sha256((root / name).read_bytes()).hexdigest()) != digest
    )
    if not stale:
        return ()
    return (Warning("manifest_hash_mismatch", "files differ from the hashes in manifest.json", len(stale),
                    tuple(stale)),)


def _language(declared: str, chunks: Sequence[str], questions: Sequence[str]) -> tuple[str, tuple[Warning, ...]]:
    """The dataset's language: the manifest's when it gives one, else the one its corpus and question texts
    are mostly written in (benchmarks.metrics.language; "" when they say none). A manifest the texts clearly
    contradict is kept, with a `language_mismatch` warning that names both."""
    detected = detect_language(chunks, questions)
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
    language, _ = _language("", [c.text for c in chunks], [q.text for q in questions])  # no manifest: the texts say
    return Dataset(
        name=root.resolve().name,
        version="",
        language=language,
        format="beir",
        content_sha256=content_hash(data, root),
        chunks=tuple(chunks),
        questions=questions,
        warnings=_unknown_docs_warning(len(unknown), unknown),
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
