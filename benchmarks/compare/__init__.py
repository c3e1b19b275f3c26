"""`bench compare`: two runs side by side, for pull requests and nightly regressions.

load.py checks a run (its files read by run_files.reader); paired.py extracts per-item values and
runs the paired bootstrap; status.py holds the status and gate rules; gates.py checks bench.gates.toml
(read by run_files.atomic); core.py builds the result; markdown.py renders it for a GitHub comment.
"""

from benchmarks.compare.core import compare
from benchmarks.compare.gates import load_gates
from benchmarks.compare.load import load_run
from benchmarks.compare.markdown import render

__all__ = ["compare", "load_gates", "load_run", "render"]
