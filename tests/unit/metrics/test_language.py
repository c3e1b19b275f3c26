"""Language detection from the letters of texts (benchmarks.metrics.language), on hand-counted texts."""

from __future__ import annotations

import pytest

from benchmarks.metrics import language
from benchmarks.metrics.language import contradicts, detect_language, letter_scripts, sample


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["Как подключиться к VPN?", "Отпуск согласует руководитель."], "ru"),
        (["How do I connect to the VPN?", "Vacation is approved by your manager."], "en"),
        (["Café déjà vu, naïve façade."], "en"),  # accented Latin letters are Latin
        (["Ёжик в тумане"], "ru"),
        (["123 456", "2024-01-01 12:00", "!?.,;:"], ""),  # digits and punctuation are no letters
        ([], ""),
        ([""], ""),
        (["Καλημέρα κόσμε"], ""),  # Greek: neither Cyrillic nor Latin
        (["数据集"], ""),
    ],
)
def test_detects_the_script_most_letters_are_in(texts, expected):
    assert detect_language(texts) == expected


def test_mixed_texts_go_to_the_script_of_more_than_half_the_letters():
    # Cyrillic: Настройка 9 + установите 10 = 19; Latin: VPN 3 + GlobalProtect 13 = 16; 19/35 > 1/2
    assert letter_scripts(["Настройка VPN: установите GlobalProtect"]) == {"CYRILLIC": 19, "LATIN": 16}
    assert detect_language(["Настройка VPN: установите GlobalProtect"]) == "ru"
    # Latin: Install 7 + GlobalProtect 13 = 20; Cyrillic: клиент 6; 20/26 > 1/2
    assert letter_scripts(["Install клиент GlobalProtect"]) == {"LATIN": 20, "CYRILLIC": 6}
    assert detect_language(["Install клиент GlobalProtect"]) == "en"


def test_an_even_split_or_a_plurality_is_not_mostly():
    assert letter_scripts(["abcd абвг"]) == {"LATIN": 4, "CYRILLIC": 4}
    assert detect_language(["abcd абвг"]) == ""  # exactly half is not more than half
    # 4 Latin, 3 Cyrillic, 3 Greek: Latin leads with 4/10, not a majority
    assert detect_language(["abcd абв αβγ"]) == ""


def test_collections_are_counted_together():
    # corpus: 12 Cyrillic letters; questions: 3 Latin letters
    assert detect_language(["Документация"], ["VPN"]) == "ru"
    assert detect_language(["Да"], ["The VPN"]) == "en"  # 2 Cyrillic, 6 Latin


def test_only_the_leading_characters_of_each_text_count():
    text = "a" * language.CHARS_PER_TEXT + "я" * (language.CHARS_PER_TEXT * 3)
    assert letter_scripts([text]) == {"LATIN": language.CHARS_PER_TEXT}
    assert detect_language([text]) == "en"


def test_a_large_collection_is_sampled_every_kth_from_the_first():
    texts = [f"t{i}" for i in range(10_000)]
    picked = sample(texts, limit=2000)
    assert len(picked) == 2000 and picked[:3] == ["t0", "t5", "t10"]
    assert sample(texts[:7], limit=2000) == texts[:7]
    # every 5th text is Russian, the rest English: the sample sees only the Russian ones
    mixed = ["Привет" if i % 5 == 0 else "Hello" for i in range(10_000)]
    assert detect_language(mixed) == "ru"
    assert detect_language(mixed[1:]) == "en"


@pytest.mark.parametrize(
    ("declared", "detected", "expected"),
    [
        ("en", "ru", True),
        ("ru", "en", True),
        ("RU", "en", True),
        ("en-US", "ru", True),
        ("ru_RU", "en", True),
        ("en", "en", False),
        ("ru", "ru", False),
        ("de", "en", False),  # German is written in Latin letters too
        ("uk", "ru", False),  # Ukrainian in Cyrillic
        ("de", "ru", True),
        ("zh", "en", True),
        ("en", "", False),  # nothing detected contradicts nothing
        ("sr", "en", False),  # Serbian is written in both scripts
        ("sr", "ru", False),
        ("xx", "ru", False),  # unknown code
    ],
)
def test_a_declared_language_is_contradicted_only_by_another_script(declared, detected, expected):
    assert contradicts(declared, detected) is expected
