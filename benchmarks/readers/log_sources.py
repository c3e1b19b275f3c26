"""Real users' logged turns: parse exported files, import them into bench's database, read them back.

Three places hold logs, and the tiers see them all as one `LogSet`:

- a file (JSONL or CSV, by suffix) with the seed table's columns;
- bench's own `question_answer` table, filled by `bench import-logs` under a log name;
- the production system's table (`logs_database_url`, `logs_table`), read only. bench never runs
  migrations there and opens every transaction READ ONLY, because that database belongs to the
  system under test and a benchmark must not be able to alter what it measures.

File fields: `question` (required), `id`, `answer`, `confluence_url` (or `url`), `score` (a whole
number 1–5, or empty when the user gave none), `session_id`, `turn_order` (or `turn`) and
`created_at` (ISO-8601; without an offset it is read as UTC). Other columns are ignored, since
exports carry user ids and such beside the turn. Without `id` an entry is `l{line:05d}`, its line
number, so the id leads back to the line.

Importing upserts by (log name, entry id): importing the same file again changes nothing, and a
corrected row with the same id replaces the stored one (the file is the truth). Rows missing from a
later file stay, so daily exports can be imported one after another into one log.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import sqlalchemy as sa
from pydantic import BaseModel, BeforeValidator, model_validator
from pydantic_core import PydanticCustomError
from sqlalchemy.dialects.postgresql import insert

from benchmarks.config import Settings
from benchmarks.errors import BenchError, InputError
from benchmarks.inputs import Warning
from benchmarks.logs import LogEntry, LogSet
from benchmarks.readers.lines import read_jsonl, unique_id
from benchmarks.readers.records import Columns, NumberedId, NumberedText, OptionalText, Text, validate
from benchmarks.readers.samples import csv_table
from benchmarks.store.database import (
    CONNECT_TIMEOUT_S,
    _check_reachable,
    _driver_url,
    _first_line,
    connect,
)
from benchmarks.transport.redaction import redact_url

EXTENSIONS = (".jsonl", ".csv")
# what a production table must have: the seed's columns, nothing of bench's bookkeeping
SEED_COLUMNS = ("id", "question", "answer", "confluence_url", "score", "session_id", "turn_order", "created_at")
# the names a file may give a column under, the seed's first
ALIASES = (("id",), ("question",), ("answer",), ("confluence_url", "url"), ("score",), ("session_id",),
           ("turn_order", "turn"), ("created_at",))
_COLUMNS = Columns({name: names[0] for names in ALIASES for name in names})
_STORED = SEED_COLUMNS[1:]  # what an import writes besides the bookkeeping columns
IMPORT_BATCH = 1000
_INTEGER = re.compile(r"[+-]?[0-9]+")


def _whole(low: int, high: int | None) -> BeforeValidator:
    """A whole number (JSON number or CSV digits) within bounds."""
    bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"

    def check(value: Any) -> int:
        number = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
            number = int(value)
        if number is None:
            raise PydanticCustomError("whole", f"expected a whole number {bounds}, got {value!r}")
        if number < low or (high is not None and number > high):
            raise PydanticCustomError("bounds", f"must be {bounds}, got {number}")
        return number

    return BeforeValidator(check)


def _timestamp(value: Any) -> datetime:
    """ISO-8601, the offset optional (`_utc`): what both a database export and a spreadsheet write."""
    moment = None
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            moment = datetime.fromisoformat(value.strip())
    if moment is None:
        raise PydanticCustomError("timestamp", f"expected an ISO-8601 timestamp such as 2025-03-14T09:30:00+00:00, "
                                  f"got {value!r}")
    return _utc(moment)


class LogRecord(BaseModel):
    """A logged turn as a file (JSONL line or CSV row) gives it; a column left out, null or an empty cell is not
    given, and any other column is ignored."""

    id: Annotated[NumberedId | None, _COLUMNS.field("id")] = None  # None: the loader numbers the entry
    question: Annotated[Text, _COLUMNS.field("question")]
    answer: Annotated[OptionalText, _COLUMNS.field("answer")] = None
    confluence_url: Annotated[OptionalText, _COLUMNS.field("confluence_url")] = None
    score: Annotated[int | None, _whole(1, 5), _COLUMNS.field("score")] = None
    session_id: Annotated[NumberedText | None, _COLUMNS.field("session_id")] = None
    turn_order: Annotated[int | None, _whole(0, None), _COLUMNS.field("turn_order")] = None
    created_at: Annotated[datetime | None, BeforeValidator(_timestamp), _COLUMNS.field("created_at")] = None

    @model_validator(mode="before")
    @classmethod
    def _one_column_each(cls, record: Any) -> Any:
        """Two columns given for one field are refused, not ranked, because which one wins would be a rule the
        user cannot see; null is a column not given."""
        given = {key: value for key, value in record.items() if value is not None}
        _COLUMNS.chosen(name for name in _COLUMNS.field_of if name in given)  # named in ALIASES' order
        return given

    def to_entry(self, line: int) -> LogEntry:
        """The entry; one without an id is numbered by its line, so the id leads back to it."""
        return LogEntry(id=self.id or f"l{line:05d}", question=self.question, answer=self.answer or None,
                        url=self.confluence_url or None, score=self.score, session_id=self.session_id or None,
                        turn=self.turn_order, created_at=self.created_at)


@dataclass(frozen=True)
class ImportStats:
    """What an import did: new rows, rows already stored as they are, rows replaced by a corrected copy."""

    inserted: int
    unchanged: int
    updated: int


def parse_log_file(path: Path) -> LogSet:
    """Read and validate a JSONL or CSV log; every problem is an InputError naming file, line and field."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        rows: Iterator[tuple[int, dict[str, Any]]] = read_jsonl(path)
    elif suffix == ".csv":
        rows = _csv_records(path)
    else:
        raise BenchError(f"{path}: unsupported log file type (accepted: {', '.join(EXTENSIONS)})")
    seen: dict[str, int] = {}
    entries = []
    for line, record in rows:
        entry = validate(LogRecord, record, path, line).to_entry(line)
        unique_id(seen, entry.id, path, line, "id")
        entries.append(entry)
    if not entries:
        raise InputError(path, "no log entries")
    return _log_set(path.stem, "file", entries)


