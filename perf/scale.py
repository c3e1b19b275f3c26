"""The scale series: what retrieval costs at 10k, 30k and 100k chunks, and how each cost grows.

    python -m perf.scale                 (make perf-scale; about 15 minutes on 2 cores)

Each scale is the synthetic generator's English set (`--scale 28, 84, 280`) with a seeded 2,000 of its
questions (`--limit 2000`), in its own temporary data folder. Embeddings are the stand-in of
perf.standin, put in the default model's cache first: the real model would take half an hour for
100,000 chunks on two cores, and only costs are measured here. At each scale:
- `bench tier1` exact twice (the first indexes from the cache; the second is timed and its peak memory
  taken), and in the same process as the baseline, a numpy brute-force top-10 over the same stored
  vectors (one GEMM per 512 questions, argpartition), against bench's exact search (benchmarks.nearest);
  PostgreSQL's own exact scan on a 64-question sample for comparison;
- `bench tier1 --index hnsw`: the build with bench's sizing (timed in its report), HNSW q/s and
  ann_recall@10, then the same build again with the server's defaults (64 MB, its own workers);
- disk per chunk (table and index), and the least-squares exponent b of cost ∝ N^b over the scales.
A last row runs benchmarks.nearest alone on 1,000,000 random 384-d vectors (1.5 GB), to show the
blockwise search holds at a million chunks. Writes its section of BENCHMARKS.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from perf.sections import best_time, measured_on, whole_process, write_section

ROOT = Path(__file__).resolve().parent.parent
MARK, END_MARK = "<!-- perf.scale -->", "<!-- /perf.scale -->"
SCALES = (28, 84, 280)
QUESTIONS = 2000
PG_SAMPLE = 64
K = 10


def main() -> None:
    if sys.argv[1:] == ["--million"]:
        print(json.dumps(_million()))
        return
    points = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as scratch:
        for scale in SCALES:
            points.append(_point(scale, Path(scratch)))
            print(json.dumps(points[-1]), file=sys.stderr)
    million = _child_json([sys.executable, "-m", "perf.scale", "--million"])
    _write(points, million)


def _point(scale: int, work: Path) -> dict[str, Any]:
    from benchmarks.readers.datasets import load_dataset
    from perf.standin import fill_cache

    subprocess.run([sys.executable, "-m", "benchmarks.synthetic", "--out", str(work), "--scale", str(scale),
                    "--languages", "en"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    dataset = work / f"synthetic-x{scale}"
    data_dir = work / f"data-{scale}"
    loaded = load_dataset(str(dataset))
    sample = loaded.sample(QUESTIONS, 0)
    fill_cache(data_dir, {"corpus": [c.text for c in loaded.chunks], "questions": [q.text for q in sample.questions]})
    tier1 = ["tier1", "--dataset", str(dataset), "--limit", str(QUESTIONS)]
    _bench(tier1, data_dir, work / "first")
    second = _bench(tier1, data_dir, work / "second")
    point: dict[str, Any] = {"scale": scale, "chunks": len(loaded.chunks), "second_run_s": second["seconds"],
                             "second_run_mb": second["max_rss_mb"],
                             "exact_qps": second["report"]["volatile"]["retrieval"]["queries_per_second"],
                             "pg_latency_ms": second["report"]["volatile"]["retrieval"]["latency_ms"]["p50"]}
    point.update(_in_process(data_dir, [q.text for q in sample.questions]))
    hnsw = _bench([*tier1, "--index", "hnsw", "--consistency-runs", "1"], data_dir, work / "hnsw")["report"]
    build = hnsw["volatile"]["indexing"]["hnsw_build"]
    point.update(hnsw_qps=hnsw["volatile"]["retrieval"]["queries_per_second"],
                 ann_recall=hnsw["metrics"][f"ann_recall@{K}"]["value"], build_s=build["seconds"],
                 build_memory=build["maintenance_work_mem"], build_workers=build["parallel_workers"],
                 build_notices=len(build["notices"]), index_mb=build["index_megabytes"])
    point.update(_default_build(data_dir))
    return point


def _bench(args: list[str], data_dir: Path, out: Path) -> dict[str, Any]:
    """One whole `bench` command (`whole_process`): its wall time, its own peak memory, its report."""
    done = whole_process([sys.executable, "-m", "benchmarks.cli", *args, "-o", str(out)],
                         {"BENCH_DATA_DIR": str(data_dir)})
    return {"seconds": done["seconds"], "max_rss_mb": done["max_rss_mb"],
            "report": json.loads((out / "report.json").read_text(encoding="utf-8"))}


def _open(data_dir: Path) -> Any:
    from benchmarks.store.database import connect

    return connect(load_settings_for(data_dir))


def _in_process(data_dir: Path, questions: list[str]) -> dict[str, Any]:
    """bench's exact search against a numpy brute force on the same stored vectors and questions, PostgreSQL's
    exact scan on a sample, and the disk the space takes."""
    import sqlalchemy as sa

    from benchmarks.embedding.backends import build_embedder
    from benchmarks.nearest import ExactSpace
    from benchmarks.store.vectors import VectorStore

    database = _open(data_dir)
    try:
        store = VectorStore(database.engine)
        embedder = build_embedder(load_settings_for(data_dir), store)
        queries = embedder.encode(questions, purpose="questions")
        space_id, dimension = store.find_space(next(iter(_collections(database))), embedder.model_id)
        started = time.perf_counter()
        ids, _, matrix = store.embeddings(space_id, by_id=False)
        read_s = time.perf_counter() - started
        space = ExactSpace(ids, matrix)
        ours = best_time(2, lambda: space.search(queries, K))
        baseline = best_time(2, lambda: _brute_force(matrix, queries))
        started = time.perf_counter()
        store.search_many(space_id, dimension, queries[:PG_SAMPLE], K, batch_size=PG_SAMPLE // 2, workers=2)
        pg = time.perf_counter() - started
        with database.engine.connect() as conn:
            table = conn.execute(sa.text("SELECT pg_total_relation_size('chunks')")).scalar_one()
    finally:
        database.engine.dispose()
    return {"read_vectors_s": round(read_s, 2), "nearest_qps": round(len(queries) / ours, 1),
            "numpy_qps": round(len(queries) / baseline, 1), "pg_exact_qps": round(PG_SAMPLE / pg, 2),
            "table_bytes_per_chunk": round(table / len(ids))}


def load_settings_for(data_dir: Path) -> Any:
    from benchmarks.config import load_settings

    return load_settings({"data_dir": data_dir}, environ={})[0]


def _collections(database: Any) -> list[str]:
    import sqlalchemy as sa

    with database.engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT collection FROM spaces")).scalars())


def _default_build(data_dir: Path) -> dict[str, Any]:
    """The same HNSW build with the server's own settings (what bench did before it sized builds)."""
    import sqlalchemy as sa

    from benchmarks.store.vectors import VectorStore

    settings = load_settings_for(data_dir)
    database = _open(data_dir)
    try:
        with database.engine.begin() as conn:
            space_id, dimension = conn.execute(sa.text("SELECT id, dimension FROM spaces")).one()
            for name in conn.execute(sa.text("SELECT indexname FROM pg_indexes WHERE indexname LIKE 'chunks_hnsw_%'"))\
                    .scalars().all():
                conn.execute(sa.text(f'DROP INDEX "{name}"'))
        build = VectorStore(database.engine).ensure_hnsw(space_id, dimension, settings.hnsw_m,
                                                         settings.hnsw_ef_construction)
    finally:
        database.engine.dispose()
    return {"default_build_s": round(build.seconds, 1), "default_memory": build.maintenance_work_mem,
            "default_workers": build.parallel_workers, "default_notices": len(build.notices)}


