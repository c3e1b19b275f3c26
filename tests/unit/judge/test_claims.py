"""The offline judge on ordinary answers, in English and Russian: facts joined from two chunks, numbers written
with separators, answers that say more than their reference, empty answers. Each case is one a user met.

The embedder is the zero table (no cosine supports anything), so every verdict here is the fact and overlap
rules' own; `tests/integration/test_offline_ordinary_answers.py` runs the same cases through `bench evaluate`
with the real default embedder.
"""

from __future__ import annotations

import pytest

from benchmarks.judge.catalog import offline_score
from benchmarks.judge.claims import Claim, names, negated, numbers, split_claims, stem, tokens
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.samples import Sample
from tests.unit.judge.offline.test_proxies import TableEmbed

RAW = SimilarityScale(0.0, "test", "en")


def score(metric: str, language: str, **fields) -> float | None:
    sample = Sample(id="s", user_input=fields.pop("question", "?"), **fields)
    found = offline_score(metric, sample, TableEmbed(), scale=RAW, language=language)
    return found.value


# --- facts joined from two chunks ---------------------------------------------------------------

JOINED = {
    "en": (("The Eiffel Tower was completed in March 1889.", "The tower is 330 metres tall."),
           "The Eiffel Tower was completed in March 1889 and is 330 metres tall.",
           "The Eiffel Tower was completed in March 1887 and is 330 metres tall."),
    "ru": (("Эйфелева башня была достроена в марте 1889 года.", "Высота башни составляет 330 метров."),
           "Эйфелева башня была достроена в марте 1889 года, её высота 330 метров.",
           "Эйфелева башня была достроена в марте 1887 года, её высота 330 метров."),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_sentence_joining_two_chunks_is_supported_and_a_changed_fact_in_it_is_not(language):
    contexts, joined, wrong = JOINED[language]
    assert score("faithfulness", language, response=joined, retrieved_contexts=contexts) == 1.0
    assert score("faithfulness", language, response=wrong, retrieved_contexts=contexts) == 0.0


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_reference_joining_two_chunks_is_recalled_and_both_chunks_are_precise(language):
    contexts, joined, _ = JOINED[language]
    assert score("context_recall", language, reference=joined, retrieved_contexts=contexts) == 1.0
    assert score("context_precision", language, reference=joined, retrieved_contexts=contexts) == 1.0


# --- numbers ---------------------------------------------------------------------------------------

NUMBERS = {
    "en": ("Mount Everest rises to 8,849 metres above sea level.",
           ["Mount Everest rises to 8849 metres.", "Mount Everest rises to 8 849 metres.",
            "Mount Everest rises to 8\u00a0849 m."],
           ["Mount Everest rises to 849 metres.", "Mount Everest rises to 8,848 metres."]),
    "ru": ("Наибольшая глубина Байкала составляет 1\u00a0642 метра, средняя 744,4 метра.",
           ["Наибольшая глубина Байкала составляет 1642 метра.", "Наибольшая глубина Байкала 1 642 м.",
            "Наибольшая глубина Байкала 1\u202f642 метра, средняя 744.4 метра."],
           ["Наибольшая глубина Байкала составляет 642 метра.", "Наибольшая глубина Байкала 1 642 м, средняя 744 м."]),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_numbers_match_by_value_whatever_their_separators_and_a_number_sharing_digits_does_not(language):
    context, same, different = NUMBERS[language]
    for response in same:
        assert score("faithfulness", language, response=response, retrieved_contexts=(context,)) == 1.0, response
    for response in different:
        assert score("faithfulness", language, response=response, retrieved_contexts=(context,)) == 0.0, response


def test_numbers_are_read_by_value():
    assert numbers("8,849 and 8 849 and 8\u00a0849 and 8\u202f849") == {"8849"}
    assert numbers("3,5 % или 3.50 %") == {"3.5"}
    assert numbers("1 642 метра, 12 300 человек, 1 000 000 рублей") == {"1642", "12300", "1000000"}
    assert numbers("in 2019 150 people; 1 or 2 tablets") == {"2019", "150", "1", "2"}  # no group after 4 digits
    assert numbers("849 metres") == {"849"}
    assert tokens("8,849 m, 1 642 метра") == ("8849", "metre", "1642", "метра")  # "m" is a unit after a number
    assert tokens("m is a letter") == ("m", "is", "a", "letter")


def test_the_explanation_names_a_missing_number_as_one_number():
    sample = Sample(id="s", response="Байкал глубиной 1 643 метра.",
                    retrieved_contexts=("Байкал глубиной 1 642 метра.",))
    found = offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language="ru")
    assert found.value == 0.0
    assert "(1643 не найдено;" in found.explanation  # a Russian run explains in Russian


# --- names ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("language, context, right, swapped", [
    ("en", "Multi-factor authentication through the Microsoft Authenticator app is mandatory.",
     "Multi-factor authentication through the Microsoft Authenticator app is mandatory for all.",
     "Multi-factor authentication through the Okta Verify app is mandatory for all."),
    ("ru", "Декларацию подают через личный кабинет налогоплательщика на сайте ФНС России.",
     "Декларацию подают через личный кабинет на сайте ФНС России.",
     "Декларацию подают через личный кабинет на сайте Социального фонда России."),
])
def test_a_swapped_name_is_unsupported(language, context, right, swapped):
    assert score("faithfulness", language, response=right, retrieved_contexts=(context,)) == 1.0
    assert score("faithfulness", language, response=swapped, retrieved_contexts=(context,)) == 0.0


