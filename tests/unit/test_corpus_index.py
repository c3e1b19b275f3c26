"""What an HNSW build is given: sized for the graph on the embedded server, the server's own elsewhere."""

import os

import pytest

from benchmarks import corpus_index
from benchmarks.config import Settings, load_settings, megabytes
from benchmarks.corpus_index import build_resources, graph_megabytes
from benchmarks.errors import BenchError
from benchmarks.machine import usable_cores


def test_the_embedded_server_gets_memory_for_the_graph_and_every_core_but_one(monkeypatch):
    monkeypatch.setattr(corpus_index, "usable_cores", lambda: 4)
    monkeypatch.setattr(corpus_index, "_shared_memory_free", lambda: 2**40)
    # 100,000 vectors of 384 dimensions, m 16: (1536 + 528 + 128) bytes each, a quarter to spare
    assert graph_megabytes(100_000, 384, 16) == 262
    assert build_resources(Settings(), "embedded", 100_000, 384) == ("262MB", 3)


def test_small_graphs_get_postgresqls_default_and_huge_ones_a_quarter_of_the_memory():
    assert graph_megabytes(311, 384, 16) == 64
    quarter = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4 // 2**20
    assert graph_megabytes(10**9, 384, 16) == quarter


def test_cores_are_those_this_process_may_use(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2})
    assert usable_cores() == 3


def test_an_external_server_keeps_its_own_settings_unless_asked():
    assert build_resources(Settings(), "external", 100_000, 384) == (None, None)
    asked = Settings(hnsw_build_memory="2GB", hnsw_build_workers=3)
    assert build_resources(asked, "external", 100_000, 384) == ("2GB", 3)
    assert build_resources(asked, "embedded", 100_000, 384) == ("2GB", 3)


def test_without_shared_memory_for_the_graph_the_build_stays_in_one_process(monkeypatch):
    monkeypatch.setattr(corpus_index, "_shared_memory_free", lambda: 64 * 2**20)
    assert build_resources(Settings(), "embedded", 100_000, 384) == ("262MB", 0)


@pytest.mark.parametrize(("size", "mb"), [("512MB", 512), ("2GB", 2048), ("2048kB", 2), ("1 TB", 1024**2)])
def test_postgresql_sizes(size, mb):
    assert megabytes(size) == mb


@pytest.mark.parametrize(("flag", "value"), [("hnsw_build_memory", "512kB"), ("hnsw_build_memory", "3TB"),
                                             ("hnsw_build_memory", "lots"), ("hnsw_build_workers", 1025)])
def test_values_postgresql_would_refuse_are_refused_before_any_work(flag, value):
    with pytest.raises(BenchError, match=flag.replace("_", "-")):
        load_settings({flag: value}, environ={})
