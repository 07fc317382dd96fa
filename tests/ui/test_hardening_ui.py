"""Bad input through the real page, and where the server listens.

One ``panel serve`` on 127.0.0.1 for the module; each bad input must show a clear message, leave the
previous plots in place, raise no console error and log no server exception.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from .conftest import ExplorerServer, close_page, free_port, new_page, require_browser, server_errors, stop_process

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
QUERY = "?n_train=200&cv=2"
BOUNDARY_JS = """() => {
  for (const doc of Bokeh.documents) for (const m of doc.all_models)
    if (m.constructor.__name__ === 'GlyphRenderer' && m.glyph.constructor.__name__ === 'MultiLine'
        && m.glyph.line_color.value === '#009E73') {
      let n = 0, sx = 0;
      for (const xs of m.data_source.data.xs) for (const v of xs) if (!isNaN(v)) { n += 1; sx += v; }
      return [n, sx];
    }
  return null;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("hardening"), query=QUERY)
    yield srv.url, srv.log
    srv.stop()


@pytest.fixture
def page(browser, server):
    pg = new_page(browser)
    url, log = server
    before = len(log.read_text(errors="replace").splitlines())
    yield pg
    close_page(pg)
    new = log.read_text(errors="replace").splitlines()[before:]
    assert server_errors(new) == []


def _open(page, url):
    page.goto(url)
    page.wait_for_selector("canvas", timeout=120_000)
    page.get_by_text("SVM γ = 2^0, C = 2^0").first.wait_for(timeout=120_000)
    return page.evaluate(BOUNDARY_JS)


def _upload(page, name: str, data: bytes):
    # as a user does: from the unfolded card, where the browser's own refusals ("File is too large") show
    if not page.locator(".filepond--root").first.is_visible():
        page.get_by_text("Upload a CSV").first.click()
    page.locator("input[type=file]").set_input_files(files=[{"name": name, "mimeType": "text/csv", "buffer": data}])


def test_bad_inputs_show_messages_and_keep_the_plots(server, page):
    url, _ = server
    boundary = _open(page, url + QUERY)
    assert boundary is not None and boundary[0] > 10
    # M > N through the number input (its label says 2 to 200; the input has no end, so the number reaches
    # the server): the message names the problem, the input keeps what the user typed (nothing writes it
    # back), the plots stay
    m_input = page.locator(".bk-input-group", has_text="M (neighbourhood size)").locator("input").first
    m_input.fill("500")
    m_input.press("Enter")
    page.get_by_text("M must be <= 200", exact=False).first.wait_for(timeout=60_000)
    assert page.get_by_text("The plots show the last settings that worked").count() >= 1
    assert m_input.input_value() == "500"
    assert page.evaluate(BOUNDARY_JS) == boundary
    m_input.fill("40")  # the user corrects it: the message goes, nothing is recomputed
    m_input.press("Enter")
    page.locator(".buviz-message", has_text="M must be").first.wait_for(state="hidden", timeout=60_000)
    assert page.evaluate(BOUNDARY_JS) == boundary
    # a CSV that is not UTF-8, then one over the 5 MB cap (refused by the browser), then a formula-injection CSV
    _upload(page, "latin1.csv", "x1,x2,label\n1,2,é\n3,4,ü\n".encode("latin-1"))
    page.get_by_text("not UTF-8", exact=False).first.wait_for(timeout=60_000)
    _upload(page, "big.csv", b"x1,x2,label\n" + b"1.0,2.0,a\n3.0,4.0,b\n" * 300_000)
    page.get_by_text("too large", exact=False).first.wait_for(timeout=60_000)
    rows = "".join(f"{i % 7 - 3},{i % 5 - 2},{'ab'[i % 2]}\n" for i in range(40))
    _upload(page, "formula.csv", ("x1,x2,label\n" + rows + "=cmd|' /C calc'!A0,1,a\n").encode())
    page.get_by_text("non-numeric text", exact=False).first.wait_for(timeout=60_000)
    assert page.locator("select").first.input_value() == "gmm"
    assert page.evaluate(BOUNDARY_JS) == boundary
    assert page.console_errors == []


def test_singular_mixture_in_the_editor(server, page):
    url, _ = server
    boundary = _open(page, url + QUERY)
    page.get_by_text("Custom mixture editor").first.click()
    area = page.locator("textarea").first
    area.wait_for(timeout=30_000)
    area.fill('{"classes": [[{"mean": [0, 0], "cov": [[1, 1], [1, 1]]}], [{"mean": [1, 1], "cov": 1}]]}')
    area.blur()
    page.get_by_role("button", name="Apply mixture").click()
    page.get_by_text("positive definite", exact=False).first.wait_for(timeout=60_000)
    assert page.locator("select").first.input_value() == "gmm"
    assert page.evaluate(BOUNDARY_JS) == boundary
    assert page.console_errors == []


