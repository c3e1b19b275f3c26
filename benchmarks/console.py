"""What a person sees at the end of a run: the metrics table and where the files went."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks.report_markdown import OUTCOMES_HEADER, dataset_counts, format_ci, format_outcomes, format_value


def print_summary(report: dict[str, Any], directory: Path, console: Console) -> None:
    ds = report["dataset"]
    table = Table(title=f"{report['title']} · {ds['name']} ({dataset_counts(ds)})")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("95% CI")
    table.add_column("n", justify="right")
    table.add_column(OUTCOMES_HEADER, justify="right")
    for name, m in report["metrics"].items():
        label = f"[bold]{name}[/bold] ★" if name == report.get("main_metric") else name
        table.add_row(label, format_value(m["value"]), format_ci(m["ci95"]), str(m["n"]),
                      format_outcomes(report, name))
    console.print(table)
    latency = report["volatile"].get("retrieval", {}).get("latency_ms")
    if latency and latency["n"]:
        console.print(f"retrieval latency: p50 {latency['p50']:.2f} ms, p95 {latency['p95']:.2f} ms "
                      f"({latency['n']} single queries)")
    timing = report["volatile"].get("latency_ms")
    if timing and timing["n"]:
        console.print(f"latency: avg {timing['avg']:.1f} ms, p95 {timing['p95']:.1f} ms ({timing['n']} calls)")
    confusion = report["notes"].get("confusion")
    if confusion:
        console.print("confusion (truth → decision): " + ", ".join(f"{k} {v}" for k, v in confusion.items()))
    embedder = report["provenance"].get("embedder")
    if embedder:
        index = report["provenance"].get("index")
        console.print(f"embedder: {embedder['id']} ({embedder['dimension']} d)"
                      + (f" · index: {index['type']}" if index else ""))
    generator = report["provenance"].get("generator")
    if generator:
        console.print(f"system under test: {generator['adapter']}"
                      + (f" ({generator['model']})" if generator.get("model") else ""))
    judge = report["provenance"].get("judge")
    if judge:
        models = judge.get("models") or [judge.get("model") or judge["backend"]]
        console.print(f"judge: {judge['backend']} ({', '.join(map(str, models))}), language {judge['language']}")
    for name, timing in sorted(report["volatile"].items()):
        if name.endswith("_latency_ms") and timing["n"]:
            console.print(f"{name.removesuffix('_latency_ms')} latency: avg {timing['avg']:.1f} ms, "
                          f"p95 {timing['p95']:.1f} ms ({timing['n']} calls)")
    llm = report["volatile"].get("llm")
    if llm:
        console.print(f"LLM calls: {llm['calls']} made, {llm['cache_hits']} from cache, {llm['api_errors']} failed; "
                      f"tokens {llm['prompt_tokens']} in / {llm['completion_tokens']} out")
    indexing = report["volatile"].get("indexing")
    if indexing:
        reuse = "reused the stored index" if indexing["reused"] else (
            f"indexed {indexing['chunks_added']} new, {indexing['chunks_updated']} changed, "
            f"{indexing['chunks_removed']} removed chunks")
        cache = report["volatile"]["embedding_cache"]
        console.print(f"{reuse}; embeddings: {cache['embedded']} computed, {cache['cache_hits']} from cache")
    queries = report["notes"].get("queries")
    if queries and queries["without_relevant"]:
        console.print(f"{queries['without_relevant']} questions without a relevant document are excluded from "
                      "the means (see report notes)")
    for warning in report["warnings"]:
        console.print(f"[yellow]warning[/yellow] {warning['code']} ×{warning['count']}: {warning['message']}")
    console.print(f"report: {directory / 'report.json'}", soft_wrap=True)


def print_plan(models: Sequence[str], rows: Sequence[dict[str, Any]], console: Console) -> None:
    """`bench evaluate --dry-run`: the judge calls and prompt tokens a run would need, per metric."""
    table = Table(title=f"dry run: {', '.join(models)} (no call made)")
    for column in ("metric", "calls", "estimated prompt tokens"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for row in rows:
        table.add_row(row["metric"], str(row["calls"]), str(row["estimated_prompt_tokens"]))
    table.add_row("total", str(sum(r["calls"] for r in rows)), str(sum(r["estimated_prompt_tokens"] for r in rows)))
    console.print(table)
    for row in rows:
        console.print(f"{row['metric']}: {row['what']}", highlight=False, soft_wrap=True)
