"""report.md, rendered from report.json alone (never from in-memory state), so the two agree."""

from __future__ import annotations

from typing import Any


def render(report: dict[str, Any]) -> str:
    ds, prov = report["dataset"], report["provenance"]
    lines = [
        f"# {report['title']}: {ds['name']}",
        "",
        f"Tier `{report['tier']}` v{report['tier_version']} · dataset `{ds['name']}` {ds.get('version', '')} "
        f"(sha256 `{ds['content_sha256'][:12]}`, {dataset_counts(ds)}) · "
        f"bench {prov['bench_version']}" + (f" · commit `{prov['git_commit'][:12]}`" if prov.get("git_commit") else "")
        + (" (dirty)" if prov.get("git_dirty") else ""),
        "",
    ]
    if "embedder" in prov:
        e = prov["embedder"]
        lines.append(f"Embedder `{e['id']}` ({e['dimension']} dimensions, {e['backend']})" +
                     (f" · index `{prov['index']['type']}`" if "index" in prov else "") +
                     (f" · PostgreSQL {prov['store']['postgres']}, pgvector {prov['store']['pgvector']} "
                      f"({prov['store']['backend']})" if "store" in prov else ""))
        lines.append("")
    lines += ["| metric | value | 95% CI | n | errors |", "|---|---:|---|---:|---:|"]
    for name, m in report["metrics"].items():
        marker = " ★" if name == report.get("main_metric") else ""
        lines.append(f"| `{name}`{marker} | {format_value(m['value'])} | {format_ci(m['ci95'])} | {m['n']} | "
                     f"{m['errors']} |")
    lines.append("")
    if report.get("warnings"):
        lines += ["## Warnings", ""]
        for w in report["warnings"]:
            examples = f" (e.g. {', '.join(w['examples'])})" if w["examples"] else ""
            lines.append(f"- **{w['code']}** ×{w['count']}: {w['message']}{examples}")
        lines.append("")
    if report.get("notes"):
        lines += ["## How these numbers were computed", ""]
        lines += _notes(report["notes"])
        lines.append("")
    lines += ["## Settings", "", "| setting | value |", "|---|---|"]
    for name, value in sorted(report["settings"].items()):
        source = report["settings_sources"].get(name)
        lines.append(f"| `{name}` | `{value}`" + (f" ({source})" if source else "") + " |")
    lines.append("")
    return "\n".join(lines)


def dataset_counts(ds: dict[str, Any]) -> str:
    return ", ".join(f"{ds[key]} {key}" for key in ("documents", "questions", "samples", "items") if key in ds)


def format_value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def format_ci(ci: list[float] | None) -> str:
    return "—" if not ci else f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def _notes(notes: dict[str, Any], depth: int = 0) -> list[str]:
    out = []
    for key, value in notes.items():
        indent = "  " * depth
        if isinstance(value, dict):
            out.append(f"{indent}- {key}:")
            out += _notes(value, depth + 1)
        else:
            out.append(f"{indent}- {key}: {value}")
    return out
