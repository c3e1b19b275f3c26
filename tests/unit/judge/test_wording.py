"""bench's own words in an explanation come in the run's language (seed 000): every fixed phrase the metrics and
the offline judge write has its Russian, and a Russian run shows it."""

from __future__ import annotations

import ast
import asyncio
import inspect

from benchmarks.judge.catalog import BUILTINS, offline_score
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.offline import proxies, support
from benchmarks.judge.wording import PHRASES, said
from benchmarks.metrics import judged
from benchmarks.metrics.similarity_scale import SimilarityScale
from benchmarks.samples import Sample
from tests.unit.judge.offline.test_proxies import TableEmbed

RAW = SimilarityScale(0.0, "test", "ru")


def _reasons(module) -> set[str]:
    """The string constants a module gives an Outcome as its reason or explanation."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        kind = getattr(getattr(node, "func", None), "attr", "") if isinstance(node, ast.Call) else ""
        if kind == "undetermined":
            values = node.args[:1]
        elif kind == "scored":
            values = [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "explanation")]
        else:
            continue
        found |= {v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)}
    return found


def test_every_reason_the_metrics_give_has_its_russian():
    """The shared formulas' reasons and those of the formulas that live with their one metric."""
    reasons = set().union(*(_reasons(module) for module in (judged, *map(inspect.getmodule, (
        m.score for m in BUILTINS.values())))))
    assert "the response has no statements" in reasons and "no context was retrieved" in reasons
    assert "the reference has no entities" in reasons and "the response is noncommittal" in reasons
    assert reasons <= set(PHRASES)
    assert all(PHRASES[r] and PHRASES[r] != r for r in reasons)


def test_every_label_of_the_offline_judge_has_its_russian():
    source = inspect.getsource(support) + inspect.getsource(proxies)
    labels = {p for p in PHRASES if f'"{p}"' in source or f"'{p}'" in source}
    assert {"unsupported by the contexts", "not in the reference", "missing from the response", "not found",
            "similarity", "overlap", "contexts supporting no reference claim"} <= labels


def test_an_english_run_keeps_english_and_a_judges_own_words_are_left_as_written():
    assert said("the response has no statements", "en") == "the response has no statements"
    assert said("the response has no statements", "ru") == "в ответе нет утверждений"
    assert said("The claim is not in the passage.", "ru") == "The claim is not in the passage."


def test_a_russian_run_explains_in_russian():
    sample = Sample(id="s", user_input="Когда?", response="Башню достроили в 1887 году.",
                    retrieved_contexts=("Башню достроили в 1889 году.",), reference="В 1889 году.")
    faithfulness = offline_score("faithfulness", sample, TableEmbed(), scale=RAW, language="ru")
    assert faithfulness.explanation.startswith("не подтверждается контекстами: «Башню достроили в 1887 году.» "
                                               "(1887 не найдено; сходство —, пересечение")
    empty = offline_score("context_precision", Sample(id="e", retrieved_contexts=(), reference="В 1889 году."),
                          TableEmbed(), scale=RAW, language="ru")
    assert empty.explanation == "не найдено ни одного контекста"
    missing = offline_score("faithfulness", Sample(id="m", response="Да."), TableEmbed(), scale=RAW, language="ru")
    assert missing.explanation == "нет поля (полей): retrieved_contexts"


def test_the_llm_judge_gives_bench_s_reasons_in_the_run_s_language():
    judge = LLMJudge(service=None, language="ru", embed=None, metrics=BUILTINS)  # type: ignore[arg-type]
    # neither makes a call: a field is missing, or there is no context to judge
    missing = asyncio.run(judge.score("faithfulness", Sample(id="m", response="Да."), "judge"))
    empty = asyncio.run(judge.score("context_precision", Sample(id="e", user_input="Когда?", retrieved_contexts=(),
                                                                reference="В 1889 году."), "judge"))
    assert missing.explanation == "нет поля (полей): user_input, retrieved_contexts"
    assert (empty.value, empty.explanation) == (0.0, "не найдено ни одного контекста")
