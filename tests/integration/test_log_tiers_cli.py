"""bench ux and bench real-users through the CLI, on the synthetic log and on small hand-made logs."""

import json
import math

import pytest

from tests.integration.item_scores import assert_scores_reproduce_report


def _report(folder):
    return json.loads((folder / "report.json").read_text())


def _items(folder):
    return [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]


def _write_log(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _turn(i, session, turn, question, score, day):
    return {"id": i, "session_id": session, "turn": turn, "question": question, "score": score,
            "created_at": f"2026-09-{day:02d}T10:{turn:02d}:00+00:00"}


def test_ux_on_the_synthetic_log(bench, tmp_path):
    out = tmp_path / "ux"
    result = bench("ux", "--dataset", "synthetic", "--output-dir", out)
    assert result.exit_code == 0, result.output
    report = _report(out)
    assert list(report["metrics"]) == ["cache_hit_rate", "context_preservation", "multi_turn_consistency"]
    cache = report["notes"]["cache"]
    assert cache["test_sessions"] == math.ceil(0.2 * report["notes"]["sessions"]["total"])
    items = _items(out)
    assert len(items) == cache["test_questions"] == report["metrics"]["cache_hit_rate"]["n"]
    hits = sum(item["answer"]["cache_hit"] for item in items)
    assert report["metrics"]["cache_hit_rate"]["value"] == pytest.approx(hits / len(items), abs=1e-6)
    assert all(item["answer"]["cache_hit"] == (item["answer"]["best_cache_similarity"] > 0.85) for item in items)
    assert all(item["scores"]["cache_hit_rate"]["bench"]["value"] == item["answer"]["cache_hit"] for item in items)
    assert assert_scores_reproduce_report(out) == {"cache_hit_rate"}  # the others are means over sessions
    curve = [point["hit_rate"] for point in cache["hit_rate_curve"]]
    assert [point["threshold"] for point in cache["hit_rate_curve"]] == [0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    assert curve == sorted(curve, reverse=True)
    assert curve[3] == pytest.approx(report["metrics"]["cache_hit_rate"]["value"], abs=1e-6)
    preservation = report["metrics"]["context_preservation"]
    assert preservation == report["metrics"]["multi_turn_consistency"]
    assert 0 < preservation["value"] < 1


def test_ux_on_a_hand_made_log(bench, tmp_path):
    """Earlier sessions cache the password question (score 5); the latest session asks it again, and
    something unrelated: one hit in two. Sessions of repeated questions preserve context exactly."""
    password, peru = "How do I reset my password?", "What is the capital city of Peru?"
    log = _write_log(tmp_path / "log.jsonl", [
        _turn(1, "s1", 1, password, 5, 1), _turn(2, "s1", 2, password, 5, 1),
        _turn(3, "s2", 1, peru, 2, 2), _turn(4, "s2", 2, peru, 2, 2),
        _turn(5, "s3", 1, password, 4, 3), _turn(6, "s3", 2, peru, 4, 3),
    ])
    out = tmp_path / "out"
    result = bench("ux", "--dataset", "synthetic", "--logs", log, "--output-dir", out)
    assert result.exit_code == 0, result.output
    report = _report(out)
    assert report["notes"]["cache"]["cached_questions"] == 2  # s1's turns; s2 is rated 2
    assert report["metrics"]["cache_hit_rate"]["value"] == 0.5
    by_id = {item["id"]: item for item in _items(out)}
    assert by_id["5"]["inputs"] == {"question": password} and by_id["5"]["session_id"] == "s3"
    assert by_id["5"]["answer"]["best_cache_similarity"] == pytest.approx(1.0, abs=1e-6)
    assert by_id["6"]["answer"]["cache_hit"] is False
    assert by_id["6"]["scores"]["cache_hit_rate"]["bench"] == {"value": 0.0, "status": "ok", "explanation": ""}
    # s1 and s2 repeat one question (cosine 1); s3 pairs two unrelated ones: the mean is within sessions first
    value = report["metrics"]["context_preservation"]["value"]
    assert report["metrics"]["context_preservation"]["n"] == 3
    assert 2 / 3 - 1 / 3 < value < 1


def test_ux_without_a_cache_leaves_every_question_undetermined(bench, tmp_path):
    """No earlier question rated 5: the report's rate has no value (the run measured nothing, exit 3), and no
    item has one either, without an error."""
    log = _write_log(tmp_path / "log.jsonl", [{**turn, "score": 4} for turn in _six_turns()])
    out = tmp_path / "out"
    result = bench("ux", "--dataset", "synthetic", "--logs", log, "--output-dir", out)
    assert result.exit_code == 3, result.output
    assert _report(out)["metrics"]["cache_hit_rate"]["value"] is None
    assert {item["scores"]["cache_hit_rate"]["bench"]["status"] for item in _items(out)} == {"undetermined"}
    assert all(item["answer"] == {"best_cache_similarity": None, "best_cache_cosine": None, "cache_hit": False}
               for item in _items(out))
    assert assert_scores_reproduce_report(out) == {"cache_hit_rate"}


def test_real_users_on_the_synthetic_log(bench, tmp_path):
    out = tmp_path / "ru"
    result = bench("real-users", "--dataset", "synthetic", "--topics", "5", "--output-dir", out)
    assert result.exit_code == 0, result.output
    report = _report(out)
    entries = report["notes"]["log_entries"]
    assert entries["with_url"] + entries["without_url"] == entries["total"] == len(_items(out))
    assert report["metrics"]["hit_rate@1"]["n"] == entries["evaluated"] == entries["with_url"]
    items = _items(out)
    evaluated = [item for item in items if item["confluence_url"]]
    assert all(("hit_rate@1" in item["scores"]) == bool(item["confluence_url"]) for item in items)
    assert all(item["cluster"] == item["confluence_url"] for item in items)
    first_hits = sum(item["answer"][0][0] == item["confluence_url"] for item in evaluated)
    assert report["metrics"]["hit_rate@1"]["value"] == pytest.approx(first_hits / len(evaluated), abs=1e-6)
    checked = assert_scores_reproduce_report(out)
    assert checked == set(report["metrics"]) - {"chunk_utilization"}  # a share of the corpus, not of the turns
    usage = report["notes"]["chunk_utilization"]
    assert usage["used_chunks"] + usage["unused_chunks"] == usage["total_chunks"] == 311
    topics = report["notes"]["topic_coverage"]["topics"]
    assert len(topics) == 5 and sum(t["question_count"] for t in topics) == entries["total"]


def test_real_users_refuses_more_topics_than_questions(bench, tmp_path):
    log = _write_log(tmp_path / "log.jsonl", [_turn(1, "s1", 1, "How do I reset my password?", 5, 1)])
    result = bench("real-users", "--dataset", "synthetic", "--logs", log, "--topics", "3")
    assert result.exit_code == 2
    assert "--topics 3" in result.output


def test_a_malformed_log_names_file_line_and_field(bench, tmp_path):
    log = tmp_path / "bad.jsonl"
    log.write_text(json.dumps({"id": 1, "question": "q?", "score": 9}) + "\n")
    result = bench("ux", "--dataset", "synthetic", "--logs", log)
    assert result.exit_code == 2
    assert "bad.jsonl:1" in result.output and "score" in result.output


def _six_turns():
    password, peru = "How do I reset my password?", "What is the capital city of Peru?"
    return [_turn(1, "s1", 1, password, 5, 1), _turn(2, "s1", 2, password, 5, 1),
            _turn(3, "s2", 1, peru, 2, 2), _turn(4, "s2", 2, peru, 2, 2),
            _turn(5, "s3", 1, password, 4, 3), _turn(6, "s3", 2, peru, 4, 3)]


def test_ux_on_an_imported_log_is_identified_by_its_rows(bench, tmp_path):
    """The log is what the run is over: its name, row count and content hash are in the report, its rows are
    what the header counts, and rows added under the same name make another run bench compare refuses."""
    name = f"ux-{tmp_path.name}"
    log = _write_log(tmp_path / "export.jsonl", _six_turns())
    assert bench("import-logs", log, "--name", name).exit_code == 0
    first = bench("ux", "--dataset", "synthetic", "--logs", name, "--output-dir", tmp_path / "first")
    assert first.exit_code == 0, first.output
    report = _report(tmp_path / "first")
    block = report["log"]
    assert (block["name"], block["format"], block["log_entries"], block["sessions"]) == (name, "bench-database", 6, 3)
    assert len(block["content_sha256"]) == 64
    header = (tmp_path / "first" / "report.md").read_text().splitlines()[2]
    assert f"log `{name}` (sha256 `{block['content_sha256'][:12]}`, 6 log entries, 3 sessions)" in header
    assert "439 questions" not in header and "6 log entries, 3 sessions" in first.output
    again = bench("ux", "--dataset", "synthetic", "--logs", name, "--output-dir", tmp_path / "again")
    assert again.exit_code == 0, again.output
    assert bench("compare", tmp_path / "first", tmp_path / "again").exit_code == 0

    _write_log(log, [*_six_turns(), _turn(7, "s4", 1, "Where do I park?", 5, 4),
                     _turn(8, "s4", 2, "And on weekends?", 5, 4)])
    assert bench("import-logs", log, "--name", name).exit_code == 0
    grown = bench("ux", "--dataset", "synthetic", "--logs", name, "--output-dir", tmp_path / "grown")
    assert grown.exit_code == 0, grown.output
    assert _report(tmp_path / "grown")["log"]["log_entries"] == 8
    refused = bench("compare", tmp_path / "first", tmp_path / "grown")
    assert refused.exit_code == 2
    assert "log rows differs (6 vs 8)" in refused.output and "log content (sha256) differs" in refused.output
    assert bench("compare", tmp_path / "first", tmp_path / "grown", "--allow-mismatch").exit_code == 0


def test_real_users_on_another_log_is_not_compared(bench, tiny, tmp_path):
    def run(folder, rows):
        log = _write_log(tmp_path / f"{folder}.jsonl", [
            {**_turn(i, f"s{i}", 1, question, 5, i), "confluence_url": f"https://wiki.example.com/{topic}"}
            for i, (question, topic) in enumerate(rows, start=1)])
        result = bench("real-users", "--dataset", tiny, "--logs", log, "--topics", "2", "--output-dir",
                       tmp_path / folder)
        assert result.exit_code == 0, result.output
        return tmp_path / folder

    rows = [("How do I connect to the VPN?", "vpn"), ("How many vacation days do I get?", "vacation"),
            ("Where can I park in Berlin?", "parking")]
    first, other = run("first", rows), run("other", rows[:2])
    report = _report(first)
    assert (report["log"]["name"], report["log"]["log_entries"]) == ("first", 3)
    header = (first / "report.md").read_text().splitlines()[2]
    assert "(sha256" in header and "7 documents)" in header and "3 log entries, 3 sessions" in header
    refused = bench("compare", first, other)
    assert refused.exit_code == 2 and "log name differs (first vs other)" in refused.output
