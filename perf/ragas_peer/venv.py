"""A separate virtualenv holding RAGAS, made once and reused while its requirements are unchanged.

    python = ensure_venv(data_dir / "perf-ragas-venv")
    subprocess.run(faithfulness_command(python, base_url=..., model=..., samples=..., out=...), check=True)

RAGAS brings its own versions of langchain, openai, instructor and datasets, which bench's environment
need not share, so it never enters bench's venv: it lives in a folder the caller names (under bench's data
folder, not in the repository), created with `python -m venv` from the interpreter running this code
and filled by pip from `requirements.txt` beside this file. A stamp in the folder holds the sha256 of
the requirements and the interpreter's version; it is written only after pip succeeded, so an
interrupted install is redone, and a changed requirements file or Python rebuilds the venv from
scratch.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REQUIREMENTS = HERE / "requirements.txt"
SCRIPT = HERE / "run_faithfulness.py"
STAMP = ".bench-ragas-requirements"
PIP_TIMEOUT_S = 1800.0
IMPORT_CHECK = "import ragas, ragas.llms, ragas.metrics.collections, openai"
OUTPUT_TAIL = 4000  # characters of pip's output kept in the error when it fails


class RagasVenvError(RuntimeError):
    """The venv could not be created or its requirements not installed; the message has pip's output."""


def venv_python(folder: Path) -> Path:
    """The interpreter inside the venv at `folder` (which need not exist yet)."""
    if os.name == "nt":
        return folder / "Scripts" / "python.exe"
    return folder / "bin" / "python"


def requirements_stamp(requirements: Path = REQUIREMENTS) -> str:
    """What the stamp must hold for a venv to be reused: the requirements' sha256 and this Python."""
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()
    version = ".".join(str(part) for part in sys.version_info[:3])
    return f"sha256={digest} python={sys.implementation.name}-{version}\n"


def ensure_venv(folder: Path, *, requirements: Path = REQUIREMENTS) -> Path:
    """Create (once) the venv at `folder` with `requirements` installed; return its python's path.

    An existing venv whose stamp matches is reused as it is; any other content of `folder` is
    replaced (`venv --clear`). Progress goes to stderr, one line per step."""
    folder = Path(folder)
    python = venv_python(folder)
    stamp = folder / STAMP
    wanted = requirements_stamp(requirements)
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python

    print(f"ragas peer: creating the venv in {folder}", file=sys.stderr, flush=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    _run([sys.executable, "-m", "venv", "--clear", str(folder)], "python -m venv")
    print(f"ragas peer: installing {requirements.name} (a few minutes the first time)",
          file=sys.stderr, flush=True)
    _run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet",
          "-r", str(requirements)], "pip install")
    _run([str(python), "-c", IMPORT_CHECK], "import ragas")
    stamp.write_text(wanted)
    print("ragas peer: venv ready", file=sys.stderr, flush=True)
    return python


def faithfulness_command(python: Path, *, base_url: str, model: str, samples: Path, out: Path,
                         timeout: float | None = None, max_tokens: int | None = None,
                         concurrency: int | None = None) -> list[str]:
    """The command that scores `samples` into `out` with RAGAS's Faithfulness (see run_faithfulness.py)."""
    command = [str(python), str(SCRIPT), "--base-url", base_url, "--model", model,
               "--samples", str(samples), "--out", str(out)]
    if timeout is not None:
        command += ["--timeout", str(timeout)]
    if max_tokens is not None:
        command += ["--max-tokens", str(max_tokens)]
    if concurrency is not None:
        command += ["--concurrency", str(concurrency)]
    return command


def _run(command: Sequence[str], what: str) -> None:
    env = {**os.environ, "RAGAS_DO_NOT_TRACK": "true", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)  # bench's own modules must not leak into the separate venv
    try:
        done = subprocess.run(command, check=False, capture_output=True, text=True, env=env,
                              timeout=PIP_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        raise RagasVenvError(f"ragas peer: {what} took more than {PIP_TIMEOUT_S:.0f} s") from exc
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-OUTPUT_TAIL:]
        raise RagasVenvError(f"ragas peer: {what} failed (exit {done.returncode}):\n{output}")
