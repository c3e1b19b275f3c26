"""Read the production judge's show/don't-show verdict out of its free-text answer (docs/commands/judge-pipeline.md).

The judge is asked for Yes or No (Да/Нет), but models decorate ("**No.**", "«Да»"), prefix
("Answer: Yes"), explain after the verdict (direct mode) or reason first and end with a strictly
formatted short result (the `reasoned` mode of §8). The parser reads that answer and never guesses:
an answer it cannot place is None, which the classification metrics count as unparseable.

A verdict word is yes, no, да or нет in any case, standing alone: not part of a longer word ("not",
"nothing", "надо", "дано", "no-one" are not verdicts) and followed by punctuation, quotes, markdown,
a spaced dash or the line end, not by another word ("No doubt…") or a question mark ("Yes?").
The rules are tried in order, the first that finds a verdict decides:

1. `marker` — the words after an answer marker open with a verdict word. A marker is
   "Final answer" / "Итоговый ответ" / "Окончательный ответ" anywhere, "Answer", "Verdict",
   "Decision", "Ответ", "Вердикт", "Решение" opening a line (markdown aside), or "the answer" / "my
   answer" within a line ("So the answer is yes") or "ответ" with a colon ("Итак, ответ: нет"),
   followed by a colon, "is", "—" or "="; the words are read on the marker's line or, when that is empty, on the next
   non-empty line. Markers are read from the last one back, and the first that opens with a verdict
   word decides: reasoning may quote the expected format first, and "the answer is grounded in the
   context" is a marker followed by no verdict.
2. `last_line` — the last non-empty line is a verdict word and nothing else but punctuation,
   quotes or markdown ("**No.**"): the short result that ends a reasoned answer.
3. `first_word` — the answer opens with a verdict word ("No. The context does not mention…"):
   a direct answer with its justification after it.

A verdict joined to its opposite ("Yes or no?", "да/нет", "Yes, or no") is ambiguous: the rule that
meets it stops with None. Otherwise, when no rule finds a verdict, the answer is None too, reported
as `ambiguous` if it holds verdict words of both kinds and `no_verdict` if not. The last line
outranks the first word, so a judge that changes its mind ("No. Wait… \\n Yes") is read at its end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Decision = Literal["yes", "no"]
Rule = Literal["marker", "last_line", "first_word", "ambiguous", "no_verdict", "empty"]

_YES = ("yes", "да")
_NOT_LETTER_BEFORE, _NOT_LETTER_AFTER = r"(?<![^\W_])", r"(?![^\W_])"
_VERDICT = re.compile(rf"{_NOT_LETTER_BEFORE}(yes|no|да|нет){_NOT_LETTER_AFTER}", re.IGNORECASE)
# What may follow a verdict word for it to stand alone: punctuation or quotes/markdown, a spaced
# dash, or the end of the line. A hyphen glued to the word makes a compound ("no-one"), not a verdict.
_STANDS_ALONE = re.compile(r"(?=[.,!;:)\]*_\"'»”`]|\s+[-–—]|\s*[–—]|[ \t]*$)")
_LEADING_VERDICT = re.compile(rf"^(?:[^\w?]|_)*(yes|no|да|нет){_NOT_LETTER_AFTER}", re.IGNORECASE)
_JOINED_TO_OPPOSITE = re.compile(
    rf"^[\s,*_\"'»”`]*(?:/|\||\\|or|или|либо)[\s*_\"'«“`]*(yes|no|да|нет){_NOT_LETTER_AFTER}", re.IGNORECASE
)
# "Answer" may be a word of the reasoning ("the answer is grounded"), so it marks the result only at
# the start of a line; "final answer" is unmistakable anywhere.
_MARKER = re.compile(
    r"(?:^[^\w\n]*(?:answer|verdict|decision|ответ|вердикт|решение)"
    rf"|{_NOT_LETTER_BEFORE}(?:(?:final|the|my)\s+answer|(?:итоговый|окончательный)\s+ответ|ответ(?=[\s*_]*[:：]))){_NOT_LETTER_AFTER}"
    r"[\s*_]*(?:[:：=–—]|\s-|\s+is(?![^\W_]))",
    re.IGNORECASE | re.MULTILINE,
)
_VERDICT_LINE = re.compile(r"^(?:[^\w?]|_)*(yes|no|да|нет)(?:[^\w?]|_)*$", re.IGNORECASE)


@dataclass(frozen=True)
class ShowDecision:
    """The verdict ("yes" shows the answer), or None, and the rule that produced it, for the report."""

    decision: Decision | None
    rule: Rule


def _polarity(word: str) -> Decision:
    return "yes" if word.lower() in _YES else "no"


def _opening_verdict(segment: str) -> Decision | Literal["ambiguous"] | None:
    """The verdict word opening `segment` if it stands alone; "ambiguous" if joined to its opposite."""
    match = _LEADING_VERDICT.match(segment)
    if match is None:
        return None
    verdict, tail = _polarity(match.group(1)), segment[match.end() :]
    joined = _JOINED_TO_OPPOSITE.match(tail)
    if joined is not None and _polarity(joined.group(1)) != verdict:
        return "ambiguous"
    return verdict if _STANDS_ALONE.match(tail.split("\n", 1)[0]) else None


def _marked_verdict(text: str) -> Decision | Literal["ambiguous"] | None:
    """The verdict the last answer marker followed by one introduces (on its line, else the next non-empty)."""
    for marker in reversed(list(_MARKER.finditer(text))):
        rest = text[marker.end() :]
        verdict = _opening_verdict(next((line for line in rest.splitlines() if line.strip()), ""))
        if verdict is not None:
            return verdict
    return None


def _last_line(text: str) -> Decision | None:
    last = text.strip().splitlines()[-1]
    match = _VERDICT_LINE.match(last)
    return _polarity(match.group(1)) if match else None


def parse_show_decision(text: str | None) -> ShowDecision:
    """The judge's yes/no verdict by the module's rules, or None with why (never a guess)."""
    if text is None or not text.strip():
        return ShowDecision(None, "empty")
    readings: tuple[tuple[Rule, Decision | Literal["ambiguous"] | None], ...] = (
        ("marker", _marked_verdict(text)),
        ("last_line", _last_line(text)),
        ("first_word", _opening_verdict(text)),
    )
    for rule, verdict in readings:
        if verdict == "ambiguous":
            return ShowDecision(None, "ambiguous")
        if verdict is not None:
            return ShowDecision(verdict, rule)
    kinds = {_polarity(word) for word in _VERDICT.findall(text)}
    return ShowDecision(None, "ambiguous" if len(kinds) == 2 else "no_verdict")
