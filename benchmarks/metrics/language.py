"""The language a collection of texts is mostly written in, told by its script. Pure: no I/O, no randomness.

Detection counts letters, not words: every character for which `str.isalpha()` holds is a letter, and
its script is the first word of its Unicode name ("CYRILLIC SMALL LETTER A" -> Cyrillic, "LATIN SMALL
LETTER E WITH ACUTE" -> Latin). Digits, punctuation, symbols and combining marks are not letters and do
not count. A script names the language when *strictly more than half* (`MOSTLY`) of the counted letters
are its: mostly Cyrillic -> "ru", mostly Latin -> "en", anything else (no letters, an even split, another
script such as Greek or Han) -> "" (unknown). So "en" means "Latin script": German or French texts are
"en" here; what the answer is for is telling an English-only embedding model from the data it embeds.

Bounded for speed, and deterministic (the same texts give the same answer, with no random sample): of
each collection at most `SAMPLE_TEXTS` texts are read, evenly spaced (every k-th, starting with the first),
and of each text only its first `CHARS_PER_TEXT` characters. A 1M-chunk corpus is thus judged on 2,000
chunks, at most 1M characters.
"""

from __future__ import annotations

import math
import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

SAMPLE_TEXTS = 2000
"""Texts read of each collection, every k-th: a large corpus is judged on an even spread of it."""

CHARS_PER_TEXT = 500
"""Leading characters of each sampled text that are counted."""

MOSTLY = 0.5
"""A script names the language when its share of the letters is strictly above this."""

LANGUAGE_OF_SCRIPT = {"CYRILLIC": "ru", "LATIN": "en"}

SCRIPT_OF_LANGUAGE = {
    **dict.fromkeys(("en", "de", "fr", "es", "it", "pt", "nl", "pl", "cs", "sk", "sl", "hr", "ro", "hu", "sv",
                     "da", "no", "nb", "nn", "fi", "et", "lv", "lt", "tr", "id", "ms", "vi", "ca", "eu", "gl",
                     "ga", "cy", "is", "sq", "af", "sw", "tl"), "LATIN"),
    **dict.fromkeys(("ru", "uk", "be", "bg", "mk", "kk", "ky", "tg", "mn"), "CYRILLIC"),
    **dict.fromkeys(("el", "ar", "he", "fa", "ur", "hi", "bn", "ta", "te", "th", "zh", "ja", "ko", "ka", "hy",
                     "am"), "OTHER"),
}
"""The script a declared language is written in, for the languages that have one script (not sr, uz, az)."""


def sample(texts: Sequence[T], limit: int = SAMPLE_TEXTS) -> Sequence[T]:
    """At most `limit` texts, every k-th from the first: the same texts every time (of a range, the indices of
    those texts, for a loader that reads only them)."""
    step = max(1, math.ceil(len(texts) / limit))
    return texts[::step]


def letter_scripts(*collections: Sequence[str]) -> Counter[str]:
    """Letters counted by script ("LATIN", "CYRILLIC", "GREEK", ...) over the sample of each collection."""
    chars = Counter("".join(text[:CHARS_PER_TEXT] for texts in collections for text in sample(texts)))
    scripts: Counter[str] = Counter()
    for char, count in chars.items():
        if char.isalpha():
            scripts[unicodedata.name(char, "UNNAMED").split(" ", 1)[0]] += count
    return scripts


def detect_language(*collections: Sequence[str]) -> str:
    """ "ru" when the letters are mostly Cyrillic, "en" when mostly Latin, else "" (see the module doc)."""
    scripts = letter_scripts(*collections)
    letters = sum(scripts.values())
    for script, language in LANGUAGE_OF_SCRIPT.items():
        if letters and scripts[script] / letters > MOSTLY:
            return language
    return ""


def detected_or(fallback: str, *collections: Sequence[str]) -> str:
    """The texts' language by script (`detect_language`), else `fallback` (a declared language) when they tell
    none: which language's unrelated sentences calibrate their similarities (`metrics.similarity_scale`)."""
    return detect_language(*collections) or fallback


def contradicts(declared: str, detected: str) -> bool:
    """Whether texts detected as `detected` are clearly not in the `declared` language: their scripts
    differ. A declared language of unknown or several scripts (e.g. "sr") contradicts nothing, nor does an
    undetected one."""
    primary = declared.strip().lower().replace("_", "-").split("-", 1)[0]
    script = SCRIPT_OF_LANGUAGE.get(primary)
    detected_script = next((s for s, lang in LANGUAGE_OF_SCRIPT.items() if lang == detected), None)
    return script is not None and detected_script is not None and script != detected_script
