"""Which weights `local_model` names, decided before any work: a .gguf path, or a known model by name."""

from __future__ import annotations

import hashlib

from benchmarks.config import load_settings
from benchmarks.local_judge import weights


def test_the_default_setting_is_the_default_known_model():
    settings, _ = load_settings({}, environ={})
    assert settings.local_model == weights.DEFAULT_MODEL
    assert weights.DEFAULT_MODEL in weights.KNOWN_MODELS


def test_a_value_is_a_file_or_a_known_name(tmp_path):
    gguf = tmp_path / "judge.gguf"
    gguf.write_bytes(b"GGUF")
    assert weights.check_value(str(gguf)) is None
    assert weights.check_value("qwen2.5-coder-0.5b") is None
    assert weights.check_value(str(tmp_path / "none.gguf")) == f"no such file: {tmp_path / 'none.gguf'}"
    other = tmp_path / "judge.bin"
    other.write_bytes(b"x")
    assert weights.check_value(str(other)) == f"{other} is not a .gguf file"
    assert weights.check_value("llama-70b").startswith("expected a path to a .gguf file or one of qwen2.5-coder")


def test_a_users_file_is_hashed_once_and_its_note_kept_in_bench_s_folder(tmp_path):
    gguf = tmp_path / "mine" / "judge.gguf"
    gguf.parent.mkdir()
    gguf.write_bytes(b"GGUF weights")
    said: list[str] = []
    first = weights.resolve(str(gguf), tmp_path / "models", say=said.append)
    again = weights.resolve(str(gguf), tmp_path / "models", say=said.append)
    assert first == again == weights.Weights(gguf, hashlib.sha256(b"GGUF weights").hexdigest(), "judge.gguf")
    assert said == [f"checking the sha256 of {gguf} (once)"]
    assert sorted(p.name for p in gguf.parent.iterdir()) == ["judge.gguf"]
    assert len(list((tmp_path / "models").glob("*-judge.gguf.verified"))) == 1
    gguf.write_bytes(b"GGUF other weights")  # changed: hashed again
    assert weights.resolve(str(gguf), tmp_path / "models", say=said.append).sha256 == hashlib.sha256(
        b"GGUF other weights").hexdigest()
