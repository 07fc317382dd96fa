"""Notebooks offline: an exported HTML notebook draws its Bokeh figures with every request off this
machine blocked (the Bokeh, HoloViews and Panel JavaScript is inlined by ``pn.extension(inline=True)``);
in a live JupyterLab notebook 07's explorer follows its γ slider and shows its background sweep
progressing, and notebook 05's figure follows its slider in place."""

import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import pytest

from .conftest import ROOT, require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTEBOOK = ROOT / "notebooks" / "05_discrete_estimators.ipynb"  # the quickest to execute (about 25 s)
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", ""}


@pytest.fixture(scope="module")
def exported_html(tmp_path_factory) -> Path:
    require_browser()
    out = tmp_path_factory.mktemp("html")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    # jupyter nbconvert comes with the [test] extra (through [notebooks]; tests/test_packaging.py checks it)
    r = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute", str(NOTEBOOK),
                        "--output-dir", str(out)], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, f"jupyter nbconvert failed (is the [test] extra installed?):\n{r.stderr[-3000:]}"
    return out / (NOTEBOOK.stem + ".html")


def test_exported_notebook_draws_offline(browser, exported_html):
    blocked, js_errors = [], []
    page = browser.new_page(viewport={"width": 1200, "height": 900})

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOCAL_HOSTS:
            blocked.append(r.request.url)
            return r.abort()
        return r.continue_()

    page.route("**/*", route)
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    try:
        page.goto(exported_html.as_uri(), wait_until="load", timeout=60_000)
        # Fig 1, Fig 2 and the N/k figure: each a Bokeh plot drawing on a canvas (inside shadow roots,
        # which Playwright's CSS selectors pierce)
        page.locator("canvas").first.wait_for(state="attached", timeout=60_000)
        page.wait_for_timeout(1000)
        n_canvas = page.locator("canvas").count()
        drawn = page.evaluate("""() => {
            const out = [];
            const walk = (root) => {
                root.querySelectorAll('*').forEach(el => { if (el.shadowRoot) walk(el.shadowRoot); });
                root.querySelectorAll('canvas').forEach(c => out.push([c.width, c.height]));
            };
            walk(document);
            return out;
        }""")
    finally:
        page.close()
    # What may still be asked for, and is not needed to draw: nbconvert's own template loads require.js
    # and MathJax from CDNs. Anything else from outside (Bokeh/Panel JavaScript, Panel's theme stylesheets,
    # which a HoloViews object displayed without pn.panel(...) still refers to by CDN URL) is a regression.
    expected = ("https://cdnjs.cloudflare.com/ajax/libs/require.js/", "https://cdnjs.cloudflare.com/ajax/libs/mathjax/",
                "https://cdn.jsdelivr.net/npm/mathjax@")
    unexpected = [u for u in blocked if not u.startswith(expected)]
    assert not unexpected, f"resources fetched from outside the machine: {unexpected}"
    assert n_canvas >= 3, f"expected the notebook's three Bokeh figures to draw, found {n_canvas} canvases"
    assert sum(1 for w, h in drawn if w > 100 and h > 100) >= 3, drawn
    assert not [e for e in js_errors if "bokeh" in e.lower() or "panel" in e.lower()], js_errors


