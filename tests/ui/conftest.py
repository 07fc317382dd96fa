"""Shared set-up of the browser tests: Debian's chromium driven by Playwright (no browser download),
and ``panel serve apps/explorer.py`` on a free loopback port."""

import itertools
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def new_page(browser):
    """A 1600 × 1000 page that collects its console errors and uncaught exceptions in ``console_errors``."""
    pg = browser.new_page(viewport={"width": 1600, "height": 1000})
    pg.console_errors = []
    pg.on("console", lambda m: pg.console_errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: pg.console_errors.append(str(e)))
    return pg


def close_page(page) -> None:
    """Leave the explorer before closing the page: navigating away closes its websocket with a close
    handshake, so the server stops writing to it cleanly. Closing the page outright drops the socket
    while the server may still be writing, and Tornado then logs an unretrieved WebSocketClosedError."""
    try:
        page.goto("about:blank", timeout=30_000)
        page.wait_for_timeout(300)
    finally:
        page.close()


SERVER_ERROR = re.compile(r"Traceback|\bERROR\b|Exception in callback")
_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d ")


def server_errors(lines: list[str]) -> list[str]:
    """Error lines of a server log, each with the 30 lines after it, except one transport event: a
    log record whose traceback ends in Tornado's ``WebSocketClosedError`` raised by a
    ``write_message`` (Tornado's own ``WebSocketProtocol13.write_message``, or Panel's
    ``dispatch_tornado`` calling ``WebSocketHandler.write_message``). That is a browser closing its
    page while the server was writing to it, not the app failing; the server keeps running."""
    out, skip = [], False
    for i, ln in enumerate(lines):
        if _LOG_LINE.match(ln):
            skip = _is_closed_socket_write(lines, i + 1)
        if not skip and SERVER_ERROR.search(ln):
            out.append("\n".join(lines[i:i + 30]))
    return out


def _is_closed_socket_write(lines: list[str], start: int) -> bool:
    """Whether the traceback from ``lines[start]`` up to the next log line is a write to a websocket
    the client had already closed."""
    block = []
    for ln in itertools.islice(lines, start, None):
        if _LOG_LINE.match(ln):
            break
        block.append(ln)
    last = next((ln.strip() for ln in reversed(block) if ln.strip()), "")
    return last.startswith("tornado.websocket.WebSocketClosedError") and any("write_message" in ln for ln in block)


def require_browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed")
    pytest.importorskip("playwright")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ExplorerServer:
    """``panel serve apps/explorer.py`` (or the script ``app``) on 127.0.0.1 with ``flags``; output goes
    to ``tmp/server.log`` (never a full pipe) and the sweep cache to ``tmp/cache``. Returns once
    ``url + query`` answers."""

    def __init__(self, tmp: Path, *flags: str, query: str = "", env: dict | None = None, timeout: float = 120,
                 app: str | Path = "apps/explorer.py"):
        self.port = free_port()
        self.log = tmp / "server.log"
        self.url = f"http://127.0.0.1:{self.port}/{Path(app).stem}"
        self._fh = open(self.log, "wb")  # noqa: SIM115 -- closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "serve", str(app), "--address", "127.0.0.1",
             "--port", str(self.port), "--allow-websocket-origin", f"127.0.0.1:{self.port}", *flags],
            cwd=ROOT, env={**os.environ, "BUVIZ_CACHE_DIR": str(tmp / "cache"), **(env or {})},
            stdout=self._fh, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while True:
            try:
                with urllib.request.urlopen(self.url + query, timeout=60) as r:
                    if r.status == 200:
                        return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    self.stop()
                    raise RuntimeError(f"panel serve did not start:\n{self.text()}") from None
                time.sleep(0.5)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def stop(self) -> None:
        stop_process(self.proc)
        self._fh.close()


def stop_process(proc) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


# -- what the explorer shows, read in the page (browser tests and benchmarks/bench_browser.py) ----------
#: Installs the page's probes: the time of the last user input, and a reader of what the page shows.
PROBE_JS = """() => {
  window.__bz = {t0: null, b0: null};
  const mark = () => { window.__bz.t0 = performance.now(); window.__bz.b0 = window.__bzShown().boundary; };
  for (const ev of ['keydown', 'pointerup']) document.addEventListener(ev, mark, true);
  window.__bzShown = () => {
    let numbers = null, boundary = null;
    for (const doc of Bokeh.documents) for (const m of doc.all_models) {
      const kind = m.constructor.__name__;
      if (m.text && typeof m.text === 'string' && m.text.includes('Status Λ')) numbers = m.text;
      if (kind === 'GlyphRenderer' && m.glyph.constructor.__name__ === 'MultiLine'
          && m.glyph.line_color.value === '#009E73' && m.data_source.data.xs) {
        let sx = 0;
        for (const xs of m.data_source.data.xs) for (const v of xs) if (!isNaN(v)) sx += v;
        boundary = sx.toFixed(9);
      }
    }
    return {numbers, boundary};
  };
}"""

#: Resolves with the ms from the last input to the first frame showing ``want`` (and ``extra``) in the
#: numbers pane and, for a status change (``moved``), a B(Λ) other than the one at the input; or
#: null after ``timeout`` ms.
WAIT_JS = """async ([want, extra, timeout, moved]) => {
  const frame = () => new Promise(r => requestAnimationFrame(r));
  const start = performance.now();
  while (performance.now() - start < timeout) {
    const s = window.__bzShown();
    if (s.numbers && s.numbers.includes(want) && (!moved || s.boundary !== window.__bz.b0)
        && (!extra || s.numbers.includes(extra))) {
      await frame();
      return performance.now() - window.__bz.t0;
    }
    await frame();
  }
  return null;
}"""

#: Records every distinct status shown (the numbers naming it, B(Λ) redrawn) until stopped.
RECORD_JS = """() => {
  window.__bzSeen = [];
  window.__bzRec = true;
  let last = window.__bzShown();
  const loop = () => {
    if (!window.__bzRec) return;
    const s = window.__bzShown();
    const m = s.numbers && s.numbers.match(/γ = 2\\^(-?\\d+)/);
    const seen = window.__bzSeen;
    if (m && s.boundary !== last.boundary && (!seen.length || seen[seen.length - 1][0] !== m[1])) {
      seen.push([m[1], performance.now()]);
      last = s;
    }
    requestAnimationFrame(loop);
  };
  requestAnimationFrame(loop);
}"""
