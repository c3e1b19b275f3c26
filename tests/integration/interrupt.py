"""Ctrl-C in the middle of an in-process run, pressed by the scripted server itself.

The test server answers on its own threads; sending SIGINT to this process from there reaches the
main thread, where asyncio's handler cancels the run exactly as a Ctrl-C in a terminal would.
"""

import os
import signal
import threading


def ctrl_c_on_call(number: int, answer):
    """`answer` as a responder that presses Ctrl-C in this process when the `number`th call comes in."""
    calls = 0
    lock = threading.Lock()

    def respond(body):
        nonlocal calls
        with lock:
            calls += 1
            now = calls == number
        if now:
            os.kill(os.getpid(), signal.SIGINT)
        return answer(body)

    return respond
