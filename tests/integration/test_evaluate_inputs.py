"""What a samples file is checked for before any work: the fields its metrics need, its language, its CSV
separator and its encoding, each refused or said in one line (offline judge: no LLM needed)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks import evaluate
from benchmarks.errors import BenchError

pytestmark = pytest.mark.integration

RU = [
    ("Сколько дней отпуска положено сотрудникам?", "Сотрудникам положено 28 дней оплачиваемого отпуска.",
     "Сотрудникам положено 28 дней оплачиваемого отпуска в году."),
    ("Как подключиться к VPN?", "Установите клиент и войдите через SSO.",
     "Чтобы подключиться к VPN, установите клиент и войдите через SSO."),
    ("Где парковка?", "В берлинском офисе 40 мест.", "В берлинском офисе 40 парковочных мест, бронируйте заранее."),
]
EN = ("How do I connect to the VPN?", "Install the client.", "To connect to the VPN install the client and sign in.")


def jsonl(path, rows):
    path.write_text("".join(json.dumps({"user_input": q, "response": a, "retrieved_contexts": [c]},
                                       ensure_ascii=False) + "\n" for q, a, c in rows), encoding="utf-8")
    return path


def run(bench, path, out, *flags):
    return bench("evaluate", "--dataset", path, "--metrics", "faithfulness", "--judge", "offline", "-o", out, *flags)


def test_a_russian_file_is_judged_in_russian_without_a_flag_and_says_so(bench, tmp_path):
    result = run(bench, jsonl(tmp_path / "ru.jsonl", RU), tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "language: ru, told from the samples' script" in result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["dataset"]["language"] == "ru" and report["notes"]["language"] == "ru"
    assert report["settings_sources"]["language"] == "detected"
    assert report["warnings"] == []


def test_a_mixed_file_is_judged_in_its_majority_language_and_the_others_are_counted(bench, tmp_path):
    result = run(bench, jsonl(tmp_path / "mixed.jsonl", [*RU, EN]), tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "warning: 1 of 4 samples are not in ru by their script (1 en)" in result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (warning,) = report["warnings"]
    assert (warning["code"], warning["count"], warning["examples"]) == ("mixed_languages", 1, ["s00004"])


def test_a_language_the_user_sets_is_kept_and_a_contradicting_file_is_warned_about(bench, tmp_path):
    result = run(bench, jsonl(tmp_path / "ru.jsonl", RU), tmp_path / "out", "--language", "en")
    assert result.exit_code == 0, result.output
    assert "told from" not in result.output
    assert "3 of 3 samples are not in en by their script (3 ru), yet judged with en prompts" in result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["notes"]["language"] == "en" and report["settings_sources"]["language"] == "cli"


def test_a_field_no_sample_gives_is_refused_before_any_work_naming_its_columns_and_metrics(bench, tmp_path):
    path = tmp_path / "answers.csv"
    path.write_text("question,answer\nWhat is the VPN?,A private network.\n", encoding="utf-8")
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", path, "--metrics", "faithfulness,context_recall", "--judge", "offline",
                   "-o", out)
    assert result.exit_code == 2
    assert ("no sample of answers gives retrieved_contexts (a column retrieved_contexts or contexts), which "
            "faithfulness, context_recall need") in result.output
    assert "which context_recall needs" in result.output  # reference
    assert not out.exists()  # nothing started: no run folder


def test_a_field_only_the_offline_proxy_reads_is_checked_before_any_work_under_the_offline_judge(bench, tmp_path):
    """Offline context_precision reads the reference, which the LLM form does without: refused up front (exit 2),
    as context_recall is, not a run that measures nothing (exit 3)."""
    path = tmp_path / "noref.jsonl"
    path.write_text(json.dumps({"user_input": "When?", "response": "In 1889.",
                                "retrieved_contexts": ["The tower was completed in 1889."]}) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = bench("evaluate", "--dataset", path, "--metrics", "context_precision", "--judge", "offline", "-o", out)
    assert result.exit_code == 2, result.output
    assert "no sample of noref gives reference (a column reference or reference_answer or ground_truth), which " \
           "context_precision needs" in result.output
    assert not out.exists()


@pytest.mark.parametrize(("flags", "message"), [
    (("--metrics", "context_precision", "--precision-against", "response"),
     "precision_against response: offline context_precision judges the contexts by the reference only"),
    (("--metrics", "factual_correctness", "--claim-counting", "ragas"),
     "claim_counting ragas counts the claims an LLM judge extracts")])
def test_a_setting_the_offline_judge_cannot_honour_is_refused_in_one_line(bench, tmp_path, flags, message):
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"user_input": "When?", "response": "In 1889.", "reference": "In 1889.",
                                "retrieved_contexts": ["The tower was completed in 1889."]}) + "\n", encoding="utf-8")
    result = bench("evaluate", "--dataset", path, "--judge", "offline", *flags, "-o", tmp_path / "out")
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "out").exists()


def test_a_field_some_samples_lack_is_one_line_and_those_samples_are_undetermined(bench, tmp_path):
    path = tmp_path / "some.jsonl"
    rows = [{"user_input": "What is the VPN?", "response": "A private network.", "reference": "A VPN.",
             "retrieved_contexts": ["A VPN is a virtual private network."]},
            {"user_input": "How many days?", "response": "28 days.", "retrieved_contexts": ["28 days of leave."]}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = bench("evaluate", "--dataset", path, "--metrics", "faithfulness,answer_correctness", "--judge",
                   "offline", "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert result.output.count("warning: 1 of 2 samples lack reference: answer_correctness will be undetermined") == 1
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    statuses = report["notes"]["statuses"]["answer_correctness"]
    assert (statuses["ok"], statuses["undetermined"]) == (1, 1)


def test_the_python_api_raises_the_same_error(tmp_path):
    with pytest.raises(BenchError, match="no sample of samples gives retrieved_contexts"):
        evaluate([{"user_input": "What is the VPN?", "response": "A private network."}], ["faithfulness"],
                 judge="offline")


@pytest.mark.parametrize("separator", [";", "\t"])
def test_a_semicolon_or_tab_separated_file_is_read_as_spreadsheets_write_it(bench, tmp_path, separator):
    path = tmp_path / "excel.csv"
    rows = [separator.join(("question", "answer", "contexts"))]
    rows += [separator.join((q, a, f'"{c}"')) for q, a, c in RU]  # a context may hold commas
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    result = run(bench, path, tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["dataset"]["samples"] == 3 and report["metrics"]["faithfulness"]["n"] == 3


def test_a_windows_cyrillic_file_is_refused_naming_its_likely_encoding_and_the_conversion(bench, tmp_path):
    path = tmp_path / "cp.csv"
    path.write_bytes(b"question,answer,contexts\n" + ",".join(RU[0]).encode("cp1251") + b"\n")
    result = run(bench, path, tmp_path / "out")
    assert result.exit_code == 2
    assert (f"{path}:2: not UTF-8 (byte 1 of the line); it looks like cp1251: convert it with iconv -f cp1251 -t "
            "utf-8 cp.csv > cp-utf8.csv") in result.output


def test_a_header_of_unknown_columns_shows_how_it_was_split(bench, tmp_path):
    path = tmp_path / "other.csv"
    path.write_text("вопрос;ответ\nа;б\n", encoding="utf-8")
    result = run(bench, path, tmp_path / "out")
    assert result.exit_code == 2
    assert "its cells, split at semicolons: вопрос, ответ" in result.output


def test_refusing_a_file_loads_no_heavy_module():
    """What decides a refusal (the metrics' catalog, the LLM settings, the samples' fields) needs none of the run's
    heavy modules, so a mistyped file is refused in well under a second (perf.startup times it)."""
    code = ("import sys; import benchmarks.tiers.evaluate_checks; "
            "print(sorted(m for m in ('scipy', 'torch', 'sqlalchemy', 'openai', 'sentence_transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[]"]


def test_a_shipped_labelled_set_runs_by_name_from_any_folder(bench, tmp_path):
    """The working folder (tmp_path) holds no datasets/: the name is found beside bench's code, as in a wheel."""
    assert not (tmp_path / "datasets").exists()
    result = bench("evaluate", "--dataset", "labelled-en", "--judge", "offline", "--metrics", "faithfulness",
                   "--limit", "6")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "reports" / "labelled-en" / "evaluate" / "latest" / "report.json").read_text())
    assert report["dataset"]["name"] == "labelled-en" and report["dataset"]["samples"] == 6
    assert report["metrics"]["faithfulness"]["agreement"]["labelled"] == 6  # its labels were read
