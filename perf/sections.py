"""Each perf script owns one marked section of BENCHMARKS.md, so the scripts can run in any order."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # where perf runs its commands
BENCHMARKS = ROOT / "BENCHMARKS.md"


def write_section(section: str, mark: str, end_mark: str) -> None:
    """Replace the section between `mark` and `end_mark`, or append it (the rest of the file is left alone),
    and print it."""
    text = BENCHMARKS.read_text(encoding="utf-8") if BENCHMARKS.exists() else ""
    start, end = text.find(mark), text.find(end_mark)
    if 0 <= start < end:
        text = text[:start] + section.rstrip("\n") + text[end + len(end_mark):]
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + section.rstrip("\n") + "\n"
    BENCHMARKS.write_text(text, encoding="utf-8")
    print(section.rstrip("\n"))


def measured_on() -> str:
    """Where and when a section's figures were taken: "Measured 2026-11-24 on 2 CPU cores, Python 3.11.7"."""
    return f"Measured {datetime.now(UTC):%Y-%m-%d} on {os.cpu_count()} CPU cores, Python {platform.python_version()}"


def figures_section(marks: tuple[str, str], title: str, about: Sequence[str], rows: list[dict[str, str]], *,
                    measured: str | None = None, after: Sequence[str] = ()) -> str:
    """The shape of a section around its figures table: its title, what was run, when and where (by default
    `measured_on`), the table, and any notes after it, between the section's marks."""
    mark, end_mark = marks
    return "\n".join([mark, f"## {title}", "", *about, "", measured or f"{measured_on()}.", "", *figures_table(rows),
                      *(["", *after] if after else []), end_mark])


def figures_table(rows: list[dict[str, str]]) -> list[str]:
    """The Markdown table every section shows: each figure beside the baseline measured in the same run."""
    return ["| what | bench | baseline | ratio |", "|---|---|---|---|",
            *(f"| {r['what']} | {r['bench']} | {r['baseline']} | {r['ratio']} |" for r in rows)]


def best_time(repeats: int, action: Callable[[], Any]) -> float:
    """The fastest of `repeats` runs of `action`, in seconds: the least disturbed by the machine's other work."""
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        timings.append(time.perf_counter() - started)
    return min(timings)


def whole_process(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """One whole process: its wall time, its own peak memory (os.wait4 gives the child's) and the JSON line it
    printed last, if any."""
    started = time.perf_counter()
    child = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    assert child.stdout is not None
    out = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(command[1:])} exited {os.waitstatus_to_exitcode(status)}")
    lines = out.strip().splitlines()
    parsed = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else None
    return {"seconds": round(seconds, 1), "max_rss_mb": round(usage.ru_maxrss / 1024), "json": parsed}
