"""`bench judge-pipeline` interrupted by Ctrl-C mid-run, then resumed, through the LLM service and over HTTP.

The scripted production judge says the same about an item every time (no call counting in the verdict),
so an uninterrupted run is the reference a resumed one must equal. Ctrl-C is a real SIGINT to this
process, sent from the server's thread while a call is in flight: asyncio.run cancels the run.
"""

import json
import re

import pytest

from tests.integration.http_service import JsonService, ServiceReply
from tests.integration.interrupt import ctrl_c_on_call
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

COUNT = 30
STOP_AT_CALL = 10
ITEMS = [{"id": f"i{n:02d}", "question": f"Q{n}", "context": f"C{n}", "answer": f"A{n}",
          "ground_truth_show": n % 2 == 0} for n in range(COUNT)]
HTTP_TEMPLATE = '{"item": "{item_id}", "answer": "{answer}"}'


def verdict(n: int) -> tuple[int, str]:
    """(HTTP status, text) the production judge gives item n: yes, no, unparseable, or a refused call."""
    return (400, "context too long") if n % 7 == 6 else (200, ("Yes.", "No", "It depends.")[n % 3])


def llm_answer(body) -> Reply:
    status, text = verdict(llm_item(body))
    return Reply(text=text) if status == 200 else Reply(status=status, message=text)


def llm_item(body) -> int:
    return int(re.search(r"Answer: A(\d+)\n", body["messages"][-1]["content"]).group(1))


def http_answer(body) -> ServiceReply:
    status, text = verdict(int(body["item"].removeprefix("i")))
    return ServiceReply({"decision": text} if status == 200 else {"error": {"message": text}}, status=status)


@pytest.fixture
def items(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    return path


@pytest.fixture
def llm(monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MAX_ATTEMPTS", "1")
        monkeypatch.setenv("BENCH_LLM_CONCURRENCY", "2")
        yield server


@pytest.fixture
def http(monkeypatch):
    with JsonService() as service:
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_URL", service.url)
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_REQUEST", HTTP_TEMPLATE)
        monkeypatch.setenv("BENCH_SHOW_JUDGE_HTTP_RESPONSE_PATH", "decision")
        monkeypatch.setenv("BENCH_LLM_MAX_ATTEMPTS", "1")
        monkeypatch.setenv("BENCH_LLM_CONCURRENCY", "2")
        yield service


def kept_ids(folder) -> set[str]:
    return {json.loads(line)["id"] for line in (folder / "items.jsonl").read_text().splitlines()}


def interrupted(result, folder) -> set[str]:
    """The items the stopped run kept, after checking it stopped as Ctrl-C should."""
    assert result.exit_code == 130, result.output
    kept = kept_ids(folder)
    assert 0 < len(kept) < COUNT
    assert f"interrupted: {len(kept)} finished item(s) kept in {folder / 'items.jsonl'}" in result.output
    assert "resume with: bench judge-pipeline --dataset" in result.output and f"--resume {folder}" in result.output
    assert (folder / "run.json").exists() and not (folder / "report.json").exists()
    return kept


def stable(folder):
    """The report without its volatile block, and the items without their timings."""
    report = json.loads((folder / "report.json").read_text())
    report.pop("volatile")
    rows = [json.loads(line) for line in (folder / "items.jsonl").read_text().splitlines()]
    for row in rows:
        row.pop("latency_ms")
    return report, rows


def check_resumed(stopped, full, kept, asked_again):
    assert not {f"i{n:02d}" for n in asked_again} & kept  # no finished item was asked again
    assert sorted(asked_again) == sorted(n for n in range(COUNT) if f"i{n:02d}" not in kept)
    assert stable(stopped) == stable(full)
    report = json.loads((stopped / "report.json").read_text())
    assert report["volatile"]["resumed"] == {"restored_items": len(kept)}
    assert report["notes"]["api_errors"] == sum(verdict(n)[0] != 200 for n in range(COUNT))
    assert not (stopped / "run.json").exists()


def test_an_interrupted_llm_run_resumes_to_the_report_of_an_uninterrupted_run(bench, tmp_path, items, llm,
                                                                              monkeypatch):
    monkeypatch.setenv("BENCH_LLM_MODEL", "resume-pipeline-llm")
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    flags = ("judge-pipeline", "--dataset", items, "--no-cache")
    llm.responder = ctrl_c_on_call(STOP_AT_CALL, llm_answer)
    kept = interrupted(bench(*flags, "-o", stopped), stopped)

    llm.responder = llm_answer
    resumed = llm.listen_afresh()  # a request the stopped run sent is never counted as the resumed run's
    result = bench(*flags, "--resume", stopped)
    assert result.exit_code == 0, result.output
    asked_again = [llm_item(r["body"]) for r in llm.chat_requests if r["generation"] == resumed]

    assert bench(*flags, "-o", full).exit_code == 0
    check_resumed(stopped, full, kept, asked_again)


def test_an_interrupted_http_run_resumes_to_the_report_of_an_uninterrupted_run(bench, tmp_path, items, http):
    stopped, full = tmp_path / "stopped", tmp_path / "full"
    flags = ("judge-pipeline", "--dataset", items, "--via", "http", "--no-cache")
    http.responder = ctrl_c_on_call(STOP_AT_CALL, http_answer)
    kept = interrupted(bench(*flags, "-o", stopped), stopped)

    http.responder = http_answer
    resumed = http.listen_afresh()
    result = bench(*flags, "--resume", stopped)
    assert result.exit_code == 0, result.output
    asked_again = [int(r["body"]["item"].removeprefix("i")) for r in http.requests if r["generation"] == resumed]

    assert bench(*flags, "-o", full).exit_code == 0
    check_resumed(stopped, full, kept, asked_again)


def test_resuming_with_another_production_judge_is_refused_naming_the_difference(bench, tmp_path, items, llm,
                                                                                 monkeypatch):
    monkeypatch.setenv("BENCH_LLM_MODEL", "resume-pipeline-default")  # bench needs one configured, --model or not
    stopped = tmp_path / "stopped"
    flags = ("judge-pipeline", "--dataset", items, "--no-cache")
    llm.responder = ctrl_c_on_call(STOP_AT_CALL, llm_answer)
    interrupted(bench(*flags, "--model", "resume-pipeline-a", "-o", stopped), stopped)
    llm.responder = llm_answer
    refused = llm.listen_afresh()

    other_model = bench(*flags, "--model", "resume-pipeline-b", "--resume", stopped)
    assert other_model.exit_code == 2, other_model.output
    assert "model 'resume-pipeline-a' → 'resume-pipeline-b'" in other_model.output

    template = tmp_path / "prod.txt"
    template.write_text("Question: {question}\nContext: {context}\nAnswer: {answer}\nShow it? Yes/No")
    other_prompt = bench(*flags, "--model", "resume-pipeline-a", "--prompt-template", template, "--resume", stopped)
    assert other_prompt.exit_code == 2, other_prompt.output
    assert "template_sha256 " in other_prompt.output and "model " not in other_prompt.output
    assert not [r for r in llm.chat_requests if r["generation"] == refused]  # refused before any call
    assert (stopped / "run.json").exists()  # still a stopped run, resumable with its own options
