"""Score samples with RAGAS's own Faithfulness metric on an OpenAI-compatible chat server.

    python run_faithfulness.py --base-url URL --model NAME --samples IN.jsonl --out OUT.jsonl [--timeout S]
                               [--max-tokens N] [--concurrency N]

Run with the interpreter of the separate RAGAS venv (see venv.py): this file imports only the
standard library and RAGAS's stack, never bench. Each line of IN is a JSON object with at least `id`,
`user_input`, `response` and `retrieved_contexts` (a list of strings); `reference` may be there too
and is not used by Faithfulness. The samples are scored `--concurrency` at a time (default 1; give the
server's slots, as RAGAS's own `evaluate` sends many at once), with
`ragas.metrics.collections.Faithfulness(llm=llm_factory(...)).ascore(...)`, RAGAS 0.4's documented
API: two LLM calls a sample (statements out of the response, then a verdict per statement against
the joined contexts), structured output through instructor in JSON mode, temperature 0. Each sample
gives one line of OUT, written as soon as it is scored:

    {"id": ..., "score": 0.75 or null, "seconds": 12.3, "error": null or "what went wrong", "llm_calls": 2}

`llm_calls` counts the chat requests the sample sent: 2 when every reply parsed, more when RAGAS
(through instructor, up to 3 tries a step) asked again after a reply that did not fit its schema.

An exception (a reply that does not parse, a time-out, a refused request) or a NaN score (RAGAS found
no statements to check) is a null score with the error text, and the run goes on. Progress lines go
to stderr. The exit code is 0 when every sample was attempted, whatever their scores; 2 for bad
arguments or an unreadable samples file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

# RAGAS posts usage events to its authors unless this is set, and reads it on import: set it first.
os.environ["RAGAS_DO_NOT_TRACK"] = "true"

API_KEY = "unused"
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_MAX_TOKENS = 1024  # RAGAS's own default for a reply (InstructorModelArgs.max_tokens)
ERROR_CHARS = 2000  # instructor's errors quote the whole reply; keep the start, where the cause is
REQUIRED = ("id", "user_input", "response", "retrieved_contexts")
SAMPLE_CALLS: contextvars.ContextVar[list[int]] = contextvars.ContextVar("sample_calls")  # each sample's task
# holds its own counter, so the requests of samples scored at once are told apart


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="RAGAS Faithfulness on an OpenAI-compatible chat server.")
    parser.add_argument("--base-url", required=True, help="the server's OpenAI base URL, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", required=True, help="the model name the server serves")
    parser.add_argument("--samples", required=True, type=Path, help="JSON lines, one sample a line")
    parser.add_argument("--out", required=True, type=Path, help="JSON lines written here, one a sample")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds allowed for one LLM request (default {DEFAULT_TIMEOUT_S:.0f})")
    parser.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                        help=f"reply budget of one LLM request (default {DEFAULT_MAX_TOKENS}, RAGAS's own)")
    parser.add_argument("--concurrency", type=int, default=1, help="samples scored at once (default 1)")
    args = parser.parse_args(argv)
    try:
        samples = read_samples(args.samples)
    except (OSError, ValueError, TypeError) as exc:
        print(f"ragas faithfulness: {exc}", file=sys.stderr)
        return 2
    asyncio.run(score_all(samples, base_url=args.base_url, model=args.model, out=args.out,
                          timeout=args.timeout, max_tokens=args.max_tokens, concurrency=max(args.concurrency, 1)))
    return 0


def read_samples(path: Path) -> list[dict[str, Any]]:
    samples = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            sample = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON: {exc}") from exc
        missing = [key for key in REQUIRED if key not in sample]
        if missing:
            raise ValueError(f"{path}:{number}: missing {', '.join(missing)}")
        if not isinstance(sample["retrieved_contexts"], list):
            raise TypeError(f"{path}:{number}: retrieved_contexts is not a list")
        samples.append(sample)
    return samples


async def count_request(request: Any) -> None:
    """An httpx event hook: one more chat request for the sample whose task sent it."""
    SAMPLE_CALLS.get([0])[0] += 1


def make_metric(base_url: str, model: str, *, timeout: float, max_tokens: int) -> Any:
    """RAGAS's Faithfulness with its LLM on the given server, as RAGAS 0.4's docs build it."""
    from openai import AsyncOpenAI, DefaultAsyncHttpxClient
    from ragas.llms import llm_factory
    from ragas.metrics.collections import Faithfulness

    # No transport retries: a failed request is reported, not hidden in a tripled time. RAGAS's own
    # re-asks on a reply that does not parse (instructor's) stay as RAGAS ships them.
    http_client = DefaultAsyncHttpxClient(event_hooks={"request": [count_request]})
    client = AsyncOpenAI(base_url=base_url, api_key=API_KEY, timeout=timeout, max_retries=0,
                         http_client=http_client)
    llm = llm_factory(model, provider="openai", client=client, temperature=0.0, max_tokens=max_tokens)
    return Faithfulness(llm=llm)


async def score_all(samples: list[dict[str, Any]], *, base_url: str, model: str, out: Path,
                    timeout: float, max_tokens: int = DEFAULT_MAX_TOKENS, concurrency: int = 1) -> None:
    metric = make_metric(base_url, model, timeout=timeout, max_tokens=max_tokens)
    out.parent.mkdir(parents=True, exist_ok=True)
    limit = asyncio.Semaphore(concurrency)
    done: list[dict[str, Any]] = []
    started = time.perf_counter()

    async def one(sample: dict[str, Any]) -> None:
        async with limit:
            SAMPLE_CALLS.set([0])
            row = await score_one(metric, sample)
            row["llm_calls"] = SAMPLE_CALLS.get()[0]
        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
        sink.flush()
        done.append(row)
        outcome = (f"score {row['score']:.3f}" if row["error"] is None
                   else f"no score: {row['error'].splitlines()[0][:200]}")
        print(f"ragas faithfulness: [{len(done)}/{len(samples)}] {row['id']}: {outcome} "
              f"({row['seconds']:.1f} s, {row['llm_calls']} LLM calls)", file=sys.stderr, flush=True)

    with out.open("w", encoding="utf-8") as sink:
        await asyncio.gather(*(one(sample) for sample in samples))
    failed = sum(row["error"] is not None for row in done)
    print(f"ragas faithfulness: {len(done) - failed} scored, {failed} without a score, "
          f"{time.perf_counter() - started:.1f} s in all", file=sys.stderr, flush=True)


async def score_one(metric: Any, sample: dict[str, Any]) -> dict[str, Any]:
    score: float | None = None
    error: str | None = None
    started = time.perf_counter()
    try:
        result = await metric.ascore(user_input=sample["user_input"], response=sample["response"],
                                     retrieved_contexts=[str(c) for c in sample["retrieved_contexts"]])
        value = float(result.value)
        if math.isnan(value):
            error = "NaN: RAGAS found no statements to judge in the response, or no verdicts for them"
        else:
            score = value
    except Exception as exc:  # noqa: BLE001 - any failure of one sample is its result; the run goes on
        error = f"{type(exc).__name__}: {exc}"[:ERROR_CHARS] or type(exc).__name__
    seconds = time.perf_counter() - started
    return {"id": sample["id"], "score": score, "seconds": round(seconds, 3), "error": error}


if __name__ == "__main__":
    sys.exit(main())
