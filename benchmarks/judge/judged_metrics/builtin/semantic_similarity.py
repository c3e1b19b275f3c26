"""semantic_similarity: the calibrated similarity of the response's and the reference's embeddings.

No judge call: it is in the catalog because it is scored and reported with the judged metrics, and
its offline form is the metric itself.
"""

from __future__ import annotations

from benchmarks.judge.judged_metrics.declaration import JudgedMetric, fixed
from benchmarks.judge.llm.asking import Trace
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.judge.offline import proxies
from benchmarks.judge.offline.proxies import OfflineProxy
from benchmarks.metrics import judged
from benchmarks.outcome import Outcome
from benchmarks.samples import Sample


async def score(judge: LLMJudge, s: Sample, model: str, trace: Trace) -> tuple[Outcome, str]:
    # in METRIC.needs, which the judge checks before scoring
    assert s.response is not None and s.reference is not None
    (response, reference), scale = judge.vectors([s.response, s.reference])
    return judged.semantic_similarity(response, reference, scale=scale, threshold=judge.options.threshold), ""


METRIC = JudgedMetric(
    name="semantic_similarity",
    help="calibrated similarity of the response's and the reference's embeddings (no judge call)",
    needs=("response", "reference"),
    calls=(),
    planned_calls=fixed(0),
    score=score,
    embeds=("response", "reference"),
    offline=OfflineProxy(("response", "reference"), proxies.semantic_similarity,
                         "calibrated similarity of the response's and the reference's embeddings: the metric "
                         "itself, which needs no LLM"),
)
