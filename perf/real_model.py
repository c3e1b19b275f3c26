"""A real small instruct model as bench's judge, offline: what it can measure, with and without structured outputs.

    make real-model                 (Qwen2.5-Coder-1.5B-Instruct; the model is fetched once, then this runs)
    make real-model MODEL=smollm2   (SmolLM2-135M-Instruct: the quick option; or MODEL=qwen-0.5b)

The model named by BENCH_REAL_MODEL (default qwen-1.5b; the names are perf.local_model's) is installed
into the data folder and served by llama.cpp's OpenAI-compatible server, prebuilt in the `xllamacpp`
wheel (perf.local_model), on 127.0.0.1 with one slot per core. Each structured-output mode (`off`: the
prompt alone, as bench did before; `auto`: the answer's JSON schema as `response_format`, a grammar on
this server) runs, with the LLM cache off:

- the calibration examples of the seeds (tests/calibration/cases.py), each metric judged once;
- `bench evaluate` on 12 samples built from the shipped synthetic set (faithfulness, context_recall,
  response_relevancy), half of them correct answers and half hallucinated or contradicting ones;
- `bench tier2 --limit 6`, `bench judge --limit 12` and `bench judge-pipeline --limit 30` on the synthetic set.

Per metric it reports the share of outcomes that were parse_error, truncated, undetermined and api_error,
whether faithfulness orders the supported answers above the others, and the concurrency bench settled
on. A small model is a poor judge: the point is whether bench measures what the model says, not the
model's quality. Writes only its own section of BENCHMARKS.md, labelled with the model used.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.chat.client import LLMService
from benchmarks.config import load_settings
from benchmarks.judge.catalog import BUILTINS
from benchmarks.judge.llm.judge import LLMJudge
from benchmarks.outcome import JUDGE_STATUSES
from perf import local_model
from perf.sections import write_section
from tests.calibration.cases import CASES

MARK, END = "<!-- perf.real_model -->", "<!-- /perf.real_model -->"
MODES = ("off", "auto")
# a kept run from before the model was a choice: SmolLM2 behind a server with 4 slots
EARLIER = {"name": "smollm2", "served": "SmolLM2-135M-Instruct-Q4_1", "slots": 4}
DATASET = Path(__file__).resolve().parent.parent / "datasets" / "synthetic"
SUPPORTED = "correct"


def chosen() -> str:
    name = os.environ.get("BENCH_REAL_MODEL") or local_model.DEFAULT
    if name not in local_model.MODELS:
        sys.exit(f"BENCH_REAL_MODEL={name}: not a model perf.local_model knows ({', '.join(local_model.MODELS)})")
    return name


def environment(base_url: str, model: str, mode: str, data_dir: Path) -> dict[str, str]:
    return {**os.environ, "BENCH_LLM_BASE_URL": base_url, "BENCH_LLM_MODEL": model, "BENCH_LLM_API_KEY": "unused",
            "BENCH_LLM_STRUCTURED_OUTPUT": mode, "BENCH_LLM_CACHE": "0", "BENCH_DATA_DIR": str(data_dir),
            "BENCH_LLM_TIMEOUT_S": "300"}


def calibration(env: dict[str, str], model: str) -> dict[str, Any]:
    """Every seed example judged once: statuses per metric, and the values for the ordering check."""
    settings, _ = load_settings({}, environ=env)

    async def go() -> dict[str, Any]:
        async with LLMService(settings) as service:
            judges = {language: LLMJudge(service, language, None, metrics=BUILTINS) for language in ("en", "ru")}
            found = await asyncio.gather(*(
                judges[language].score(metric, sample, model)
                for language, metric, sample, *_ in CASES.values()))
            return {"outcomes": dict(zip(CASES, found, strict=True)), "llm": service.usage_report()}

    started = time.perf_counter()
    result = asyncio.run(go())
    statuses: dict[str, dict[str, int]] = {}
    for case, outcome in result["outcomes"].items():
        counts = statuses.setdefault(f"calibration {case.split('/')[0]}", dict.fromkeys(JUDGE_STATUSES, 0))
        counts[outcome.status] += 1
    values = {case: o.value for case, o in result["outcomes"].items()}
    in_range = sum(o.ok and CASES[c][4](o.value) for c, o in result["outcomes"].items())
    return {"statuses": statuses, "values": values, "in_range": in_range, "llm": result["llm"],
            "seconds": time.perf_counter() - started}


def samples_file(folder: Path) -> Path:
    """12 samples from the synthetic set's show/no-show items: 6 correct answers, 6 hallucinated or
    contradicting ones, each with the question's reference answer."""
    references = {}
    for line in (DATASET / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        question = json.loads(line)
        references.setdefault(question["question"], question["reference_answer"])
    items = [json.loads(line) for line in (DATASET / "judge_pipeline.jsonl").read_text(encoding="utf-8").splitlines()]
    chosen = ([i for i in items if i["case"] == SUPPORTED][:6]
              + [i for i in items if i["case"] in ("unsupported_claim", "contradicts_context")][:6])
    path = folder / "samples.jsonl"
    path.write_text("".join(json.dumps({"id": i["id"], "question": i["question"], "contexts": [i["context"]],
                                        "answer": i["answer"], "reference_answer": references[i["question"]],
                                        "case": i["case"]}, ensure_ascii=False) + "\n" for i in chosen),
                    encoding="utf-8")
    return path


def bench(env: dict[str, str], folder: Path, *args: str) -> dict[str, Any]:
    """One bench command; its report, its items and its wall time."""
    out = folder / "-".join(a.strip("-") for a in args[:1])
    started = time.perf_counter()
    command = Path(sys.executable).parent / "bench"
    done = subprocess.run([str(command), *args, "--output-dir", str(out)], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if not (out / "report.json").exists():
        sys.exit(f"bench {' '.join(args)} wrote no report (exit {done.returncode}):\n{done.stderr[-2000:]}")
    items = [json.loads(line) for line in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    return {"report": json.loads((out / "report.json").read_text(encoding="utf-8")), "items": items,
            "seconds": seconds}


def run_mode(base_url: str, model: str, mode: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"bench-real-model-{mode}-") as tmp:
        folder = Path(tmp)
        env = environment(base_url, model, mode, folder / "data")
        results: dict[str, Any] = {"calibration": calibration(env, model)}
        samples = samples_file(folder)
        results["evaluate"] = bench(env, folder, "evaluate", "--dataset", str(samples), "--metrics",
                                    "faithfulness,context_recall,response_relevancy")
        results["tier2"] = bench(env, folder, "tier2", "--dataset", "synthetic", "--limit", "6", "--repeats", "1")
        results["judge"] = bench(env, folder, "judge", "--dataset", "synthetic", "--limit", "12")
        results["judge-pipeline"] = bench(env, folder, "judge-pipeline", "--dataset", "synthetic", "--limit", "30")
        cases = {json.loads(line)["id"]: json.loads(line)["case"]
                 for line in samples.read_text(encoding="utf-8").splitlines()}
        results["cases"] = cases
        return results


def statuses(results: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Outcome counts per (run, metric), from each report's notes."""
    rows: dict[str, dict[str, int]] = dict(results["calibration"]["statuses"])
    for metric, counts in results["evaluate"]["report"]["notes"]["statuses"].items():
        rows[f"evaluate {metric}"] = counts
    for grade, counts in results["tier2"]["report"]["notes"]["statuses"].items():
        rows[f"tier2 {grade}"] = counts
    rows["judge faithfulness"] = results["judge"]["report"]["notes"]["statuses"]
    pipeline = results["judge-pipeline"]["report"]
    total = pipeline["metrics"]["unparseable_rate"]["n"]
    unparseable = round((pipeline["metrics"]["unparseable_rate"]["value"] or 0) * total)
    rows["judge-pipeline show/no-show"] = {"ok": total - unparseable, "parse_error": unparseable}
    return rows


def ordering(results: dict[str, Any], model: str) -> str:
    """Mean faithfulness of the supported answers against the others, in evaluate and in calibration."""
    cases = results["cases"]
    by_case: dict[bool, list[float]] = {True: [], False: []}
    for item in results["evaluate"]["items"]:
        value = item["scores"]["faithfulness"][model]["value"]
        if value is not None:
            by_case[cases[item["id"]] == SUPPORTED].append(float(value))
    values = results["calibration"]["values"]

    def mean(xs: list[float]) -> str:
        return f"{sum(xs) / len(xs):.2f} (n {len(xs)})" if xs else "— (n 0)"

    pairs = [(f"faithfulness/{lang}/supported", f"faithfulness/{lang}/hallucinated") for lang in ("en", "ru")]
    seeds = ", ".join(
        f"{a.split('/')[1]}: {values[a]:.2f} vs {values[b]:.2f}" if values[a] is not None and values[b] is not None
        else f"{a.split('/')[1]}: not both scored" for a, b in pairs)
    return (f"evaluate faithfulness: supported {mean(by_case[True])}, hallucinated or contradicting "
            f"{mean(by_case[False])}; seed examples (supported vs hallucinated) {seeds}")


def rate(counts: dict[str, int], status: str) -> str:
    total = sum(counts.values())
    return f"{counts.get(status, 0) / total:.0%}" if total else "—"


def section(kept: dict[str, Any]) -> str:
    """`kept`: the model (`name` as BENCH_REAL_MODEL spells it, `served` as bench named it in its requests,
    `slots`) and each mode's results."""
    about = kept.get("model", EARLIER)
    model, slots = about["served"], about["slots"]
    measured = {mode: kept[mode] for mode in MODES}
    rows = {mode: statuses(results) for mode, results in measured.items()}
    lines = [MARK, f"## perf.real_model — a real small judge ({model}), with and without structured outputs", "",
             f"Measured {datetime.now(UTC):%Y-%m-%d} on {platform.machine()}, {os.cpu_count()} cores: "
             f"{model} behind llama.cpp's server ({slots} slots) on 127.0.0.1, LLM cache off. "
             "`off` asks for JSON in the prompt only (bench before structured outputs); `auto` sends each answer's "
             "JSON schema as response_format, which this server turns into a grammar. Each cell: parse_error / "
             "truncated / undetermined / api_error as a share of the metric's outcomes (n).", "",
             "| run and metric | n | off | auto |", "|---|---|---|---|"]
    for name in rows[MODES[-1]]:
        cells = []
        for mode in MODES:
            counts = rows[mode].get(name, {})
            cells.append(" / ".join(rate(counts, s) for s in ("parse_error", "truncated", "undetermined",
                                                               "api_error")))
        n = sum(rows[MODES[-1]][name].values())
        lines.append(f"| {name} | {n} | {cells[0]} | {cells[1]} |")
    lines += ["", "| | off | auto |", "|---|---|---|"]
    for label, value in (
        ("seed examples in the seed's range", lambda r: f"{r['calibration']['in_range']} of {len(CASES)}"),
        ("supported above hallucinated", lambda r: ordering(r, model)),
        ("grades read from a lone number (tier2, judge)", lambda r: str(
            sum(r["tier2"]["report"]["notes"]["read_from_a_lone_number"].values())
            + r["judge"]["report"]["notes"]["read_from_a_lone_number"])),
        ("judge-pipeline accuracy", lambda r: f"{r['judge-pipeline']['report']['metrics']['accuracy']['value']}"),
        ("concurrency reached (evaluate: ceiling → lowest, final)", lambda r: "{ceiling} → {lowest}, {final}".format(
            **r["evaluate"]["report"]["volatile"]["llm"]["concurrency"])),
        ("wall time, s (calibration, evaluate, tier2, judge, judge-pipeline)", lambda r: ", ".join(
            f"{r[k]['seconds']:.0f}" for k in ("calibration", "evaluate", "tier2", "judge", "judge-pipeline"))),
    ):
        lines.append(f"| {label} | {value(measured['off'])} | {value(measured['auto'])} |")
    lines += ["", "judge-pipeline's show/no-show replies get no schema in either mode: the production judge is the "
              "system under test and is asked as production asks it, so its unparseable share is the model's. "
              "Wall times depend on what else the machine ran at the time; they are not a speed comparison of "
              "the modes.", "",
              f"Reproduce: `make real-model MODEL={about['name']}` (the model is fetched into the data folder once).",
              END]
    return "\n".join(lines) + "\n"


def main() -> None:
    """`--render` rewrites the section from the last run's figures (kept in the data folder) without running."""
    settings, _ = load_settings({})
    kept = settings.data_dir / "perf-real-model.json"
    if "--render" not in sys.argv:
        name = chosen()
        spec = local_model.MODELS[name]
        path, slots = local_model.install(name), local_model.cores()
        with local_model.serve(path, slots=slots, alias=spec.alias) as base_url:
            served = local_model.served_model(base_url) or spec.alias
            measured: dict[str, Any] = {"model": {"name": name, "served": served, "slots": slots}}
            for mode in MODES:
                print(f"structured output {mode}: running", file=sys.stderr)
                measured[mode] = run_mode(base_url, served, mode)
        kept.write_text(json.dumps(measured, ensure_ascii=False, default=str), encoding="utf-8")
    write_section(section(json.loads(kept.read_text(encoding="utf-8"))), MARK, END)


if __name__ == "__main__":
    main()