def import_logs(settings: Settings, path: Path, name: str) -> ImportStats:
    """Upsert a log file into bench's own `question_answer` table under `name`."""
    if not name.strip():
        raise BenchError("the log name must not be empty")
    entries = parse_log_file(path).entries
    database = connect(settings)
    table = _bench_table()
    inserted = updated = 0
    try:
        with database.engine.begin() as conn:
            for start in range(0, len(entries), IMPORT_BATCH):
                rows = [_row(entry, name) for entry in entries[start : start + IMPORT_BATCH]]
                statement = insert(table).values(rows)
                excluded = {column: statement.excluded[column] for column in _STORED}
                upsert = statement.on_conflict_do_update(
                    index_elements=["log_name", "record_key"],
                    set_=excluded,
                    where=sa.tuple_(*(table.c[column] for column in _STORED)).is_distinct_from(
                        sa.tuple_(*excluded.values())
                    ),
                ).returning(sa.literal_column("xmax = 0", sa.Boolean).label("inserted"))
                for (new,) in conn.execute(upsert):
                    inserted += new
                    updated += not new
    finally:
        database.engine.dispose()
    return ImportStats(inserted=inserted, unchanged=len(entries) - inserted - updated, updated=updated)


def load_logs(settings: Settings, spec: str | None, dataset_dir: Path | None) -> LogSet:
    """The log a tier reads: the production table when configured, else a file, an imported log, or the
    dataset's own `logs.jsonl`."""
    if settings.logs_database_url:
        return _read_production(settings.logs_database_url, settings.logs_table)
    if spec is not None and Path(spec).is_file() and Path(spec).suffix.lower() in EXTENSIONS:
        return parse_log_file(Path(spec))
    if spec is not None:
        return _read_imported(settings, spec)
    if dataset_dir is not None and (dataset_dir / "logs.jsonl").is_file():
        log = parse_log_file(dataset_dir / "logs.jsonl")
        return LogSet(name=dataset_dir.resolve().name, format=log.source, content_sha256=log.content_sha256,
                      entries=log.entries, warnings=log.warnings)
    raise BenchError(
        "no real-user log: give a .jsonl or .csv file or the name of a log imported with bench import-logs, "
        "or set logs_database_url (BENCH_LOGS_DATABASE_URL) to read the production table"
    )


def _bench_table() -> sa.Table:
    """Bench's copy of the table, for building statements (the migration owns its definition)."""
    return sa.Table(
        "question_answer",
        sa.MetaData(),
        sa.Column("id", sa.BigInteger, primary_key=True),
        sa.Column("question", sa.Text),
        sa.Column("answer", sa.Text),
        sa.Column("confluence_url", sa.Text),
        sa.Column("score", sa.SmallInteger),
        sa.Column("session_id", sa.Text),
        sa.Column("turn_order", sa.Integer),
        sa.Column("created_at", sa.DateTime(timezone=True)),
        sa.Column("log_name", sa.Text),
        sa.Column("record_key", sa.Text),
    )


def _row(entry: LogEntry, name: str) -> dict[str, Any]:
    return {"question": entry.question, "answer": entry.answer, "confluence_url": entry.url, "score": entry.score,
            "session_id": entry.session_id, "turn_order": entry.turn, "created_at": entry.created_at,
            "log_name": name, "record_key": entry.id}


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """CSV rows as records keyed by header name; an empty cell is a value not given."""
    table = csv_table(path)
    first = next(table, None)
    if first is None:
        return
    header_line, names = first
    if "question" not in names:
        raise InputError(path, f"the header row has no 'question' column (columns: {', '.join(names)})",
                         line=header_line)
    for line, row in table:
        yield line, {name: cell for name, cell in zip(names, row, strict=True) if cell != ""}


