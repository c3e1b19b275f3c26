"""The synthetic generator's wording as data: bank files load, stay parallel and fail in one clear line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from benchmarks.synthetic import bank_files
from benchmarks.synthetic.__main__ import main
from benchmarks.synthetic.bank_files import bank_path, read_bank
from benchmarks.synthetic.generate import LANGUAGES, check_bank, load_bank
from benchmarks.synthetic.skeleton import FAMILIES, PAGES


def _shape(data: dict) -> dict[str, object]:
    """What must match across languages: the keys the skeleton fixes and the length of every list it indexes.

    Entity fields, formats and the number of question templates are each language's own.
    """
    shape: dict[str, object] = {"top level": sorted(data)}
    shape |= {key: len(data[key]) for key in ("unanswerable", "unsupported_claims")}
    shape |= {f"vocabularies.{name}": len(words) for name, words in data["vocabularies"].items()}
    for kind in ("families", "pages"):
        shape[kind] = sorted(data[kind])
        for key, owner in data[kind].items():
            shape[f"{kind}.{key}.sections"] = list(owner["sections"])
            shape |= {
                f"{kind}.{key}.sections.{name}": sorted(texts) for name, texts in owner["sections"].items()
            }
            if kind == "families":
                shape[f"{kind}.{key}.entities"] = len(owner["entities"])
                shape[f"{kind}.{key}.extra"] = "extra" in owner
    return shape


def _shape_mismatches(reference: Path, other: Path) -> list[str]:
    expected, actual = (
        _shape(tomllib.loads(path.read_text(encoding="utf-8"))) for path in (reference, other)
    )
    return [
        f"{other}: {key} is {actual.get(key, 'missing')!r}, but {reference} has {expected.get(key, 'none')!r}"
        for key in {**expected, **actual}
        if expected.get(key) != actual.get(key)
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_bank_file_loads_and_words_the_skeleton(language: str) -> None:
    bank = load_bank(language)
    check_bank(bank)
    assert bank.language == language
    assert list(bank.families) == [family.key for family in FAMILIES]
    assert list(bank.pages) == [page.key for page in PAGES]


def test_both_languages_have_the_same_keys_and_shape() -> None:
    reference = bank_path(LANGUAGES[0])
    for language in LANGUAGES[1:]:
        mismatches = _shape_mismatches(reference, bank_path(language))
        assert not mismatches, "\n".join(mismatches)


def test_a_shape_mismatch_names_the_file_and_the_key(tmp_path: Path) -> None:
    drifted = tmp_path / "ru.toml"
    drifted.write_text(
        _edited("ru", 'plan = ["Базовый", "Оптимум", "Премиум"]', 'plan = ["Базовый"]'), encoding="utf-8"
    )
    assert _shape_mismatches(bank_path("en"), drifted) == [
        f"{drifted}: vocabularies.plan is 1, but {bank_path('en')} has 3"
    ]


def _edited(language: str, old: str, new: str) -> str:
    text = bank_path(language).read_text(encoding="utf-8")
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


BROKEN = {
    "syntax": (
        'kind_gen = "больничного"',
        'kind_gen "больничного"',
        "[[families.leave.entities]]: Expected '='",
    ),
    "type": (
        'paraphrases = ["{entitlement_p1}", "{entitlement_p2}"]',
        'paraphrases = "{entitlement_p1}"',
        "families.leave.sections.entitlement.paraphrases: must be a list of strings",
    ),
    "missing field": (
        'kind_gen = "больничного"\n',
        "",
        "families.leave.entities[1]: no field 'kind_gen', which families.leave.sections.pay.questions[1]",
    ),
    "misspelt field": (
        "{entitlement_p1}",
        "{entitlement_p}",
        "families.leave.sections.entitlement.paraphrases[0]: unknown field 'entitlement_p'",
    ),
    "unknown format": (
        "системы — {owner:person}",
        "системы — {owner:persona}",
        "families.access.sections.eligibility.text: unknown format 'persona'",
    ),
    "plural forms": (
        "{inactive_days:день|дня|дней}",
        "{inactive_days:день|дней}",
        "families.access.sections.review.text: {inactive_days:день|дней} must give 3 plural forms",
    ),
    "unknown key": (
        "[formats.rub]\nmultiply",
        "[formats.rub]\nmultiplier",
        "formats.rub.multiplier: unknown key",
    ),
    "skeleton drift": (
        "[families.leave.sections.pay]",
        "[families.leave.sections.payment]",
        "families.leave.sections: must be entitlement, request, pay, in this order",
    ),
    "vocabulary size": (
        'plan = ["Базовый", "Оптимум", "Премиум"]',
        'plan = ["Базовый"]',
        "vocabularies.plan: must have 3 items",
    ),
}


@pytest.mark.parametrize("case", BROKEN)
def test_a_broken_bank_file_is_one_error_line_naming_file_and_key(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new, expected = BROKEN[case]
    (tmp_path / "ru.toml").write_text(_edited("ru", old, new), encoding="utf-8")
    monkeypatch.setattr(bank_files, "BANKS", tmp_path)
    assert main(["--out", str(tmp_path / "out"), "--languages", "ru"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {tmp_path / 'ru.toml'}: ") and expected in err, err
    assert not (tmp_path / "out").exists()


def test_a_bank_that_is_not_utf8_is_refused_in_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "en.toml"
    broken.write_bytes(bank_path("en").read_bytes().replace("€".encode(), b"\x80", 1))
    with pytest.raises(ValueError, match=f"^{re.escape(str(broken))}: not UTF-8: "):
        read_bank(broken)


@pytest.mark.parametrize(
    ("language", "spec", "value", "written"),
    [
        ("en", "eur", 1200, "€1,200"),
        ("en", "cabin", 0, "economy only, whatever the length of the flight"),
        ("en", "cabin", 6, "business class on flights longer than 6 hours, economy on shorter ones"),
        ("ru", "rub", 28, "2800 ₽"),
        ("ru", "rub", 120, "12 000 ₽"),
        ("ru", "pct", "99.95%", "99,95%"),
        ("ru", "every_months", 3, "раз в квартал"),
        ("ru", "every_months", 5, "раз в 5 месяцев"),
        ("ru", "every_years", 3, "раз в три года"),
        ("ru", "cabin", 21, "эконом, а при перелёте дольше 21 часа — бизнес-класс"),
        ("ru", "weekly", 2, "по средам"),
    ],
)
def test_formats_in_the_data_write_values_as_before(
    language: str, spec: str, value: object, written: str
) -> None:
    assert load_bank(language).formats[spec](value) == written


def test_a_value_no_case_words_is_refused_like_an_index_out_of_range() -> None:
    """The judge set skips an altered answer whose value the bank cannot word; both ways must raise alike."""
    formats = load_bank("ru").formats
    with pytest.raises(KeyError):
        formats["underground"]("-4")
    with pytest.raises(IndexError):
        formats["weekday"](5)


def test_numbered_entities_fill_their_templates_and_take_rows_in_turn() -> None:
    assert load_bank("en").extra_entity("office", 12) == {
        "city": "Hub 12",
        "address": "Unit 12, Riverside Business Park",
    }
    offices = load_bank("ru").extra_entity
    assert offices("office", 10)["address"] == "Океанский пр., 10"  # row 10 of the 20 extra_rows
    assert offices("office", 20)["city_prep"] == offices("office", 40)["city_prep"] == "в Тюмени"
