"""Load single-turn evaluation samples for `bench evaluate` from JSONL or CSV.

Columns take RAGAS's names (`user_input`, `retrieved_contexts`, `response`, `reference`) so files
exported from RAGAS load unchanged, and bench's own names as aliases so a bench dataset's
questions and a system's answers need no renaming: `question`, `contexts`, `answer`,
`reference_answer` / `ground_truth`. Two columns that give one field make the file ambiguous and
are refused rather than resolved by a rule the user cannot see.

Columns with other names are ignored, because exports routinely carry scores and metadata beside
the sample. A field the file does not give stays None rather than failing the load: each metric
names the fields it needs and reports the samples that lack them (`Sample.missing`), so a file
with only questions and answers can still be scored by the metrics that need nothing more.

`labels` is optional: people's verdicts on the sample by metric (`{"faithfulness": 0}`; in CSV a JSON
cell), each a finite number, which `bench evaluate` measures its judges' agreement against.

`id` is optional. Without one a JSONL sample is `s{line:05d}` (its line number, so the id leads
back to the line) and a CSV sample is `s{row}`, where row counts data rows from 1 after the
header; either way ids must be unique and free of whitespace. A CSV cell left empty means the
field is not given, since CSV cannot tell an empty string from a missing value.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Annotated, Any

from pydantic import (
    BaseModel,
    BeforeValidator,
    StrictStr,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from benchmarks.errors import BenchError, InputError, closest
from benchmarks.readers.lines import decode_line, read_file, read_jsonl, unique_id
from benchmarks.readers.records import Columns, Id, Labels, refused, sorted_labels, validate
from benchmarks.samples import Sample, SampleSet
from benchmarks.shipped import shipped_dir

COLUMNS = {
    "id": "id",
    "user_input": "user_input",
    "question": "user_input",
    "retrieved_contexts": "retrieved_contexts",
    "contexts": "retrieved_contexts",
    "response": "response",
    "answer": "response",
    "reference": "reference",
    "reference_answer": "reference",
    "ground_truth": "reference",
    "labels": "labels",
}
EXTENSIONS = (".jsonl", ".csv")
# the labelled sets shipped in datasets/labelled (its README), by the name --dataset takes: labelled-<file stem>.
# The families are how a judge is measured (make judges), seeds the specification's worked examples.
LABELLED = ("labelled-en", "labelled-ru", "labelled-short-en", "labelled-short-ru", "labelled-joined-en",
            "labelled-joined-ru", "labelled-extrinsic-en", "labelled-extrinsic-ru", "labelled-seeds")
SEPARATOR_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}
DELIMITERS = tuple(SEPARATOR_NAMES)
_COLUMNS = Columns(COLUMNS)


def _context_list(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """A list of strings, its first bad item named; a bare string, the likeliest slip, is told how to fix."""
    if isinstance(value, str):
        raise PydanticCustomError("contexts", "expected a list of strings, got a single string (wrap it in [...])")
    if not isinstance(value, list):
        raise PydanticCustomError("contexts", f"expected a list of strings, got {type(value).__name__}")
    try:
        return handler(value)
    except ValidationError as exc:
        index = int(exc.errors(include_url=False)[0]["loc"][0])
        raise PydanticCustomError("contexts", f"expected a list of strings, item {index + 1} is "
                                  f"{type(value[index]).__name__}") from None


def _context_cell(cell: Any) -> Any:
    """A cell starting with '[' is a list: JSON, or the Python list repr RAGAS's to_csv actually writes."""
    if not cell.startswith("["):
        return (cell,)
    try:
        value = json.loads(cell)
    except json.JSONDecodeError:
        try:
            value = ast.literal_eval(cell)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise PydanticCustomError("contexts", "starts with '[' but is not a list of strings such as "
                                  "[\"first\", \"second\"] (write a single context that begins with '[' as a "
                                  "one-item list)")
    return value


def _json_cell(cell: Any) -> Any:
    """A CSV cell holding labels holds them as JSON."""
    try:
        return json.loads(cell)
    except json.JSONDecodeError:
        raise PydanticCustomError("labels", f'expected a JSON object such as {{"faithfulness": 1}}, got '
                                  f"{cell[:40]!r}") from None


class SampleRecord(BaseModel):
    """A sample as a JSONL line gives it; a field left out or null is not given (None)."""

    id: Annotated[Id | None, _COLUMNS.field("id")] = None  # None: the loader numbers the sample
    user_input: Annotated[StrictStr | None, _COLUMNS.field("user_input")] = None
    retrieved_contexts: Annotated[tuple[StrictStr, ...] | None, WrapValidator(_context_list),
                                  _COLUMNS.field("retrieved_contexts")] = None
    response: Annotated[StrictStr | None, _COLUMNS.field("response")] = None
    reference: Annotated[StrictStr | None, _COLUMNS.field("reference")] = None
    labels: Annotated[Labels | None, _COLUMNS.field("labels")] = None

    @model_validator(mode="before")
    @classmethod
    def _one_column_each(cls, record: Any) -> Any:
        """Two columns giving one field are refused, even when one is null: which one wins would be a rule the
        user cannot see. Null is a field not given."""
        _COLUMNS.chosen(record)
        return {key: value for key, value in record.items() if value is not None}

    def to_sample(self, default_id: str) -> Sample:
        return Sample(id=self.id or default_id, user_input=self.user_input, retrieved_contexts=self.retrieved_contexts,
                      response=self.response, reference=self.reference, labels=sorted_labels(self.labels))


