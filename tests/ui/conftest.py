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
    # a request off this machine (offline it fails, and the console says only "Failed to load resource"):
    # its address named among the errors, so that a failure says which resource was asked for
    pg.on("request", lambda r: pg.console_errors.append(f"request outside the server: {r.url}")
          if _outside(r.url) else None)
    return pg


def _outside(url: str) -> bool:
    """Whether the browser's request for ``url`` leaves this machine."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname not in ("127.0.0.1", "localhost")


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
#: The first line of a warning as Python's ``warnings`` module prints it (``path:line: Category: text``).
_WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")


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
    block, warning_source = [], False
    for ln in itertools.islice(lines, start, None):
        if _LOG_LINE.match(ln):
            break
        # a warning another thread printed meanwhile (joblib's, as a sweep is cancelled: the line and its
        # indented source line) is not part of the traceback
        if _WARNING_LINE.match(ln):
            warning_source = True
            continue
        if warning_source and ln.startswith("  "):
            warning_source = False
            continue
        warning_source = False
        block.append(ln)
    last = next((ln.strip() for ln in reversed(block) if ln.strip()), "")
    return last.startswith("tornado.websocket.WebSocketClosedError") and any("write_message" in ln for ln in block)


def open_tab(page, name: str, timeout_ms: float = 60_000, retry_ms: float = 15_000) -> None:
    """Click the tab ``name`` where it is until its header is active, for at most ``timeout_ms``.

    On a saturated machine a click can land while the page is still busy with the tab opened before
    (its dynamic content arriving) and be lost: the suite saw a tab header stay inactive for 120 s
    after one click (clean-clone CI, two workers, one of them spinning CPU burners), while the same
    walk alone opened every tab at once. The click is repeated every ``retry_ms``; a tab that never
    becomes active still fails, naming itself.
    """
    tab = page.locator(".bk-tab", has_text=name).first
    active = page.locator(".bk-tab.bk-active", has_text=name).first
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        tab.click(timeout=timeout_ms)
        left_ms = (deadline - time.monotonic()) * 1000
        try:
            active.wait_for(timeout=max(1.0, min(retry_ms, left_ms)))
            return
        except Exception as exc:  # Playwright's TimeoutError
            if time.monotonic() >= deadline:
                raise AssertionError(f"tab {name!r} not active {timeout_ms / 1000:.0f} s after clicking it") from exc


#: The CV sweep's worker processes run at niceness 10 (``buviz.app.sweeps.SWEEP_NICENESS``): while the
#: other pytest worker keeps both cores busy at niceness 0 they get about a tenth of a core each (a sweep
#: of 3.2 s alone took 31.5 s beside four busy processes). A wait on a sweep therefore fails when what it
#: watches stops changing for ``SWEEP_STALL_S`` (:class:`StallDeadline`), not after a fixed time, and
#: after ``SWEEP_GRACE`` times that in all.
SWEEP_STALL_S, SWEEP_GRACE = 90.0, 5


class StallDeadline:
    """The end of a wait on work that shows its progress: ``stall_s`` seconds after the watched state
    last changed (:meth:`see`), and at most ``SWEEP_GRACE * stall_s`` after the start."""

    def __init__(self, stall_s: float = SWEEP_STALL_S):
        self.start = self.changed = time.monotonic()
        self.stall_s, self._state = stall_s, object()

    def see(self, state) -> None:
        if state != self._state:
            self._state, self.changed = state, time.monotonic()

    def over(self) -> bool:
        now = time.monotonic()
        return now - self.changed > self.stall_s or now - self.start > SWEEP_GRACE * self.stall_s

    def __str__(self) -> str:
        now = time.monotonic()
        return f"unchanged for {now - self.changed:.0f} s, {now - self.start:.0f} s in all"


def sweep_text(page) -> str | None:
    """The CV sweep's state as the Error vs −Û tab writes it ("Sweep done: 21 statuses ..."); None
    while the tab does not show it."""
    sweep = page.locator("text=/Sweep (done|running|not started|error)/")
    return sweep.first.inner_text() if sweep.count() else None


def wait_for_sweep_done(page, stall_s: float = SWEEP_STALL_S) -> str:
    """Wait until the page says its CV sweep is done (its text returned), for as long as the text keeps
    changing (rows arriving): :class:`StallDeadline`."""
    deadline = StallDeadline(stall_s)
    while not (text := sweep_text(page) or "").startswith("Sweep done"):
        deadline.see(text)
        if deadline.over():
            raise AssertionError(f"the sweep did not finish: {text!r} ({deadline})")
        page.wait_for_timeout(250)
    return text


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
                 app: str | Path = "apps/explorer.py", command=None):
        self.port = free_port()
        self.log = tmp / "server.log"
        self.url = f"http://127.0.0.1:{self.port}/{Path(app).stem}"
        self._fh = open(self.log, "wb")  # noqa: SIM115 -- closed in stop()
        # ``command(port)``: another program serving the explorer at /explorer (e.g. buviz serve's function)
        argv = command(self.port) if command is not None else [
            sys.executable, "-m", "panel", "serve", str(app), "--address", "127.0.0.1",
            "--port", str(self.port), "--allow-websocket-origin", f"127.0.0.1:{self.port}", *flags]
        self.proc = subprocess.Popen(
            argv,
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


# -- what each plot draws: a digest of its data (browser and Python alike) and its painted pixels -------------
#: Per plot shown on the page (a Bokeh figure with a visible canvas, in reading order): its title, its
#: canvas box (CSS px) and a digest of the data of each non-empty glyph source (:func:`bokeh_digest`'s).
#: Reads two BokehJS internals (checked with bokeh 3.9.2): the view index ``Bokeh.index.query`` and a
#: plot view's ``canvas_view``; it throws, naming them, when a release drops them.
PLOTS_JS = """() => {
  if (typeof Bokeh === 'undefined' || !Bokeh.index || typeof Bokeh.index.query !== 'function')
    throw new Error('BokehJS has no Bokeh.index.query (checked with bokeh 3.9.2): update PLOTS_JS');
  const canvases = [...Bokeh.index.query(v => v.model && v.model.constructor.__name__ === 'Figure')];
  if (canvases.length && canvases.every(v => v.canvas_view == null))
    throw new Error('no BokehJS plot view has a canvas_view (checked with bokeh 3.9.2): update PLOTS_JS');
  const column = (values) => {
    const d = {n: 0, sum: 0, wsum: 0, nan: 0, strings: new Set()};
    const walk = (v) => {
      if (v === null || v === undefined) { d.nan += 1; return; }
      if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') {
        const x = Number(v);
        if (Number.isNaN(x)) { d.nan += 1; return; }
        if (!Number.isFinite(x)) { d.nan += 1; return; }
        d.sum += x; d.wsum += x * ((d.n % 7) + 1); d.n += 1; return;
      }
      if (typeof v === 'string') { d.strings.add(v); return; }
      if (ArrayBuffer.isView(v) || Array.isArray(v)) { for (const x of v) walk(x); return; }
      if (typeof v[Symbol.iterator] === 'function') { for (const x of v) walk(x); return; }
    };
    walk(values);
    return [d.n, d.sum, d.wsum, d.nan, [...d.strings].sort()];
  };
  const plots = [];
  for (const v of Bokeh.index.query(v => v.canvas_view != null && v.model.renderers != null)) {
    const el = v.canvas_view.el;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || !el.isConnected) continue;
    // a plot of a hidden tab (Bokeh keeps an inactive tab's content laid out, hidden by its styles)
    if (!el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
    const sources = [];
    for (const rd of v.model.renderers) {
      if (rd.constructor.__name__ !== 'GlyphRenderer' || !rd.visible) continue;
      const data = rd.data_source.data;
      const names = Object.keys(data).sort();
      const rows = Math.max(0, ...names.map(k => (data[k] && data[k].length) || 0));
      if (!rows) continue;
      sources.push([rd.glyph.constructor.__name__, rows, names.map(k => [k, ...column(data[k])])]);
    }
    const title = v.model.title && typeof v.model.title === 'object' ? v.model.title.text : v.model.title;
    // the ranges the browser paints with (a range the server set, or one the browser fitted to the data)
    const ranges = [v.model.x_range, v.model.y_range].flatMap(g => [g.start, g.end]);
    plots.push({title: title || '', box: [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height],
                sources, id: v.model.id, ranges});
  }
  plots.sort((a, b) => (Math.round(a.box[1]) - Math.round(b.box[1])) || (a.box[0] - b.box[0]));
  return plots;
}"""


def _column_digest(values) -> list:
    """:data:`PLOTS_JS`'s digest of one column, in Python: count, sum and weighted sum of the finite
    numbers in reading order (the same sequence of float operations), non-finite count, strings."""
    import numpy as np

    d = {"n": 0, "sum": 0.0, "wsum": 0.0, "nan": 0}
    strings: set[str] = set()

    def walk(v):
        if v is None:
            d["nan"] += 1
        elif isinstance(v, str):
            strings.add(v)
        elif isinstance(v, np.ndarray) and v.dtype.kind in "biuf":
            for x in v.ravel().tolist():
                walk(float(x))
        elif isinstance(v, (bool, int, float, np.bool_, np.integer, np.floating)):
            x = float(v)
            if not np.isfinite(x):
                d["nan"] += 1
                return
            d["sum"] += x
            d["wsum"] += x * ((d["n"] % 7) + 1)
            d["n"] += 1
        elif isinstance(v, (list, tuple, np.ndarray)):
            for x in v:
                walk(x)

    walk(values)
    return [d["n"], d["sum"], d["wsum"], d["nan"], sorted(strings)]


def bokeh_digest(state) -> list[dict]:
    """:data:`PLOTS_JS`'s digest of every figure of a Bokeh model tree (e.g. ``get_plot(el).state``)."""
    from bokeh.models import GlyphRenderer, Plot

    out = []
    for fig in state.select({"type": Plot}):
        sources = []
        for rd in fig.renderers:
            if not isinstance(rd, GlyphRenderer) or not rd.visible:
                continue
            data = rd.data_source.data
            names = sorted(data)
            rows = max((len(data[k]) for k in names), default=0)
            if rows:
                sources.append([type(rd.glyph).__name__, rows, [[k, *_column_digest(data[k])] for k in names]])
        title = fig.title.text if fig.title is not None else ""
        ranges = [fig.x_range.start, fig.x_range.end, fig.y_range.start, fig.y_range.end]
        out.append({"title": title or "", "sources": sources, "ranges": ranges})
    return out