def test_names_are_capitals_away_from_the_sentence_start_and_inflections_are_one_name():
    claim, = split_claims("Контейнер отправили в Москву через Казань.")
    assert names(claim) == ("Москву", "Казань")
    assert names(Claim("Uruguay won", opens_sentence=True)) == ()  # a sentence's first word is not taken for one
    assert score("faithfulness", "ru", response="Корабль сделал виток вокруг Землю и приземлился под Москвой.",
                 retrieved_contexts=("Корабль сделал виток вокруг Земли и приземлился под Москву.",)) == 1.0


# --- values said of something else, and negations ---------------------------------------------------------

TWO_BUILDINGS = {
    "en": (("The Eiffel Tower in Paris was completed in March 1889 for the World's Fair.",
            "The Chrysler Building in New York was completed in 1930."),
           "The Eiffel Tower was completed in March 1889.", "The Chrysler Building was completed in March 1889."),
    "ru": (("Эйфелева башня в Париже была достроена в марте 1889 года к Всемирной выставке.",
            "Здание Крайслера в Нью-Йорке было достроено в 1930 году."),
           "Эйфелева башня была достроена в марте 1889 года.", "Здание Крайслера было достроено в марте 1889 года."),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_value_the_contexts_give_of_another_subject_is_unsupported(language):
    """Every word, name and value of the swapped claim is in the contexts, each said of another building."""
    contexts, right, swapped = TWO_BUILDINGS[language]
    assert score("faithfulness", language, response=right, retrieved_contexts=contexts) == 1.0
    sample = Sample(id="s", user_input="?", response=swapped, retrieved_contexts=contexts)
    found = offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language=language)
    assert found.value == 0.0
    assert {"en": "--03, 1889 said of something else", "ru": "--03, 1889 сказано о другом"}[language] in (
        found.explanation or "")


def test_a_sentence_without_a_name_speaks_of_the_one_before_it():
    contexts = ("The Eiffel Tower stands in Paris. It was completed in March 1889.",
                "It is 330 metres tall.")  # a chunk opening without a name may speak of anything
    for response in ("The Eiffel Tower was completed in March 1889.", "The Eiffel Tower is 330 metres tall."):
        assert score("faithfulness", "en", response=response, retrieved_contexts=contexts) == 1.0


