"""Real-user log files: JSONL and CSV with the seed's columns, exact located errors, the synthetic logs."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks.config import Settings, load_settings
from benchmarks.errors import BenchError, InputError
from benchmarks.logs import LogEntry
from benchmarks.readers.datasets import resolve
from benchmarks.readers.log_sources import load_logs, parse_log_file
from benchmarks.transport.redaction import REDACTED, redacted

CSV_HEADER = "id,question,answer,url,score,session_id,turn,created_at,user_id\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    return path


def error(path: Path) -> str:
    with pytest.raises(InputError) as caught:
        parse_log_file(path)
    return str(caught.value)


def test_jsonl_with_seed_columns_parses_and_orders_by_session_and_turn(tmp_path):
    records = [
        {"id": 7, "question": "And for part-timers?", "answer": "Pro rata.", "confluence_url": "https://w/hr",
         "score": 4, "session_id": "a", "turn_order": 2, "created_at": "2026-09-01T10:01:00+02:00"},
        {"id": 3, "question": "How much leave do I get?", "score": None, "session_id": "a", "turn_order": 1,
         "created_at": "2026-09-01T08:00:00"},
        {"question": "VPN?", "url": "https://w/vpn", "session_id": 12, "turn": 1},
    ]
    path = write(tmp_path, "log.jsonl", "".join(json.dumps(r) + "\n" for r in records))

    log = parse_log_file(path)

    assert (log.name, log.source) == ("log", "file")
    assert log.entries == (  # session "12" sorts before "a": ids are text
        LogEntry(id="l00003", question="VPN?", url="https://w/vpn", session_id="12", turn=1),
        LogEntry(id="3", question="How much leave do I get?", session_id="a", turn=1,
                 created_at=datetime(2026, 9, 1, 8, 0, tzinfo=UTC)),
        LogEntry(id="7", question="And for part-timers?", answer="Pro rata.", url="https://w/hr", score=4,
                 session_id="a", turn=2, created_at=datetime(2026, 9, 1, 8, 1, tzinfo=UTC)),
    )


def test_csv_with_aliases_quoted_newlines_and_extra_columns_parses(tmp_path):
    path = write(tmp_path, "export.csv", CSV_HEADER
                 + '1,"Where is the\nVPN guide?",Here.,https://w/vpn,5,s1,1,2026-09-01T10:00:00Z,u9\n'
                 + "2,Thanks,,,,s1,2,,u9\n")

    entries = parse_log_file(path).entries

    assert entries == (
        LogEntry(id="1", question="Where is the\nVPN guide?", answer="Here.", url="https://w/vpn", score=5,
                 session_id="s1", turn=1, created_at=datetime(2026, 9, 1, 10, 0, tzinfo=UTC)),
        LogEntry(id="2", question="Thanks", session_id="s1", turn=2),
    )


def test_same_turns_as_csv_and_jsonl_hash_alike(tmp_path):
    csv_log = parse_log_file(write(tmp_path, "a.csv", "id,question,score\n1,Hi?,5\n"))
    jsonl_log = parse_log_file(write(tmp_path, "b.jsonl", '{"id": "1", "question": "Hi?", "score": 5}\n'))
    assert csv_log.content_sha256 == jsonl_log.content_sha256


def test_bad_score_is_located(tmp_path):
    path = write(tmp_path, "log.csv", CSV_HEADER + "1,Hi?,,,6,s1,1,,\n")
    assert error(path) == f"{path}:2: field 'score': must be from 1 to 5, got 6"
    path = write(tmp_path, "log.jsonl", '{"question": "Hi?"}\n{"question": "Hi?", "score": "great"}\n')
    assert error(path) == f"{path}:2: field 'score': expected a whole number from 1 to 5, got 'great'"


def test_missing_question_is_located(tmp_path):
    path = write(tmp_path, "log.jsonl", '{"question": "Hi?"}\n\n{"id": "x", "answer": "Hello."}\n')
    assert error(path) == f"{path}:3: field 'question': missing"
    path = write(tmp_path, "log.csv", CSV_HEADER + "1, ,,,,,,,\n")
    assert error(path) == f"{path}:2: field 'question': empty"
    path = write(tmp_path, "log.csv", "id,answer\n1,Hello.\n")
    assert error(path) == f"{path}:1: the header row has no 'question' column (columns: id, answer)"


def test_broken_csv_quoting_names_the_line_the_row_starts_on(tmp_path):
    path = write(tmp_path, "log.csv", CSV_HEADER + "1,Hi?,,,5,s1,1,,\n2,\"Unclosed,,,,s1,2,,\n3,Bye,,,,s1,3,,\n")
    assert error(path) == f"{path}:3: malformed CSV (unexpected end of data)"
    path = write(tmp_path, "log.csv", 'id,question\n1,"Hi" there\n')
    assert error(path) == f"{path}:2: malformed CSV (',' expected after '\"')"


def test_bad_timestamp_and_turn_are_located(tmp_path):
    path = write(tmp_path, "log.jsonl", '{"question": "Hi?", "created_at": "yesterday"}\n')
    assert error(path) == (f"{path}:1: field 'created_at': expected an ISO-8601 timestamp such as "
                           "2025-03-14T09:30:00+00:00, got 'yesterday'")
    path = write(tmp_path, "log.jsonl", '{"question": "Hi?", "turn": -1}\n')
    assert error(path) == f"{path}:1: field 'turn': must be of at least 0, got -1"


def test_two_columns_for_one_field_and_duplicate_ids_are_refused(tmp_path):
    path = write(tmp_path, "log.jsonl", '{"question": "Hi?", "url": "a", "confluence_url": "b"}\n')
    assert error(path) == (f"{path}:1: field 'confluence_url': columns 'confluence_url' and 'url' both give "
                           "this field; keep one")
    path = write(tmp_path, "log.jsonl", '{"id": 1, "question": "Hi?"}\n{"id": "1", "question": "Again?"}\n')
    assert error(path) == f"{path}:2: field 'id': duplicate id '1' (first on line 1)"


def test_other_suffixes_and_empty_files_are_refused(tmp_path):
    with pytest.raises(BenchError, match=r"unsupported log file type \(accepted: .jsonl, .csv\)"):
        parse_log_file(write(tmp_path, "log.txt", "Hi?\n"))
    path = write(tmp_path, "log.csv", CSV_HEADER)
    assert error(path) == f"{path}: no log entries"


def test_logs_settings_mask_the_url_and_take_only_a_plain_table_name():
    settings, _ = load_settings(environ={"BENCH_LOGS_DATABASE_URL": "postgresql://reader:pw9@prod/rag",
                                         "BENCH_LOGS_TABLE": "qa_log"})
    assert redacted(settings)["logs_database_url"] == f"postgresql://reader:{REDACTED}@prod/rag"
    assert settings.logs_table == "qa_log"
    with pytest.raises(BenchError, match="environment variable BENCH_LOGS_TABLE: must be a plain identifier"):
        load_settings(environ={"BENCH_LOGS_TABLE": "qa; DROP TABLE x"})


def test_load_logs_without_any_source_says_what_to_give():
    with pytest.raises(BenchError, match="no real-user log: give a .jsonl or .csv file"):
        load_logs(Settings(), None, None)


@pytest.mark.parametrize("name", ["synthetic", "synthetic-ru"])
def test_synthetic_log_has_the_promised_shape(name):
    log = load_logs(Settings(), None, resolve(name))
    entries = log.entries
    sessions: dict[str, list[LogEntry]] = {}
    for entry in entries:
        sessions.setdefault(entry.session_id, []).append(entry)

    assert (log.name, log.source) == (name, "file")
    assert 140 <= len(sessions) <= 160
    assert all(2 <= len(turns) <= 6 for turns in sessions.values())
    for turns in sessions.values():
        assert [t.turn for t in turns] == list(range(1, len(turns) + 1))
        assert [t.created_at for t in turns] == sorted(t.created_at for t in turns)
    span = max(e.created_at for e in entries) - min(e.created_at for e in entries)
    assert 50 <= span.days <= 60
    scores = Counter(e.score for e in entries)
    assert scores[5] == max(scores.values()) and scores[None] > 0 and set(scores) <= {None, 1, 2, 3, 4, 5}
    with_url = [e for e in entries if e.url]
    assert 0.75 <= len(with_url) / len(entries) < 0.95
    known = {json.loads(line)["url"] for line in (resolve(name) / "corpus.jsonl").open(encoding="utf-8")}
    assert {e.url for e in with_url} <= known
    texts = Counter(e.question.lower().rstrip("?").strip() for e in entries)
    assert sum(count > 1 for count in texts.values()) >= 20  # near-duplicates across sessions
    assert all(e.answer for e in entries)


def test_synthetic_logs_are_parallel_across_languages():
    en, ru = (load_logs(Settings(), None, resolve(name)).entries for name in ("synthetic", "synthetic-ru"))
    assert [(e.id, e.session_id, e.turn, e.url, e.score, e.created_at) for e in en] == [
        (e.id, e.session_id, e.turn, e.url, e.score, e.created_at) for e in ru]
    assert all(e.question != r.question for e, r in zip(en, ru, strict=True))
