"""Never a traceback, a leak, an orphan or a silent empty result: bench as a process, its exit codes and
its stderr when that is no terminal (cron, CI, `2>log`)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.run_files.index import read_index
from tests.integration.conftest import CORPUS, QUESTIONS, write_bench_dataset
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

BENCH = Path(sys.executable).with_name("bench")
SHIPPED = Path(__file__).resolve().parents[2] / "datasets" / "synthetic"


def bench_process(*args, env=None, timeout=300):
    """The real `bench`, its stdout and stderr files (never terminals); the timeout is for a bench that hangs."""
    return subprocess.run([str(BENCH), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, check=False)


def fresh_data_dir(tmp_path) -> dict[str, str]:
    """BENCH_DATA_DIR as an empty folder of the test's own: a run that got past its start-up checks leaves the
    embedded PostgreSQL's pgdata there (the session's data folder already has one)."""
    folder = tmp_path / "data"
    folder.mkdir()
    return {"BENCH_DATA_DIR": str(folder)}


def no_work_done(env) -> None:
    """Refused at start-up, before any work (a full run starts PostgreSQL and loads a model, and takes minutes):
    nothing was made in the data folder. Said by what was left behind, not by how long the refusal took."""
    assert list(Path(env["BENCH_DATA_DIR"]).iterdir()) == []


def refused(done, *expected):
    """Exit 2 and one line on stderr, never a traceback."""
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("flag, path, named", [
    ("--output-dir", "/etc/hostname/run", "--output-dir: /etc/hostname/run"),
    ("--output-dir", "/proc/bench-run", "--output-dir: /proc/bench-run"),
    ("--data-dir", "/etc/hostname", "--data-dir: /etc/hostname"),
    ("--reports-dir", "/proc/reports", "--reports-dir: /proc/reports"),
])
def test_an_unwritable_folder_is_refused_before_any_work(flag, path, named, tmp_path):
    env = fresh_data_dir(tmp_path)
    done = bench_process("tier1", "--dataset", "synthetic", flag, path, env=env)
    refused(done, named)
    no_work_done(env)


def test_a_reports_folder_from_the_environment_is_named_as_such():
    done = bench_process("tier1", "--dataset", "synthetic", env={"BENCH_REPORTS_DIR": "/proc/reports"})
    refused(done, "environment variable BENCH_REPORTS_DIR: /proc/reports")


def test_nothing_is_left_behind_by_the_check(tmp_path):
    out = tmp_path / "a" / "b"
    done = bench_process("tier1", "--dataset", "synthetic", "--output-dir", out, "--top-k", "0")
    refused(done, "--top-k")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, flag", [
    (("tier0", "--dataset", "synthetic", "--k", "-1"), "--k: must be at least 1"),
    (("evaluate", "--dataset", "samples.jsonl", "--concurrency", "0"), "--concurrency: must be at least 1"),
])
def test_an_option_error_names_the_flag_typed(args, flag):
    line = refused(bench_process(*args), flag)
    assert "--neighbours" not in line and "--llm-concurrency" not in line


def test_an_unknown_setting_suggests_the_closest_names(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('llm_modle = "judge"\n')
    line = refused(bench_process("tier1", "--dataset", "synthetic", "--config", config),
                   "key 'llm_modle': unknown setting (did you mean llm_model")
    assert "bootstrap_resamples" not in line  # not every name


def samples_file(tmp_path) -> Path:
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"id": "s1", "question": "Who wrote Hamlet?", "answer": "Marlowe.",
                                   "contexts": ["Hamlet is by Shakespeare."]}) + "\n")
    return samples


def test_an_unknown_bench_variable_is_one_warning_line_and_the_command_goes_on(tmp_path):
    done = bench_process("evaluate", "--dataset", samples_file(tmp_path), "--metrics", "faithfulness", "--dry-run",
                         env={"BENCH_LLM_MODEL": "judge-a", "BENCH_LLM_MODLE": "judge-b"})
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [("warning: environment variable BENCH_LLM_MODLE is no bench setting and is "
                                         "ignored (did you mean BENCH_LLM_MODEL?)")]
    assert "judge-a" in done.stdout and "judge-b" not in done.stdout


def test_an_unknown_metric_names_the_flag_and_the_closest_metric(tmp_path):
    refused(bench_process("evaluate", "--dataset", samples_file(tmp_path), "--metrics", "faithfullness", "--dry-run",
                          env={"BENCH_LLM_MODEL": "judge-a"}),
            "error: --metrics: unknown metric 'faithfullness'; did you mean 'faithfulness'?")


def test_an_unknown_option_suggests_the_closest(tmp_path):
    done = bench_process("tier1", "--dataset", "synthetic", "--top-kk", "3")
    assert done.returncode == 2 and "--top-k" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_dataset_line_is_refused_at_start_up(tmp_path):
    dataset = write_bench_dataset(tmp_path / "bad")
    with (dataset / "questions.jsonl").open("a") as out:
        out.write('{"id": "q9", "question":\n')
    env = fresh_data_dir(tmp_path)
    done = bench_process("tier1", "--dataset", dataset, env=env)
    refused(done, "questions.jsonl:7: not valid JSON")
    no_work_done(env)


def test_a_run_that_measured_nothing_exits_3_with_plain_progress_lines(tmp_path):
    """Every judgment names a chunk missing from the corpus: the report is written, the exit code says the run
    is broken, and stderr (a file here) has timestamped progress lines instead of invisible bars."""
    wrong = [(qid, text, {"no-such-chunk#1": 1}) for qid, text, _ in QUESTIONS]
    dataset = write_bench_dataset(tmp_path / "wrong-qrels", CORPUS, wrong)
    out = tmp_path / "out"
    done = bench_process("tier1", "--dataset", dataset, "-o", out, env={"BENCH_PROGRESS_INTERVAL_S": "0.2"})
    assert done.returncode == 3, done.stderr
    assert (out / "report.json").is_file()
    lines = done.stderr.strip().splitlines()
    assert "main metric ndcg@10 has no value (n = 0" in lines[-1] and "unknown_qrel_document" in lines[-1]
    progress = lines[:-1]
    assert progress and all(line[:4].isdigit() and line[19] == "Z" and " tier1: " in line for line in progress)
    assert any("retrieving" in line and "(started)" in line for line in progress)
    assert any("retrieving" in line and "(done in" in line for line in progress)
    warning = next(line for line in done.stdout.splitlines() if line.startswith("warning unknown_qrel_document"))
    assert warning.endswith("were dropped")  # one line, not wrapped at 80 columns


def test_a_piped_table_title_wider_than_its_table_is_one_line(tmp_path):
    """rich wraps a title at its table's width: a dry run's title naming two judges folded into three lines in a
    pipe, which the README says is never wrapped."""
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"id": "s1", "question": "Who wrote Hamlet?", "answer": "Marlowe.",
                                   "contexts": ["Hamlet is by Shakespeare."]}) + "\n")
    models = "judge-with-a-rather-long-name-number-one,judge-with-a-rather-long-name-number-two"
    done = bench_process("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--models", models,
                         "--dry-run", env={"COLUMNS": "", "BENCH_LLM_MODEL": "unused"})
    assert done.returncode == 0, done.stderr
    title = f"dry run: {models.replace(',', ', ')} (no call made)"
    assert done.stdout.splitlines()[0] == title and len(title) > 80


def test_an_evaluation_whose_every_judge_reply_is_unparseable_exits_3(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"id": "s1", "question": "Who wrote Hamlet?", "answer": "Marlowe.",
                                   "contexts": ["Hamlet is a tragedy by William Shakespeare."]}) + "\n")
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(text="I would rather not say.")
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--no-cache",
                       "-o", tmp_path / "out")
    assert result.exit_code == 3, result.output
    assert "main metric faithfulness has no value (n = 0, 1 error(s))" in result.output
    assert (tmp_path / "out" / "report.json").is_file()


def test_nightly_records_a_run_that_measured_nothing_as_failed(bench, tmp_path):
    wrong = [(qid, text, {"no-such-chunk#1": 1}) for qid, text, _ in QUESTIONS]
    dataset = write_bench_dataset(tmp_path / "wrong-qrels", CORPUS, wrong)
    suite = tmp_path / "suite.toml"
    suite.write_text(f'bootstrap_resamples = 20\n\n[[run]]\ntier = "tier1"\ndataset = "{dataset}"\n')
    result = bench("nightly", "--suite", suite)
    assert result.exit_code == 1, result.output
    (line,) = read_index(Path(os.environ["BENCH_REPORTS_DIR"]) / "index.jsonl")
    assert line["status"] == "failed" and "ndcg@10 has no value" in line["error"]
    assert line["report"] and line["metrics"]["retrieval_consistency"] == 1.0  # the report is kept


def test_nightly_refuses_an_unwritable_reports_folder_before_the_first_run(tmp_path):
    suite = tmp_path / "suite.toml"
    suite.write_text('[[run]]\ntier = "tier1"\ndataset = "synthetic"\n')
    env = fresh_data_dir(tmp_path)
    done = bench_process("nightly", "--suite", suite, "--reports-dir", "/proc/nightly", env=env)
    refused(done, "--reports-dir: /proc/nightly")
    no_work_done(env)


def test_a_dataset_saved_with_a_bom_runs_as_the_original(bench, tmp_path):
    plain, bom = write_bench_dataset(tmp_path / "plain"), write_bench_dataset(tmp_path / "bom")
    for path in bom.iterdir():
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    reports = [bench("tier1", "--dataset", folder, "-o", tmp_path / f"{folder.name}-out") for folder in (plain, bom)]
    assert [r.exit_code for r in reports] == [0, 0], reports[1].output
    first, second = (json.loads((tmp_path / f"{n}-out" / "report.json").read_text()) for n in ("plain", "bom"))
    assert first["metrics"] == second["metrics"]
    assert first["dataset"]["content_sha256"] != second["dataset"]["content_sha256"]  # hashed on the bytes
