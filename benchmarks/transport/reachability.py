"""Is the service there at all: one TCP connection before a run's costly preparation, so an unreachable
endpoint is one line naming it, not a timeout per item after minutes of indexing."""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlsplit

from benchmarks.errors import BenchError
from benchmarks.transport.redaction import redact_url

PROBE_TIMEOUT_S = 5.0
_PROXY_VARIABLES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")


async def probe(url: str, timeout_s: float, *, what: str, advice: str) -> None:
    """One TCP connection to the service behind `url`, or one BenchError naming it (`what`) and what to do
    (`advice`); skipped behind a proxy, which the client reaches instead of the host."""
    if any(os.environ.get(name) for name in _PROXY_VARIABLES):
        return
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(parts.hostname, port), timeout_s)
    except (OSError, TimeoutError) as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise BenchError(f"cannot reach {what} {redact_url(url)} ({reason}); {advice}") from None
    writer.close()