NEGATIONS = {
    "en": ("The Eiffel Tower was completed in March 1889.", "The Eiffel Tower was not completed in March 1889.",
           "No, the Eiffel Tower was completed in March 1889."),
    "ru": ("Эйфелева башня была достроена в марте 1889 года.", "Эйфелева башня не была достроена в марте 1889 года.",
           "Нет, Эйфелева башня была достроена в марте 1889 года."),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_claim_negated_unlike_its_context_is_uncertain_and_an_answers_opening_no_is_not_a_negation(language):
    context, negation, answer = NEGATIONS[language]
    sample = Sample(id="s", user_input="?", response=negation, retrieved_contexts=(context,))
    found = offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language=language)
    assert found.value == 0.5  # its words are supported, its polarity is not: neither yes nor no
    assert found.explanation == {"en": "negated unlike the contexts, read as uncertain",
                                 "ru": "отрицание не как в контекстах, прочитано как неопределённое"}[language] + (
        f": «{negation}»")
    assert score("faithfulness", language, response=answer, retrieved_contexts=(context,)) == 1.0
    assert score("faithfulness", language, response=negation, retrieved_contexts=(negation,)) == 1.0


def test_a_negation_bounding_a_quantity_states_a_limit_not_a_denial():
    assert [negated(Claim(text)) for text in (
        "Claims must be filed no later than 30 days after the purchase.", "Срок пребывания не может превышать 16 дней.",
        "Нужно быть не младше 18 лет.", "No, it opened in 1889.", "It did not open in 1889.", "It isn't open.",
        "Нет, башня не открылась.")] == [False, False, False, False, True, True, True]


# --- claims and factual correctness --------------------------------------------------------------


def test_a_conjunction_opening_a_clause_with_its_own_subject_cuts_it_comma_or_not():
    assert split_claims("Эйфелева башня находится в Париже, и её достроили в марте 1889 года.") == (
        "Эйфелева башня находится в Париже", "и её достроили в марте 1889 года.")
    assert split_claims("The Eiffel Tower is in Paris and it was completed in March 1889.") == (
        "The Eiffel Tower is in Paris", "and it was completed in March 1889.")
    assert split_claims("Trains run between Paris and Lyon every hour.") == (
        "Trains run between Paris and Lyon every hour.",)


@pytest.mark.parametrize("language, question, reference, response", [
    ("en", "Where is the Eiffel Tower?", "In Paris.",
     "The Eiffel Tower is in Paris and it was completed in March 1889."),
    ("ru", "Где находится Эйфелева башня?", "В Париже.",
     "Эйфелева башня находится в Париже, и её достроили в марте 1889 года."),
])
def test_extra_detail_in_a_clause_of_its_own_costs_only_precision(language, question, reference, response):
    assert score("factual_correctness", language, question=question, reference=reference,
                 response=response) == pytest.approx(2 / 3)  # precision 1/2, recall 1


def test_small_numbers_written_as_words_are_their_digits():
    assert tokens("up to three days, пяти дней, трёх лет, one-off") == (
        "up", "to", "3", "days", "5", "дней", "3", "лет", "one", "off")
    assert score("faithfulness", "en", response="Staff may work from home up to three days a week.",
                 retrieved_contexts=("Staff may work from home up to 3 days a week.",)) == 1.0


def test_claims_are_cut_at_clauses_and_lists_stay_whole():
    assert split_claims("Leave is 16 weeks at full pay, and it must be taken within a year; "
                        "requests go through HR, DPS, MyDeposits and TDS.") == (
        "Leave is 16 weeks at full pay", "and it must be taken within a year",
        "requests go through HR, DPS, MyDeposits and TDS.")
    assert split_claims("It opened, and so.") == ("It opened, and so.",)  # a piece without content stays joined


