"""The seeds' worked examples through the whole judge path, over real HTTP.

A scripted judge recognises which template it was sent, reads the template's variables back out of
the rendered prompt and answers as a correct judge would for that example. `LLMJudge.score` then
renders, calls the real `LLMService`, parses, repairs and scores; each test checks the exact value
the formula gives, the seed's stated expectation, and the number of chat calls the metric documents.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from benchmarks.chat.client import LLMService
from benchmarks.config import load_settings
from benchmarks.judge.catalog import BUILTINS, CALLS
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.llm.prompts import load_template
from benchmarks.judge.options import JudgeOptions
from benchmarks.metrics.judged import AnswerCorrectnessWeights
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample
from tests.calibration.cases import CASES
from tests.integration.openai_server import FakeOpenAI, Reply

pytestmark = pytest.mark.integration

MODEL = "scripted-judge"
# the seeds' examples are raw cosines of hand-made vectors: the calibrated scale with baseline 0 is the seeds'
# formula (every example cosine is at least 0, so nothing is clipped)
SEED_SCALE = SimilarityScale(0.0, "seed vectors", "en")


# --- reading a rendered prompt back into its template and variables ------------------------------


def _pattern(template: str) -> re.Pattern[str]:
    """A regex that inverts `template.format(...)`: each placeholder becomes a named group."""
    parts, seen = [], set()
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name is not None:
            parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.*?)")
            seen.add(name)
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


def seed_sample(case: str) -> Sample:
    """A seed example's sample as tests/calibration/cases.py words it: the scripted judge here and the real
    judge there read the same texts."""
    return CASES[case][2]


PATTERNS = {(call, language): _pattern(load_template(call, language)) for call in CALLS for language in ("en", "ru")}


def identify(prompt: str, language: str) -> tuple[str, dict[str, str]]:
    """The call whose template rendered `prompt`, and the variables it was rendered with."""
    found = [(call, m.groupdict()) for call in CALLS if (m := PATTERNS[call, language].match(prompt))]
    assert len(found) == 1, f"prompt matches {len(found)} templates: {prompt[:120]!r}"
    return found[0]


# --- the scripted judge -----------------------------------------------------------------------


@dataclass
class ScriptedJudge:
    """Answers each judge call from tables of what a correct judge says about one seed example."""

    language: str
    statements: Mapping[str, Sequence[str]] = field(default_factory=dict)  # text -> statements
    claims: Mapping[str, Sequence[str]] = field(default_factory=dict)  # text -> claims
    entities: Mapping[str, Sequence[str]] = field(default_factory=dict)  # text -> entities
    supports: Mapping[str, set[str]] = field(default_factory=dict)  # premise -> statements it supports
    useful: Mapping[str, int] = field(default_factory=dict)  # context -> usefulness verdict
    attributions: Mapping[str, Sequence[tuple[str, int]]] = field(default_factory=dict)  # reference -> sentences
    questions: Mapping[str, Sequence[tuple[str, int]]] = field(default_factory=dict)  # response -> (q, noncommittal)
    ratings: Mapping[str, int] = field(default_factory=dict)  # context -> 0/1/2
    classification: Mapping[str, Sequence[str]] | None = None  # {"TP": [...], "FP": [...], "FN": [...]}
    drop_a_verdict: str = ""  # "first": the first verdict answer skips a statement; "always": every one does
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    unscripted: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        call, variables = identify(messages[0]["content"], self.language)
        self.seen.append((call, variables))
        try:
            answer = self.answer(call, variables, body, repair=len(messages) > 1)
        except KeyError as missing:
            self.unscripted.append(f"{call}: {missing}")
            return Reply(text="(no scripted answer)")
        return Reply(text=json.dumps(answer, ensure_ascii=False))

    def answer(self, call: str, v: dict[str, str], body: dict[str, Any], repair: bool) -> dict[str, Any]:
        reason = "checked" if self.language == "en" else "проверено"
        if call == "statements":
            return {"statements": list(self.statements[v["text"]])}
        if call == "claims":
            return {"claims": list(self.claims[v["text"]])}
        if call == "entities":
            return {"entities": list(self.entities[v["text"]])}
        if call == "statement_verdicts":
            supported = self.supports.get(v["context"], set())
            verdicts = [{"statement": s, "reason": reason, "verdict": int(s in supported)}
                        for s in json.loads(v["statements"])]
            if self.drop_a_verdict == "always" or (self.drop_a_verdict == "first" and not repair):
                verdicts = verdicts[1:]
            return {"verdicts": verdicts}
        if call == "context_usefulness":
            return {"reason": reason, "verdict": self.useful[v["context"]]}
        if call == "reference_attribution":
            return {"classifications": [{"statement": s, "reason": reason, "attributed": a}
                                        for s, a in self.attributions[v["reference"]]]}
        if call == "question_generation":
            question, noncommittal = self.questions[v["response"]][body["seed"]]
            return {"question": question, "reason": reason, "noncommittal": noncommittal}
        if call == "context_rating":
            return {"reason": reason, "rating": self.ratings[v["context"]]}
        if call == "statement_classification":
            assert self.classification is not None, "no classification scripted"
            return {side: [{"statement": s, "reason": reason} for s in self.classification[side]]
                    for side in ("TP", "FP", "FN")}
        raise KeyError(call)


def lookup(table: Mapping[str, Sequence[float]]):
    """A deterministic embedding function: each text's vector from a table."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.array([table[t] for t in texts], dtype=float)

    return embed


