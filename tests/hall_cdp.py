"""Headless Chromium driven through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ended by NUL on fds 3 and 4),
for pages that keep an event stream open: ``--dump-dom`` and
``--screenshot`` wait for the page to go quiet, which a page following
``/events`` never does. Standard library only."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import subprocess
import time
from typing import Any

from protocol_games import chromium


def _above_4(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class Browser:
    """One headless Chromium with one page (a target attached, flattened)."""

    def __init__(self, width: int, height: int) -> None:
        binary = chromium()
        assert binary is not None
        to_browser, self._write = os.pipe()
        self._read, from_browser = os.pipe()
        # bash (dash takes one-digit fds only) moves them to 3 and 4 in turn: neither may already be 3 or 4
        to_browser, from_browser = (_above_4(fd) for fd in (to_browser, from_browser))
        args = [
            "--headless",
            "--no-sandbox",  # the tests may run as root
            "--disable-gpu",
            "--hide-scrollbars",
            "--remote-debugging-pipe",
            f"--window-size={width},{height}",
            "about:blank",
        ]
        # Chromium reads commands on fd 3 and writes on fd 4
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser}', binary, *args],
            pass_fds=(to_browser, from_browser),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self._buffer = b""
        self._next = 0
        self.session = ""
        self.width, self.height = width, height

    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = True) -> Any:
        """A command and its result (events met meanwhile are skipped)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if page and self.session:
            message["sessionId"] = self.session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive()
            if reply.get("id") == self._next:
                assert "error" not in reply, (method, reply["error"])
                return reply.get("result", {})

    def _receive(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._read, 1 << 16)
            assert chunk, "Chromium closed its pipe"
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(line)

    def open(self, url: str, *, transparent: bool = False) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, page=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, page=False
        )
        self.session = attached["sessionId"]
        metrics = {
            "width": self.width,
            "height": self.height,
            "deviceScaleFactor": 1,
            "mobile": False,
        }
        self.send("Emulation.setDeviceMetricsOverride", metrics)
        if transparent:
            self.send(
                "Emulation.setDefaultBackgroundColorOverride",
                {"color": {"r": 0, "g": 0, "b": 0, "a": 0}},
            )
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        return result["result"].get("value")

    def wait_for(self, expression: str, limit_s: float = 20.0) -> None:
        """Until `expression` is true in the page; a failure past the limit
        (a bound on a hang, not a timing the test measures)."""
        end = time.monotonic() + limit_s
        while not self.evaluate(expression):
            assert time.monotonic() < end, f"never true: {expression}"
            time.sleep(0.05)

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])

    def close(self) -> None:
        with contextlib.suppress(AssertionError, OSError):  # already gone
            self.send("Browser.close", page=False)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._read)
        os.close(self._write)
