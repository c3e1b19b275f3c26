"""How a yes-no verdict is read: the probability of Yes over the first token's alternatives, else the first word;
and the reply cache keeps the alternatives, so a rerun from the cache reads the same probability."""

from __future__ import annotations

import math
import sqlite3

import pytest

from benchmarks.chat.cache import CachedReply, LLMCache
from benchmarks.judge.llm.judge import yes_probability, yes_word


def test_p_yes_is_normalised_over_the_yes_and_no_tokens_of_both_languages():
    alternatives = [("Yes", math.log(0.6)), (" yes", math.log(0.1)), ("No", math.log(0.1)), ("The", math.log(0.2))]
    assert yes_probability(alternatives) == pytest.approx(0.7 / 0.8)
    # Qwen starts "Да" and "Нет" with one Cyrillic letter
    assert yes_probability([("Д", math.log(0.3)), ("Н", math.log(0.6)), ("Нет", math.log(0.1))]) == pytest.approx(0.3)
    assert yes_probability([("«Да", math.log(0.5)), ("**No", math.log(0.5))]) == pytest.approx(0.5)
    assert yes_probability([("The", 0.0)]) is None and yes_probability([]) is None


@pytest.mark.parametrize("text, verdict", [("Yes", 1.0), ("  No.", 0.0), ("Да, подтверждается", 1.0),
                                           ("Нет", 0.0), ("Maybe", None), ("", None)])
def test_a_parsed_verdict_is_the_first_word(text, verdict):
    assert yes_word(text) == verdict


def test_the_cache_keeps_a_replys_alternatives_and_opens_a_cache_written_before_them(tmp_path):
    path = tmp_path / "llm-cache.sqlite3"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE chat_replies (key TEXT PRIMARY KEY, endpoint TEXT NOT NULL, model TEXT NOT NULL, "
                "text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, "
                "system_fingerprint TEXT, created_at REAL NOT NULL)")
    old.execute("INSERT INTO chat_replies VALUES ('k0', 'e', 'm', 'old', 1, 1, NULL, 0)")
    old.commit()
    old.close()
    cache = LLMCache(path)
    assert cache.get("k0") == CachedReply("old", 1, 1, None, ())
    cache.put("k1", "e", "m", CachedReply("Yes", 5, 1, None, (("Yes", -0.1), ("No", -2.5))))
    assert cache.get("k1").top_logprobs == (("Yes", -0.1), ("No", -2.5))