EXPLORER_NOTEBOOK = ROOT / "notebooks" / "07_explorer_in_a_notebook.ipynb"


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """JupyterLab on a free loopback port, without token, serving copies of notebooks 05 and 07.

    The kernel imports this checkout's ``buviz`` (``PYTHONPATH``) and writes its sweep cache under the
    test's temporary directory. ``expose_app_in_browser`` gives the page ``window.jupyterapp``, so the
    test can wait on JupyterLab's own state (kernel ready and idle, cells executed) rather than on
    menus and time."""
    pytest.importorskip("jupyterlab")
    import shutil
    import time
    import urllib.request

    from .conftest import free_port, stop_process

    require_browser()
    root = tmp_path_factory.mktemp("lab")
    for nb in (NOTEBOOK, EXPLORER_NOTEBOOK):
        shutil.copy(nb, root / nb.name)
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
           "JUPYTER_CONFIG_DIR": str(root / ".cfg"), "JUPYTER_RUNTIME_DIR": str(root / ".rt"),
           "BUVIZ_CACHE_DIR": str(root / ".cache")}
    log = open(root / ".server.log", "w")  # closed in the finally below  # noqa: SIM115
    proc = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--port={port}",
                             "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
                             f"--ServerApp.root_dir={root}", "--allow-root", "--LabApp.news_url=None",
                             "--LabApp.expose_app_in_browser=True",
                             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 180
        while True:  # the server answers its REST API once it is up
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{(root / '.server.log').read_text()}") from None
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/lab/tree/"
    finally:
        stop_process(proc)
        log.close()


