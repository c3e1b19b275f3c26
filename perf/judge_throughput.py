"""Judging at the speed of the server: bench's judged samples per minute against the server's own ideal.

    python -m perf.judge_throughput [MODEL] [QUESTIONS]   (default qwen-0.5b and 4: 12 samples a language)

`bench evaluate --metrics faithfulness,context_precision` (LLM cache off, so every call is made) on the
first QUESTIONS questions of each language of `datasets/labelled`, judged by a model `perf.local_model`
serves on 127.0.0.1 (one slot per core). The baseline is the server's ideal for the same work: the tokens
the run needed (its prompt and completion tokens, as the server counted them) at the server's own rates,
prompt tokens / its prompt-processing rate + generated tokens / its generation rate, both measured in the
same run by direct requests that keep every slot busy (unique prompts, so nothing is cached). The ratio is
ideal seconds over bench's wall seconds for the whole command (start-up, embedder-free here, included): 1.0
is a server never idle and never redoing work; above 1 when its prompt cache spared it work, which the
`prompt tokens read from the cache` row counts (from the server's /metrics). Writes its BENCHMARKS.md section.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rich.console import Console

from benchmarks.config import load_settings
from benchmarks.runner import run_tier
from perf import local_model
from perf.judge_agreement import subset
from perf.sections import figures_section, write_section

METRICS = ("faithfulness", "context_precision")
MARKS = ("<!-- perf.judge_throughput -->", "<!-- /perf.judge_throughput -->")
PROBE_PROMPT_WORDS = 250  # about 1,000 tokens: a judge prompt with its instructions, a context, the statements
PROBE_GENERATED = 96
GOAL = 0.8


@dataclass(frozen=True)
class Rates:
    prompt_per_s: float  # prompt tokens processed per second, every slot busy
    generated_per_s: float  # tokens generated per second, every slot busy


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "qwen-0.5b"
    questions = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    model = local_model.spec(name)
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-perf-throughput-") as scratch:
        work = Path(scratch)
        with local_model.serve(local_model.install(name), alias=model.alias, metrics=True) as base_url:
            slots = len(_get(base_url.removesuffix("/v1") + "/slots"))
            rates = server_rates(base_url, model.alias, slots)
            for language in ("en", "ru"):
                samples = subset(language, questions, work / f"{language}.jsonl")
                rows += _rows(language, measure(work, language, samples, base_url, model.alias), rates)
    write_section(_section(rows, name, questions, slots, rates), *MARKS)


def server_rates(base_url: str, model: str, slots: int) -> Rates:
    """The server's own throughput with every slot busy, the better of two rounds (the first warms it)."""
    def round_trip(words: int, generated: int, salt: int) -> tuple[float, int, int]:
        bodies = [{"model": model, "messages": [{"role": "user", "content": _unique_text(words, salt * 100 + i)}],
                   "max_tokens": generated, "temperature": 0, "cache_prompt": False, "ignore_eos": True}
                  for i in range(slots)]
        started = time.perf_counter()
        with ThreadPoolExecutor(slots) as pool:
            replies = list(pool.map(lambda body: _post(base_url + "/chat/completions", body), bodies))
        wall = time.perf_counter() - started
        return (wall, sum(r["usage"]["prompt_tokens"] for r in replies),
                sum(r["usage"]["completion_tokens"] for r in replies))

    prompt_rate = generated_rate = 0.0
    for salt in (1, 2):
        wall, prompt, _ = round_trip(PROBE_PROMPT_WORDS, 1, salt)
        prompt_rate = max(prompt_rate, prompt / wall)
        wall, prompt, generated = round_trip(8, PROBE_GENERATED, salt + 10)
        generated_rate = max(generated_rate, generated / max(wall - prompt / prompt_rate, 1e-9))
    return Rates(prompt_rate, generated_rate)


