"""Settings: precedence, provenance of each value, coercion and validation errors, redaction."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.config import Settings, help_for, load_settings
from benchmarks.errors import BenchError
from benchmarks.transport.redaction import REDACTED, redacted

PASSWORD = "s3cret-pw"
API_KEY = "sk-test-0123456789"
FIELDS = {f.name: f for f in dataclasses.fields(Settings)}
DATABASE_URL = f"postgresql://bench:{PASSWORD}@db.example:5432/rag"


@pytest.fixture(autouse=True)
def empty_cwd(tmp_path, monkeypatch):
    """Every test runs in an empty folder, so no stray ./bench.toml is picked up."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_toml(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_when_nothing_is_set():
    settings, sources = load_settings(environ={})
    assert settings == Settings()
    assert settings.top_k == 10
    assert settings.index == "exact"
    assert set(sources) == set(FIELDS)
    assert set(sources.values()) == {"default"}


def test_cli_beats_env_beats_toml_beats_default(tmp_path):
    config = write_toml(tmp_path / "custom.toml", 'top_k = 20\nindex = "hnsw"\nseed = 3\n')
    environ = {"BENCH_TOP_K": "30", "BENCH_INDEX": "exact"}

    settings, sources = load_settings({"top_k": 40}, config_file=config, environ=environ)

    assert (settings.top_k, sources["top_k"]) == (40, "cli")
    assert (settings.index, sources["index"]) == ("exact", "env")
    assert (settings.seed, sources["seed"]) == (3, "bench.toml")
    assert (settings.ef_search, sources["ef_search"]) == (40, "default")


def test_implicit_bench_toml_in_working_directory(empty_cwd):
    write_toml(empty_cwd / "bench.toml", 'relevance = "url"\nlatency_queries = 0\n')

    settings, sources = load_settings(environ={"BENCH_LATENCY_QUERIES": "7"})

    assert (settings.relevance, sources["relevance"]) == ("url", "bench.toml")
    assert (settings.latency_queries, sources["latency_queries"]) == (7, "env")


def test_explicit_config_file_must_exist(tmp_path):
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(BenchError, match="nowhere.toml: no such config file"):
        load_settings(config_file=missing, environ={})


def test_empty_env_value_and_none_cli_value_are_ignored():
    settings, sources = load_settings({"top_k": None}, environ={"BENCH_TOP_K": ""})
    assert settings.top_k == 10
    assert sources["top_k"] == "default"


def test_env_aliases_in_order():
    environ = {
        "DATABASE_URL": "postgresql://first@h/db",
        "BENCH_DATABASE_URL": "postgresql://second@h/db",
        "OPENAI_API_KEY": API_KEY,
    }
    settings, sources = load_settings(environ=environ)
    assert settings.database_url == "postgresql://first@h/db"
    assert (settings.embedding_api_key, sources["embedding_api_key"]) == (API_KEY, "env")


def test_values_are_coerced_to_field_types(tmp_path):
    config = write_toml(tmp_path / "bench.toml", 'data_dir = "~/bench-state"\ntop_k = 12.0\n')
    settings, _ = load_settings(
        {"reports_dir": "out"}, config_file=config, environ={"BENCH_EMBEDDING_DIMENSIONS": " 256 "}
    )
    assert settings.data_dir == Path.home() / "bench-state"
    assert settings.top_k == 12 and isinstance(settings.top_k, int)
    assert settings.embedding_dimensions == 256
    assert settings.reports_dir == Path("out")


@pytest.mark.parametrize(
    ("where", "raw", "place", "shown"),
    [
        ("env", "ten", "environment variable BENCH_TOP_K", "'ten'"),
        ("toml", '"ten"', "bench.toml: key 'top_k'", "'ten'"),
        ("toml", "10.5", "bench.toml: key 'top_k'", "10.5"),
        ("toml", "true", "bench.toml: key 'top_k'", "True"),
        ("cli", "ten", "--top-k", "'ten'"),
    ],
)
def test_coercion_error_names_the_place(empty_cwd, where, raw, place, shown):
    cli, environ = {}, {}
    if where == "env":
        environ["BENCH_TOP_K"] = raw
    elif where == "toml":
        write_toml(empty_cwd / "bench.toml", f"top_k = {raw}\n")
    else:
        cli["top_k"] = raw
    with pytest.raises(BenchError) as caught:
        load_settings(cli, environ=environ)
    assert str(caught.value) == f"{place}: expected int, got {shown}"


