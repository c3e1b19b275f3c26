"""The run journal: what a stopped run leaves on disk, and what a resume accepts."""

import json
from pathlib import Path

import pytest

from benchmarks.cli import resume_command
from benchmarks.errors import BenchError, InputError
from benchmarks.run_files.journal import ITEMS, MANIFEST, RunIdentity, RunJournal, shown

SETTINGS = {"judge_mode": "direct", "repeats": 2, "llm_concurrency": 16, "llm_api_key": "***", "data_dir": "/x"}


def identity(settings=None, data=None):
    return RunIdentity.of("tier2", "1.0", {"name": "synthetic", "content_sha256": "abc", **(data or {})},
                          {**SETTINGS, **(settings or {})})


def started(tmp_path, rows=()):
    journal = RunJournal.start(tmp_path / "run", identity(), run_id="r1", started_at="2026-11-22T00:00:00+00:00",
                               point_latest=True)
    for key, row in rows:
        journal.append(key, row)
    journal.close()
    return tmp_path / "run"


def test_rows_come_back_exactly_with_full_float_precision(tmp_path):
    folder = started(tmp_path, [("q1", {"value": 0.1 + 0.2}), ("q2", {"value": 1 / 3})])
    journal = RunJournal.resume(folder, identity())
    assert journal.restored == {"q1": {"id": "q1", "value": 0.1 + 0.2}, "q2": {"id": "q2", "value": 1 / 3}}
    assert journal.finished == 2 and journal.manifest["run_id"] == "r1"
    journal.append("q3", {"value": 1.0})
    journal.close()
    assert [json.loads(line)["id"] for line in (folder / ITEMS).read_text().splitlines()] == ["q1", "q2", "q3"]


def test_a_part_of_an_item_keeps_the_items_id_and_comes_back_under_its_tuple_key(tmp_path):
    """A part of an input item (bench evaluate's (sample, metric, judge model)) is journaled under a tuple key:
    `id` the item's, `part` the rest as a list, so no separator in a sample id or a model name
    ("openai/gpt-4o-mini") can make two parts one, and the journal still reads by item."""
    key = ("q1/a", "faithfulness", "openai/gpt-4o-mini")
    folder = started(tmp_path, [(key, {"value": 0.5}), ("q2", {"value": 1.0})])
    first = json.loads((folder / ITEMS).read_text().splitlines()[0])
    assert (first["id"], first["part"]) == ("q1/a", ["faithfulness", "openai/gpt-4o-mini"])
    journal = RunJournal.resume(folder, identity())
    assert set(journal.restored) == {key, "q2"} and journal.restored[key]["value"] == 0.5
    assert shown(key) == "q1/a / faithfulness / openai/gpt-4o-mini" and shown("q2") == "q2"


def test_a_line_cut_by_a_kill_is_dropped_and_truncated_away(tmp_path):
    folder = started(tmp_path, [("q1", {"value": 1.0})])
    with (folder / ITEMS).open("a") as out:
        out.write('{"id": "q2", "val')
    journal = RunJournal.resume(folder, identity())
    assert set(journal.restored) == {"q1"}
    journal.append("q2", {"value": 0.5})
    journal.close()
    assert [json.loads(line) for line in (folder / ITEMS).read_text().splitlines()] == [
        {"id": "q1", "value": 1.0}, {"id": "q2", "value": 0.5}]


def test_a_damaged_complete_line_names_the_file_and_line(tmp_path):
    folder = started(tmp_path, [("q1", {"value": 1.0})])
    with (folder / ITEMS).open("a") as out:
        out.write("not json\n")
    with pytest.raises(InputError) as error:
        RunJournal.resume(folder, identity())
    assert f"{folder / ITEMS}:2" in str(error.value)


def test_a_session_with_other_settings_or_data_is_refused_naming_each_difference(tmp_path):
    folder = started(tmp_path)
    with pytest.raises(BenchError) as error:
        RunJournal.resume(folder, identity(data={"content_sha256": "def"}, settings={"judge_mode": "reasoned"}))
    message = str(error.value)
    assert "dataset content_sha256 'abc' → 'def'" in message and "judge_mode 'direct' → 'reasoned'" in message
    assert "repeats" not in message


def test_operational_settings_may_change_between_sessions(tmp_path):
    folder = started(tmp_path, [("q1", {"value": 1.0})])
    journal = RunJournal.resume(folder, identity(settings={"llm_concurrency": 2, "data_dir": "/elsewhere"}))
    assert set(journal.restored) == {"q1"}


def test_a_finished_run_and_a_foreign_folder_are_refused(tmp_path):
    folder = started(tmp_path)
    (folder / MANIFEST).unlink()
    (folder / "report.json").write_text("{}")
    with pytest.raises(BenchError, match="holds a finished run"):
        RunJournal.resume(folder, identity())
    with pytest.raises(BenchError, match="not a stopped bench run"):
        RunJournal.resume(tmp_path, identity())


def test_discard_leaves_no_empty_run_folder_but_keeps_a_users_files(tmp_path):
    journal = RunJournal.start(tmp_path / "reports" / "data" / "tier2" / "r", identity(), run_id="r",
                               started_at="t", point_latest=True)
    journal.discard()
    assert not (tmp_path / "reports").exists()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    RunJournal.start(tmp_path / "mine", identity(), run_id="r", started_at="t", point_latest=False).discard()
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == ["notes.txt"]


def test_the_resume_command_repeats_the_options_and_replaces_the_output_folder():
    arguments = ["tier2", "--dataset", "my data", "-o", "out", "--repeats", "3", "--resume=old", "--no-cache"]
    assert resume_command(arguments, Path("reports/x y")) == (
        "bench tier2 --dataset 'my data' --repeats 3 --no-cache --resume 'reports/x y'")