@pytest.mark.parametrize("language, reference, response", [
    ("en", "Parental leave is 16 weeks at full pay.",
     "Parental leave is 16 weeks at full pay, and requests go through the HR portal 8 weeks ahead."),
    ("ru", "Отпуск по уходу за ребёнком длится 16 недель с полной оплатой.",
     "Отпуск по уходу за ребёнком длится 16 недель с полной оплатой; заявление подают в портале за 8 недель."),
])
def test_an_answer_covering_the_reference_and_adding_detail_keeps_recall_and_loses_only_precision(
        language, reference, response):
    # recall 1 (the reference's one claim is in the answer), precision 1/2 (one of two claims is in the reference)
    assert score("factual_correctness", language, response=response, reference=reference) == pytest.approx(2 / 3)


# --- empty answers -------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["faithfulness", "factual_correctness", "answer_correctness",
                                    "semantic_similarity"])
@pytest.mark.parametrize("response", ["", "  \n\u00a0"])
def test_an_empty_answer_is_undetermined_for_every_metric_that_reads_it(metric, response):
    sample = Sample(id="s", user_input="?", response=response, reference="Paris.", retrieved_contexts=("Paris.",))
    found = offline_score(metric, sample, TableEmbed(), scale=RAW, language="en")
    assert found.status == "undetermined" and found.value is None
    assert found.explanation == "missing field(s): response (empty)"


@pytest.mark.parametrize("language, question, reference, right, wrong", [
    ("en", "How high is Mount Everest?", "8,849 metres.", "Mount Everest is 8849 metres high.",
     "Mount Everest is 849 metres high."),
    ("ru", "Какова наибольшая глубина Байкала?", "1 642 метра.", "Наибольшая глубина Байкала 1642 метра.",
     "Наибольшая глубина Байкала 642 метра."),
])
def test_a_terse_reference_is_read_beside_its_question(language, question, reference, right, wrong):
    # the answer names the subject the question asked about: that is not a claim the reference lacks
    assert score("factual_correctness", language, question=question, response=right, reference=reference) == 1.0
    assert score("factual_correctness", language, question=question, response=wrong, reference=reference) == 0.0


# --- units and dates as values --------------------------------------------------------------------


@pytest.mark.parametrize("language, question, reference, answers", [
    ("en", "How high is Mount Everest?", "8,849 metres.", ["8849 m", "8849 meters", "8 849 metre"]),
    ("ru", "Какова наибольшая глубина Байкала?", "1642 метра.", ["1642 м", "1642 метров", "1 642 метрах"]),
])
def test_a_unit_written_in_any_form_is_one_unit(language, question, reference, answers):
    for response in answers:
        assert score("factual_correctness", language, question=question, response=response,
                     reference=reference) == 1.0, response


def test_the_words_that_share_a_units_stem_are_not_the_unit():
    assert [stem(t) for t in tokens("метро, миллион, million")] == ["метро", "милли", "milli"]
    assert stem("миллиметров") == stem("mm") == "millimetre"


@pytest.mark.parametrize("language, context, same, other", [
    ("en", "The Bastille was stormed on 14 July 1789.",
     ["The Bastille was stormed on 1789-07-14.", "The Bastille was stormed on 14.07.1789.",
      "The Bastille was stormed on July 14, 1789.", "The Bastille was stormed in 1789."],
     ["The Bastille was stormed on 1789-07-15.", "The Bastille was stormed on 14.08.1789."]),
    ("ru", "Бастилию взяли 14 июля 1789 года.",
     ["Бастилию взяли 1789-07-14.", "Бастилию взяли 14.07.1789.", "Бастилию взяли 14 июля 1789 года.",
      "Бастилию взяли в 1789 году."],
     ["Бастилию взяли 15.07.1789.", "Бастилию взяли 14 августа 1789 года."]),
    ("ru", "Бородинское сражение произошло 26 августа (7 сентября) 1812 года.",
     ["Бородинское сражение произошло 7 сентября 1812 года.", "Бородинское сражение произошло 7.09.1812."],
     ["Бородинское сражение произошло 8 сентября 1812 года."]),
])
def test_one_day_written_two_ways_is_one_value_and_another_day_another(language, context, same, other):
    for response in same:
        assert score("faithfulness", language, response=response, retrieved_contexts=(context,)) == 1.0, response
    for response in other:
        assert score("faithfulness", language, response=response, retrieved_contexts=(context,)) == 0.0, response


