"""How fast does bench refuse a mistake? A bad option and a bad dataset line must be rejected before
PostgreSQL, torch or a model is loaded: their wall time as whole processes, against `bench --version`
(the floor: Python, typer and bench's settings declarations), median of several runs in turn. Writes its
section of BENCHMARKS.md.

    python -m perf.startup
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from perf.sections import figures_section, write_section

MARK, END_MARK = "<!-- perf.startup -->", "<!-- /perf.startup -->"
RUNS = 7
GOAL = 2.0  # a refused command may cost at most twice `bench --version`
BENCH = Path(sys.executable).with_name("bench")
SHIPPED = Path(__file__).resolve().parent.parent / "datasets" / "synthetic"


def bad_dataset(folder: Path) -> Path:
    """The shipped dataset with its third question cut short: a line that is not JSON."""
    target = folder / "bad-line"
    shutil.copytree(SHIPPED, target)
    questions = target / "questions.jsonl"
    lines = questions.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = '{"id": "q0003", "question":\n'
    questions.write_text("".join(lines), encoding="utf-8")
    return target


def samples_without_contexts(folder: Path) -> Path:
    """A samples file of questions and answers only: faithfulness needs the contexts it does not give."""
    target = folder / "answers-only.csv"
    target.write_text("question,answer\nHow many days of leave?,28 days.\nWho approves it?,The manager.\n",
                      encoding="utf-8")
    return target


def wall_time(arguments: list[str], expected_exit: int) -> float:
    """One whole process, from start to exit; a wrong exit code means the case measured something else."""
    started = time.perf_counter()
    done = subprocess.run([str(BENCH), *arguments], capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != expected_exit:
        raise SystemExit(f"bench {' '.join(arguments)}: exit {done.returncode}, expected {expected_exit}: "
                         f"{done.stderr.strip()[-500:]}")
    return elapsed


def medians(cases: dict[str, tuple[list[str], int]]) -> dict[str, float]:
    """Each case's median over RUNS runs, the cases taken in turn so a drift of the machine hits all alike
    (one warm-up of each first, to fill the page cache)."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for run in range(RUNS + 1):
        for name, (arguments, expected_exit) in cases.items():
            elapsed = wall_time(arguments, expected_exit)
            if run:
                times[name].append(elapsed)
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-perf-startup-") as folder:
        cases = {
            "bench --version": (["--version"], 0),
            "bench tier1 --top-k 0 (a bad option value)": (["tier1", "--dataset", "synthetic", "--top-k", "0"], 2),
            "bench tier1 on a dataset with a bad line": (["tier1", "--dataset", str(bad_dataset(Path(folder))),
                                                          "--reports-dir", folder], 2),
            "bench evaluate on samples without a column its metric needs": (
                ["evaluate", "--dataset", str(samples_without_contexts(Path(folder))), "--metrics", "faithfulness",
                 "--judge", "offline", "--reports-dir", folder], 2),
        }
        found = medians(cases)
    floor = found.pop("bench --version")
    rows = [{"what": name, "bench": f"{seconds:.2f} s", "baseline": f"{floor:.2f} s",
             "ratio": f"{seconds / floor:.2f}×" + (" (over the 2× goal)" if seconds / floor > GOAL else "")}
            for name, seconds in found.items()]
    section = figures_section((MARK, END_MARK), "Start-up: how fast a mistake is refused", [
        "Written by `python -m perf.startup`. Each command is a whole process (wall time, exit code checked: "
        "2 for the refused ones), run in turn with the others, the median of "
        f"{RUNS} after one warm-up; the baseline is `bench --version` measured in the same rounds. The goal is "
        f"at most {GOAL:g}× the baseline: options, settings, output folders, dataset files and the fields a "
        "metric needs are checked before PostgreSQL, torch or a model is loaded.",
    ], rows, after=[
        "Checking samples against their metrics reads the metric catalog (the judges' pydantic answer shapes and "
        "numpy for the offline proxies), which `bench --version` does not: that case is held to well under a "
        "second rather than to 2×; it no longer loads scipy, the database or the openai client "
        "(`tiers.evaluate_checks`, `chat.request`)."])
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
