"""The seeds' worked examples with the range each must land in: calibration asserts them against a real
judge, and `make real-model` counts how a small local model does on them.

An example whose score the seed states (as a number, or as verdicts its formula turns into one) lives in
the labelled set, `datasets/labelled/seeds.jsonl`, and is taken from there by id, so its text has one home.
The others state only a range or a direction ("high", "low"), so they carry no label and are not in that
file (its README lists them): their texts are kept here, as the seeds give them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from benchmarks.judge.llm_judge import JudgeOptions
from benchmarks.readers.samples import load_samples
from benchmarks.samples import Sample

SEEDS = Path(__file__).resolve().parents[2] / "datasets" / "labelled" / "seeds.jsonl"
SEED_SAMPLES: dict[str, Sample] = {sample.id: sample for sample in load_samples(SEEDS)}


def seed(sample_id: str) -> Sample:
    """A worked example of the labelled set, by its id in seeds.jsonl."""
    return SEED_SAMPLES[sample_id]


Case = tuple[str, str, Sample, JudgeOptions, Callable[[float], bool], str]

# seed 003's precision and recall examples: one sample, two modes
PARIS = Sample("fc2", response="Париж - столица Франции.",
               reference="Париж - столица Франции. Население составляет более 2 миллионов человек.")

CASES: dict[str, Case] = {
    "faithfulness/en/supported": (
        "en", "faithfulness", seed("seed-faithfulness-en-1"),
        JudgeOptions(), lambda s: s >= 0.9, ">= 0.9"),
    "faithfulness/en/hallucinated": (
        "en", "faithfulness",
        Sample("f2", user_input="What courses is John taking?",
               response="John is taking Data Structures, Algorithms, and Artificial Intelligence. "
               "He also has a part-time job at the university library.",
               retrieved_contexts=(("John is a student at XYZ University pursuing a Computer Science degree. "
                                   "He is enrolled in Data Structures, Algorithms, and Database Management. "
                                   "John often stays late in the library to work on his projects."),)),
        JudgeOptions(), lambda s: s <= 0.7, "<= 0.7"),
    "faithfulness/ru/supported": (
        "ru", "faithfulness", seed("seed-faithfulness-ru-1"),
        JudgeOptions(), lambda s: s >= 0.9, ">= 0.9"),
    "faithfulness/ru/hallucinated": (
        "ru", "faithfulness",
        Sample("f4", user_input="Какие курсы посещает Иван?",
               response="Иван посещает курсы по Структурам данных, Алгоритмам и Искусственному интеллекту. "
               "Он также работает на полставки в университетской библиотеке.",
               retrieved_contexts=(("Иван — студент университета XYZ, обучающийся по специальности Информатика. "
                                   "Он записан на курсы Структуры данных, Алгоритмы и Управление базами данных. "
                                   "Иван часто задерживается в библиотеке, работая над своими проектами."),)),
        JudgeOptions(), lambda s: s <= 0.7, "<= 0.7"),
    "context_precision/en/reference": (
        "en", "context_precision",
        Sample("cp1", user_input="What is photosynthesis?",
               reference="Photosynthesis is the process by which plants use sunlight, carbon dioxide, and water "
               "to produce glucose and oxygen.",
               retrieved_contexts=("Photosynthesis is a biological process where plants convert light energy.",
                                   "The process involves: 6CO2 + 6H2O + light → C6H12O6 + 6O2.",
                                   "Plants are autotrophs that produce their own food.")),
        JudgeOptions(), lambda s: s >= 0.8, ">= 0.8"),
    "context_precision/en/irrelevant-first": (
        "en", "context_precision", seed("seed-context_precision-en-2"),
        JudgeOptions(), lambda s: s <= 0.7, "<= 0.7"),
    "context_precision/ru/reference": (
        "ru", "context_precision",
        Sample("cp3", user_input="Что такое фотосинтез?",
               reference="Фотосинтез — это процесс, при котором растения используют солнечный свет, "
               "углекислый газ и воду для производства глюкозы и кислорода.",
               retrieved_contexts=(("Фотосинтез — биологический процесс, при котором растения преобразуют "
                                   "световую энергию."),
                                   "Процесс включает: 6CO2 + 6H2O + свет → C6H12O6 + 6O2.",
                                   "Растения — автотрофы, производящие собственную пищу.")),
        JudgeOptions(), lambda s: s >= 0.8, ">= 0.8"),
    "context_precision/ru/irrelevant-first": (
        "ru", "context_precision", seed("seed-context_precision-ru-2"),
        JudgeOptions(), lambda s: s <= 0.7, "<= 0.7"),
    "factual_correctness/ru/errors": (
        "ru", "factual_correctness",
        Sample("fc1", response="Эйнштейн родился во Франции. Он изобрёл телефон. "
               "Он получил Нобелевскую премию по химии.",
               reference="Альберт Эйнштейн родился в Германии. Он разработал теорию относительности. "
               "Он получил Нобелевскую премию по физике."),
        JudgeOptions(), lambda s: s <= 0.3, "<= 0.3"),
    "factual_correctness/ru/precision": (
        "ru", "factual_correctness", PARIS,
        JudgeOptions(factual_mode="precision"), lambda s: s >= 0.9, ">= 0.9"),
    "factual_correctness/ru/recall": (
        "ru", "factual_correctness", replace(PARIS, id="fc3"),
        JudgeOptions(factual_mode="recall"), lambda s: 0.4 <= s <= 0.7, "in [0.4, 0.7]"),
    "context_relevance/ru/mixed": (
        "ru", "context_relevance", seed("seed-context_relevance-ru-1"),
        # the seed's worked answer is 0.5 (ratings 2 and 0); a judge that calls the first context only
        # partly relevant gives 0.25, the weather forecast must get 0 either way
        JudgeOptions(), lambda s: 0.25 <= s <= 0.5, "in [0.25, 0.5]"),
}