def _utc(moment: datetime) -> datetime:
    """Timestamps without an offset are UTC, so aware and naive ones sort and compare together."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _log_set(name: str, source: str, entries: list[LogEntry], warnings: tuple[Warning, ...] = ()) -> LogSet:
    """Entries in session order, hashed by content alone, so a file and its imported copy compare equal."""
    ordered = tuple(sorted(entries, key=_order))
    digest = hashlib.sha256()
    for entry in ordered:
        fields = [entry.id, entry.question, entry.answer, entry.url, entry.score, entry.session_id, entry.turn,
                  entry.created_at.isoformat() if entry.created_at else None]
        digest.update(json.dumps(fields, ensure_ascii=False).encode() + b"\n")
    return LogSet(name=name, format=source, content_sha256=digest.hexdigest(), entries=ordered, warnings=warnings)


def _order(entry: LogEntry) -> tuple[Any, ...]:
    """(session, turn, time, id) with missing values last and numeric ids in numeric order."""
    moment = entry.created_at
    return (entry.session_id is None, entry.session_id or "", entry.turn is None, entry.turn or 0,
            moment is None, moment or datetime.min.replace(tzinfo=UTC),
            not entry.id.isdecimal(), int(entry.id) if entry.id.isdecimal() else 0, entry.id)


def _read_imported(settings: Settings, name: str) -> LogSet:
    database = connect(settings)
    try:
        with database.engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT record_key AS id, question, answer, confluence_url, score, session_id, turn_order, "
                        "created_at FROM question_answer WHERE log_name = :name"),
                {"name": name},
            ).mappings().all()
            known = [] if rows else conn.execute(
                sa.text("SELECT DISTINCT log_name FROM question_answer ORDER BY log_name")).scalars().all()
    finally:
        database.engine.dispose()
    if not rows:
        imported = f"imported logs: {', '.join(known)}" if known else "no log has been imported"
        raise BenchError(f"log '{name}': not a .jsonl or .csv file, and no log of that name is in bench's database "
                         f"({imported}; load one with bench import-logs FILE --name NAME)")
    return _log_set(name, "bench-database", [_stored_entry(row) for row in rows])


def _stored_entry(row: sa.RowMapping) -> LogEntry:
    return LogEntry(id=str(row["id"]), question=row["question"], answer=row["answer"], url=row["confluence_url"],
                    score=row["score"], session_id=row["session_id"], turn=row["turn_order"],
                    created_at=_utc(row["created_at"]) if row["created_at"] else None)


def _read_production(raw_url: str, table: str) -> LogSet:
    """Read the production table in a READ ONLY transaction, on an engine of its own, never migrating."""
    shown = f"the logs database {redact_url(raw_url)}"
    try:
        url = _driver_url(raw_url)
    except BenchError:
        raise BenchError(f"logs_database_url {redact_url(raw_url)}: expected a postgresql:// URL") from None
    _check_reachable(url, shown, raw_url)
    quoted = f'"{table}"'
    engine = sa.create_engine(url, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}, poolclass=sa.NullPool)
    try:
        with engine.connect() as conn:
            conn.execute(sa.text("SET TRANSACTION READ ONLY"))
            present = set(conn.execute(
                sa.text("SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(:table) "
                        "AND attnum > 0 AND NOT attisdropped"),
                {"table": quoted},
            ).scalars())
            needed = f"it needs the columns {', '.join(SEED_COLUMNS)}"
            if not present:
                raise BenchError(f"{shown}: table '{table}' not found (or not visible to this user); {needed}")
            missing = [column for column in SEED_COLUMNS if column not in present]
            if missing:
                raise BenchError(f"{shown}: table '{table}' lacks the column(s) {', '.join(missing)}; {needed}")
            rows = conn.execute(sa.text(f"SELECT {', '.join(SEED_COLUMNS)} FROM {quoted}")).mappings().all()
            conn.rollback()
    except sa.exc.DBAPIError as exc:
        raise BenchError(f"{shown}: reading table '{table}' failed: {_first_line(exc)}") from None
    finally:
        engine.dispose()
    entries, skipped, unrated = [], 0, 0
    for row in rows:
        if not (row["question"] or "").strip():
            skipped += 1
            continue
        score = row["score"]
        if score is not None and not 1 <= score <= 5:
            unrated += 1
            score = None
        entries.append(LogEntry(
            id=str(row["id"]), question=row["question"], answer=row["answer"], url=row["confluence_url"] or None,
            score=score, session_id=None if row["session_id"] is None else str(row["session_id"]),
            turn=row["turn_order"], created_at=_utc(row["created_at"]) if row["created_at"] else None,
        ))
    warnings = tuple(
        Warning(code, message, count, ())
        for code, message, count in (
            ("log_question_empty", "logged turns without a question were skipped", skipped),
            ("log_score_out_of_range", "scores outside 1–5 were read as no score", unrated),
        )
        if count
    )
    database = sa.engine.make_url(url).database or ""
    return _log_set(f"{database}.{table}" if database else table, "logs-database", entries, warnings)