@dataclass
class Run:
    outcome: Outcome
    requests: list[dict[str, Any]]
    judge: ScriptedJudge


STATEMENTS = JudgeOptions(verdicts="statements")


def run(tmp_path, judge: ScriptedJudge, metric: str, sample: Sample, *, embed=None,
        options: JudgeOptions | None = None) -> Run:
    """Score one sample with a fresh server, a fresh service (cache off) and the scripted judge, which answers the
    RAGAS-style statement and verdict lists (statements verdicts; yes-no verdicts: test_yes_no_verdicts.py)."""
    with FakeOpenAI() as server:
        server.responder = judge
        settings, _ = load_settings({"data_dir": str(tmp_path), "llm_cache": False},
                                    environ={"BENCH_LLM_BASE_URL": server.base_url, "BENCH_LLM_MODEL": MODEL})

        async def go() -> Outcome:
            async with LLMService(settings) as service:
                return await LLMJudge(service, judge.language, embed, options or STATEMENTS, metrics=BUILTINS,
                                      scale=SEED_SCALE).score(metric, sample, MODEL)

        outcome = asyncio.run(go())
        requests = server.chat_requests
    assert judge.unscripted == [], judge.unscripted
    return Run(outcome, requests, judge)


def ok(result: Run, value: float, calls: int) -> float:
    """The outcome is ok with exactly `value`, after exactly `calls` chat requests."""
    outcome = result.outcome
    assert outcome.status == "ok", outcome.explanation
    assert outcome.value == pytest.approx(value, abs=1e-12)
    assert outcome.calls == calls
    assert len(result.requests) == calls
    assert all(r["body"]["model"] == MODEL for r in result.requests)
    return outcome.value


def cos(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=False)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))


# --- ContextEntityRecall (seeds 000 ru, 001 en) --------------------------------------------------

