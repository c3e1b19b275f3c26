"""bench's own words in an item's explanation, in the run's language (seed 000 gives explanations in the
configured language).

They are written in English where they are made: the metrics' reasons (`benchmarks.metrics.judged`, pure
functions that know no language), the offline judge's labels, the LLM judge's framing of its verdicts. Each is
a fixed phrase with no sample text in it, so `said` can give it in the run's language wherever an explanation is
put together; the judge's own words (its reasons, the claims it quotes) stay as the judge wrote them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from benchmarks.outcome import Outcome

__all__ = ["PHRASES", "explained", "lacking", "said"]

# The English phrase, then its Russian: every phrase bench writes into an explanation by itself.
PHRASES: Mapping[str, str] = {
    # the metrics' reasons, whole
    "the reference has no entities": "в эталоне нет сущностей",
    "no context was retrieved": "не найдено ни одного контекста",
    "no retrieved context is relevant": "ни один найденный контекст не релевантен",
    "the reference has no statements": "в эталоне нет утверждений",
    "the response has no statements": "в ответе нет утверждений",
    "the reference has no statements, so no context can be classed relevant":
        "в эталоне нет утверждений, поэтому ни один контекст нельзя счесть релевантным",
    "no question was generated from the response": "по ответу не сгенерировано ни одного вопроса",
    "the response is noncommittal": "ответ уклончив",
    "an embedding is the zero vector": "эмбеддинг — нулевой вектор",
    # the labels an explanation's parts begin with
    "missing field(s)": "нет поля (полей)",
    "unsupported by the contexts": "не подтверждается контекстами",
    "reference claims the contexts do not support": "утверждения эталона, которые контексты не подтверждают",
    "contexts supporting no reference claim": "контексты, не подтверждающие ни одного утверждения эталона",
    "not in the reference": "нет в эталоне",
    "missing from the response": "нет в ответе",
    "not found": "не найдено",
    "said of something else": "сказано о другом",
    "negated unlike the contexts, read as uncertain": "отрицание не как в контекстах, прочитано как неопределённое",
    "similarity": "сходство",
    "overlap": "пересечение",
    "the knowledge's answer": "ответ по сведениям",
    "question words beside the answer": "слова вопроса рядом с ответом",
}


def said(phrase: str, language: str) -> str:
    """`phrase` in the run's language: as written in English, its Russian in a Russian run; a text that is not
    one of bench's phrases (a judge's own reason) is left as it is."""
    return PHRASES.get(phrase, phrase) if language == "ru" else phrase


def explained(outcome: Outcome, language: str, *reasons: str) -> Outcome:
    """A metric's outcome with the judge's reasons after the metric's own explanation (in the run's language), as
    both judges put them; only an ok score gets the reasons (an undetermined one already says why)."""
    own = said(outcome.explanation, language)
    joined = "; ".join(p for p in (own, *reasons) if p)
    return replace(outcome, explanation=joined if outcome.ok else own)


def lacking(fields: Sequence[str], language: str) -> Outcome:
    """The outcome of a sample without a field the metric reads, naming the fields."""
    return Outcome.undetermined(f"{said('missing field(s)', language)}: {', '.join(fields)}")
