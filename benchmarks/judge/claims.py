"""What a text claims, read without a model: its sentences, the claims in them, and the facts each claim
states (numbers and names), in English and Russian alike.

The offline judge (`benchmarks.judge.offline.proxies`) checks claims rather than sentences because RAG answers
join facts: "completed in March 1889 and is 330 metres tall" states two facts that two chunks give, and a
correct answer that says more than its reference keeps the claims it shares with it. The LLM judge uses
the sentence splitter only to bound how many statements a text can make.

Sentences. A line break always ends a sentence (bullet lists carry one claim per line). Within a
line, a run of `.`, `!`, `?` or `…` (closing quotes and brackets allowed after it) followed by
whitespace or the end of the line ends a sentence, except:
- when the next character is a lowercase letter: the sentence goes on ("т. е. так", "e.g. this");
- after a single letter and one period: initials and one-letter abbreviations
  ("А. С. Пушкин", "J. Smith", "в 1889 г. Башня"). The price: a sentence really ending in a
  one-letter word ("…the letter A.") is joined to the next one.
No abbreviation list: the two rules cover the common cases in both languages, and a missed split
only makes one "statement" longer, never loses text. A sentence without a word character ("—",
"...") is dropped.

Claims. A sentence is cut where one clause ends and another begins: at `;`, at a comma before a
conjunction that opens a clause (", and", ", but", ", while", ", whereas", ", which"), and before a
conjunction whose clause opens with a subject of its own, comma or not, in either language ("and it was
completed", ", и её достроили", ", а он"). A list of nouns ("DPS, MyDeposits and TDS", "Paris and Lyon") has
no comma or subject after its "and" and stays whole. Russian conjunctions in general (", а", ", и", ", но"),
", который" and cuts at colons and dashes were tried and left out: on the labelled set they cut off dependent
pieces ("а матчи футбольного турнира", "которым ещё нет 18") that no passage supports alone, and right answers
lost more than hallucinated ones. A piece with fewer than `MIN_CLAIM_WORDS` content words is not a claim on
its own and is joined to its neighbour.

Tokens. Unicode `\\w+` after case folding ("ё" read as "е", as Russian often writes it), so Cyrillic
and Latin are treated alike, with numbers read whole first. Content tokens are those outside a short
stop-word list of the sample's language. Tokens are compared by their first five characters (a
truncation stem: "Париж", "Париже", "Парижа" are one word; Russian inflects too much for exact
matching), except numbers, compared by value.

Numbers. A number is read with its separators, so "8,849", "8 849", "8\u00a0849" and "8849" are one
number (a group separator, comma or any kind of space, followed by exactly three digits, after a first
group of one to three digits), and "3,5" and "3.5" are one (a decimal comma before one, two or four and
more digits); trailing decimal zeros do not count ("2.50" is "2.5"). "849" stays another number than
"8,849". A comma before exactly three digits is read as a thousands separator in both languages: a
Russian "1,642" meaning 1.642 reads as 1642, the same on both sides of a comparison, so only a text
that writes one value both ways is misread. Small numbers written as words are their digits ("three",
"трёх" are 3; "one" and "один" stay words: "one-off", "один из"). Unit words are folded to one name per unit
("m" after a number, "metres", "м", "метра", "метров" are all "metre"), so "8,849 m" states what "8849 metres"
does.

Dates. A date is read by its parts in any of the forms `_DATES` reads (ISO, dotted, words in either language,
month first or day first), the month as "--07": "14.07.1789" states what "14 July 1789" does, "15.07.1789"
and "14 August 1789" do not, and "in 1789" is supported by either.

Names. A word of three letters or more that starts with a capital anywhere but at the start of its
sentence, or holds a capital after its first letter ("MyDeposits"), is a name: swapping one for another
is the commonest hallucination after a wrong number. Names are compared by their first four letters, so
Russian inflections are one name ("Москве", "Москва"); shorter capitals are abbreviations ("ТК", "HR")
that a passage may spell out.

Negations. A claim is negated when it holds "not", "never", "n't", "не", "нет", "ни", "нельзя" and the like,
except an answer's opening "No," / "Нет," (it answers a yes-no question, and its context does not repeat it)
and a negation that bounds a quantity ("no later than", "не может превышать", "не младше"), which states a
limit. The offline judge reads a claim negated unlike the context clauses that hold its words as uncertain.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from decimal import Decimal

__all__ = ["NEGATION_STEMS", "Claim", "content_stems", "is_number", "name_key", "names", "negated", "numbers",
           "split_claims", "split_sentences", "stem", "stems", "stop_words", "tokens"]

_STEM_LENGTH = 5
MIN_CLAIM_WORDS = 2  # content words a clause needs to be a claim of its own
MIN_NAME_LENGTH = 3  # shorter capitals are abbreviations ("ТК", "HR") that a passage may spell out
NAME_PREFIX = 4  # names are compared by their first letters: "Москва", "Москве", "московский" are one


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Function words only: a sentence's content is what a context must repeat to support it. Negations
# ("not", "не", "нет", "ни") are content on purpose: a negated claim needs the negation in the text.
_STOP_WORDS: Mapping[str, frozenset[str]] = {
    "en": _word_set(
        "a an the and or but if then than of in on at to for from by with about as into over under "
        "is are was were be been being am do does did has have had it its this that these those "
        "there here which who whom whose what when where why how so also very can could "
        "will would shall should may might must i you he she we they me him her us them my your "
        "his our their"
    ),
    "ru": _word_set(
        "и а но или да же ли бы в во на к ко с со у о об от до по за из под над при для "
        "без про через это этот эта эти тот та те то что как так где когда кто чем чего кого ему "
        "его её ее их им ими он она оно они мы вы я ты мне меня нас вас был была было были быть "
        "есть уже ещё еще также тоже очень все всё весь только"
    ),
}

_ALL_STOP_WORDS = frozenset().union(*_STOP_WORDS.values())

# One name per unit, by the forms a text writes it in (a whole token, else its first five characters). Only
# unambiguous units: "г" (year or gram) stays out, and "m" counts only right after a number ("8849 m"). The
# metre's Russian forms are listed whole, since "метро" shares their stem; so are the thousandths, whose stem
# "milli" / "милли" a million shares.
_UNITS: Mapping[str, str] = {
    **dict.fromkeys(("metre", "meter", "метр", "метра", "метров", "метрах", "метрам", "метрами", "метре", "метру",
                     "м"), "metre"),
    **dict.fromkeys(("km", "kilom", "килом", "км"), "kilometre"),
    **dict.fromkeys(("cm", "centi", "санти", "см"), "centimetre"),
    **dict.fromkeys(("mm", "millimetre", "millimetres", "millimeter", "millimeters", "миллиметр", "миллиметра",
                     "миллиметров", "мм"), "millimetre"),
    **dict.fromkeys(("kg", "kilog", "килог", "кг"), "kilogram"),
    **dict.fromkeys(("mg", "milligram", "milligrams", "миллиграмм", "миллиграмма", "миллиграммов", "мг"),
                    "milligram"),
    **dict.fromkeys(("perce", "проце", "%"), "percent"),
    **dict.fromkeys(("min", "minut", "минут", "мин"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "час", "часа", "часов", "ч"), "hour"),
    **dict.fromkeys(("sec", "secon", "секун", "сек"), "second"),
    **dict.fromkeys(("rub", "rubles", "roubl", "ruble", "рубль", "рубля", "рубле", "руб", "₽"), "rouble"),
    **dict.fromkeys(("usd", "dolla", "долла", "$"), "dollar"),
    **dict.fromkeys(("eur", "euro", "euros", "евро", "€"), "euro"),
}

# --- sentences and claims -------------------------------------------------------------------------

_TERMINATOR = re.compile(r"[.!?…]+[\"'»”’)\]]*(?=\s|$)")
_WORD = re.compile(r"\w+")


def _breaks_here(line: str, match: re.Match[str]) -> bool:
    """Whether a terminator really ends a sentence (see the module docstring for the two rules)."""
    following = line[match.end() :].lstrip()
    if following and following[0].islower():
        return False
    if match.group() == ".":
        before = re.search(r"\w+$", line[: match.start()])
        if before is not None and len(before.group()) == 1 and before.group().isalpha():
            return False
    return True


def split_sentences(text: str) -> tuple[str, ...]:
    """Sentences of a text, each stripped; pieces without a word character are dropped."""
    sentences: list[str] = []
    for line in text.splitlines():
        start = 0
        for match in _TERMINATOR.finditer(line):
            if _breaks_here(line, match):
                sentences.append(line[start : match.end()])
                start = match.end()
        sentences.append(line[start:])
    return tuple(s.strip() for s in sentences if _WORD.search(s))


_CONJUNCTIONS = "and|but|while|whereas|which"
_SUBJECT_AFTER = (r"(?:and|but|и|а|но)\s+(?:it|its|they|their|he|she|we|this|these|"
                  r"он|она|оно|они|его|её|ее|их|это)\b")  # a conjunction whose clause opens with its own subject
_CLAUSE_BREAK = re.compile(rf";\s+|,\s+(?=(?:{_CONJUNCTIONS})\s)|,?\s+(?={_SUBJECT_AFTER})", re.IGNORECASE)


class Claim(str):
    """One claim's text, knowing whether it opens its sentence: a capital there starts the sentence, not a
    name."""

    opens_sentence: bool

    def __new__(cls, text: str, opens_sentence: bool = True) -> Claim:
        claim = super().__new__(cls, text)
        claim.opens_sentence = opens_sentence
        return claim


def split_claims(text: str) -> tuple[Claim, ...]:
    """The claims of a text, sentence by sentence (the module docstring says where a sentence is cut). Whether a
    piece has content enough is read with the stop words of every language: they share no word, so a text needs
    no language to be cut."""
    stop = _ALL_STOP_WORDS
    claims: list[Claim] = []
    for sentence in split_sentences(text):
        cuts = [0, *(m.start() for m in _CLAUSE_BREAK.finditer(sentence)), len(sentence)]
        pieces: list[str] = []
        for start, end in zip(cuts, cuts[1:], strict=False):
            piece = sentence[start:end]
            if pieces and len(content_stems(pieces[-1], stop)) < MIN_CLAIM_WORDS:
                pieces[-1] += piece  # the piece before could not stand alone
            elif pieces and len(content_stems(piece, stop)) < MIN_CLAIM_WORDS:
                pieces[-1] += piece
            else:
                pieces.append(piece)
        claims += [Claim(p.strip(" ,;:—–"), opens_sentence=i == 0) for i, p in enumerate(pieces) if _WORD.search(p)]
    return tuple(claims)


# --- tokens, numbers, names ------------------------------------------------------------------------

_SPACE = " \u00a0\u202f\u2009"
_NUMBER = re.compile(rf"\d{{1,3}}(?:[,{_SPACE}]\d{{3}}(?!\d))+(?:\.\d+)?|\d+(?:[.,]\d+)?")
_TOKEN = re.compile(rf"--\d{{2}}|{_NUMBER.pattern}|\w+|[%$€₽]")

# Dates. A date is read as its parts, each a value as a number is: the day and the year as numbers, the month
# as ISO 8601 writes a month alone ("--07"). ISO "1789-07-14", dotted "14.07.1789", "14 July 1789", "July 14,
# 1789" and "14 июля 1789 года" are all "14 --07 1789": one day written two ways is one value, another day or
# month is a value the context lacks, and a claim that gives only the year or the month is still supported by a
# context that gives the day. Parts, not one token, since contexts write days in ways no pattern foresees
# ("16 (27) мая 1703 года", "26 августа (7 сентября) 1812 года"). English month words count as months only
# beside a day or a year ("may" and "march" are words too); Russian ones wherever they stand, with their case
# endings ("мартин" is no month). English month words by their first three letters (the text already case folded).
_MONTHS_EN = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_SOFT, _HARD = "(?:ь|я|е|ю|ем)", "(?:а|е|у|ом)?"  # a month's Russian case endings: "июль, июля, июле, июлем"
_MONTHS_RU = (f"январ{_SOFT}", f"феврал{_SOFT}", f"март{_HARD}", f"апрел{_SOFT}", "ма(?:й|я|е|ю|ем)", f"июн{_SOFT}",
              f"июл{_SOFT}", f"август{_HARD}", f"сентябр{_SOFT}", f"октябр{_SOFT}", f"ноябр{_SOFT}", f"декабр{_SOFT}")
_MONTH_WORD = "|".join(f"(?P<m{n}>{en}\\w*\\.?|{ru}\\b)"
                       for n, (en, ru) in enumerate(zip(_MONTHS_EN, _MONTHS_RU, strict=True), 1))
_DAY, _YEAR = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?", r"(?P<y>\d{4})(?:\s+(?:года|году|год|г)\b\.?)?"
_DATES = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(r"\b(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?P<y>\d{4})\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?(?:{_MONTH_WORD}),?(?:\s+{_YEAR})?(?!\w)"),
    re.compile(rf"\b(?:{_MONTH_WORD})\s+{_DAY}(?!\d)(?:,?\s+{_YEAR})?(?!\w)"),
    re.compile(rf"\b(?:{_MONTH_WORD}),?\s+{_YEAR}(?!\w)"),
    re.compile("|".join(f"(?P<m{n}>\\b{ru}\\b)" for n, ru in enumerate(_MONTHS_RU, 1))),
)
_ISO_MONTH = re.compile(r"--\d{2}")
# English months are capitalised but are no names: a date is compared by its parts, "July" or "14.07." alike
_MONTH_NAMES = frozenset("january february march april may june july august september october november december "
                         "jan feb mar apr jun jul aug sep sept oct nov dec".split())
_METRE_AFTER_NUMBER = re.compile(r"(?<=\d)(\s*)m\b")
# Small numbers written as words, read as their digits ("three days" states what "3 days" does). "One" and "один"
# stay words ("one-off", "one of"), as does "семью" (also "the family").
_NUMBER_WORDS: Mapping[str, str] = {
    **{word: str(n) for n, word in enumerate("two three four five six seven eight nine ten eleven twelve".split(), 2)},
    **{word: str(n) for n, forms in enumerate((
        "два две двух двум двумя", "три трех трем тремя", "четыре четырех четырем четырьмя", "пять пяти пятью",
        "шесть шести шестью", "семь семи", "восемь восьми восемью", "девять девяти девятью",
        "десять десяти десятью"), 2) for word in forms.split()},
}
_MAY_HOLD_VALUES = re.compile("\\d|" + "|".join(_MONTHS_RU))  # every date and every "8849 m" has one of these


def _date(match: re.Match[str]) -> str:
    """The parts of the date a match writes, " 14 --07 1789 " (those it gives), or the text as written when it
    is no calendar date."""
    found = {key: value for key, value in match.groupdict().items() if value}
    month = int(found["m"]) if "m" in found else next(n for n in range(1, 13) if f"m{n}" in found)
    day = int(found["d"]) if "d" in found else None
    if not 1 <= month <= 12 or (day is not None and not 1 <= day <= 31):
        return match.group()
    return " " + " ".join(p for p in (day and str(day), f"--{month:02d}", found.get("y")) if p) + " "


def _values_read(text: str) -> str:
    """A case-folded text with its dates in parts and a metre sign after a number named as a unit. Most texts
    hold neither a digit nor a Russian month, and skip the patterns."""
    if not _MAY_HOLD_VALUES.search(text):
        return text
    for form in _DATES:
        text = form.sub(_date, text)
    return _METRE_AFTER_NUMBER.sub(r"\1metre", text)


def _number(written: str) -> str:
    """A number's value as one string, whatever separators it was written with."""
    grouped = re.fullmatch(rf"\d{{1,3}}(?:[,{_SPACE}]\d{{3}})+(?:\.\d+)?", written)
    plain = re.sub(rf"[,{_SPACE}]", "", written) if grouped else written.replace(",", ".")
    return format(Decimal(plain).normalize(), "f")


