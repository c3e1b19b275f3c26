"""faithfulness: the share of the response's statements that the retrieved contexts support.

Two calls whatever the response: its statements, then one verdict list on all of them against the
joined contexts (both shared calls of the judge's toolkit).
"""

from __future__ import annotations

from benchmarks.judge import offline
from benchmarks.judge.judged_metric import JudgedMetric, fixed
from benchmarks.judge.llm_judge import LLMJudge, Trace, joined, rejected
from benchmarks.judge.offline import OfflineProxy
from benchmarks.judge.prompts import STATEMENT_VERDICTS, STATEMENTS
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    statements = await judge.statements(s.user_input, s.response, model, trace)
    verdicts = await judge.verdicts(joined(s.retrieved_contexts), statements, model, trace)
    return judged.faithfulness([v.verdict for v in verdicts]), rejected(verdicts, "verdict")


METRIC = JudgedMetric(
    name="faithfulness",
    help="share of the response's statements that the retrieved contexts support",
    needs=("user_input", "response", "retrieved_contexts"),
    calls=(STATEMENTS, STATEMENT_VERDICTS),
    planned_calls=fixed(2),
    score=score,
    offline=OfflineProxy(("response", "retrieved_contexts"), offline.faithfulness,
                         "offline proxy: share of response sentences supported by a retrieved context "
                         f"({offline.SENTENCE_SUPPORT}), not LLM-verified claims"),
)
