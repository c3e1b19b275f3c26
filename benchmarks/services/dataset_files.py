"""Load and validate datasets: the shipped synthetic sets, bench's JSONL format, BEIR directories.

Every problem is reported with file, line and field, because the user's next step is to open
that file at that line. Judgments that point at unknown documents do not stop a run (public
qrels often reference documents missing from a trimmed corpus); they are dropped, counted and
shown in the report.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from benchmarks.dataset import Chunk, Dataset, Question
from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import Warning
from benchmarks.metrics.language import contradicts, detect_language
from benchmarks.services.shipped import shipped_dir

SHIPPED = ("synthetic", "synthetic-ru")


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


def read_file(path: Path) -> bytes:
    """An input file's bytes, read once: parsed from memory and hashed from the same bytes."""
    if not path.is_file():
        raise InputError(path, "file not found")
    return path.read_bytes()


def _read_jsonl(path: Path, data: bytes | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a file (or of its bytes already read), with their line numbers."""
    with io.BytesIO(read_file(path) if data is None else data) as handle:
        for number, raw in enumerate(handle, start=1):
            line = _decode(raw, path, number)
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, f"not valid JSON ({exc.msg} at column {exc.colno})", line=number) from None
            if not isinstance(record, dict):
                raise InputError(path, "expected a JSON object", line=number)
            yield number, record


def _decode(raw: bytes, path: Path, line: int) -> str:
    """A line of a user's text file; the UTF-8 BOM Windows editors and spreadsheets put first is dropped (the
    content hash still covers the bytes as read)."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not UTF-8 (byte {exc.start + 1} of the line){_likely_encoding(raw, path)}",
                         line=line) from None


def _likely_encoding(raw: bytes, path: Path) -> str:
    """What the file probably is, and how to convert it: the Cyrillic code page Windows and Russian Excel save
    in when its bytes read as mostly Cyrillic letters there, else the Western one."""
    cyrillic = raw.decode("cp1251", errors="replace")
    letters = [c for c in cyrillic if c.isalpha() and not c.isascii()]
    encoding = "cp1251" if letters and sum("CYRILLIC" in unicodedata.name(c, "") for c in letters) > len(letters) / 2 \
        else "cp1252"
    return (f"; it looks like {encoding}: convert it with iconv -f {encoding} -t utf-8 {path.name} > "
            f"{path.stem}-utf8{path.suffix}")


def _string(record: dict[str, Any], key: str, path: Path, line: int, *, required: bool) -> str:
    if key not in record or record[key] is None:
        if required:
            raise InputError(path, "missing", line=line, field=key)
        return ""
    value = record[key]
    if not isinstance(value, str):
        raise InputError(path, f"expected a string, got {type(value).__name__}", line=line, field=key)
    if required and not value.strip():
        raise InputError(path, "empty", line=line, field=key)
    return value


def _unique(seen: dict[str, int], key: str, path: Path, line: int, field: str) -> None:
    """Ids must be unique and free of whitespace (they become columns of TREC run files)."""
    if any(ch.isspace() for ch in key):
        raise InputError(path, f"id '{key}' contains whitespace", line=line, field=field)
    if key in seen:
        raise InputError(path, f"duplicate id '{key}' (first on line {seen[key]})", line=line, field=field)
    seen[key] = line


