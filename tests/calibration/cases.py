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

from benchmarks.judge.options import JudgeOptions
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

# the question of the seeds' complete and incomplete answers (response_relevancy; seed 001 in English, 000 in Russian)
FRANCE = {"en": "Where is France located and what is its capital?", "ru": "Где находится Франция и какая её столица?"}

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
    "context_recall/en/supported": (
        "en", "context_recall", seed("seed-context_recall-en-1"),
        JudgeOptions(), lambda s: s >= 0.9, ">= 0.9"),
    "context_recall/ru/supported": (
        "ru", "context_recall", seed("seed-context_recall-ru-1"),
        JudgeOptions(), lambda s: s >= 0.9, ">= 0.9"),
    "factual_correctness/ru/accurate": (
        "ru", "factual_correctness",
        Sample("fc4", response="Альберт Эйнштейн был немецким физиком. "
               "Он разработал теорию относительности. "
               "Он получил Нобелевскую премию по физике в 1921 году.",
               reference="Альберт Эйнштейн родился в Германии в 1879 году. "
               "Он известен разработкой теории относительности. "
               "Эйнштейн получил Нобелевскую премию по физике в 1921 году."),
        JudgeOptions(factual_mode="f1"), lambda s: s >= 0.8, ">= 0.8"),
    "context_entity_recall/en/high": (
        "en", "context_entity_recall",
        Sample("cer1", reference="The Eiffel Tower is located in Paris, France. "
               "It was completed in 1889 for the World's Fair.",
               retrieved_contexts=("The Eiffel Tower, located in Paris, France, is one of the most iconic landmarks.",
                                   "Completed in 1889, it was constructed for the 1889 World's Fair.",
                                   "Millions of visitors are attracted to it each year.")),
        JudgeOptions(), lambda s: s >= 0.7, ">= 0.7"),
    "context_entity_recall/en/poor": (
        "en", "context_entity_recall",
        Sample("cer2", reference="Albert Einstein was born in Ulm, Germany on March 14, 1879. "
               "He won the Nobel Prize in Physics in 1921.",
               retrieved_contexts=("Physics is a fundamental science that studies matter and energy.",
                                   "Scientists have made many important discoveries throughout history.")),
        JudgeOptions(), lambda s: s <= 0.3, "<= 0.3"),
    "context_entity_recall/ru/high": (
        "ru", "context_entity_recall",
        Sample("cer3", reference="Эйфелева башня расположена в Париже, Франция. "
               "Она была завершена в 1889 году для Всемирной выставки.",
               retrieved_contexts=(("Эйфелева башня, расположенная в Париже, Франция, является одной из самых "
                                   "знаковых достопримечательностей."),
                                   "Завершённая в 1889 году, она была построена для Всемирной выставки 1889 года.",
                                   "Миллионы посетителей ежегодно привлекаются к ней захватывающими видами.")),
        JudgeOptions(), lambda s: s >= 0.7, ">= 0.7"),
    "context_entity_recall/ru/poor": (
        "ru", "context_entity_recall",
        Sample("cer4", reference="Альберт Эйнштейн родился в Ульме, Германия, 14 марта 1879 года. "
               "Он получил Нобелевскую премию по физике в 1921 году.",
               retrieved_contexts=("Физика — фундаментальная наука, изучающая материю и энергию.",
                                   "Учёные сделали множество важных открытий на протяжении истории.")),
        JudgeOptions(), lambda s: s <= 0.3, "<= 0.3"),
    # the seeds' low-sensitivity examples run in RELEVANT mode; seed 000's IRRELEVANT-mode example (the capital
    # of France and its weather) is left out: it expects nothing beyond a score in [0, 1]
    "noise_sensitivity/en/robust": (
        "en", "noise_sensitivity",
        Sample("ns1", user_input="What causes earthquakes?",
               response="Earthquakes are caused by tectonic plate movement.",
               reference="Earthquakes are caused by movement of tectonic plates. "
               "Plates suddenly shift and release energy.",
               retrieved_contexts=("Tectonic plates are large sections of Earth's crust that move slowly.",
                                   "When tectonic plates collide, they can cause earthquakes.",
                                   "Seismic waves are energy released during earthquakes.",
                                   "Best time to visit Japan is during cherry blossom season.")),
        JudgeOptions(noise_mode="relevant"), lambda s: s <= 0.3, "<= 0.3"),
    "noise_sensitivity/ru/robust": (
        "ru", "noise_sensitivity",
        Sample("ns2", user_input="Что вызывает землетрясения?",
               response="Землетрясения вызываются движением тектонических плит.",
               reference="Землетрясения вызываются движением тектонических плит. "
               "Плиты внезапно сдвигаются и высвобождают энергию.",
               retrieved_contexts=("Тектонические плиты — большие участки земной коры, которые медленно движутся.",
                                   "Когда тектонические плиты сталкиваются, они могут вызывать землетрясения.",
                                   "Сейсмические волны — это энергия, высвобождающаяся во время землетрясений.",
                                   "Лучшее время для посещения Японии — сезон цветения сакуры.")),
        JudgeOptions(noise_mode="relevant"), lambda s: s <= 0.3, "<= 0.3"),
    # the seeds' default configuration generates 3 questions, as JudgeOptions does
    "response_relevancy/en/complete": (
        "en", "response_relevancy",
        Sample("rr1", user_input=FRANCE["en"],
               response="France is located in Western Europe, and its capital is Paris."),
        JudgeOptions(), lambda s: s >= 0.85, ">= 0.85"),
    "response_relevancy/en/incomplete": (
        "en", "response_relevancy",
        Sample("rr2", user_input=FRANCE["en"], response="France is located in Western Europe."),
        JudgeOptions(), lambda s: 0.5 <= s <= 0.8, "in [0.5, 0.8]"),
    "response_relevancy/en/noncommittal": (
        "en", "response_relevancy", seed("seed-response_relevancy-en-3"),
        JudgeOptions(), lambda s: s < 0.1, "< 0.1"),
    "response_relevancy/ru/complete": (
        "ru", "response_relevancy",
        Sample("rr3", user_input=FRANCE["ru"],
               response="Франция находится в Западной Европе, и её столица — Париж."),
        JudgeOptions(), lambda s: s >= 0.85, ">= 0.85"),
    "response_relevancy/ru/incomplete": (
        "ru", "response_relevancy",
        Sample("rr4", user_input=FRANCE["ru"], response="Франция находится в Западной Европе."),
        JudgeOptions(), lambda s: 0.5 <= s <= 0.8, "in [0.5, 0.8]"),
    "response_relevancy/ru/noncommittal": (
        "ru", "response_relevancy", seed("seed-response_relevancy-ru-3"),
        JudgeOptions(), lambda s: s < 0.1, "< 0.1"),
    "response_relevancy/ru/five-questions": (
        "ru", "response_relevancy",
        Sample("rr5", user_input="Объясните квантовую запутанность и её применения",
               response="Квантовая запутанность — это явление, при котором частицы становятся "
               "взаимосвязанными. Она применяется в квантовых вычислениях и криптографии."),
        JudgeOptions(questions=5), lambda s: s >= 0.7, ">= 0.7"),
    # seed 003's SemanticSimilarity examples are left out: they make no judge call (the embedder alone scores
    # them, so a judge has nothing to calibrate), and their bounds (>= 0.7, <= 0.5) are raw cosines, while bench
    # reads similarities on the embedder's calibrated scale; its threshold example expects only a 0 or a 1

    # seed 003's AnswerCorrectness examples give no question, and bench's answer_correctness reads one: each
    # user_input below was written for bench, a question the example's reference answers. Its fourth example
    # (custom weights 60/40) is left out: it expects nothing beyond a score in [0, 1]. The seed's presets by bench's
    # names: defaultConfig() 75/25 "default", equalWeights() 50/50 "equal", factualFocused() 90/10 "factual-focused"
    "answer_correctness/ru/high": (
        "ru", "answer_correctness",
        Sample("ac1", user_input="Какова длина Великой Китайской стены и зачем её построили?",
               response="Великая Китайская стена имеет длину более 21 000 км "
               "и была построена для защиты от вторжений.",
               reference="Великая Китайская стена протянулась более чем на 21 000 км. "
               "Она была возведена для обороны от захватчиков."),
        JudgeOptions(weights="default"), lambda s: s >= 0.8, ">= 0.8"),
    "answer_correctness/ru/equal-weights": (
        "ru", "answer_correctness",
        Sample("ac2", user_input="Что такое Python?",
               response="Python - это язык программирования.",
               reference="Python - высокоуровневый интерпретируемый язык программирования."),
        JudgeOptions(weights="equal"), lambda s: 0.5 <= s <= 0.9, "in [0.5, 0.9]"),
    "answer_correctness/ru/factual-focused": (
        "ru", "answer_correctness",
        Sample("ac3", user_input="При какой температуре кипит вода и тает лёд?",
               response="Вода кипит при 100°C. Лёд тает при 0°C.",
               reference="При стандартном давлении вода кипит при 100 градусах Цельсия "
               "и лёд тает при 0 градусах Цельсия."),
        JudgeOptions(weights="factual-focused"), lambda s: s >= 0.8, ">= 0.8"),
}