#: The explorer with one display that cannot draw data having a feature named "boom": a view failing
#: late, after the upload was accepted and its snapshot computed (no real input is known to do that
#: since 1-feature data are refused at upload).
FAULTY_APP = """
from buviz.plots import displays

_original = displays.SampleSpaceDisplay.from_result.__func__


def _from_result(cls, result, dataset, **kw):
    if "boom" in dataset.feature_names:
        raise RuntimeError("this display cannot draw boom")
    return _original(cls, result, dataset, **kw)


displays.SampleSpaceDisplay.from_result = classmethod(_from_result)

from buviz.app.layout import TITLE, build_app  # noqa: E402

build_app().servable(title=TITLE)
"""

SHOWN_JS = """() => {
  const texts = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (typeof m.text === 'string' && m.text) texts.push(m.text);
    if (typeof m.object === 'string' && m.object) texts.push(m.object);
  }
  return texts.join('\\n');
}"""


def test_an_input_failing_anywhere_leaves_the_whole_page_on_the_last_good_state(tmp_path, browser):
    """A 1-feature CSV is refused at upload; a CSV whose map cannot be drawn (found after its
    snapshot was computed in the background) puts the whole page back: the sizes, the numbers, the
    map; no "computing", no traceback in the server log. The controls keep the user's choice (the
    dataset menu says "csv", as the URL does): nothing writes them back, the message says why the
    plots show the previous data."""
    script = tmp_path / "faulty.py"
    script.write_text(FAULTY_APP)
    srv = ExplorerServer(tmp_path, query=QUERY, app=script)
    pg = new_page(browser)
    try:
        boundary = _open(pg, srv.url + QUERY)
        before = pg.evaluate(SHOWN_JS)
        assert "N(train) = 200, N(test) = 5000, d = 2, J = 2" in before
        one = "x,label\n" + "".join(f"{i * 0.1:.1f},{'abc'[i % 3]}\n" for i in range(60))
        _upload(pg, "one.csv", one.encode())
        pg.get_by_text("only one feature column", exact=False).first.wait_for(timeout=60_000)
        rng = np.random.default_rng(0)
        X = rng.normal(size=(80, 3))
        late = "x1,x2,boom,label\n" + "".join(f"{a:.4f},{b:.4f},{c:.4f},{'ab'[int(a > 0)]}\n" for a, b, c in X)
        _upload(pg, "late.csv", late.encode())
        pg.get_by_text("Could not show dataset 'csv'", exact=False).first.wait_for(timeout=120_000)
        pg.wait_for_timeout(1000)  # anything still to come would arrive now
        shown = pg.evaluate(SHOWN_JS)
        assert "this display cannot draw boom" in shown and "only one feature column" not in shown
        assert "computing" not in shown and "late.csv" not in shown
        assert "N(train) = 200, N(test) = 5000, d = 2, J = 2" in shown and "SVM γ = 2^0, C = 2^0" in shown
        assert "The previous data and status are shown again" in shown
        assert pg.locator("select").first.input_value() == "csv"
        assert pg.evaluate(BOUNDARY_JS) == boundary
        assert pg.console_errors == []
    finally:
        close_page(pg)
        srv.stop()
    assert server_errors(srv.text().splitlines()) == []
    assert "a view could not draw dataset 'csv'" in srv.text()  # one warning line, no traceback


def _listening_addresses(port: int) -> set[str]:
    """Local addresses with a listening TCP socket on ``port`` (from /proc/net/tcp and tcp6)."""
    out = set()
    for name in ("tcp", "tcp6"):
        path = Path("/proc/net") / name
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if state == "0A" and int(p, 16) == port:
                out.add(addr)
    return out


def test_buviz_serve_listens_on_localhost_only(tmp_path):
    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "buviz.cli", "serve", "--port", str(port)], cwd=ROOT,
                                env={**os.environ, "BUVIZ_CACHE_DIR": str(tmp_path / "cache")},
                                stdout=fh, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while not _listening_addresses(port) and time.time() < deadline and proc.poll() is None:
            time.sleep(0.3)
        addrs = _listening_addresses(port)
    finally:
        stop_process(proc)
    assert addrs == {"0100007F"}, (addrs, log.read_text(errors="replace")[-2000:])  # 127.0.0.1 only


def test_session_rebuilt_after_being_discarded_loads_local_styles(tmp_path, browser):
    """Under load the browser may connect after Bokeh discarded the page's session as unused; the
    session rebuilt on connect must still load every stylesheet from this server (never a CDN,
    which an offline classroom cannot reach) and show the explorer. Forced here with a 50 ms lifetime."""
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    requests: list[str] = []
    failed: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    pg.on("requestfailed", lambda r: failed.append(r.url))
    srv = ExplorerServer(tmp_path, "--unused-session-lifetime", "50", "--check-unused-sessions", "50",
                         "--log-level", "debug", query=QUERY)
    try:
        discarded_before = srv.text().count("Discarding session")
        pg.route("**/*.js*", lambda route: (time.sleep(0.2), route.continue_()))  # connect well after 50 ms
        boundary = _open(pg, srv.url + QUERY)
        text = srv.text()
    finally:
        close_page(pg)
        srv.stop()
    assert text.count("Discarding session") > discarded_before  # the page's own session was discarded
    assert boundary is not None and boundary[0] > 10
    assert failed == []
    assert [u for u in requests if not u.startswith(f"http://127.0.0.1:{srv.port}/")] == []