def read_labels(value: Any, path: Path, line: int, key: str) -> tuple[tuple[str, float], ...]:
    """People's verdicts, by metric: an object such as {"faithfulness": 0}, each a finite number on the
    metric's scale (0/1 for a binary verdict). One reader for every input that takes labels (evaluate's samples,
    the judge's rated items), so a label means, and fails, the same everywhere."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise InputError(path, f'expected an object of metric names to numbers such as {{"faithfulness": 1}}, got '
                         f"{type(value).__name__}", line=line, field=key)
    for metric, label in value.items():
        if isinstance(label, bool) or not isinstance(label, (int, float)) or not math.isfinite(label):
            raise InputError(path, f"label of {metric!r} must be a number, got {label!r}", line=line, field=key)
    return tuple(sorted((str(metric), float(label)) for metric, label in value.items()))


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
    language, mismatch = _language(str(manifest.get("language") or ""), chunks, questions)
    warnings = _unknown_docs_warning(unknown) + _manifest_warnings(root, manifest, data) + mismatch
    return Dataset(
        name=name,
        version=str(manifest.get("version", "")),
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
    for line, record in _read_jsonl(path, data):
        chunk_id = _string(record, "id", path, line, required=True)
        _unique(seen, chunk_id, path, line, "id")
        chunks.append(
            Chunk(
                id=chunk_id,
                text=_string(record, "text", path, line, required=True),
                title=_string(record, "title", path, line, required=False),
                url=_string(record, "url", path, line, required=False),
                topic=_string(record, "topic", path, line, required=False),
            )
        )
    if not chunks:
        raise InputError(path, "no documents")
    return chunks


def _bench_questions(path: Path, known: set[str], data: bytes) -> tuple[list[Question], list[tuple[str, str]]]:
    seen: dict[str, int] = {}
    questions, unknown = [], []
    for line, record in _read_jsonl(path, data):
        qid = _string(record, "id", path, line, required=True)
        _unique(seen, qid, path, line, "id")
        if "relevant" not in record and "relevant_urls" not in record:
            raise InputError(path, "missing (give {} for a question nothing answers)", line=line, field="relevant")
        relevant = _grades(record.get("relevant", {}), path, line)
        for doc in [d for d in relevant if d not in known]:
            unknown.append((qid, doc))
            del relevant[doc]
        answer = record.get("reference_answer")
        if answer is not None and not isinstance(answer, str):
            raise InputError(path, "expected a string or null", line=line, field="reference_answer")
        questions.append(
            Question(
                id=qid,
                text=_string(record, "question", path, line, required=True),
                relevant=relevant,
                relevant_urls=_urls(record.get("relevant_urls", []), path, line),
                reference_answer=answer,
                topic=_string(record, "topic", path, line, required=False),
                variant=_string(record, "variant", path, line, required=False),
                responses=_responses(record, path, line),
            )
        )
    if not questions:
        raise InputError(path, "no questions")
    return questions, unknown


def _responses(record: dict[str, Any], path: Path, line: int) -> tuple[str, ...]:
    """A logged answer (`response`) or several, one per repeat (`responses`), for --generator precomputed."""
    if "response" in record and "responses" in record:
        raise InputError(path, "give either response or responses, not both", line=line, field="responses")
    if "response" in record:
        value = record["response"]
        if not isinstance(value, str):
            raise InputError(path, "expected a string", line=line, field="response")
        return (value,)
    value = record.get("responses", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(path, "expected a list of strings", line=line, field="responses")
    return tuple(value)


def _grades(value: Any, path: Path, line: int) -> dict[str, int]:
    """Accept {"chunk": grade} for graded judgments or ["chunk", ...] for binary ones."""
    if isinstance(value, list):
        value = {doc: 1 for doc in value}
    if not isinstance(value, dict):
        raise InputError(path, "expected an object of chunk id -> grade, or a list of chunk ids", line=line,
                         field="relevant")
    grades = {}
    for doc, grade in value.items():
        if not isinstance(doc, str) or isinstance(grade, bool) or not isinstance(grade, int) or grade < 0:
            raise InputError(path, f"grade of '{doc}' must be a whole number >= 0, got {grade!r}", line=line,
                             field="relevant")
        grades[doc] = grade
    return grades


def _urls(value: Any, path: Path, line: int) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(u, str) and u for u in value):
        raise InputError(path, "expected a list of non-empty strings", line=line, field="relevant_urls")
    return tuple(value)


def _manifest(root: Path) -> dict[str, Any]:
    path = root / "manifest.json"
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON ({exc.msg})", line=exc.lineno) from None
    if not isinstance(manifest, dict):
        raise InputError(path, "expected a JSON object")
    return manifest


def _manifest_warnings(root: Path, manifest: dict[str, Any], data: Mapping[Path, bytes]) -> tuple[Warning, ...]:
    """A manifest whose hashes no longer match means the files were edited without regeneration (the data
    files are checked on the bytes already read; other listed files are read here)."""
    files = manifest.get("files", {})
    if not isinstance(files, dict):
        raise InputError(root / "manifest.json", "expected an object of file name -> sha256", field="files")
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
    chunks = _beir_records(corpus_path, data[corpus_path], text_field="text", with_title=True)
    query_text = {c.id: c.text for c in _beir_records(queries_path, data[queries_path], text_field="text",
                                                      with_title=False)}
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


def _beir_records(path: Path, data: bytes, *, text_field: str, with_title: bool) -> list[Chunk]:
    seen: dict[str, int] = {}
    records = []
    for line, record in _read_jsonl(path, data):
        record_id = record.get("_id")
        if isinstance(record_id, int) and not isinstance(record_id, bool):
            record_id = str(record_id)
            record = {**record, "_id": record_id}
        record_id = _string(record, "_id", path, line, required=True)
        _unique(seen, record_id, path, line, "_id")
        records.append(
            Chunk(
                id=record_id,
                text=_string(record, text_field, path, line, required=True),
                title=_string(record, "title", path, line, required=False) if with_title else "",
                url=_string(record, "url", path, line, required=False),
            )
        )
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
            text = _decode(raw, path, number)
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