@pytest.mark.parametrize(
    ("where", "name", "value", "place", "choices"),
    [
        ("env", "index", "ivfflat", "environment variable BENCH_INDEX", "exact, hnsw"),
        ("toml", "distance", "manhattan", "bench.toml: key 'distance'", "cosine, euclidean"),
        ("cli", "relevance", "page", "--relevance", "chunk, url"),
    ],
)
def test_literal_choices_are_enforced(empty_cwd, where, name, value, place, choices):
    cli, environ = {}, {}
    if where == "env":
        environ[f"BENCH_{name.upper()}"] = value
    elif where == "toml":
        write_toml(empty_cwd / "bench.toml", f'{name} = "{value}"\n')
    else:
        cli[name] = value
    with pytest.raises(BenchError) as caught:
        load_settings(cli, environ=environ)
    assert str(caught.value) == f"{place}: expected one of {choices}, got '{value}'"


def test_unknown_toml_key_is_named(tmp_path):
    config = write_toml(tmp_path / "bench.toml", "topk = 20\n")
    with pytest.raises(BenchError) as caught:
        load_settings(config_file=config, environ={})
    message = str(caught.value)
    assert "key 'topk': unknown setting" in message
    assert "top_k" in message  # the known names are listed, so the typo is easy to spot


def test_invalid_toml_is_a_bench_error(tmp_path):
    config = write_toml(tmp_path / "bench.toml", "top_k = \n")
    with pytest.raises(BenchError, match="bench.toml: unreadable config file: not valid TOML"):
        load_settings(config_file=config, environ={})


def test_a_bench_toml_not_in_utf8_is_one_line_naming_it(empty_cwd):
    """An old Windows editor saves Cyrillic in cp1251: bench says which file, not a UnicodeDecodeError."""
    (empty_cwd / "bench.toml").write_bytes('llm_model = "модель"\n'.encode("cp1251"))
    done = subprocess.run([str(Path(sys.executable).with_name("bench")), "tier1", "--dataset", "synthetic"],
                          cwd=empty_cwd, capture_output=True, text=True, timeout=60, check=False)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "bench.toml: unreadable config file: not UTF-8 text" in lines[0]


def test_api_key_in_bench_toml_is_refused(tmp_path):
    config = write_toml(tmp_path / "bench.toml", f'embedding_api_key = "{API_KEY}"\n')
    with pytest.raises(BenchError) as caught:
        load_settings(config_file=config, environ={})
    message = str(caught.value)
    assert "key 'embedding_api_key'" in message
    assert "environment only" in message
    assert API_KEY not in message


def test_redacted_masks_secrets_and_keeps_the_useful_parts():
    settings, _ = load_settings(environ={"DATABASE_URL": DATABASE_URL, "BENCH_EMBEDDING_API_KEY": API_KEY})
    shown = redacted(settings)
    assert shown["database_url"] == f"postgresql://bench:{REDACTED}@db.example:5432/rag"
    assert shown["embedding_api_key"] == REDACTED
    assert PASSWORD not in str(shown)
    assert API_KEY not in str(shown)
    assert isinstance(shown["data_dir"], str) and isinstance(shown["reports_dir"], str)
    assert settings.database_url == DATABASE_URL  # only the shown copy is masked


def test_redacted_leaves_unset_secrets_and_password_free_urls_alone():
    shown = redacted(Settings(database_url="postgresql://bench@db.example/rag"))
    assert shown["database_url"] == "postgresql://bench@db.example/rag"
    assert shown["embedding_api_key"] is None


def test_redacted_masks_password_in_query_string():
    shown = redacted(Settings(database_url=f"postgresql://bench@db.example:5432/rag?password={PASSWORD}"))
    assert PASSWORD not in str(shown)


def test_redacted_masks_password_in_embedding_base_url():
    shown = redacted(Settings(embedding_base_url=f"https://user:{PASSWORD}@llm.example/v1"))
    assert PASSWORD not in str(shown)