@functools.lru_cache(maxsize=1 << 16)  # a context's sentences are read again for every claim judged against them
def tokens(text: str) -> tuple[str, ...]:
    """Case-folded tokens: numbers by value ("8,849" is "8849", "three" is "3"), dates by their parts (a month as
    "--07"), words by Unicode `\\w+`, the same rule for Latin and Cyrillic, and the signs %, $, €, ₽
    (units written as a sign)."""
    read = _values_read(text.casefold().replace("ё", "е"))
    return tuple(_number(t) if t[0].isdigit() else _NUMBER_WORDS.get(t, t) for t in _TOKEN.findall(read))


def is_number(token: str) -> bool:
    """A number, or a month read as a value ("--07"): a fact a context must give."""
    return token[0].isdigit() or _ISO_MONTH.fullmatch(token) is not None


def stem(token: str) -> str:
    """What two tokens are compared by: a number's value, a unit's one name, else the first five characters."""
    if is_number(token):
        return token
    return _UNITS.get(token) or _UNITS.get(token[:_STEM_LENGTH]) or token[:_STEM_LENGTH]


def stems(text: str) -> frozenset[str]:
    return frozenset(stem(t) for t in tokens(text))


def content_stems(text: str, stop: frozenset[str]) -> frozenset[str]:
    """The stems of a text's content words (stop words left out), numbers included."""
    return frozenset(stem(t) for t in tokens(text) if t not in stop)