def test_dates_are_read_by_their_parts_the_month_as_iso_writes_it_alone():
    assert tokens("14 июля 1789 года") == ("14", "--07", "1789")  # the year's word belongs to the date
    assert tokens("Sept. 3, 2001") == tokens("2001-09-03") == ("3", "--09", "2001")
    assert numbers("16 (27) мая 1703 года") == {"16", "27", "--05", "1703"}  # a day written two ways
    assert numbers("completed in March 1889") == {"--03", "1889"}
    # a word that only looks like a month is a word: a modal, a name, a lighthouse, an impossible date
    assert numbers("You may submit it in march. Мартин, маяк, 31.13.2020") == {"31.13", "2020"}


@pytest.mark.parametrize("language, question, reference", [
    ("en", "When was the Bastille stormed?", "14 July 1789."), ("ru", "Когда взяли Бастилию?", "14 июля 1789 года.")])
def test_a_date_answers_a_reference_that_writes_the_day_another_way(language, question, reference):
    for response in ("1789-07-14", "14.07.1789"):
        assert score("factual_correctness", language, question=question, response=response,
                     reference=reference) == 1.0, response
    assert score("factual_correctness", language, question=question, response="15.07.1789", reference=reference) == 0.0


# --- short answers read with their question -------------------------------------------------------

SHORT = {
    "en": ("How long do employees have to submit an expense claim?",
           "Employees must submit expense claims within 30 days of the purchase. The finance team reimburses "
           "approved amounts within 14 days.", "30 days.", "14 days."),
    "ru": ("За сколько дней сотрудник должен подать авансовый отчёт?",
           "Сотрудник должен подать авансовый отчёт в течение 30 дней после покупки. Бухгалтерия возмещает "
           "одобренные суммы в течение 14 дней.", "30 дней.", "14 дней."),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_short_answer_is_read_where_its_facts_stand_beside_the_question(language):
    """Both numbers are in the context; only the sentence holding the right one says what the question asks."""
    question, context, right, other = SHORT[language]
    sample = Sample(id="s", user_input=question, response=other, retrieved_contexts=(context,))
    wrong = offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language=language)
    rightly = score("faithfulness", language, question=question, response=right, retrieved_contexts=(context,))
    assert rightly is not None and wrong.value is not None and rightly > wrong.value > 0
    # supported, but said of something else: from the floor 0.25, by the share of the question its sentence says
    said_of, words, note = {"en": (0, 5, "question words beside the answer"),
                            "ru": (1, 7, "слова вопроса рядом с ответом")}[language]  # "дней" is the answer's own
    assert wrong.explanation == f"{note}: {said_of}/{words}"
    assert wrong.value == pytest.approx(0.25 + 0.75 * said_of / words, abs=1e-12)


def test_a_short_answer_is_read_in_the_clause_that_holds_it():
    """Both values stand in one sentence; only the clause holding the right one names what was asked."""
    context = ("The dustbin holds 450 ml, while the separate water tank for mopping holds 300 ml.",)
    question = "What is the capacity of the water tank?"  # content: capacity, water, tank
    right = score("faithfulness", "en", question=question, response="300 ml.", retrieved_contexts=context)
    wrong = score("faithfulness", "en", question=question, response="450 ml.", retrieved_contexts=context)
    assert right == pytest.approx(0.25 + 0.75 * 2 / 3) and wrong == pytest.approx(0.25)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_an_answer_that_restates_the_question_or_says_more_is_scored_as_before(language):
    question, context, _, _ = SHORT[language]
    restated = context.split(". ")[0] + "."
    assert score("faithfulness", language, question=question, response=restated, retrieved_contexts=(context,)) == 1.0