def measure(work: Path, language: str, samples: Path, base_url: str, model: str) -> dict[str, Any]:
    """bench's run: its wall seconds, samples, tokens and in-flight bound, and what the server read from cache."""
    environ = {"BENCH_DATA_DIR": str(work / "data"), "BENCH_REPORTS_DIR": str(work / "reports"),
               "BENCH_LLM_BASE_URL": base_url, "BENCH_LLM_MODEL": local_model.served_model(base_url) or model,
               "BENCH_LLM_API_KEY": "unused"}
    settings, sources = load_settings(environ=environ)
    settings = replace(settings, metrics=METRICS, language=language, llm_cache=False, judge_backend="llm")
    out = work / f"throughput-{language}"
    processed_before = _processed_prompt_tokens(base_url)
    started = time.perf_counter()
    run_tier("evaluate", str(samples), settings, sources, output_dir=out, stderr=Console(stderr=True, quiet=True))
    seconds = time.perf_counter() - started
    processed = _processed_prompt_tokens(base_url) - processed_before
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    usage = report["volatile"]["llm"]
    return {"seconds": seconds, "samples": report["dataset"]["samples"], "calls": usage["calls"],
            "prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
            "processed": processed, "in_flight": usage["concurrency"]["ceiling"],
            "errors": sum(report["metrics"][m]["errors"] for m in METRICS)}


def _rows(language: str, run: dict[str, Any], rates: Rates) -> list[dict[str, str]]:
    generating_s = run["completion_tokens"] / rates.generated_per_s
    ideal_s = run["prompt_tokens"] / rates.prompt_per_s + generating_s
    busy_s = run["processed"] / rates.prompt_per_s + generating_s  # what the server had to compute
    per_minute = run["samples"] * 60 / run["seconds"]
    ideal_per_minute = run["samples"] * 60 / ideal_s
    cached = 1 - run["processed"] / run["prompt_tokens"] if run["prompt_tokens"] else 0.0
    return [
        {"what": f"{language}: judged samples per minute ({run['samples']} samples, {run['calls']} calls, "
                 f"{run['errors']} failed, {run['in_flight']} in flight)",
         "bench": f"{per_minute:.2f}", "baseline": f"{ideal_per_minute:.2f} (server's ideal, every token read)",
         "ratio": f"{per_minute / ideal_per_minute:.2f}× (goal ≥ {GOAL})"},
        {"what": f"{language}: seconds the server computed, of bench's wall time",
         "bench": f"{run['seconds']:.0f} s wall", "baseline": f"{busy_s:.0f} s of computing",
         "ratio": f"{busy_s / run['seconds']:.2f} busy"},
        {"what": f"{language}: prompt tokens read from the server's cache",
         "bench": f"{cached:.0%} of {run['prompt_tokens']:,}", "baseline": "0% (the ideal reads every token)",
         "ratio": "—"},
    ]


def _section(rows: list[dict[str, str]], name: str, questions: int, slots: int, rates: Rates) -> str:
    return figures_section(MARKS, "Judging at the speed of the server", [
        f"Written by `python -m perf.judge_throughput {name} {questions}`: `bench evaluate --metrics "
        f"{','.join(METRICS)}` (LLM cache off) on the first {questions} questions a language of `datasets/labelled`,",
        f"judged by {name} served on 127.0.0.1 by `perf.local_model` ({slots} slots). The baseline is the server's "
        "ideal for the same work:",
        f"the run's prompt tokens at its prompt rate ({rates.prompt_per_s:.0f} tokens/s) plus its generated tokens "
        f"at its generation rate ({rates.generated_per_s:.1f} tokens/s),",
        "both measured in the same run with every slot busy and nothing cached. bench's time is the whole "
        "command's wall time. Above 1×: the",
        "server's prompt cache spared it work, because bench sends the calls that share a template together "
        "(`tiers.evaluate.judged_units`) and",
        "never more at once than the server's slots (`/props` `total_slots`, `transport.concurrency`). The "
        "busy share is the",
        "computing the server could not skip (the prompt tokens it did process, at its rate, and every generated "
        "token) over the wall time:",
        "what is left is bench's own time and the gaps between a reply and the next call.",
    ], rows)


def _processed_prompt_tokens(base_url: str) -> float:
    """llama.cpp's count of prompt tokens it actually processed (cached ones are not)."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/metrics", timeout=30) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith("llamacpp:prompt_tokens_total"):
                return float(line.split()[-1])
    raise RuntimeError("the server's /metrics has no llamacpp:prompt_tokens_total")


def _unique_text(words: int, salt: int) -> str:
    """Words no other probe shares from the first token on, so no prompt cache can help."""
    return " ".join(f"w{salt}x{i}" for i in range(words)) + " Repeat the last word."


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as reply:
        return json.loads(reply.read())


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.loads(reply.read())


if __name__ == "__main__":
    main()