def same_drawing(a: list, b: list, rel: float = 1e-6) -> bool:
    """Whether two lists of source digests (:data:`PLOTS_JS`, :func:`bokeh_digest`) draw the same data:
    the same glyphs, columns, counts and strings, and sums equal to ``rel`` (the server and a test
    process may differ in the last bits of a BLAS result)."""
    import math

    def key(src):
        glyph, rows, cols = src
        return (glyph, rows, [(c[0], c[1], c[4], c[5]) for c in cols], [float(f"{c[2]:.3e}") for c in cols])

    if len(a) != len(b):
        return False
    for sa, sb in zip(sorted(a, key=key), sorted(b, key=key), strict=True):
        if key(sa)[:3] != key(sb)[:3]:
            return False
        for ca, cb in zip(sa[2], sb[2], strict=True):
            if not all(math.isclose(x, y, rel_tol=rel, abs_tol=1e-9) for x, y in zip(ca[2:4], cb[2:4], strict=True)):
                return False
    return True


def process_tree_cpu(pid: int) -> dict[int, float]:
    """CPU seconds (user + system) of process ``pid`` and of every process below it (joblib's workers),
    by process id; a process that ends while they are read is left out."""
    import psutil

    root = psutil.Process(pid)
    out = {}
    for proc in [root, *root.children(recursive=True)]:
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        out[proc.pid] = times.user + times.system
    return out
