"""`bench evaluate` stopped by Ctrl-C mid-run and resumed: the report of an uninterrupted run, no call redone.

The interruption is real: the scripted server sends SIGINT to this process at its Nth call
(tests/integration/interrupt.py), or, to stop in the middle of one sample, as one judge's call on
it comes in once the other judge's outcome on it is journaled.
"""

import json
import os
import re
import signal
import threading
import time
from collections import Counter

import pytest

from tests.integration.interrupt import ctrl_c_on_call
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

SAMPLES = [{"id": f"s{i:02d}", "user_input": f"How long does a type {i} request take?",
            "response": f"Type {i} requests take {i % 5 + 1} days. They are approved by team {i % 3}.",
            "retrieved_contexts": [f"Requests of type {i} take {i % 5 + 1} days."]} for i in range(24)]
FLAGS = ("--metrics", "faithfulness", "--no-cache", "--concurrency", "2")


def faithful_judge(body) -> Reply:
    """Statements are the response's sentences; a statement is supported when it names days."""
    first = body["messages"][0]["content"]
    if '"verdicts"' in first:
        statements = json.loads(re.findall(r"^Statements: (\[.*?\])\nOutput:", first, re.MULTILINE | re.DOTALL)[-1])
        return Reply(text=json.dumps({"verdicts": [
            {"statement": s, "reason": "checked", "verdict": int("days" in s)} for s in statements]}))
    response = re.findall(r"^Text: (.*)$", first, re.MULTILINE)[-1]
    return Reply(text=json.dumps({"statements": [f"{part.strip()}." for part in response.split(".") if part.strip()]}))


def journaled_units(folder) -> set[tuple[str, str, str]]:
    """The (sample, metric, judge model) units a stopped run's journal holds."""
    rows = [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]
    return {(row["id"], *row["part"]) for row in rows}


def stable(folder):
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    return report


def test_an_interrupted_evaluate_resumes_to_the_uninterrupted_report(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-resume")
        server.responder = ctrl_c_on_call(20, faithful_judge)
        interrupted = bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped)
        assert interrupted.exit_code == 130, interrupted.output
        assert "resume with: bench evaluate --dataset" in interrupted.output
        units = journaled_units(stopped)
        kept = {sample for sample, _, _ in units}  # one metric, one judge: a sample is one unit
        assert len(kept) == len(units) and 0 < len(kept) < len(SAMPLES) and not (stopped / "report.json").exists()

        server.responder = faithful_judge
        generation = server.listen_afresh()  # a request the stopped run sent is never counted as the resumed one's
        resumed = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
        resumed_calls = [r for r in server.chat_requests if r["generation"] == generation]
        other = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness,context_precision", "--no-cache",
                      "--resume", stopped)
        full_run = bench("evaluate", "--dataset", samples, *FLAGS, "-o", full)
    assert resumed.exit_code == 0, resumed.output
    assert full_run.exit_code == 0, full_run.output
    # two calls (statements, verdicts) for every sample not kept, none for a kept one
    assert len(resumed_calls) == 2 * (len(SAMPLES) - len(kept))
    kept_texts = {text for s in SAMPLES if s["id"] in kept for text in (s["user_input"], *s["retrieved_contexts"])}
    assert not [c for c in resumed_calls if any(t in c["body"]["messages"][0]["content"] for t in kept_texts)]
    assert stable(stopped) == stable(full)
    assert json.loads((stopped / "report.json").read_text())["volatile"]["resumed"] == {"restored_items": len(kept)}
    # a finished run is not resumed again, whatever the options
    assert other.exit_code == 2 and "holds a finished run" in other.output


def test_a_resume_with_other_metrics_is_refused_naming_them(bench, tmp_path, monkeypatch):
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped = tmp_path / "stopped"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-refused")
        server.responder = ctrl_c_on_call(10, faithful_judge)
        assert bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped).exit_code == 130
        server.responder = faithful_judge
        refused = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness,context_precision", "--no-cache",
                        "--concurrency", "2", "--resume", stopped)
    assert refused.exit_code == 2
    assert "--metrics ['faithfulness'] → ['faithfulness', 'context_precision']" in refused.output
    assert (stopped / "run.json").exists()  # the stopped run is still there to resume properly