CER = {
    "en": {
        "high": Sample("cer-high", reference="The Eiffel Tower is located in Paris, France. "
                       "It was completed in 1889 for the World's Fair.",
                       retrieved_contexts=(
                           "The Eiffel Tower, located in Paris, France, is one of the most iconic landmarks.",
                           "Completed in 1889, it was constructed for the 1889 World's Fair.",
                           "Millions of visitors are attracted to it each year.")),
        "high_ref": ["Eiffel Tower", "Paris", "France", "1889", "World's Fair"],
        "high_ctx": ["Eiffel Tower", "Paris", "France", "1889", "World's Fair"],
        "poor": Sample("cer-poor", reference="Albert Einstein was born in Ulm, Germany on March 14, 1879. "
                       "He won the Nobel Prize in Physics in 1921.",
                       retrieved_contexts=("Physics is a fundamental science that studies matter and energy.",
                                           "Scientists have made many important discoveries throughout history.")),
        "poor_ref": ["Albert Einstein", "Ulm", "Germany", "March 14, 1879", "Nobel Prize in Physics", "1921"],
    },
    "ru": {
        "high": Sample("cer-high", reference="Эйфелева башня расположена в Париже, Франция. "
                       "Она была завершена в 1889 году для Всемирной выставки.",
                       retrieved_contexts=(
                           ("Эйфелева башня, расположенная в Париже, Франция, является одной из самых знаковых "
                           "достопримечательностей."),
                           "Завершённая в 1889 году, она была построена для Всемирной выставки 1889 года.",
                           "Миллионы посетителей ежегодно привлекаются к ней захватывающими видами.")),
        "high_ref": ["Эйфелева башня", "Париж", "Франция", "1889", "Всемирная выставка"],
        "high_ctx": ["Эйфелева башня", "Париж", "Франция", "1889", "Всемирная выставка"],
        "poor": Sample("cer-poor", reference="Альберт Эйнштейн родился в Ульме, Германия, 14 марта 1879 года. "
                       "Он получил Нобелевскую премию по физике в 1921 году.",
                       retrieved_contexts=("Физика — фундаментальная наука, изучающая материю и энергию.",
                                           "Учёные сделали множество важных открытий на протяжении истории.")),
        "poor_ref": ["Альберт Эйнштейн", "Ульм", "Германия", "14 марта 1879", "Нобелевская премия по физике", "1921"],
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_context_entity_recall_high_coverage(tmp_path, language):
    ex = CER[language]
    sample = ex["high"]
    judge = ScriptedJudge(language, entities={sample.reference: ex["high_ref"],
                                              "\n\n".join(sample.retrieved_contexts): ex["high_ctx"]})
    value = ok(run(tmp_path, judge, "context_entity_recall", sample), 1.0, calls=2)
    assert value >= 0.7


@pytest.mark.parametrize("language", ["en", "ru"])
def test_context_entity_recall_poor_coverage(tmp_path, language):
    ex = CER[language]
    sample = ex["poor"]
    # the contexts name no entity of the reference; "1921" alone would be found, as a check of |R ∩ C| / |R|
    judge = ScriptedJudge(language, entities={sample.reference: ex["poor_ref"],
                                              "\n\n".join(sample.retrieved_contexts): ["1921"]})
    value = ok(run(tmp_path, judge, "context_entity_recall", sample), 1 / 6, calls=2)
    assert value <= 0.3


# --- ContextPrecision ------------------------------------------------------------------------------

CP_REFERENCE = {lang: seed_sample(f"context_precision/{lang}/reference") for lang in ("en", "ru")}
CP_ORDERING = {lang: seed_sample(f"context_precision/{lang}/irrelevant-first") for lang in ("en", "ru")}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_context_precision_reference_based(tmp_path, language):
    sample = CP_REFERENCE[language]
    first, second, third = sample.retrieved_contexts
    judge = ScriptedJudge(language, useful={first: 1, second: 1, third: 0})
    result = run(tmp_path, judge, "context_precision", sample)
    value = ok(result, 1.0, calls=3)  # AP = (1/1 + 2/2) / 2: a useless context ranked last costs nothing
    assert value >= 0.8
    assert {v["reference"] for _, v in judge.seen} == {sample.reference}  # judged against the reference


@pytest.mark.parametrize("language", ["en", "ru"])
def test_context_precision_irrelevant_context_ranked_first(tmp_path, language):
    sample = CP_ORDERING[language]
    first, second, third = sample.retrieved_contexts
    judge = ScriptedJudge(language, useful={first: 0, second: 1, third: 1})
    value = ok(run(tmp_path, judge, "context_precision", sample), (1 / 2 + 2 / 3) / 2, calls=3)
    assert value <= 0.7
    assert {v["reference"] for _, v in judge.seen} == {sample.response}  # no reference: judged against the response


# --- ContextRecall ---------------------------------------------------------------------------------

CR = {
    "en": (Sample("cr", user_input="Tell me about photosynthesis",
                  reference="Photosynthesis converts light energy to chemical energy. It occurs in chloroplasts. "
                  "The process requires CO₂, water, and sunlight. Oxygen is released as a byproduct.",
                  retrieved_contexts=(
                      "Photosynthesis is a process where plants convert sunlight into chemical energy.",
                      "Chloroplasts are organelles in plant cells where photosynthesis occurs.",
                      "During photosynthesis, oxygen is produced as a waste product.",
                      "The process requires carbon dioxide, water, and light energy.")),
           ["Photosynthesis converts light energy to chemical energy.", "It occurs in chloroplasts.",
            "The process requires CO₂, water, and sunlight.", "Oxygen is released as a byproduct."]),
    "ru": (Sample("cr", user_input="Расскажите о фотосинтезе",
                  reference="Фотосинтез преобразует световую энергию в химическую. Он происходит в хлоропластах. "
                  "Процесс требует CO₂, воды и солнечного света. Кислород выделяется как побочный продукт.",
                  retrieved_contexts=(
                      "Фотосинтез — процесс, при котором растения преобразуют солнечный свет в химическую энергию.",
                      "Хлоропласты — органеллы в растительных клетках, где происходит фотосинтез.",
                      "Во время фотосинтеза кислород производится как побочный продукт.",
                      "Процесс требует углекислого газа, воды и световой энергии.")),
           ["Фотосинтез преобразует световую энергию в химическую.", "Он происходит в хлоропластах.",
            "Процесс требует CO₂, воды и солнечного света.", "Кислород выделяется как побочный продукт."]),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_context_recall_every_sentence_attributed(tmp_path, language):
    sample, sentences = CR[language]
    judge = ScriptedJudge(language, attributions={sample.reference: [(s, 1) for s in sentences]})
    value = ok(run(tmp_path, judge, "context_recall", sample), 1.0, calls=1)
    assert value >= 0.9
    assert judge.seen[0][1]["context"] == "\n\n".join(sample.retrieved_contexts)


# --- Faithfulness ----------------------------------------------------------------------------------

FAITHFUL = {
    "en": (seed_sample("faithfulness/en/supported"),
           ["The first Super Bowl was held on January 15, 1967."]),
    "ru": (seed_sample("faithfulness/ru/supported"),
           ["Первый Суперкубок состоялся 15 января 1967 года."]),
}
HALLUCINATED = {
    "en": (seed_sample("faithfulness/en/hallucinated"),
           ["John is taking Data Structures.", "John is taking Algorithms.", "John is taking Artificial Intelligence.",
            "John has a part-time job at the university library."]),
    "ru": (seed_sample("faithfulness/ru/hallucinated"),
           ["Иван посещает курс по Структурам данных.", "Иван посещает курс по Алгоритмам.",
            "Иван посещает курс по Искусственному интеллекту.",
            "Иван работает на полставки в университетской библиотеке."]),
}


def faithfulness_judge(language: str, example, supported: int) -> ScriptedJudge:
    """Statements of the response; the first `supported` of them follow from the context."""
    sample, statements = example
    return ScriptedJudge(language, statements={sample.response: statements},
                         supports={sample.retrieved_contexts[0]: set(statements[:supported])})


@pytest.mark.parametrize("language", ["en", "ru"])
def test_faithfulness_fully_supported(tmp_path, language):
    judge = faithfulness_judge(language, FAITHFUL[language], supported=1)
    value = ok(run(tmp_path, judge, "faithfulness", FAITHFUL[language][0]), 1.0, calls=2)
    assert value >= 0.9


@pytest.mark.parametrize("language", ["en", "ru"])
def test_faithfulness_hallucinated_course_and_job(tmp_path, language):
    judge = faithfulness_judge(language, HALLUCINATED[language], supported=2)
    result = run(tmp_path, judge, "faithfulness", HALLUCINATED[language][0])
    value = ok(result, 2 / 4, calls=2)
    assert value <= 0.7
    assert HALLUCINATED[language][1][3] in result.outcome.explanation  # the rejected statement is reported


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_wrong_number_of_verdicts_is_repaired(tmp_path, language):
    judge = faithfulness_judge(language, HALLUCINATED[language], supported=2)
    judge.drop_a_verdict = "first"
    result = run(tmp_path, judge, "faithfulness", HALLUCINATED[language][0])
    ok(result, 2 / 4, calls=2 + 1)
    repair = result.requests[-1]["body"]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert "expected 4 verdicts" in repair[-1]["content"]
    assert [r["attempt"] for r in result.outcome.raw] == ["first", "first", "repair"]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_wrong_number_of_verdicts_twice_is_a_parse_error(tmp_path, language):
    judge = faithfulness_judge(language, HALLUCINATED[language], supported=2)
    judge.drop_a_verdict = "always"
    result = run(tmp_path, judge, "faithfulness", HALLUCINATED[language][0])
    assert result.outcome.status == "parse_error"
    assert result.outcome.value is None
    assert "statement_verdicts" in result.outcome.explanation
    assert result.outcome.calls == len(result.requests) == 2 + 1


# --- NoiseSensitivity ------------------------------------------------------------------------------

EARTHQUAKES = {
    "en": (Sample("ns", user_input="What causes earthquakes?",
                  response="Earthquakes are caused by tectonic plate movement.",
                  reference="Earthquakes are caused by movement of tectonic plates. "
                  "Plates suddenly shift and release energy.",
                  retrieved_contexts=("Tectonic plates are large sections of Earth's crust that move slowly.",
                                      "When tectonic plates collide, they can cause earthquakes.",
                                      "Seismic waves are energy released during earthquakes.",
                                      "Best time to visit Japan is during cherry blossom season.")),
           ["Earthquakes are caused by tectonic plate movement."],
           ["Earthquakes are caused by movement of tectonic plates.", "Plates suddenly shift and release energy."]),
    "ru": (Sample("ns", user_input="Что вызывает землетрясения?",
                  response="Землетрясения вызываются движением тектонических плит.",
                  reference="Землетрясения вызываются движением тектонических плит. "
                  "Плиты внезапно сдвигаются и высвобождают энергию.",
                  retrieved_contexts=("Тектонические плиты — большие участки земной коры, которые медленно движутся.",
                                      "Когда тектонические плиты сталкиваются, они могут вызывать землетрясения.",
                                      "Сейсмические волны — это энергия, высвобождающаяся во время землетрясений.",
                                      "Лучшее время для посещения Японии — сезон цветения сакуры.")),
           ["Землетрясения вызываются движением тектонических плит."],
           ["Землетрясения вызываются движением тектонических плит.",
            "Плиты внезапно сдвигаются и высвобождают энергию."]),
}


@pytest.mark.parametrize("language", ["en", "ru"])
def test_noise_sensitivity_robust_answer(tmp_path, language):
    sample, response, reference = EARTHQUAKES[language]
    contexts = sample.retrieved_contexts
    judge = ScriptedJudge(language, statements={sample.response: response, sample.reference: reference},
                          supports={sample.reference: {response[0]},
                                    contexts[1]: {reference[0], response[0]}})
    value = ok(run(tmp_path, judge, "noise_sensitivity", sample), 0.0, calls=3 + 2 * len(contexts))
    assert value <= 0.3


def test_noise_sensitivity_irrelevant_mode_ru(tmp_path):
    sample = Sample("ns-irr", user_input="Какая столица Франции?",
                    response="Париж — столица Франции. Там прекрасная погода круглый год.",
                    reference="Париж — столица Франции.",
                    retrieved_contexts=("Париж — столица и крупнейший город Франции.",
                                        "Погода в Париже меняется в зависимости от сезона.",
                                        "Французская кухня славится круассанами и вином."))
    capital, weather = "Париж — столица Франции.", "В Париже прекрасная погода круглый год."
    judge = ScriptedJudge("ru", statements={sample.response: [capital, weather], sample.reference: [capital]},
                          supports={sample.reference: {capital}, sample.retrieved_contexts[0]: {capital}})
    # the weather claim is wrong, but no context supports it, so no noise is to blame: 0 of 2
    value = ok(run(tmp_path, judge, "noise_sensitivity", sample, options=JudgeOptions(noise_mode="irrelevant")),
               0.0, calls=3 + 2 * 3)
    assert 0.0 <= value <= 1.0
    # had the irrelevant weather context "supported" it, the claim would be traced to noise: 1 of 2
    judge = ScriptedJudge("ru", statements={sample.response: [capital, weather], sample.reference: [capital]},
                          supports={sample.reference: {capital}, sample.retrieved_contexts[0]: {capital},
                                    sample.retrieved_contexts[1]: {weather}})
    ok(run(tmp_path, judge, "noise_sensitivity", sample, options=JudgeOptions(noise_mode="irrelevant")),
       0.5, calls=9)


# --- ResponseRelevancy (embeddings from a table; the cosines below are worked out by hand) ------------

Q = (1.0, 0.0)  # the user's question
SAME = (1.0, 0.0)  # cos 1
CLOSE = (0.96, 0.28)  # cos 0.96 (unit vector)
PARTIAL = (0.6, 0.8)  # cos 0.6
HALF = (0.8, 0.6)  # cos 0.8

RELEVANCY = {
    # language, case: (user_input, response, [(generated question, noncommittal, its vector)], expected, check)
    ("en", "complete"): ("Where is France located and what is its capital?",
                         "France is located in Western Europe, and its capital is Paris.",
                         [("Where is France located and what is its capital?", 0, SAME),
                          ("In which part of Europe is France, and what is its capital city?", 0, CLOSE),
                          ("What is the capital of France and where is the country located?", 0, CLOSE)],
                         (1 + 0.96 + 0.96) / 3, lambda s: s >= 0.85),
    ("en", "incomplete"): ("Where is France located and what is its capital?",
                           "France is located in Western Europe.",
                           [("Where is France located?", 0, PARTIAL), ("In which region is France?", 0, PARTIAL),
                            ("Where in Europe is France located?", 0, HALF)],
                           (0.6 + 0.6 + 0.8) / 3, lambda s: 0.5 <= s <= 0.8),
    ("en", "noncommittal"): ("What is the capital of France?", "I don't know what the capital of France is.",
                             [("What is the capital of France?", 1, SAME)] * 3, 0.0, lambda s: s < 0.1),
    ("ru", "complete"): ("Где находится Франция и какая её столица?",
                         "Франция находится в Западной Европе, и её столица — Париж.",
                         [("Где находится Франция и какая её столица?", 0, SAME),
                          ("В какой части Европы находится Франция и какой город её столица?", 0, CLOSE),
                          ("Какая столица у Франции и где расположена эта страна?", 0, CLOSE)],
                         (1 + 0.96 + 0.96) / 3, lambda s: s >= 0.85),
    ("ru", "incomplete"): ("Где находится Франция и какая её столица?", "Франция находится в Западной Европе.",
                           [("Где находится Франция?", 0, PARTIAL), ("В каком регионе находится Франция?", 0, PARTIAL),
                            ("В какой части Европы расположена Франция?", 0, HALF)],
                           (0.6 + 0.6 + 0.8) / 3, lambda s: 0.5 <= s <= 0.8),
    ("ru", "noncommittal"): ("Какая столица Франции?", "Я не знаю, какая столица Франции.",
                             [("Какая столица Франции?", 1, SAME)] * 3, 0.0, lambda s: s < 0.1),
}


@pytest.mark.parametrize("language, case", list(RELEVANCY))
def test_response_relevancy(tmp_path, language, case):
    user_input, response, generated, expected, meets_seed = RELEVANCY[language, case]
    table = {user_input: Q, **{question: vector for question, _, vector in generated}}
    judge = ScriptedJudge(language, questions={response: [(q, n) for q, n, _ in generated]})
    result = run(tmp_path, judge, "response_relevancy", Sample("rr", user_input=user_input, response=response),
                 embed=lookup(table))
    value = ok(result, expected, calls=3)
    assert meets_seed(value)
    assert sorted(r["body"]["seed"] for r in result.requests) == [0, 1, 2]  # three distinct requests
    assert cos(Q, CLOSE) == pytest.approx(0.96) and cos(Q, HALF) == pytest.approx(0.8)


def test_response_relevancy_five_questions_ru(tmp_path):
    user_input = "Объясните квантовую запутанность и её применения"
    response = ("Квантовая запутанность — это явление, при котором частицы становятся взаимосвязанными. "
                "Она применяется в квантовых вычислениях и криптографии.")
    generated = [("Что такое квантовая запутанность и где она применяется?", 0, SAME),
                 ("Как применяется квантовая запутанность?", 0, HALF),
                 ("Что такое квантовая запутанность?", 0, HALF),
                 ("Объясните квантовую запутанность и её применения.", 0, SAME),
                 ("Где используют запутанные частицы?", 0, PARTIAL)]
    table = {user_input: Q, **{q: v for q, _, v in generated}}
    judge = ScriptedJudge("ru", questions={response: [(q, n) for q, n, _ in generated]})
    result = run(tmp_path, judge, "response_relevancy", Sample("rr5", user_input=user_input, response=response),
                 embed=lookup(table), options=JudgeOptions(questions=5))
    value = ok(result, (1 + 0.8 + 0.8 + 1 + 0.6) / 5, calls=5)
    assert value >= 0.7


# --- ContextRelevance, NVIDIA style (seed 002, ru) -------------------------------------------------


def test_context_relevance_mixed_ru(tmp_path):
    relevant = ("Машинное обучение — это подраздел искусственного интеллекта, позволяющий системам автоматически "
                "обучаться и совершенствоваться на основе опыта без явного программирования.")
    weather = "Прогноз погоды обещает переменную облачность завтра."
    sample = Sample("cr-nv", user_input="Что такое машинное обучение и как оно работает?",
                    retrieved_contexts=(relevant, weather))
    result = run(tmp_path, ScriptedJudge("ru", ratings={relevant: 2, weather: 0}), "context_relevance", sample)
    assert ok(result, 0.5, calls=2) == (2 / 2 + 0 / 2) / 2
    assert {r["body"]["temperature"] for r in result.requests} == {0.1}


# --- SemanticSimilarity (seed 003, ru; no judge call at all) -------------------------------------

SIMILARITY = [
    # response, reference, vectors, threshold, expected, seed's check
    ("Машинное обучение - это раздел искусственного интеллекта.",
     "ML - это ветвь ИИ, позволяющая системам учиться на данных.", (Q, HALF), None, 0.8, lambda s: s >= 0.7),
    ("Сегодня погода солнечная и тёплая.", "Квантовые компьютеры используют кубиты для вычислений.",
     (Q, (0.28, 0.96)), None, 0.28, lambda s: s <= 0.5),
    ("Python - язык программирования для веб-разработки.",
     "Python - универсальный язык программирования для веб-приложений.", (Q, CLOSE), 0.8, 1.0,
     lambda s: s in (0.0, 1.0)),
]


@pytest.mark.parametrize("response, reference, vectors, threshold, expected, meets_seed", SIMILARITY)
def test_semantic_similarity_ru(tmp_path, response, reference, vectors, threshold, expected, meets_seed):
    embed = lookup({response: vectors[0], reference: vectors[1]})
    result = run(tmp_path, ScriptedJudge("ru"), "semantic_similarity",
                 Sample("ss", response=response, reference=reference), embed=embed,
                 options=JudgeOptions(threshold=threshold))
    value = ok(result, expected, calls=0)
    assert meets_seed(value)


# --- FactualCorrectness (seed 003, ru) -------------------------------------------------------------

EINSTEIN_OK = Sample("fc-ok", response="Альберт Эйнштейн был немецким физиком. Он разработал теорию относительности. "
                     "Он получил Нобелевскую премию по физике в 1921 году.",
                     reference="Альберт Эйнштейн родился в Германии в 1879 году. Он известен разработкой теории "
                     "относительности. Эйнштейн получил Нобелевскую премию по физике в 1921 году.")
EINSTEIN_BAD = Sample("fc-bad", response="Эйнштейн родился во Франции. Он изобрёл телефон. "
                      "Он получил Нобелевскую премию по химии.",
                      reference="Альберт Эйнштейн родился в Германии. Он разработал теорию относительности. "
                      "Он получил Нобелевскую премию по физике.")
PARIS = Sample("fc-paris", response="Париж - столица Франции.",
               reference="Париж - столица Франции. Население составляет более 2 миллионов человек.")


def test_factual_correctness_accurate_answer_ru(tmp_path):
    response = ["Альберт Эйнштейн был немецким физиком.", "Альберт Эйнштейн разработал теорию относительности.",
                "Альберт Эйнштейн получил Нобелевскую премию по физике в 1921 году."]
    reference = ["Альберт Эйнштейн родился в Германии.", "Альберт Эйнштейн родился в 1879 году.",
                 "Альберт Эйнштейн известен разработкой теории относительности.",
                 "Альберт Эйнштейн получил Нобелевскую премию по физике в 1921 году."]
    judge = ScriptedJudge("ru", claims={EINSTEIN_OK.response: response, EINSTEIN_OK.reference: reference},
                          supports={EINSTEIN_OK.reference: set(response),
                                    EINSTEIN_OK.response: {reference[0], reference[2], reference[3]}})
    # precision 3/3, recall 3/4 (the year of birth is not in the response): F1 = 2·1·0.75 / 1.75 = 6/7
    value = ok(run(tmp_path, judge, "factual_correctness", EINSTEIN_OK), 6 / 7, calls=4)
    assert value >= 0.8


def test_factual_correctness_errors_detected_ru(tmp_path):
    response = ["Эйнштейн родился во Франции.", "Эйнштейн изобрёл телефон.",
                "Эйнштейн получил Нобелевскую премию по химии."]
    reference = ["Альберт Эйнштейн родился в Германии.", "Альберт Эйнштейн разработал теорию относительности.",
                 "Альберт Эйнштейн получил Нобелевскую премию по физике."]
    judge = ScriptedJudge("ru", claims={EINSTEIN_BAD.response: response, EINSTEIN_BAD.reference: reference})
    value = ok(run(tmp_path, judge, "factual_correctness", EINSTEIN_BAD), 0.0, calls=4)
    assert value <= 0.3


@pytest.mark.parametrize("mode, expected, meets_seed", [
    ("precision", 1.0, lambda s: s >= 0.9),
    ("recall", 0.5, lambda s: 0.4 <= s <= 0.7),
])
def test_factual_correctness_modes_ru(tmp_path, mode, expected, meets_seed):
    capital, population = "Париж — столица Франции.", "Население Парижа составляет более 2 миллионов человек."
    judge = ScriptedJudge("ru", claims={PARIS.response: [capital], PARIS.reference: [capital, population]},
                          supports={PARIS.reference: {capital}, PARIS.response: {capital}})
    result = run(tmp_path, judge, "factual_correctness", PARIS, options=JudgeOptions(factual_mode=mode))
    value = ok(result, expected, calls=2)
    assert meets_seed(value)
    decomposed = {v["text"] for call, v in judge.seen if call == "claims"}
    assert decomposed == {PARIS.response if mode == "precision" else PARIS.reference}


def test_factual_correctness_recall_with_ragas_counting_asks_the_response_claims_too(tmp_path):
    """RAGAS decomposes and verifies the response in recall mode as well (4 calls), and counts tp over its claims:
    the Paris example's recall is 1 / (1 + 1) = 0.5 here too, but from response claims (tp 1) and missed reference
    claims (fn 1)."""
    capital, population = "Париж — столица Франции.", "Население Парижа составляет более 2 миллионов человек."
    judge = ScriptedJudge("ru", claims={PARIS.response: [capital, capital + " Это так."],
                                        PARIS.reference: [capital, population]},
                          supports={PARIS.reference: {capital, capital + " Это так."}, PARIS.response: {capital}})
    sides = run(tmp_path, judge, "factual_correctness", PARIS, options=JudgeOptions(factual_mode="recall"))
    assert ok(sides, 0.5, calls=2) == 0.5  # one of the reference's two claims
    judge = ScriptedJudge("ru", claims={PARIS.response: [capital, capital + " Это так."],
                                        PARIS.reference: [capital, population]},
                          supports={PARIS.reference: {capital, capital + " Это так."}, PARIS.response: {capital}})
    ragas = run(tmp_path, judge, "factual_correctness", PARIS,
                options=JudgeOptions(factual_mode="recall", claim_counting="ragas"))
    assert ok(ragas, 0.67, calls=4) == 0.67  # tp 2 (both response claims), fn 1: 2 / 3, rounded as RAGAS does


# --- AnswerCorrectness (seed 003, ru) --------------------------------------------------------------

ANSWER_CORRECTNESS = {
    "default": (Sample("ac-wall", user_input="Какова длина Великой Китайской стены и зачем её построили?",
                       response="Великая Китайская стена имеет длину более 21 000 км "
                       "и была построена для защиты от вторжений.",
                       reference="Великая Китайская стена протянулась более чем на 21 000 км. "
                       "Она была возведена для обороны от захватчиков."),
                ["Великая Китайская стена имеет длину более 21 000 км.",
                 "Великая Китайская стена была построена для защиты от вторжений."],
                ["Великая Китайская стена протянулась более чем на 21 000 км.",
                 "Великая Китайская стена была возведена для обороны от захватчиков."],
                (2, 0, 0), HALF, 0.75 * 1 + 0.25 * 0.8, lambda s: s >= 0.8),
    "equal": (Sample("ac-python", user_input="Что такое Python?", response="Python - это язык программирования.",
                     reference="Python - высокоуровневый интерпретируемый язык программирования."),
              ["Python — это язык программирования."],
              ["Python — высокоуровневый язык программирования.", "Python — интерпретируемый язык программирования."],
              (1, 0, 2), HALF, 0.5 * (1 / (1 + (0 + 2) / 2)) + 0.5 * 0.8, lambda s: 0.5 <= s <= 0.9),
    "factual-focused": (Sample("ac-water", user_input="При какой температуре кипит вода и тает лёд?",
                               response="Вода кипит при 100°C. Лёд тает при 0°C.",
                               reference="При стандартном давлении вода кипит при 100 градусах Цельсия "
                               "и лёд тает при 0 градусах Цельсия."),
                        ["Вода кипит при 100°C.", "Лёд тает при 0°C."],
                        ["При стандартном давлении вода кипит при 100 градусах Цельсия.",
                         "При стандартном давлении лёд тает при 0 градусах Цельсия."],
                        (2, 0, 0), CLOSE, 0.9 * 1 + 0.1 * 0.96, lambda s: s >= 0.8),
    "custom 60/40": (Sample("ac-ml", user_input="Что даёт машинное обучение?",
                            response="Машинное обучение позволяет компьютерам учиться на данных.",
                            reference="ML позволяет системам автоматически улучшаться на основе опыта."),
                     ["Машинное обучение позволяет компьютерам учиться на данных."],
                     ["ML позволяет системам автоматически улучшаться на основе опыта."],
                     (1, 0, 0), PARTIAL, 0.6 * 1 + 0.4 * 0.6, lambda s: 0.0 <= s <= 1.0),
}


@pytest.mark.parametrize("weights", list(ANSWER_CORRECTNESS))
def test_answer_correctness_ru(tmp_path, weights):
    sample, response, reference, (tp, fp, fn), vector, expected, meets_seed = ANSWER_CORRECTNESS[weights]
    classification = {"TP": response[:tp], "FP": response[tp:tp + fp], "FN": reference[len(reference) - fn:]}
    judge = ScriptedJudge("ru", statements={sample.response: response, sample.reference: reference},
                          classification=classification)
    option = AnswerCorrectnessWeights(0.6, 0.4) if weights == "custom 60/40" else weights
    result = run(tmp_path, judge, "answer_correctness", sample,
                 embed=lookup({sample.response: Q, sample.reference: vector}),
                 options=JudgeOptions(weights=option))
    value = ok(result, expected, calls=3)
    assert meets_seed(value)
    assert f"TP {tp}, FP {fp}, FN {fn}" in result.outcome.explanation