class SampleRow(SampleRecord):
    """A sample as a CSV row gives it: every cell is text (an empty one is not given), so a list of contexts
    and the labels are written in their cell."""

    retrieved_contexts: Annotated[tuple[StrictStr, ...] | None, BeforeValidator(_context_cell),
                                  _COLUMNS.field("retrieved_contexts")] = None
    labels: Annotated[Labels | None, BeforeValidator(_json_cell), _COLUMNS.field("labels")] = None


def resolve(spec: str) -> Path:
    """A shipped labelled set by its name, else the file named. A name works from any install, as a tier's
    `--dataset synthetic` does: a wheel holds no datasets/ folder beside the working directory."""
    if spec in LABELLED:
        return shipped_dir("datasets") / "labelled" / f"{spec.removeprefix('labelled-')}.jsonl"
    path = Path(spec)
    if not path.exists() and not path.suffix:  # no file, and not written as one: a shipped set's name mistyped
        close = closest(spec, LABELLED, n=1)
        known = f"did you mean {close[0]}?" if close else ", ".join(LABELLED)
        raise BenchError(f"dataset '{spec}': no such file, and not a shipped labelled set ({known})")
    return path


def load_input(spec: str, settings: Any) -> SampleSet:
    """The input of bench evaluate: the file read once, its sha256 computed from the bytes parsed. A shipped set
    is named as it was asked for (its reports go to reports/labelled-en/), a file by its stem."""
    path = resolve(spec)
    data = read_file(path)
    return SampleSet(name=spec if spec in LABELLED else path.stem, format=path.suffix.lstrip(".").lower(),
                     content_sha256=hashlib.sha256(data).hexdigest(), samples=tuple(load_samples(path, data)),
                     language=settings.language)


def load_samples(path: Path, data: bytes | None = None) -> list[Sample]:
    """Pick the reader by extension, because sniffing content would guess wrong on odd files."""
    suffix = path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise BenchError(f"{path}: unsupported sample file type (accepted: {', '.join(EXTENSIONS)})")
    data = read_file(path) if data is None else data
    samples = _load_jsonl(path, data) if suffix == ".jsonl" else _load_csv(path, data)
    if not samples:
        raise InputError(path, "no samples")
    return samples


def _load_jsonl(path: Path, data: bytes) -> list[Sample]:
    seen: dict[str, int] = {}
    samples = []
    for line, record in read_jsonl(path, data):
        sample = validate(SampleRecord, record, path, line).to_sample(f"s{line:05d}")
        unique_id(seen, sample.id, path, line, "id")
        samples.append(sample)
    return samples


def _load_csv(path: Path, data: bytes) -> list[Sample]:
    table = csv_table(path, data)
    first = next(table, None)
    if first is None:
        return []
    header_line, names = first
    try:
        columns = _COLUMNS.chosen(names)
    except PydanticCustomError as exc:
        raise refused(exc, path, header_line) from None
    if not columns:
        raise InputError(path, f"the header row names none of the known columns ({', '.join(COLUMNS)}); its "
                         f"cells, split at {SEPARATOR_NAMES[delimiter(data)]}: {', '.join(names)}", line=header_line)
    known = [(position, name) for position, name in enumerate(names) if name in COLUMNS]
    seen: dict[str, int] = {}
    samples = []
    for number, (line, row) in enumerate(table, start=1):
        cells = {name: row[position] for position, name in known if row[position]}
        sample = validate(SampleRow, cells, path, line).to_sample(f"s{number}")
        unique_id(seen, sample.id, path, line, columns.get("id", "id"))
        samples.append(sample)
    return samples


def csv_table(path: Path, data: bytes | None = None) -> Iterator[tuple[int, list[str]]]:
    """A CSV file's rows (or those of its bytes already read) with the line each starts on: first the header
    (names stripped), then each data row, already checked to have as many cells as the header, so every CSV
    reader reports alike."""
    data = read_file(path) if data is None else data
    with io.BytesIO(data) as handle:
        rows = _csv_rows(handle, path, delimiter(data))
        first = next(rows, None)
        if first is None:
            return
        header_line, header = first
        names = [name.strip() for name in header]
        yield header_line, names
        for line, row in rows:
            if len(row) != len(names):
                raise InputError(path, f"expected {len(names)} cells as in the header, got {len(row)}", line=line)
            yield line, row


def delimiter(data: bytes) -> str:
    """The separator of a CSV file's cells: the comma, the semicolon spreadsheets write where the comma is the
    decimal mark (Russian Excel), or the tab, whichever splits the header line into the most cells (the comma
    on a tie)."""
    header = next((line for line in data.splitlines() if line.strip()), b"").decode("utf-8-sig", errors="replace")
    return max(DELIMITERS, key=lambda sep: len(next(csv.reader([header], delimiter=sep), [])))


def _csv_rows(handle: IO[bytes], path: Path, separator: str) -> Iterator[tuple[int, list[str]]]:
    """Rows with the physical line each starts on; a quoted cell may span lines, so count them here."""
    reader = csv.reader(_csv_lines(handle, path), delimiter=separator, strict=True)
    while True:
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(path, f"malformed CSV ({exc})", line=start) from None
        if any(cell.strip() for cell in row):
            yield start, row


def _csv_lines(handle: IO[bytes], path: Path) -> Iterator[str]:
    """Decode line by line so a bad byte is reported on its line (`decode_line` drops the BOM spreadsheets write)."""
    for number, raw in enumerate(handle, start=1):
        yield decode_line(raw, path, number)