def test_a_setting_the_tier_does_not_read_may_change_one_it_reads_may_not(bench, tmp_path, monkeypatch):
    """A run's identity holds only the settings its tier reads: an index parameter changed between the two
    sessions does not stop an evaluate resume; a seed (which moves its confidence intervals) does."""
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped = tmp_path / "stopped"
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "evaluate-scoped")
        server.responder = ctrl_c_on_call(10, faithful_judge)
        assert bench("evaluate", "--dataset", samples, *FLAGS, "-o", stopped).exit_code == 130
        server.responder = faithful_judge
        monkeypatch.setenv("BENCH_SEED", "7")
        refused = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
        monkeypatch.delenv("BENCH_SEED")
        monkeypatch.setenv("BENCH_HNSW_M", "32")
        resumed = bench("evaluate", "--dataset", samples, *FLAGS, "--resume", stopped)
    assert refused.exit_code == 2 and "seed 0 → 7" in refused.output, refused.output
    assert resumed.exit_code == 0, resumed.output
    report = json.loads((stopped / "report.json").read_text())
    assert "hnsw_m" not in report["settings"] and report["settings"]["seed"] == 0


JUDGES = ("judge-a", "judge-b")


def sample_of(body) -> str:
    """The sample a faithfulness call is about: both its prompts quote the response's "Type N requests"."""
    number = re.findall(r"Type (\d+) requests", body["messages"][0]["content"])[-1]
    return f"s{int(number):02d}"


def ctrl_c_mid_sample(journal, unit_done, unit_stopped, answer, stopped):
    """`answer` as a responder that presses Ctrl-C when the first call of `unit_stopped` comes in, after waiting
    until `unit_done` (same sample, other judge) is in the journal; that call gets no reply until the test sets
    `stopped` (once the interrupted run has returned), so it cannot count however long Ctrl-C takes to act.
    (The minute of either wait is for a run that hangs.)"""
    written = json.dumps({"id": unit_done[0], "part": list(unit_done[1:])})[1:-1]  # how its journal line begins
    stopped_calls = (unit_stopped[0], unit_stopped[2])  # (sample, judge model) of the stopped unit's calls
    pressed = threading.Event()

    def respond(body):
        if pressed.is_set() or (sample_of(body), body["model"]) != stopped_calls:
            return answer(body)
        deadline = time.monotonic() + 60
        while not (journal.exists() and written in journal.read_text()) and time.monotonic() < deadline:
            time.sleep(0.01)
        pressed.set()
        os.kill(os.getpid(), signal.SIGINT)
        stopped.wait(timeout=60)
        return answer(body)

    return respond


def items_without_timings(folder):
    """items.jsonl with each outcome's wall time left out: the one field that differs between two runs."""
    items = [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]
    for item in items:
        for by_model in item["scores"].values():
            for row in by_model.values():
                row.pop("duration_ms")
    return items


def test_a_stop_in_the_middle_of_a_sample_re_asks_only_its_unfinished_units(bench, tmp_path, monkeypatch):
    """Each (sample, metric, judge model) is journaled as it finishes: stopped after judge-a's outcome on s05 and
    before judge-b's, a resume asks judge-b about s05 (and whatever else did not finish) and nothing more, with
    the cache off so that no re-asked call could hide in it, and reports what an uninterrupted run reports."""
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    flags = (*FLAGS, "--models", ",".join(JUDGES))
    done, cut = ("s05", "faithfulness", "judge-a"), ("s05", "faithfulness", "judge-b")
    returned = threading.Event()
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "judge-a")
        server.responder = ctrl_c_mid_sample(stopped / "items.jsonl", done, cut, faithful_judge, returned)
        try:
            interrupted = bench("evaluate", "--dataset", samples, *flags, "-o", stopped)
        finally:
            returned.set()  # the held reply goes now, to a client that is gone
        assert interrupted.exit_code == 130, interrupted.output
        kept = journaled_units(stopped)
        assert done in kept and cut not in kept  # stopped in the middle of s05

        server.responder = faithful_judge
        asked = len(server.chat_requests)
        resumed = bench("evaluate", "--dataset", samples, *flags, "--resume", stopped)
        resumed_calls = server.chat_requests[asked:]
        full_run = bench("evaluate", "--dataset", samples, *flags, "-o", full)
    assert resumed.exit_code == 0, resumed.output
    assert full_run.exit_code == 0, full_run.output
    every_unit = {(s["id"], "faithfulness", judge) for s in SAMPLES for judge in JUDGES}
    # two calls (statements, verdicts) for each unit that did not finish, none for a finished one
    asked_units = Counter((sample_of(c["body"]), "faithfulness", c["body"]["model"]) for c in resumed_calls)
    assert asked_units == dict.fromkeys(every_unit - kept, 2)
    assert asked_units[cut] == 2 and done not in asked_units
    assert stable(stopped) == stable(full)
    assert items_without_timings(stopped) == items_without_timings(full)
    assert json.loads((stopped / "report.json").read_text())["volatile"]["resumed"] == {"restored_items": len(kept)}
