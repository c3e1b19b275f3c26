"""Golden test: the stable part of `bench tier1 --dataset synthetic`'s report.json, byte for byte.

The stable part is the whole report except the `volatile` block (times, caches, local paths) and
the provenance fields that describe the machine and checkout rather than the run's inputs
(MACHINE_PROVENANCE: git commit and dirtiness, Python version, package versions; SERVER_VERSIONS:
the PostgreSQL and pgvector versions under provenance.store, which come with the installed server
like package versions do). Metrics, notes, settings, the dataset block, tier, versions, main metric
and warnings are all compared against the committed tests/golden/tier1-synthetic.json; any change
fails with a unified diff.

When the change is intended (a new metric, a renamed setting, a reworded note), regenerate the file
from a real run and review the diff before committing it:

    BENCH_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/integration/test_golden_report.py
    git diff tests/golden/

With BENCH_UPDATE_GOLDEN=1 the test rewrites the file instead of comparing (and warns that it did);
never set it in CI.
"""

from __future__ import annotations

import difflib
import json
import os
import warnings
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "tier1-synthetic.json"
UPDATE = os.environ.get("BENCH_UPDATE_GOLDEN", "") not in ("", "0")
REGENERATE = "BENCH_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/integration/test_golden_report.py"
MACHINE_PROVENANCE = ("git_commit", "git_dirty", "python", "packages")
SERVER_VERSIONS = ("postgres", "pgvector")  # under provenance.store; store.backend stays
# set by conftest's `isolated`; every other BENCH_*/OPENAI_* variable is removed for the run
KEPT_ENVIRONMENT = ("BENCH_DATA_DIR", "BENCH_REPORTS_DIR", "BENCH_LATENCY_QUERIES")


def stable_part(report: dict) -> dict:
    """The report without `volatile` and without the provenance that varies by machine or commit."""
    stable = {key: value for key, value in report.items() if key != "volatile"}
    provenance = {key: value for key, value in report["provenance"].items() if key not in MACHINE_PROVENANCE}
    if isinstance(provenance.get("store"), dict):
        provenance["store"] = {key: value for key, value in provenance["store"].items()
                               if key not in SERVER_VERSIONS}
    stable["provenance"] = provenance
    return stable


def leaves(value, path: str = "") -> dict[str, object]:
    """JSON path -> scalar, for naming what changed above the diff (a list index is a path part too)."""
    if isinstance(value, dict):
        parts = {f"{path}.{key}" if path else str(key): item for key, item in value.items()}
    elif isinstance(value, list) and value:
        parts = {f"{path}[{index}]": item for index, item in enumerate(value)}
    else:
        return {path: value}
    return {name: leaf for key, item in parts.items() for name, leaf in leaves(item, key).items()}


def changed_paths(expected: dict, actual: dict) -> list[str]:
    """One line per leaf that was added, removed or changed, in the golden file's order."""
    before, after = leaves(expected), leaves(actual)
    lines = [f"  {path}: {before[path]!r} -> {after[path]!r}" for path in before
             if path in after and before[path] != after[path]]
    lines += [f"  {path}: removed (was {before[path]!r})" for path in before if path not in after]
    lines += [f"  {path}: added ({after[path]!r})" for path in after if path not in before]
    return lines


def dumps(value: dict) -> str:
    """Key order as the report has it (metrics keep the tier's reading order), so order changes show."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"


@pytest.fixture
def clean_environment(monkeypatch, isolated):
    """Only the settings conftest sets: a developer's BENCH_*/OPENAI_* variables would change the settings."""
    for name in list(os.environ):
        if name.startswith(("BENCH_", "OPENAI_")) and name not in KEPT_ENVIRONMENT:
            monkeypatch.delenv(name)


def test_tier1_synthetic_report_matches_the_golden_file(bench, tmp_path, clean_environment):
    result = bench("tier1", "--dataset", "synthetic")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "reports" / "synthetic" / "tier1" / "latest" / "report.json").read_text())
    actual = dumps(stable_part(report))

    if UPDATE:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        if not GOLDEN.is_file() or GOLDEN.read_text(encoding="utf-8") != actual:
            GOLDEN.write_text(actual, encoding="utf-8")
            warnings.warn(f"BENCH_UPDATE_GOLDEN is set: rewrote {GOLDEN}; review it with git diff",
                          stacklevel=1)

    assert GOLDEN.is_file(), f"{GOLDEN} is missing: create it with {REGENERATE}"
    expected = GOLDEN.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"{GOLDEN.relative_to(GOLDEN.parents[2])} (golden)", tofile="report.json (this run)"))
        changes = changed_paths(json.loads(expected), json.loads(actual))
        pytest.fail(
            "the stable part of the tier1 report on the synthetic dataset changed:\n"
            + "\n".join(changes[:40]) + (f"\n  ... and {len(changes) - 40} more" if len(changes) > 40 else "")
            + "\n\n" + diff + "\n"
            f"If the change is intended, regenerate the golden file and review it:\n    {REGENERATE}\n"
            "    git diff tests/golden/",
            pytrace=False,
        )
