"""A small Chrome DevTools Protocol client over ``--remote-debugging-pipe``: Chromium without Node.

The PDF service used to drive Chromium through Playwright, whose Node driver alone held ~200 MiB
in every server process. Printing a report needs six protocol commands, so the server talks to
Chromium directly: Chromium reads commands from its file descriptor 3 and writes replies and
events to descriptor 4, one JSON object per message, each ended by a NUL byte
(https://chromedevtools.github.io/devtools-protocol/, "remote-debugging-pipe"). Events are
read and dropped; the client waits only for replies, with a deadline.

>>> Pipe.encode({"id": 1, "method": "Browser.getVersion"})
b'{"id":1,"method":"Browser.getVersion"}\\x00'
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from webui.reports import pdf_pages


class ChromiumGoneError(RuntimeError):
    """Chromium exited or closed its pipe."""


class ProtocolError(RuntimeError):
    """Chromium answered a command with an error."""


class Pipe:
    """The two pipes to one Chromium process; :meth:`call` sends a command and returns its result."""

    def __init__(self, to_chromium: int, from_chromium: int):
        self._w, self._r = to_chromium, from_chromium
        self._buffer = bytearray()
        self._next_id = 0

    @staticmethod
    def encode(message: dict) -> bytes:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\0"

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             timeout: float = 60.0) -> dict[str, Any]:
        """Send ``method`` (to ``session`` if given) and wait up to ``timeout`` s for its reply."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = memoryview(self.encode(message))
        try:
            while data:
                data = data[os.write(self._w, data):]
        except OSError as exc:
            raise ChromiumGoneError(f"cannot write to Chromium: {exc}") from exc
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") != self._next_id:
                continue  # an event, or the reply to an abandoned command
            if "error" in reply:
                raise ProtocolError(f"{method}: {reply['error'].get('message', reply['error'])}")
            return reply.get("result", {})

    def _read(self, deadline: float) -> dict:
        while True:
            end = self._buffer.find(b"\0")
            if end >= 0:
                raw = bytes(self._buffer[:end])
                del self._buffer[:end + 1]
                return json.loads(raw)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer in time")
            ready, _, _ = select.select([self._r], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                raise ChromiumGoneError("Chromium closed its pipe")
            self._buffer += chunk

    def close(self) -> None:
        for fd in (self._w, self._r):
            try:
                os.close(fd)
            except OSError:
                pass


class Chromium:
    """One headless Chromium started with ``--remote-debugging-pipe``; :meth:`close` ends it."""

    def __init__(self, executable: str, flags: list[str], idle: bool = False):
        self.profile = tempfile.TemporaryDirectory(prefix="fabric-tco-chromium-")
        to_r, to_w = os.pipe()  # we write commands on to_w; Chromium reads them as its fd 3
        from_r, from_w = os.pipe()  # Chromium writes on its fd 4 (from_w); we read from_r
        # the pipes arrive as the shell's stdin and stdout; it moves them to descriptors 3 and 4
        # (POSIX shells only name descriptors 0-9), points 0 and 1 at /dev/null and becomes Chromium
        script = 'exec "$@" 3<&0 4>&1 </dev/null >/dev/null'
        # SCHED_IDLE (util-linux's chrt): the CPU goes to Chromium only when nothing else wants it.
        # A nice value is not enough: Chromium running as root sets its threads' nice values itself.
        chrt = shutil.which("chrt")
        prefix = [chrt, "--idle", "0"] if idle and chrt else []
        args = [*flags, "--headless", "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}",
                "about:blank"]
        try:
            # our own command line: the executable and flags come from report_pdf, never from a user
            self.process = subprocess.Popen(["/bin/sh", "-c", script, "sh", *prefix, executable, *args],  # noqa: S603
                                            stdin=to_r, stdout=from_w, stderr=subprocess.DEVNULL)
        finally:
            os.close(to_r)
            os.close(from_w)
        self.pipe = Pipe(to_w, from_r)

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self, timeout: float = 30.0) -> None:
        """End Chromium at once (SIGKILL), reap it and remove its profile."""
        self.process.kill()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass  # still dying without CPU: the OS reaps it; the next job starts a new Chromium anyway
        self.pipe.close()
        try:
            self.profile.cleanup()
        except OSError:
            pass  # a dying child may still write to the profile; the temporary folder is left behind

    def close(self, timeout: float = 10.0) -> None:
        if self.alive():
            try:
                self.pipe.call("Browser.close", timeout=timeout)
            except (ChromiumGoneError, ProtocolError, TimeoutError):
                pass
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)
        self.pipe.close()
        self.profile.cleanup()


