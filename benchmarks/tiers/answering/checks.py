"""What tiers 2 and 3 refuse before any work: a setting the run could not honour, a service that is down."""

from __future__ import annotations

from benchmarks.chat.backend import open_chat
from benchmarks.chat.request import Role, model_for
from benchmarks.chat.routing import require_chat
from benchmarks.config import Settings
from benchmarks.errors import BenchError
from benchmarks.judge import catalog
from benchmarks.tiers.answering.cases import Plan, judged_metrics


def check_local_judge(settings: Settings) -> None:
    """Refuse, before the local judge's server starts, what it cannot serve: the run has one chat endpoint."""
    if settings.generator == "openai" and settings.judge_backend == "local":
        raise BenchError("--judge local with --generator openai: the run has one chat endpoint, and the local judge's "
                         "is its own; judge on the generator's endpoint (--judge llm), or answer with --generator "
                         "http, extractive or precomputed")


def check_plan(settings: Settings, plan: Plan) -> None:
    """Refuse before any work what the run could not do: an unknown metric, a proxy that does not exist."""
    known = judged_metrics(settings)
    if plan.extra_metrics:
        catalog.require_known(plan.extra_metrics, known, setting="extra_metrics")
    if settings.judge_backend == "offline":
        catalog.require_proxies(plan.extra_metrics, known)
        catalog.require_offline_settings(plan.extra_metrics, settings)
    if settings.generator == "openai" or settings.judge_backend == "llm":
        asks: dict[Role, bool] = {"generator": settings.generator == "openai", "judge": settings.judge_backend == "llm"}
        try:
            require_chat(settings, roles=[role for role, asked in asks.items() if asked])
        except BenchError as exc:
            raise BenchError(f"{exc}; the whole tier runs offline with --generator extractive --judge offline "
                             "(a baseline system, graded by proxies)") from None
    if settings.generator == "http" and not settings.generator_http_url:
        raise BenchError("--generator http needs generator_http_url (bench.toml, BENCH_GENERATOR_HTTP_URL)")


async def require_reachable_services(settings: Settings) -> None:
    """Probe the services the run will call before a tier's own costly preparation (tier 3 embeds and indexes
    the corpus first), so that a service that is down fails a fresh run in seconds, not after that work.
    Awaited in the run's own event loop, the one its answering runs in."""
    uses: dict[Role, bool] = {"generator": settings.generator == "openai", "judge": settings.judge_backend != "offline"}
    roles = [role for role, used in uses.items() if used]
    if roles:
        async with open_chat(settings, roles=roles) as chat:
            await chat.require_reachable({str(model_for(settings, role)) for role in roles})
    if settings.generator == "http":
        from benchmarks.generation.http_generator import endpoint_config

        await endpoint_config(settings).probe()
