"""The local judge's server process: `python -m benchmarks.local_judge.child PLAN_JSON`.

Started by `server.serving`, never by hand. It starts llama.cpp's server on the plan, writes one JSON line on
stdout (its address, or why it failed), then lives until its stdin closes: the parent closes it to stop the
server, and its exit closes it too. Killed outright, the parent cannot close anything, so the kernel is asked
to send this process SIGTERM when its parent dies (Linux's PR_SET_PDEATHSIG).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import signal
import sys
from pathlib import Path

from benchmarks.local_judge.server import ServerPlan, start

PR_SET_PDEATHSIG = 1  # prctl(2)


def child(argv: list[str]) -> int:
    """The server started, its address (or why it failed) on stdout, then alive until stdin closes."""
    _die_with_parent()
    fields = json.loads(argv[0])
    p = ServerPlan(**{**fields, "model": Path(fields["model"])})
    try:
        running = start(p)
    except RuntimeError as error:
        print(json.dumps({"failed": str(error)}), flush=True)
        return 1
    print(json.dumps({"listening": str(running.listening_address).rstrip("/")}), flush=True)
    sys.stdin.read()  # until the parent closes it: stop, or the parent is gone
    del running
    return 0


def _die_with_parent() -> None:
    """Ask the kernel for SIGTERM when the parent dies (Linux); elsewhere the pipe's end is the only signal."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the parent decides


if __name__ == "__main__":
    sys.exit(child(sys.argv[1:]))
