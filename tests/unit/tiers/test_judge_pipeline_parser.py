"""The production judge's yes/no verdict: decorations, markers, reasoning, ambiguity, look-alike words."""

import pytest

from benchmarks.tiers.judge_pipeline_parser import ShowDecision, parse_show_decision


@pytest.mark.parametrize(
    ("text", "decision", "rule"),
    [
        ("Yes", "yes", "last_line"),
        ("no", "no", "last_line"),
        ("NO.", "no", "last_line"),
        ("  Да  ", "yes", "last_line"),
        ("НЕТ!", "no", "last_line"),
        ('"Yes"', "yes", "last_line"),
        ("«Нет»", "no", "last_line"),
        ("**No.**", "no", "last_line"),
        ("__Yes__", "yes", "last_line"),
        ("`no`", "no", "last_line"),
        ("Answer: Yes", "yes", "marker"),
        ("Ответ: нет", "no", "marker"),
        ("**Answer:** No", "no", "marker"),
        ("**Answer**: Да.", "yes", "marker"),
        ("Итоговый ответ — Да", "yes", "marker"),
        ("The final answer is No.", "no", "marker"),
        ("Reasoning: the context names 1999, the answer says 2001.\nFinal answer: No.", "no", "marker"),
        ("Final answer:\n\n  **Yes**", "yes", "marker"),
        ("Answer with Yes or No.\nThe context supports it.\nAnswer: yes", "yes", "marker"),
        ("Reasoning: dates match. Final answer: **Да**", "yes", "marker"),
        ("- **Verdict:** no", "no", "marker"),
        ("Ответ: Нет.\nОбоснование: ответ — да, только если бы контекст называл цену.", "no", "marker"),
        ("Answer: No.\nNote: the answer is yes only for the 2020 edition.", "no", "marker"),
        # what SmolLM2-135M-Instruct answered: the marker within a line
        ("The answer is yes", "yes", "marker"),
        ("Based on the context, the answer is no.", "no", "marker"),
        ("Итак, ответ: да", "yes", "marker"),
        ("The answer is grounded in the context.\nThe answer is: No", "no", "marker"),
        ("I think the answer is grounded in the context.\nYes", "yes", "last_line"),
        ("The context supports every claim of the answer.\n\nYes", "yes", "last_line"),
        ("Контекст не подтверждает дату.\n**Нет**", "no", "last_line"),
        ("No. The context does not mention the price.", "no", "first_word"),
        ("Yes, the answer is grounded in the context.", "yes", "first_word"),
        ("Да — ответ полностью опирается на контекст.", "yes", "first_word"),
        ("Нет\nпотому что в контексте нет этих данных", "no", "first_word"),
        ("Yes, no hallucinations found.", "yes", "first_word"),
        ("No. Wait, the second paragraph does say it.\nYes", "yes", "last_line"),
    ],
)
def test_verdicts(text, decision, rule):
    assert parse_show_decision(text) == ShowDecision(decision, rule)


@pytest.mark.parametrize(
    "text",
    [
        "Yes or no? Hard to say",
        "Yes/No",
        "да/нет",
        "Да или нет — сложно сказать",
        "Final answer: yes or no, the context is unclear.",
        "Maybe yes, maybe no.",
    ],
)
def test_both_verdicts_is_ambiguous(text):
    assert parse_show_decision(text) == ShowDecision(None, "ambiguous")


@pytest.mark.parametrize(
    "text",
    [
        "not",
        "Nothing in the context supports this.",
        "Надо проверить, дано ли это в контексте.",
        "No-one can tell from this context.",
        "No doubt the answer is right",
        "Yes?",
        "I think the answer should be shown",
        "The answer is not supported.",
        "Нетрудно заметить, что ответ верен",
        "Данные не найдены",
    ],
)
def test_no_standalone_verdict(text):
    assert parse_show_decision(text) == ShowDecision(None, "no_verdict")


@pytest.mark.parametrize("text", [None, "", "   \n\t "])
def test_empty(text):
    assert parse_show_decision(text) == ShowDecision(None, "empty")


def test_marker_without_verdict_falls_through_to_the_last_line():
    assert parse_show_decision("Answer: the context covers it.\nYes") == ShowDecision("yes", "last_line")


def test_verdict_in_the_middle_of_prose_is_not_guessed():
    result = parse_show_decision("I would say yes because the dates match")
    assert result == ShowDecision(None, "no_verdict")