def test_help_names_env_var_default_and_choices():
    assert help_for("top_k").endswith("[default: 10; env: BENCH_TOP_K]")
    index_help = help_for("index")
    assert "One of: exact, hnsw." in index_help
    assert "default: exact;" in index_help
    database_help = help_for("database_url")
    assert "env: DATABASE_URL, BENCH_DATABASE_URL]" in database_help
    assert "default" not in database_help.split("[")[-1]


def test_help_shows_the_range_declared_on_the_setting():
    assert "(at least the largest metric cutoff, 10). Range: ≥ 10. [default: 10;" in help_for("top_k")
    assert "Range: > 0, ≤ 1. [default: 1.0;" in help_for("llm_top_p")
    assert "Range: ≥ -1, < 1. [env:" in help_for("similarity_baseline")
    assert "Range" not in help_for("logs_table")


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_help_exists_for_every_setting_and_names_its_env_var(name):
    text = help_for(name)
    assert FIELDS[name].metadata["help"] in text
    for env in FIELDS[name].metadata["env"] or (f"BENCH_{name.upper()}",):
        assert env in text


@pytest.mark.parametrize(
    ("cli", "message"),
    [
        ({"top_k": 9}, "--top-k: must be at least 10 (the largest metric cutoff), got 9"),
        ({"top_k": 0}, "--top-k: must be at least 1, got 0"),
        ({"ef_search": 0}, "--ef-search: must be at least 1, got 0"),
        ({"embedding_batch_size": -4}, "--embedding-batch-size: must be at least 1, got -4"),
        ({"latency_queries": -1}, "--latency-queries: must not be negative, got -1"),
        ({"bootstrap_resamples": -5}, "--bootstrap-resamples: must not be negative, got -5"),
    ],
)
def test_out_of_range_values_are_refused(cli, message):
    with pytest.raises(BenchError) as caught:
        load_settings(cli, environ={})
    assert str(caught.value) == message


def test_zero_is_allowed_where_it_means_skip():
    settings, _ = load_settings({"latency_queries": 0, "bootstrap_resamples": 0}, environ={})
    assert (settings.latency_queries, settings.bootstrap_resamples) == (0, 0)


def test_openai_backend_needs_a_base_url():
    with pytest.raises(BenchError, match="needs embedding_base_url"):
        load_settings({"embedding_backend": "openai"}, environ={})
    settings, _ = load_settings(
        {"embedding_backend": "openai"}, environ={"BENCH_EMBEDDING_BASE_URL": "http://localhost:8000/v1"}
    )
    assert settings.embedding_base_url == "http://localhost:8000/v1"


def test_range_error_names_where_the_value_came_from():
    with pytest.raises(BenchError, match="BENCH_TOP_K"):
        load_settings(environ={"BENCH_TOP_K": "5"})


def test_non_string_toml_value_for_string_setting_is_refused(tmp_path):
    config = write_toml(tmp_path / "bench.toml", 'embedding_model = ["all-MiniLM-L6-v2"]\n')
    with pytest.raises(BenchError, match="bench.toml: key 'embedding_model'"):
        load_settings(config_file=config, environ={})


def test_cli_path_options_arrive_as_path_objects():
    settings, sources = load_settings({"data_dir": Path("state"), "reports_dir": Path("out")}, environ={})
    assert settings.data_dir == Path("state") and settings.reports_dir == Path("out")
    assert sources["data_dir"] == "cli"


def test_embedding_models_table_from_toml_and_environment(tmp_path):
    config = tmp_path / "bench.toml"
    config.write_text('top_k = 10\n\n[embedding_models]\n"openai/text-embedding-3-large" = 3072\n')
    settings, _ = load_settings(config_file=config, environ={})
    assert settings.embedding_models == {"openai/text-embedding-3-large": 3072}
    settings, sources = load_settings(environ={"BENCH_EMBEDDING_MODELS": '{"qwen/qwen3-embedding-8b": 1024}'})
    assert settings.embedding_models == {"qwen/qwen3-embedding-8b": 1024} and sources["embedding_models"] == "env"
    with pytest.raises(BenchError, match="model 'm' has 0"):
        load_settings(environ={"BENCH_EMBEDDING_MODELS": '{"m": 0}'})