def _brute_force(matrix: np.ndarray, queries: np.ndarray) -> list[np.ndarray]:
    """The floor: unit rows, one GEMM per 512 questions, the top k by argpartition (unordered, no ties)."""
    unit = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return [np.argpartition(block, block.shape[1] - K, axis=1)[:, -K:]
            for block in (queries[start : start + 512] @ unit.T for start in range(0, len(queries), 512))]


def _million() -> dict[str, Any]:
    """benchmarks.nearest alone on a million random vectors: its speed and this process's peak memory after it,
    then the brute force (whose 512 × 1M score block and argpartition indices take several GB more)."""
    import resource

    from benchmarks.nearest import ExactSpace

    def peak_mb() -> int:
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)

    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((1_000_000, 384), dtype=np.float32)
    queries = rng.standard_normal((QUESTIONS, 384), dtype=np.float32)
    loaded = peak_mb()
    space = ExactSpace([f"c{i:07d}" for i in range(len(matrix))], matrix)
    started = time.perf_counter()
    space.search(queries, K)
    ours = time.perf_counter() - started
    ours_peak = peak_mb()
    started = time.perf_counter()
    _brute_force(matrix, queries)
    baseline = time.perf_counter() - started
    return {"chunks": len(matrix), "nearest_qps": round(QUESTIONS / ours, 1),
            "numpy_qps": round(QUESTIONS / baseline, 1), "loaded_mb": loaded, "nearest_mb": ours_peak,
            "numpy_mb": peak_mb()}


