"""An HNSW build gets the memory and workers asked for, for its own transaction, and reports what it took,
pgvector's notice included when the graph outgrew its memory."""

import numpy as np
import pytest
import sqlalchemy as sa

from benchmarks.dataset import Chunk
from tests.integration.test_tier1_cli import read_report

pytestmark = pytest.mark.integration


def random_space(store, name, rows, dimension):
    space = store.create_space(name, "test-model", dimension)
    rng = np.random.default_rng(0)
    store.sync(space, "test-model", [Chunk(id=f"c{i}", text=f"text {i}") for i in range(rows)],
               lambda texts: [rng.normal(size=(len(texts), dimension)).astype(np.float32)])
    return space


def test_a_graph_larger_than_its_memory_is_reported_with_pgvectors_notice(store):
    space = random_space(store, "hnsw-spill", 3000, 64)  # ~1.5 MB of graph
    build = store.ensure_hnsw(space, 64, 16, 64, memory="1MB", workers=0)
    assert build.maintenance_work_mem == "1MB" and build.parallel_workers == 0
    assert build.seconds > 0 and build.bytes > 1_000_000
    assert any("maintenance_work_mem" in notice for notice in build.notices), build.notices
    with store.engine.connect() as conn:  # the settings held for the build's transaction only
        assert conn.execute(sa.text("SHOW maintenance_work_mem")).scalar_one() != "1MB"
    assert store.ensure_hnsw(space, 64, 16, 64, memory="1MB", workers=0) is None  # already built


def test_a_graph_that_fits_builds_without_a_notice(store):
    space = random_space(store, "hnsw-fits", 3000, 64)
    build = store.ensure_hnsw(space, 64, 16, 64, memory="96MB", workers=1)
    assert (build.maintenance_work_mem, build.parallel_workers, build.notices) == ("96MB", 1, [])


def test_tier1_reports_the_build(bench, tmp_path):
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", "synthetic", "--index", "hnsw", "--hnsw-m", "12", "--hnsw-build-memory",
                   "80MB", "--hnsw-build-workers", "0", "--consistency-runs", "1", "-o", out)
    assert result.exit_code == 0, result.output
    build = read_report(out)["volatile"]["indexing"]["hnsw_build"]
    assert (build["maintenance_work_mem"], build["parallel_workers"], build["notices"]) == ("80MB", 0, [])
    assert build["seconds"] > 0 and build["index_megabytes"] > 0
    assert "built the HNSW index in" in result.output


def test_a_bad_build_memory_is_one_line_before_any_work(bench):
    result = bench("tier1", "--dataset", "synthetic", "--index", "hnsw", "--hnsw-build-memory", "lots")
    assert result.exit_code == 2
    assert "--hnsw-build-memory" in result.output and "512MB" in result.output
    assert "Traceback" not in result.output