def _offline_page(browser):
    """A page whose requests outside this machine are aborted and recorded in ``page.blocked``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.blocked = []

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in LOCAL_HOSTS:
            page.blocked.append(r.request.url)
            return r.abort()
        return r.continue_()

    page.route("**/*", route)
    return page


#: Whether notebook ``path`` is the current widget and its kernel is connected and idle (JupyterLab's
#: own state, not its menus).
_KERNEL_IDLE_JS = """(path) => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const ctx = w && w.context && w.context.path === path && w.sessionContext;
  return !!(ctx && ctx.isReady && ctx.session && ctx.session.kernel
            && ctx.session.kernel.connectionStatus === 'connected' && ctx.session.kernel.status === 'idle');
}"""

#: 'done' once every code cell has run and the kernel is idle again; 'error: ...' on a failed cell.
_RUN_STATE_JS = """() => {
  const w = window.jupyterapp.shell.currentWidget;
  const kernel = w.sessionContext.session && w.sessionContext.session.kernel;
  const cells = w.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    for (let j = 0; j < c.outputs.length; j++) {
      const o = c.outputs.get(j);
      if (o.type === 'error') return 'error: ' + JSON.stringify(o.toJSON()).slice(0, 2000);
    }
    if (c.executionCount === null) return false;
  }
  return kernel && kernel.status === 'idle' ? 'done' : false;
}"""


def _run_notebook(page, base: str, name: str, timeout_ms: int = 240_000) -> None:
    """Open notebook ``name`` in JupyterLab, wait for its kernel, run every cell and wait until all have run.

    ``?reset`` starts from an empty workspace: otherwise JupyterLab reopens the notebooks of the last
    page too (the workspace is saved on the server), and the one in front may not be ``name``."""
    page.goto(f"{base}{name}?reset", timeout=timeout_ms)
    page.wait_for_function(_KERNEL_IDLE_JS, arg=name, timeout=timeout_ms)
    # not awaited here: the command's promise would keep page.evaluate busy for the whole run
    page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    state = page.wait_for_function(_RUN_STATE_JS, timeout=timeout_ms).json_value()
    assert state == "done", state


def _kernel_print(page, code: str, attempts: int = 3) -> str:
    """What ``code`` prints in the open notebook's kernel. The printed text can miss the request's
    end (JupyterLab's future resolved with no stream message seen, once in CI): asked again, at most
    ``attempts`` times."""
    out = ""
    for _ in range(attempts):
        try:
            out = page.evaluate("""async (code) => {
              const k = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
              let out = '';
              const f = k.requestExecute({code});
              f.onIOPub = m => { if (m.content && (m.content.text || m.content.evalue))
                                   out += m.content.text || m.content.evalue; };
              await f.done;
              return out; }""", code)
        except Exception as exc:  # noqa: BLE001 -- a diagnostic only
            return f"(kernel not reachable: {exc})"
        if out.strip():
            break
        page.wait_for_timeout(500)
    return out


def _shut_down_kernel(page) -> None:
    """Shut the notebook's kernel down (a later page must not find it, and it frees the CPU)."""
    try:
        page.evaluate("() => window.jupyterapp.shell.currentWidget.sessionContext.shutdown()")
    except Exception:  # noqa: BLE001 -- the page may be broken already: the server's stop ends the kernel
        pass


#: A fingerprint of every plotted number on the page: the sum over the columns of the Bokeh data
#: sources of all documents (a redrawn figure brings new data sources and a new sum).
_DATA_SUM_JS = """() => {
  let total = 0, n = 0;
  for (const doc of (window.Bokeh ? Bokeh.documents : [])) for (const m of doc.all_models) {
    if (m.constructor.__name__ !== 'ColumnDataSource') continue;
    for (const col of Object.values(m.data)) {
      if (!col || typeof col.length !== 'number' || typeof col === 'string') continue;
      for (let i = 0; i < col.length; i++) if (typeof col[i] === 'number' && isFinite(col[i])) { total += col[i]; n++; }
    }
  }
  return n ? total.toFixed(9) + '/' + n : null;
}"""


def _press_until(page, handle, key: str, expect_value: float, attempts: int = 3) -> None:
    """Press ``key`` on a slider handle until its ``aria-valuenow`` reads ``expect_value`` (a key press
    sent while JupyterLab is still settling can be lost: press again, never more than ``attempts``)."""
    for _ in range(attempts):
        handle.scroll_into_view_if_needed()
        handle.focus()
        handle.press(key)
        try:
            page.wait_for_function("([h, v]) => Math.abs(parseFloat(h.getAttribute('aria-valuenow')) - v) < 1e-9",
                                   arg=[handle.element_handle(), expect_value], timeout=10_000)
            return
        except Exception:  # noqa: BLE001 -- playwright's TimeoutError: try the key again
            continue
    raise AssertionError(f"the slider did not move to {expect_value} after {attempts} presses of {key}")


def _move_until(page, handle, key: str, step: float, shown, diagnose: str, attempts: int = 3,
                timeout: int = 60_000) -> float:
    """Move a slider by ``step`` with ``key`` until the page shows the change: ``shown(target)`` gives
    the JavaScript condition and its argument. A change the page sends before the slider's comm to the
    kernel is open is lost (the kernel keeps the old value): the slider is moved again, at most
    ``attempts`` times; then the assertion prints what ``diagnose`` prints in the kernel. Returns the
    slider's value."""
    for _ in range(attempts):
        target = float(handle.get_attribute("aria-valuenow")) + step
        _press_until(page, handle, key, target)
        js, arg = shown(target)
        try:
            page.wait_for_function(js, arg=arg, timeout=timeout)
            return target
        except Exception:  # noqa: BLE001 -- playwright's TimeoutError: the press may have been lost
            continue
    raise AssertionError(f"the page did not follow the slider; the kernel has: {_kernel_print(page, diagnose)}")


#: The ids of the Bokeh data sources on the page: a figure updated in place keeps its data sources.
_SOURCE_IDS_JS = """() => {
  const ids = [];
  for (const doc of (window.Bokeh ? Bokeh.documents : [])) for (const m of doc.all_models)
    if (m.constructor.__name__ === 'ColumnDataSource') ids.push(m.id);
  return ids.sort();
}"""


def test_notebook_runs_in_jupyterlab_offline_and_a_slider_redraws(browser, jupyterlab):
    """Open notebook 05 in JupyterLab with every outside request blocked, run all cells: the figures
    draw, and moving the N slider updates the Fig 2 style figure below it in place (its display's
    ``update``: new data in the same data sources, no new figure).

    A key press the page sends before the slider's comm to the kernel is open is lost (the kernel's
    slider keeps its value): the slider is moved again, at most three times, as in the explorer's test."""
    page = _offline_page(browser)
    try:
        _run_notebook(page, jupyterlab, NOTEBOOK.name)
        handle = page.locator(".noUi-handle").first  # the N slider, the notebook's first slider
        handle.wait_for(state="attached", timeout=60_000)
        page.locator("canvas").nth(2).wait_for(state="attached", timeout=60_000)
        n_canvas = page.locator("canvas").count()
        before, sources = page.evaluate(_DATA_SUM_JS), page.evaluate(_SOURCE_IDS_JS)
        # value_throttled -> kernel -> display.update -> the figure's data sources change
        target = _move_until(page, handle, "ArrowLeft", -10, lambda t: (f"([b]) => ({_DATA_SUM_JS})() !== b", [before]),
                             "print(N_w.value, N_w.value_throttled, rms.title)", timeout=40_000)
        after, sources_after = page.evaluate(_DATA_SUM_JS), page.evaluate(_SOURCE_IDS_JS)
        title = _kernel_print(page, "print(rms.title)")
    finally:
        _shut_down_kernel(page)
        page.close()
    assert not page.blocked, f"JupyterLab or the notebook fetched from outside the machine: {page.blocked}"
    assert n_canvas >= 3, f"expected the notebook's Bokeh figures to draw, found {n_canvas} canvases"
    assert before is not None, "no plotted data on the page"
    assert before != after, "moving the N slider did not redraw the figure"
    assert sources_after == sources, "the figure was replaced, not updated in place"
    assert f"N = {int(target)}," in title, title


def test_explorer_runs_in_jupyterlab_offline(browser, jupyterlab):
    """Notebook 07 in JupyterLab, every outside request blocked: the explorer draws, moving the γ slider
    changes its numbers and its boundary, and the *Error vs −Û* sweep progresses (polled by the
    explorer itself: no server template)."""
    from .conftest import PROBE_JS

    page = _offline_page(browser)
    try:
        _run_notebook(page, jupyterlab, EXPLORER_NOTEBOOK.name)
        page.get_by_text("Reset all controls").first.wait_for(timeout=60_000)
        page.evaluate(PROBE_JS)
        page.wait_for_function("() => { const s = window.__bzShown();"
                               " return !!(s.numbers && s.numbers.includes('γ = 2^0') && s.boundary); }",
                               timeout=60_000)
        before = page.evaluate("() => window.__bzShown()")
        canvases = page.locator(".jp-OutputArea-output canvas").count()
        gamma = page.locator(".noUi-handle").nth(1)  # N, then log₂ γ
        assert float(gamma.get_attribute("aria-valuenow")) == 0
        # the numbers name the new status and the map's B(Λ) is redrawn
        _move_until(page, gamma, "ArrowRight", 1,
                    lambda t: ("([b, want]) => { const s = window.__bzShown();"
                               " return s.numbers.includes(want) && s.boundary !== b; }",
                               [before["boundary"], f"γ = 2^{int(t)},"]),
                    "print(ex.controls.log2_gamma, ex.app.widgets['log2_gamma'].value, ex.store.message)")
        after = page.evaluate("() => window.__bzShown()")

        # the tab's header (Bokeh's .bk-tab, inside a shadow root; the notebook's text names the tab too)
        page.locator(".bk-tab", has_text="Error vs −Û").first.click()
        progress = page.get_by_text("Sweep running in the background", exact=False).first
        progress.wait_for(timeout=60_000)
        # the explorer's own periodic poll moves the rows in: the count grows past 0 (or the sweep ends);
        # Playwright's text selectors look inside Bokeh's shadow roots
        grown = page.locator(r"text=/Sweep running in the background: [1-9]\d* statuses done|Sweep done: 21 statuses/")
        grown.first.wait_for(timeout=120_000)
        progress_text = grown.first.inner_text()
    finally:
        _shut_down_kernel(page)
        page.close()
    assert not page.blocked, f"JupyterLab or the explorer fetched from outside the machine: {page.blocked}"
    assert canvases >= 1, "the explorer's map did not draw"
    assert "γ = 2^0," in before["numbers"] and "γ = 2^0," not in after["numbers"]
    assert before["boundary"] != after["boundary"], "B(Λ) was not redrawn for the new γ"
    assert not re.search(r"(?<!\d)0 statuses done", progress_text), progress_text  # "10 statuses done" is fine
