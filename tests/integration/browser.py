"""A real browser for the tests: Debian's headless Chromium driven over the DevTools protocol on a pipe.

`--remote-debugging-pipe` makes Chromium read commands from its file descriptor 3 and answer on 4, one JSON
message each, ended by a NUL byte, so no websocket client and no driver download is needed. Clicks are mouse
events at an element's centre, as a person's would be, and every wait is for something the page shows.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium")
MISSING = "no 'chromium' on PATH: install Debian's chromium (apt-get install chromium; .ci/run does)"


class BrowserError(AssertionError):
    pass


class Browser:
    """One headless Chromium with one page; use as a context manager (the process never outlives it)."""

    def __init__(self, profile: Path, *, width: int = 1280, height: int = 900, timeout: float = 60.0):
        if CHROMIUM is None:
            raise BrowserError(MISSING)
        self.timeout = timeout
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def _wire() -> None:  # in the child: the pipe ends where Chromium looks for them
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--remote-debugging-pipe", f"--user-data-dir={profile}", f"--window-size={width},{height}",
             "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=_wire, pass_fds=(3, 4))
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._ids = 0
        self._events: list[dict[str, Any]] = []
        target = next(t for t in self._send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        self.session = self._send("Target.attachToTarget", targetId=target["targetId"], flatten=True)["sessionId"]
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *_: object) -> None:
        self.process.kill()
        self.process.wait(timeout=30)
        os.close(self._commands)
        os.close(self._replies)

    # --- the protocol ----------------------------------------------------------------------------------

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        return self._send(method, session=self.session, **params)

    def _send(self, method: str, *, session: str | None = None, **params: Any) -> dict[str, Any]:
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._ids:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def _receive(self) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                raise BrowserError("Chromium did not answer in time")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise BrowserError("Chromium closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _wait_event(self, method: str) -> dict[str, Any]:
        while True:
            for index, event in enumerate(self._events):
                if event.get("method") == method:
                    return self._events.pop(index)
            self._events.append(self._receive())

    # --- what a person does ----------------------------------------------------------------------------

    def open(self, url: str) -> None:
        self._events.clear()
        self.call("Page.navigate", url=url)
        self._wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, what: str) -> Any:
        """Poll until the expression is truthy (a chart drawn, a row hidden), then return its value."""
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise BrowserError(f"never happened: {what}")

    def click(self, selector: str, *, navigates: bool = False) -> None:
        """A left click at the centre of the first element matching `selector`, scrolled into view first."""
        box = self.evaluate(f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            if (!e) return null; e.scrollIntoView({{block: "center"}}); const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        if box is None:
            raise BrowserError(f"nothing to click: {selector}")
        if navigates:
            self._events.clear()
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)
        if navigates:
            self._wait_event("Page.loadEventFired")

    def type(self, selector: str, text: str) -> None:
        self.click(selector)
        self.call("Input.insertText", text=text)

    def text(self, selector: str = "body") -> str:
        return self.evaluate(f"document.querySelector({json.dumps(selector)}).innerText")

    def screenshot(self, path: Path, *, full_page: bool = False) -> Path:
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width, height = self.evaluate("[document.documentElement.scrollWidth, "
                                          "document.documentElement.scrollHeight]")
            params.update(captureBeyondViewport=True, clip={"x": 0, "y": 0, "width": width,
                                                            "height": min(height, 2400), "scale": 1})
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", **params)["data"]))
        return path
