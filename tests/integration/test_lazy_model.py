"""Nothing loaded that is not needed: a new space whose every vector is cached (a dataset indexed for the first
time under another name, a dropped collection) loads no embedding model, and reports as a loaded one would."""

import json
import shutil

import pytest

from benchmarks.embedding.embedder import (
    MultilingualE5Embedder,
    SentenceTransformerEmbedder,
    _declared_dimension,
)

pytestmark = pytest.mark.integration


def read_report(directory):
    return json.loads((directory / "report.json").read_text())


@pytest.mark.parametrize("model, backend", [("multilingual-e5-small", MultilingualE5Embedder),
                                            ("all-MiniLM-L6-v2", SentenceTransformerEmbedder)])
def test_a_new_space_of_cached_texts_loads_no_model(bench, tiny, tmp_path, model, backend):
    first = bench("tier1", "--dataset", tiny, "--embedding-model", model, "--output-dir", tmp_path / "first")
    assert first.exit_code == 0, first.output
    expected = read_report(tmp_path / "first")
    loads = backend.loads

    # the same texts under a dataset name never indexed: a new space, every vector cached
    renamed = shutil.copytree(tiny, tmp_path / "tiny-renamed-lazy")
    second = bench("tier1", "--dataset", renamed, "--embedding-model", model, "--output-dir", tmp_path / "second")
    assert second.exit_code == 0, second.output
    # the collection dropped: its space is made anew
    dropped = bench("db", "drop-collection", "tiny")
    assert dropped.exit_code == 0 and "embedding space(s) removed" in dropped.output, dropped.output
    third = bench("tier1", "--dataset", tiny, "--embedding-model", model, "--output-dir", tmp_path / "third")
    assert third.exit_code == 0, third.output

    assert backend.loads == loads, f"{model} was loaded though every vector it needed was cached"
    for run in ("second", "third"):
        report = read_report(tmp_path / run)
        assert report["metrics"] == expected["metrics"]
        assert report["provenance"]["embedder"] == expected["provenance"]["embedder"]
        assert report["volatile"]["embedding_cache"]["embedded"] == 0
        assert report["volatile"]["indexing"]["chunks_added"] == 7


def test_a_sentence_transformers_folder_declares_its_dimension(tmp_path):
    """Read from modules.json and the modules' config.json; anything bench cannot be sure of is None (the model
    then loads to tell it)."""
    def folder(name, modules, configs, settings=None):
        root = tmp_path / name
        root.mkdir()
        (root / "modules.json").write_text(json.dumps(
            [{"idx": i, "name": str(i), "path": path, "type": f"sentence_transformers.models.{kind}"}
             for i, (kind, path) in enumerate(modules)]))
        for path, config in configs.items():
            (root / path).mkdir(exist_ok=True)
            (root / path / "config.json").write_text(json.dumps(config))
        if settings is not None:
            (root / "config_sentence_transformers.json").write_text(json.dumps(settings))
        return root

    pooled = [("Transformer", ""), ("Pooling", "1_Pooling"), ("Normalize", "2_Normalize")]
    legacy = {"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}
    assert _declared_dimension(folder("legacy", pooled, {"1_Pooling": legacy})) == 384
    assert _declared_dimension(folder("two-modes", pooled, {"1_Pooling": {
        "embedding_dimension": 256, "pooling_mode": ["mean", "max"]}})) == 512
    assert _declared_dimension(folder("dense", pooled[:2] + [("Dense", "2_Dense")], {
        "1_Pooling": legacy, "2_Dense": {"in_features": 384, "out_features": 128}})) == 128
    assert _declared_dimension(folder("truncated", pooled, {"1_Pooling": legacy}, {"truncate_dim": 64})) is None
    assert _declared_dimension(folder("custom", [("Transformer", ""), ("Mystery", "1_Mystery")],
                                      {"1_Mystery": {}})) is None
    assert _declared_dimension(tmp_path / "no-such-folder") is None
