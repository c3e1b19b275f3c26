"""faithfulness: the share of the response's statements that the retrieved contexts support.

Yes-no verdicts (the default): one question per claim of the response (`claims.split_claims`), each against
the joined contexts and read as an answer to the user's question, the contexts first; the value is the mean
probability of Yes, the expected share of supported claims (`judged.expected_share`), or the share of Yes answers
where the server gives no token probabilities. Statements verdicts: two calls whatever the response, its
statements, then one verdict list on all of them against the joined contexts (both shared calls of the judge's
toolkit), as RAGAS.
"""

from __future__ import annotations

from benchmarks.judge.claims import split_claims
from benchmarks.judge.judged_metrics.declaration import JudgedMetric, per_claim
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge, claims_supported, joined, rejected
from benchmarks.judge.llm.prompts import CLAIM_SUPPORT, KNOWLEDGE_ANSWER, STATEMENT_VERDICTS, STATEMENTS
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.metrics import judged
from benchmarks.metrics.bands import BANDS
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.user_input is not None and s.response is not None
    if judge.options.verdicts == "yes-no":
        return await claims_supported(judge, s.user_input, split_claims(s.response), joined(s.retrieved_contexts),
                                      model, trace, nothing="the response has no statements")
    statements = await judge.statements(s.user_input, s.response, model, trace)
    verdicts = await judge.verdicts(joined(s.retrieved_contexts), statements, model, trace)
    return judged.faithfulness([v.verdict for v in verdicts]), rejected(verdicts, "verdict")


METRIC = JudgedMetric(
    name="faithfulness",
    help="share of the response's statements that the retrieved contexts support",
    needs=("user_input", "response", "retrieved_contexts"),
    calls=(STATEMENTS, STATEMENT_VERDICTS),
    yes_no=(KNOWLEDGE_ANSWER, CLAIM_SUPPORT),
    planned_calls=per_claim("response", statements=2),
    score=score,
    offline=OfflineProxy(("response", "retrieved_contexts"), proxies.faithfulness,
                         "offline proxy: share of response claims supported by the retrieved contexts read together "
                         f"({proxies.SUPPORT_TEST}), a one-claim answer scaled by how much of the question the "
                         "sentence holding it says; not LLM-verified claims"),
    # the band's needs-attention line (seed 004 §11.2: 0.7), so one fabricated sentence beside a supported one
    # (0.5) fails
    pass_mark=BANDS["faithfulness"].attention,
)