def numbers(text: str) -> frozenset[str]:
    return frozenset(t for t in tokens(text) if is_number(t))


def names(claim: Claim) -> tuple[str, ...]:
    """The names a claim gives, as written (the module docstring says what counts as one)."""
    found = []
    for position, word in enumerate(_WORD.findall(claim)):
        opening = position == 0 and claim.opens_sentence
        capital_inside = any(ch.isupper() for ch in word[1:])
        if len(word) >= MIN_NAME_LENGTH and not word[0].isdigit() and word.casefold() not in _MONTH_NAMES and (
                capital_inside or (word[0].isupper() and not opening)):
            found.append(word)
    return tuple(dict.fromkeys(found))


# Words that turn a clause's polarity ("isn't" is read as "isn" and "t"). An answer's opening "No," / "Нет,"
# answers a yes-no question rather than negating its own clause, and is not read; nor is a negation that bounds a
# quantity ("no more than", "не позднее", "не меньше"), which states a limit, not a denial.
_NEGATIONS = frozenset("not no never cannot t none nothing nor не нет ни никогда нельзя ничего никто нигде".split())
NEGATION_STEMS = frozenset(w[:_STEM_LENGTH] for w in _NEGATIONS)
_ANSWER_WORD = re.compile(r"^\s*(?:no|нет)\s*[,.!:;—–-]", re.IGNORECASE)


_BOUND = frozenset(w[:_STEM_LENGTH] for w in (
    "more less fewer later earlier longer shorter than exceed больше более меньше менее позднее позже раньше ранее "
    "дольше превышать младше старше выше ниже").split())


def negated(claim: Claim) -> bool:
    """Whether the claim holds a negation of its own: the opening "No," of an answer is left out, and so is a
    negation with a bound in the next two words ("не может превышать", "no later than")."""
    words = tokens(_ANSWER_WORD.sub("", claim) if claim.opens_sentence else claim)
    return any(w in _NEGATIONS and not any(n[:_STEM_LENGTH] in _BOUND for n in words[at + 1:at + 3])
               for at, w in enumerate(words))


def name_key(word: str) -> str:
    """What two names are compared by: their first characters, case folded."""
    return word.casefold().replace("ё", "е")[:NAME_PREFIX]


def stop_words(language: str) -> frozenset[str]:
    if language not in _STOP_WORDS:
        raise ValueError(f"no stop words for language {language!r}; languages: {', '.join(_STOP_WORDS)}")
    return _STOP_WORDS[language]