# Resolves when the page has loaded, its fonts are ready and, if the page draws charts, the
# charts are drawn (or failed): to the error text, or null. Rejected after ``ms`` milliseconds.
_SETTLED_JS = """
new Promise((resolve, reject) => {
  const flag = %(flag)s, ms = %(ms)d, t0 = Date.now();
  const check = () => {
    if (document.readyState === "complete" && (!flag || window[flag] === true || window.__chartsError !== undefined)) {
      document.fonts.ready.then(() => resolve(window.__chartsError ?? null));
    } else if (Date.now() - t0 > ms) {
      reject(new Error("the page was not ready after " + ms + " ms"));
    } else {
      setTimeout(check, 20);
    }
  };
  check();
})
"""

A4_INCHES = (8.27, 11.7)  # ISO 216 A4, 210 mm × 297 mm, as Chromium's print dialog rounds it
#: what a document may ask of the printer in ``window.__printOptions`` (its own HTML, never a user's):
#: the running header and footer; ``toc: true`` also has its contents numbered (``window.__fillToc``)
PRINT_OPTIONS = frozenset({"displayHeaderFooter", "headerTemplate", "footerTemplate"})


def page_options(pipe: Pipe, session: str, timeout: float) -> dict:
    """The document's ``window.__printOptions`` (a dictionary of strings and booleans), or {}."""
    got = pipe.call("Runtime.evaluate", {"expression": "window.__printOptions ?? null", "returnByValue": True},
                    session, timeout).get("result", {}).get("value")
    if not isinstance(got, dict):
        return {}
    return {k: v for k, v in got.items() if isinstance(v, str | bool)}


def print_pdf(chromium: Chromium, document: str, flag: str | None, timeout_ms: int,
              on_stage: Callable[[str], None] | None = None) -> bytes:
    """``document`` (HTML) printed to A4 PDF bytes in a fresh browser context, closed afterwards;
    ``on_stage`` (optional) is called with ``"charts"`` when the page starts drawing and
    ``"printing"`` when it is printed.

    ``flag`` names a ``window`` property the page sets to ``true`` once it has finished drawing
    (``window.__chartsError`` reports a failure); ``None`` waits for the load event only.
    """
    import base64

    pipe, timeout = chromium.pipe, timeout_ms / 1000 + 10
    context = pipe.call("Target.createBrowserContext", {"disposeOnDetach": True})["browserContextId"]
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank", "browserContextId": context})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        write = f"document.open(); document.write({json.dumps(document)}); document.close();"
        if on_stage is not None:
            on_stage("charts")
        pipe.call("Runtime.evaluate", {"expression": write}, session, timeout)
        settled = pipe.call("Runtime.evaluate", {
            "expression": _SETTLED_JS % {"flag": json.dumps(flag), "ms": timeout_ms},
            "awaitPromise": True, "returnByValue": True}, session, timeout)
        if "exceptionDetails" in settled:
            detail = settled["exceptionDetails"]
            raise RuntimeError(detail.get("exception", {}).get("description") or detail.get("text", "script error"))
        error = settled.get("result", {}).get("value")
        if error:
            raise RuntimeError(f"charts could not be drawn: {error}")
        width, height = A4_INCHES
        if on_stage is not None:
            on_stage("printing")
        options = page_options(pipe, session, timeout)
        params = {"paperWidth": width, "paperHeight": height, "printBackground": True, "marginTop": 0,
                  "marginBottom": 0, "marginLeft": 0, "marginRight": 0,
                  **{k: v for k, v in options.items() if k in PRINT_OPTIONS}}
        pdf = base64.b64decode(pipe.call("Page.printToPDF", params, session, timeout)["data"])
        if options.get("toc") is True:  # the contents' page numbers: where the headings landed, then again
            pages = json.dumps(pdf_pages.named_pages(pdf))
            pipe.call("Runtime.evaluate", {"expression": f"window.__fillToc({pages})"}, session, timeout)
            pdf = base64.b64decode(pipe.call("Page.printToPDF", params, session, timeout)["data"])
        return pdf
    finally:
        try:
            pipe.call("Target.disposeBrowserContext", {"browserContextId": context}, timeout=10)
        except (ProtocolError, TimeoutError):
            pass
