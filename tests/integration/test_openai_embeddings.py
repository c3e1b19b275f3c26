"""The OpenAI-compatible embeddings backend, through the real openai client against a local server."""

import json

import pytest

from tests.integration.conftest import CORPUS, QUESTIONS
from tests.integration.openai_server import FakeOpenAI

pytestmark = pytest.mark.integration
API_KEY = "sk-test-0123456789secret"


def test_tier1_with_an_openai_compatible_embeddings_endpoint(bench, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_API_KEY", API_KEY)
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48, api_key=API_KEY, fail_first=1) as server:
        result = bench("tier1", "--dataset", tiny, "--embedding-backend", "openai", "--embedding-base-url",
                       server.base_url, "--embedding-model", "hash-embed-48", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["embedder"] == {"id": "hash-embed-48", "dimension": 48, "backend": "openai"}
    assert report["settings"]["embedding_api_key"] == "***"
    assert report["metrics"]["hit_rate@10"]["value"] == 1.0  # 7 chunks, depth 10
    embedded = [t for r in server.requests if r["path"].endswith("/embeddings") for t in r["body"]["input"]]
    assert sorted(set(embedded)) == sorted({text for text, _ in CORPUS.values()} | {q for _, q, _ in QUESTIONS}
                                           | {"dimension probe"})
    assert server.requests[0]["authorization"] == f"Bearer {API_KEY}"
    for path in out.iterdir():
        assert API_KEY not in path.read_text()
    assert API_KEY not in result.output


def test_a_rejected_key_is_one_clear_line_without_the_key(bench, tiny, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_API_KEY", "sk-wrong-key-never-shown")
    with FakeOpenAI(api_key=API_KEY) as server:
        result = bench("tier1", "--dataset", tiny, "--embedding-backend", "openai", "--embedding-base-url",
                       server.base_url, "--embedding-model", "hash-embed")
    assert result.exit_code == 2
    assert "embeddings endpoint failed for model 'hash-embed': AuthenticationError" in result.output
    assert "sk-wrong-key-never-shown" not in result.output


def test_requested_dimensions_are_a_space_of_their_own(bench, tiny, tmp_path):
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48) as server:
        result = bench("tier1", "--dataset", tiny, "--embedding-backend", "openai", "--embedding-base-url",
                       server.base_url, "--embedding-model", "hash-embed-48", "--embedding-dimensions", "16",
                       "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["embedder"]["id"] == "hash-embed-48@16d"
    assert report["provenance"]["embedder"]["dimension"] == 16
    assert {r["body"]["model"] for r in server.requests} == {"hash-embed-48"}
    assert {r["body"]["dimensions"] for r in server.requests} == {16}


def test_a_listed_embedding_model_is_asked_for_its_dimension(bench, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_MODELS", '{"hash-embed-48": 24}')
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48) as server:
        result = bench("tier1", "--dataset", tiny, "--embedding-backend", "openai", "--embedding-base-url",
                       server.base_url, "--embedding-model", "hash-embed-48", "-o", out)
    assert result.exit_code == 0, result.output
    assert json.loads((out / "report.json").read_text())["provenance"]["embedder"]["id"] == "hash-embed-48@24d"
    assert {r["body"]["dimensions"] for r in server.requests} == {24}