def _child_json(command: list[str]) -> dict[str, Any]:
    done = subprocess.run(command, check=True, cwd=ROOT, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def exponent(sizes: list[int], costs: list[float]) -> float:
    """b in cost ≈ a·N^b, least squares on the logarithms."""
    return float(np.polyfit(np.log(sizes), np.log(costs), 1)[0])


def _write(points: list[dict[str, Any]], million: dict[str, Any]) -> None:
    sizes = [p["chunks"] for p in points]

    def fitted(key: str, inverse: bool = False) -> str:
        costs = [1 / p[key] if inverse else p[key] for p in points]
        return f"N^{exponent(sizes, costs):.2f}"

    header = ("| chunks | `bench tier1` 2nd run, s | its peak RSS, MB | exact q/s (benchmarks.nearest) "
              "| numpy brute force q/s "
              "| bench ÷ numpy time | PostgreSQL exact q/s | PostgreSQL exact p50, ms | HNSW q/s | ann_recall@10 "
              "| HNSW build, s (bench's sizing) | build, s (server defaults) | index MB | disk B/chunk |")
    rows = [f"| {p['chunks']:,} | {p['second_run_s']} | {p['second_run_mb']} | {p['nearest_qps']} | {p['numpy_qps']} "
            f"| {p['numpy_qps'] / p['nearest_qps']:.2f} | {p['pg_exact_qps']} | {p['pg_latency_ms']:.1f} "
            f"| {p['hnsw_qps']} "
            f"| {p['ann_recall']:.3f} | {p['build_s']:.1f} ({p['build_memory']}, workers {p['build_workers']}"
            f"{', spilled' if p['build_notices'] else ''}) | {p['default_build_s']:.1f} ({p['default_memory']}, "
            f"workers {p['default_workers']}{', spilled' if p['default_notices'] else ''}) | {p['index_mb']} "
            f"| {p['table_bytes_per_chunk']} |" for p in points]
    growth = (f"| cost ∝ | {fitted('second_run_s')} | {fitted('second_run_mb')} | {fitted('nearest_qps', True)} "
              f"(time per question) | {fitted('numpy_qps', True)} | | {fitted('pg_exact_qps', True)} "
              f"| {fitted('pg_latency_ms')} | {fitted('hnsw_qps', True)} | | {fitted('build_s')} "
              f"| {fitted('default_build_s')} | {fitted('index_mb')} | |")
    section = "\n".join([
        MARK,
        "## Scale series",
        "",
        "Written by `python -m perf.scale` (`make perf-scale`). The synthetic generator's English set at `--scale "
        f"{', '.join(map(str, SCALES))}`, {QUESTIONS:,} seeded questions (`--limit`), a fresh data folder per scale, "
        "embedded PostgreSQL. Embeddings are a stand-in (perf/standin.py: a normalised sum of one seeded "
        "Gaussian vector per word, 384 dimensions) put in the default model's cache, so no model runs and "
        "retrieval quality means nothing here; ANN recall on these vectors is lower than on real ones. "
        "bench's exact search and the numpy brute force are timed in one process on the same stored vectors "
        "(best of 2); PostgreSQL's exact scan on a 64-question sample; latency is tier 1's own (single "
        "questions on PostgreSQL, up to 10 s of them).",
        "",
        f"{measured_on()}.",
        "",
        header,
        "|" + "---|" * (header.count("|") - 1),
        *rows,
        growth,
        "",
        f"benchmarks.nearest alone on {million['chunks']:,} random 384-d vectors, {QUESTIONS:,} questions: "
        f"{million['nearest_qps']} q/s (numpy brute force {million['numpy_qps']} q/s); "
        f"peak RSS {million['loaded_mb']:,} "
        f"MB with the vectors made, {million['nearest_mb']:,} MB after bench's search, {million['numpy_mb']:,} MB "
        "after the brute force (its 512 × 1M block of scores and of argpartition's indices).",
        END_MARK,
    ])
    write_section(section, MARK, END_MARK)


if __name__ == "__main__":
    main()
