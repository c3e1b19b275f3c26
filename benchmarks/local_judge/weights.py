"""Which GGUF file the local judge loads: a path the user gave, or a known model fetched once from the Hugging
Face Hub into `<data_dir>/models/` and checked by sha256.

A known model is pinned by file name, size and sha256, so a download that differs (a re-uploaded file, a cut
connection) is refused instead of judging with other weights under the same name. Once checked, a file's size,
mtime and sha256 are kept beside it (`<file>.verified`): a later run trusts an unchanged file without reading its
gigabyte again, and a file put there by other means (the part wheels `make real-model` assembles) is found by
name and downloads nothing. A user's own `.gguf` is hashed once too, because the report names the weights by
their sha256, whatever their file is called; its note is kept in `models/`, not beside a file that is the
user's.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.errors import BenchError

Say = Callable[[str], None]  # one line of progress for the user (stderr)


@dataclass(frozen=True)
class KnownModel:
    """A model bench can fetch by name: where on the Hub, and what the file must be."""

    repo: str
    file: str
    size: int
    sha256: str


# The default is the smallest model that reaches the judge's targets on the labelled families (docs/concepts.md):
# Qwen2.5-Coder-0.5B does not on short answers to another question, the 1.5B does.
DEFAULT_MODEL = "qwen2.5-coder-1.5b"
KNOWN_MODELS: dict[str, KnownModel] = {
    "qwen2.5-coder-1.5b": KnownModel(
        repo="Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        size=1_117_320_768, sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"),
    "qwen2.5-coder-0.5b": KnownModel(
        repo="Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", file="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        size=491_400_064, sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"),
}


@dataclass(frozen=True)
class Weights:
    """The file the server loads, and what the report names it by."""

    path: Path
    sha256: str
    name: str  # the known model's name, or the file's own name for a path


def is_path(value: str) -> bool:
    """Whether `local_model` names a file rather than a known model."""
    return value.endswith(".gguf") or os.sep in value or "/" in value


def check_value(value: str) -> str | None:
    """Why `local_model` cannot be used (checked before any work), or None."""
    if is_path(value):
        path = Path(value).expanduser()
        if not path.is_file():
            return f"no such file: {path}"
        if not value.endswith(".gguf"):
            return f"{path} is not a .gguf file"
        return None
    if value not in KNOWN_MODELS:
        return f"expected a path to a .gguf file or one of {', '.join(KNOWN_MODELS)}"
    return None


def resolve(value: str, models_dir: Path, *, say: Say) -> Weights:
    """The weights `local_model` names: a user's file (hashed once), or a known model, downloaded the first time."""
    if is_path(value):
        path = Path(value).expanduser().resolve()
        note = models_dir / f"{hashlib.sha256(str(path).encode()).hexdigest()[:16]}-{path.name}.verified"
        return Weights(path, remembered_sha256(path, note) or _hash_and_remember(path, note, say=say), path.name)
    known = KNOWN_MODELS[value]
    target = models_dir / known.file
    if not verified(target, known, say=say):
        download(known, target, say=say)
    return Weights(target, known.sha256, value)


def sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def remember(path: Path, sha256: str, note: Path | None = None) -> None:
    """Keep a checked file's size, mtime and sha256 in `note` (default: beside it, `<file>.verified`)."""
    stat = path.stat()
    (note or sidecar(path)).write_text(
        json.dumps({"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": sha256}), encoding="utf-8")


def remembered_sha256(path: Path, note: Path | None = None) -> str | None:
    """The sha256 kept for an unchanged file, else None."""
    try:
        kept = json.loads((note or sidecar(path)).read_text(encoding="utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return None
    if isinstance(kept, dict) and kept.get("size") == stat.st_size and kept.get("mtime_ns") == stat.st_mtime_ns:
        return str(kept.get("sha256"))
    return None


def file_sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _hash_and_remember(path: Path, note: Path | None = None, *, say: Say) -> str:
    say(f"checking the sha256 of {path} (once)")
    digest = file_sha256(path)
    try:
        if note is not None:
            note.parent.mkdir(parents=True, exist_ok=True)
        remember(path, digest, note)
    except OSError:  # a folder bench may not write: hashed again next run, which costs time only
        pass
    return digest


def verified(target: Path, known: KnownModel, *, say: Say) -> bool:
    """Whether `target` is the known model's file; one that is not is removed, to be fetched again."""
    if not target.exists():
        return False
    if target.stat().st_size == known.size:
        digest = remembered_sha256(target) or _hash_and_remember(target, say=say)
        if digest == known.sha256:
            return True
    say(f"{target} is not {known.file} as pinned (size or sha256 differ): fetching it again")
    target.unlink()
    sidecar(target).unlink(missing_ok=True)
    return False


def download(known: KnownModel, target: Path, *, say: Say) -> None:
    """The known model's file from the Hub into `target`, renamed into place only once its sha256 is checked."""
    try:
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError:
        raise BenchError("the local judge downloads its model with huggingface_hub: pip install 'tierbench[local]', "
                         "or set local_model to the path of a .gguf file") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    say(f"downloading {known.repo}/{known.file} ({known.size / 1e6:,.0f} MB) into {target.parent} (once)")
    # beside the final file: the same disk, and nothing left in the Hub's own cache as a second copy
    with tempfile.TemporaryDirectory(prefix=".download-", dir=target.parent) as scratch:
        try:
            fetched = Path(hf_hub_download(known.repo, known.file, local_dir=scratch))
        except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as error:
            raise BenchError(f"could not download {known.repo}/{known.file}: {_first_line(error)}; set local_model "
                             "to the path of a .gguf file to judge without the Hub") from None
        digest = file_sha256(fetched)
        if digest != known.sha256:
            raise BenchError(f"{known.repo}/{known.file} downloaded with sha256 {digest}, not the pinned "
                             f"{known.sha256}; nothing was kept")
        shutil.move(fetched, target)
    remember(target, known.sha256)


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
