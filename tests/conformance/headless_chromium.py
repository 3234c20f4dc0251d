"""Headless Chromium driven over the DevTools protocol on a pipe, with the standard library only.

``--remote-debugging-pipe`` makes Chromium read commands from fd 3 and write answers to fd 4,
each a JSON message ended by a NUL byte, so no port, no websocket and no extra package are
needed. :func:`find` names the browser or says why there is none, so a test can skip with that.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--remote-debugging-pipe")
NAMES = ("chromium", "chromium-browser", "google-chrome")
KEYS = {"Enter": 13, "Escape": 27, "Tab": 9, " ": 32, "/": 191}


class BrowserError(RuntimeError):
    pass


def find() -> tuple[str | None, str]:
    """(the browser's path, or None and why not)."""
    explicit = os.environ.get("CHROMIUM")
    if explicit:
        return (explicit, "") if os.access(explicit, os.X_OK) else (None, f"CHROMIUM={explicit} is not executable")
    for name in NAMES:
        path = shutil.which(name)
        if path:
            return path, ""
    return None, "no Chromium on PATH (apt-get install chromium, or set CHROMIUM=/path/to/chrome)"


class Browser:
    """One headless browser with one page of the given size."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900, timeout: float = 30.0) -> None:
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="chromium-profile-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:  # in the child: fd 3 reads our commands, fd 4 writes the answers
            # Moved above 3 and 4 first, so neither dup2 can overwrite the other end.
            high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [executable, *FLAGS, f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=wire)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.page("Page.enable")
        self.page("Runtime.enable")
        self.page("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    # -- the protocol ---------------------------------------------------------------------
    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return dict(answer.get("result") or {})
            self.events.append(answer)

    def page(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return self.call(method, params, self.session)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError(f"the browser closed its pipe (exit {self.proc.poll()})")
                self._buffer += chunk
        raw, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(raw))

    # -- what a test does -----------------------------------------------------------------
    def open(self, path: Path, fragment: str = "") -> None:
        """Load the file (``fragment``: the URL's hash, without ``#``), from a blank page so the
        load is a new one even when only the hash differs from what is open."""
        self.events.clear()
        self.page("Page.navigate", {"url": "about:blank"})
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(deadline))
        self.events.clear()
        self.page("Page.navigate", {"url": path.resolve().as_uri() + (f"#{fragment}" if fragment else "")})
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.append(self._read(deadline))

    def js(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a thrown error fails the test)."""
        answer = self.page("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in answer:
            raise BrowserError(f"{expression[:80]}: {answer['exceptionDetails']}")
        return answer.get("result", {}).get("value")

    def key(self, key: str) -> None:
        """A real key press, delivered to whatever has the focus."""
        code = KEYS[key]
        text = {"Enter": "\r", " ": " ", "/": "/"}.get(key)
        down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": key, "windowsVirtualKeyCode": code,
                                "nativeVirtualKeyCode": code, "code": {" ": "Space", "/": "Slash"}.get(key, key)}
        if text:
            down["text"] = text
        self.page("Input.dispatchKeyEvent", down)
        self.page("Input.dispatchKeyEvent", {**down, "type": "keyUp", "text": ""})

    def screenshot(self, path: Path, full_height: int | None = None, clip: dict[str, float] | None = None) -> None:
        """The page as a PNG: the viewport, the whole height given, or the ``clip`` box (x, y, width, height)."""
        params: dict[str, Any] = {"format": "png"}
        if clip:
            params["clip"] = {**clip, "scale": 1}
            params["captureBeyondViewport"] = True
        elif full_height:
            params["clip"] = {"x": 0, "y": 0, "width": 1280, "height": full_height, "scale": 1}
            params["captureBeyondViewport"] = True
        path.write_bytes(base64.b64decode(self.page("Page.captureScreenshot", params)["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def png_pixels(data: bytes) -> tuple[int, int, list[bytes], int]:
    """(width, height, rows of raw pixel bytes, bytes per pixel) of an 8-bit, non-interlaced RGB or
    RGBA PNG such as Chromium's screenshots, with the standard library only."""
    import struct
    import zlib

    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    height = depth = color = interlace = 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {color}, interlace {interlace}")
    bpp = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp
