"""An English-only model (all-MiniLM-L6-v2) warns on a dataset whose texts are mostly Cyrillic, whatever its
format: the language is detected from the texts when no manifest gives it (BEIR folders never have one). The
default multilingual model does not warn."""

import json

import pytest

from tests.unit.readers.test_datasets import QRELS_HEADER, beir_dataset, bench_dataset

pytestmark = pytest.mark.integration

RU_CORPUS = [
    {"_id": "vpn", "title": "VPN", "text": "Чтобы подключиться к VPN, установите клиент и войдите через SSO."},
    {"_id": "vacation", "title": "Отпуск", "text": "Сотрудникам положено 28 дней оплачиваемого отпуска в году."},
    {"_id": "parking", "title": "Парковка", "text": "В берлинском офисе 40 парковочных мест, бронируйте заранее."},
]
RU_QUERIES = [{"_id": "q1", "text": "Как подключиться к VPN?"}, {"_id": "q2", "text": "Сколько дней отпуска?"}]
EN_CORPUS = [
    {"_id": "vpn", "title": "VPN", "text": "To connect to the VPN install the client and sign in with SSO."},
    {"_id": "vacation", "title": "Vacation", "text": "Employees get 28 days of paid vacation per year."},
    {"_id": "parking", "title": "Parking", "text": "The Berlin office has 40 parking spaces; book ahead."},
]
EN_QUERIES = [{"_id": "q1", "text": "How do I connect to the VPN?"}, {"_id": "q2", "text": "How many vacation days?"}]
QRELS = [QRELS_HEADER, "q1\tvpn\t1", "q2\tvacation\t1"]


def tier1(bench, root, out, *flags):
    result = bench("tier1", "--dataset", root, "--embedding-model", "all-MiniLM-L6-v2", *flags, "-o", out)
    assert result.exit_code == 0, result.output
    return json.loads((out / "report.json").read_text()), result.output


def codes(report):
    return [w["code"] for w in report["warnings"]]


def test_a_russian_beir_folder_gets_the_embedder_warning(bench, tmp_path):
    report, output = tier1(bench, beir_dataset(tmp_path / "beir-ru", RU_CORPUS, RU_QUERIES, QRELS), tmp_path / "out")
    assert (report["dataset"]["format"], report["dataset"]["language"]) == ("beir", "ru")
    assert codes(report) == ["embedder_language_mismatch"]
    assert "'ru'" in report["warnings"][0]["message"]
    assert "embedder_language_mismatch" in output


def test_an_english_beir_folder_does_not(bench, tmp_path):
    report, _ = tier1(bench, beir_dataset(tmp_path / "beir-en", EN_CORPUS, EN_QUERIES, QRELS), tmp_path / "out")
    assert (report["dataset"]["format"], report["dataset"]["language"]) == ("beir", "en")
    assert report["warnings"] == []


def test_a_manifest_saying_en_over_russian_texts_gets_both_warnings(bench, tmp_path):
    corpus = [{"id": r["_id"], "text": r["text"]} for r in RU_CORPUS]
    questions = [{"id": "q1", "question": "Как подключиться к VPN?", "relevant": ["vpn"]}]
    root = bench_dataset(tmp_path / "mislabelled", corpus, questions)
    (root / "manifest.json").write_text(json.dumps({"language": "en"}), encoding="utf-8")

    report, _ = tier1(bench, root, tmp_path / "out")
    assert report["dataset"]["language"] == "en"  # the manifest's, kept
    assert codes(report) == ["language_mismatch", "embedder_language_mismatch"]
    assert "detected from its texts" in report["warnings"][1]["message"]


def test_the_default_multilingual_model_does_not_warn_on_russian(bench, tmp_path):
    root = beir_dataset(tmp_path / "beir-ru", RU_CORPUS, RU_QUERIES, QRELS)
    result = bench("tier1", "--dataset", root, "-o", tmp_path / "out")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["dataset"]["language"] == "ru" and report["warnings"] == []
    assert report["provenance"]["embedder"]["id"] == "intfloat/multilingual-e5-small@q4"
