"""Every view repaints with its status, and the screen shows what Export draws (issue 31).

In headless Chromium, for each tab of the boundary explorer, a status change (γ, M, K, the T̃ amplitude
a, the dataset, a tap) must change, in every plot that depends on it, both the data the browser's Bokeh
document draws (a digest of each glyph source, :data:`.conftest.PLOTS_JS`) and the pixels painted on
the plot's canvas (a screenshot cropped to it); and the data drawn must be the data of the tab's
export at the same status (``figure()``, what *Export PNG/SVG* renders, built here from the page's URL
and rendered to Bokeh models). A live plot that kept its first frame once passed every test that read
the data handed to a plot (the Covariate shift maps and histograms, the One-sample zoom).

The Sensitivity tab (sweeps run on demand) is checked for repainting only: its export needs the
sensitivity sweeps, which the page does not hand out. The T̃ amplitude tab runs its own sweep
(``test_amplitude_ui.py``); Extrapolation, Discrete and Figures do not follow the boundary status.

One server and one page for the module; each test starts its own session (a fresh ``goto``) at small N.
"""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import holoviews as hv
import numpy as np
import param
import pytest

from .conftest import (
    PLOTS_JS,
    ExplorerServer,
    StallDeadline,
    bokeh_digest,
    close_page,
    new_page,
    require_browser,
    same_drawing,
    sweep_text,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Three classes (K changes Î*), two features (maps), small N and 2-fold CV (a sweep in seconds).
QUERY = "?dataset=gmm3&n_train=200&M=20&cv=2&log2_gamma=0&perturbation=0.5"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("repaint"), query=QUERY, timeout=120)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def page(browser, server):
    pg = new_page(browser)
    pg.set_viewport_size({"width": 1600, "height": 2000})  # every plot of a tab on screen, no scrolling
    yield pg
    close_page(pg)


# -- driving the page ------------------------------------------------------------------------------------
def _start(page, server, query: str = QUERY) -> None:
    """A new session at ``query``, on the Sample space tab."""
    page.console_errors.clear()
    page.goto(server.url + query)
    page.wait_for_selector("canvas", timeout=60_000)
    page.get_by_text("Status Λ").first.wait_for(timeout=60_000)
    # the code card follows the snapshot the views draw: open, it tells when the server has shown a change
    page.get_by_text("Python code for this view").first.click()
    page.locator(".buviz-code").first.get_by_text("BoundaryUncertainty(").first.wait_for(timeout=30_000)


def _group(page, label: str):
    return page.locator(".bk-input-group", has_text=label).first


def _tab(page, name: str) -> None:
    page.locator(".bk-tab", has_text=name).first.click()


def _press(page, label: str, key: str, times: int = 1) -> None:
    """Key presses on the slider labelled ``label``."""
    handle = _group(page, label).locator(".noUi-handle").first
    handle.focus()
    for _ in range(times):
        page.keyboard.press(key)


def _gamma(page, steps: int) -> None:
    _press(page, "log₂ γ", "ArrowRight" if steps > 0 else "ArrowLeft", abs(steps))


def _type(page, label: str, value) -> None:
    box = _group(page, label).locator("input").first
    box.fill(str(value))
    box.press("Enter")


def _choose(page, label: str, value: str) -> None:
    _group(page, label).locator("select").first.select_option(value)


class Shown:
    """The plots of the open tab once the page has settled: their digests (``plots``, in reading
    order, as :data:`PLOTS_JS` returns them) and the pixels of each canvas (``pixels``)."""

    def __init__(self, plots, pixels):
        self.plots, self.pixels = plots, pixels

    def titles(self) -> list[str]:
        return [p["title"] for p in self.plots]

    def index(self, title: str) -> int:
        hits = [i for i, p in enumerate(self.plots) if p["title"].startswith(title)]
        assert len(hits) == 1, (title, self.titles())
        return hits[0]


#: What each tab draws, to know that the page shows it (not the tab it left): a check of its plots.
TABS = {
    "Sample space": lambda ps: len(ps) == 1 and ":" in ps[0]["title"],
    "Weights k̂/w": lambda ps: len(ps) == 1 and any("weight" in [c[0] for c in s[2]] for s in ps[0]["sources"]),
    "Covariate shift": lambda ps: [p["title"] for p in ps][:3] == ["f(T)", "f(T̃)", "f(X_te)"] and len(ps) == 4,
    "Error vs −Û": lambda ps: len(ps) == 4 and ps[0]["title"].startswith("Error (left)") and all(
        p["sources"] for p in ps),
    "One sample": lambda ps: len(ps) == 2 and ps[1]["title"].startswith("h_x"),
}


def _text(page, css_class: str) -> str:
    """The text a Panel markup pane with ``css_class`` shows (in its shadow root, after its styles)."""
    loc = page.locator("." + css_class)
    if not loc.count():
        return ""
    return loc.first.evaluate("""(e) => !e.shadowRoot ? '' : [...e.shadowRoot.children]
      .filter(c => c.tagName === 'DIV').map(c => c.innerText).join('').trim()""")


def _computing(page) -> str:
    return _text(page, "buviz-computing")


#: How the snippet of the code card writes a setting.
SNIPPET = {"dataset": "datasets.load('{}'", "log2_gamma": "gamma=2.0 ** {},", "M": "(M={},",
           "K": "K={},", "perturbation": "perturbation={:g},"}


def _shows(page, want: dict) -> bool:
    """Whether the server has shown the settings ``want``: the URL has them, the views are not waiting
    for a computation, and the code card (which follows the snapshot the views draw) writes them."""
    got = _settings(page.url)
    if not all(k in got and (got[k] == v if not isinstance(v, float) else abs(got[k] - v) < 1e-9)
               for k, v in want.items()):
        return False
    if _computing(page):
        return False
    code = _text(page, "buviz-code")
    return all(SNIPPET[k].format(repr(v) if v == "aic" else v) in code for k, v in want.items())


def _settle(page, tab: str, want: dict | None = None, timeout: float = 90.0, ready=None) -> Shown:
    """Wait until the page shows ``tab`` (its plots pass ``ready``, by default ``TABS[tab]``) at the URL
    settings ``want``, computes nothing, and its plots draw the same data for a second; then read their
    pixels. Fails after ``timeout`` seconds in which nothing on the page moved on (its plots, the
    sweep's state, the computing notice): :class:`~conftest.StallDeadline`."""
    from PIL import Image

    deadline = StallDeadline(timeout)
    last, stable, plots = None, 0, []
    while not deadline.over():
        plots = page.evaluate(PLOTS_JS)
        sweep = sweep_text(page) if tab == "Error vs −Û" else None
        ok = ((ready or TABS[tab])(plots) and _shows(page, want or {})
              and (tab != "Error vs −Û" or (sweep or "").startswith("Sweep done")))
        sig = json.dumps([[p["title"], p["sources"], p["box"]] for p in plots])
        deadline.see((sig, sweep, _computing(page)))  # progress: wait on
        stable = stable + 1 if ok and sig == last else 0
        last = sig
        if stable >= 4:
            page.mouse.move(1, 1)  # no hover tooltip over a canvas
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            shot = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
            if json.dumps([[p["title"], p["sources"], p["box"]] for p in page.evaluate(PLOTS_JS)]) != sig:
                stable = 0  # changed while the picture was taken: again
                continue
            pixels = [shot.crop(tuple(round(v) for v in (x, y, x + w, y + h))).tobytes()
                      for x, y, w, h in (p["box"] for p in plots)]
            return Shown(plots, pixels)
        page.wait_for_timeout(250)
    raise AssertionError(
        f"the {tab} tab did not settle at {want} ({deadline}): computing {_computing(page)!r}, "
        f"url {page.url}, plots {[(p['title'], len(p['sources'])) for p in plots]}, "
        f"plots ready {(ready or TABS[tab])(plots)}, code card {_text(page, 'buviz-code')[:400]!r}, "
        f"sweep {sweep_text(page)!r}, last stable run {stable}")


def _repainted(before: Shown, after: Shown, which) -> None:
    """Each plot of ``which`` (a position in reading order, or the start of a title) draws other data
    and paints other pixels."""

    def at(shown, w):
        return w if isinstance(w, int) else shown.index(w)

    data = [w for w in which if before.plots[at(before, w)]["sources"] == after.plots[at(after, w)]["sources"]]
    pixels = [w for w in which if before.pixels[at(before, w)] == after.pixels[at(after, w)]]
    assert data == [] and pixels == [], f"not redrawn: data {data}, pixels {pixels}"


# -- what Export draws at the page's status ------------------------------------------------------------
def _settings(url: str) -> dict:
    """The controls in the page's URL, typed as the controls' parameters."""
    from buviz.app.controls import URL_PARAMS, Controls

    out = {}
    for k, v in parse_qsl(urlsplit(url).query):
        if k not in URL_PARAMS or k in ("mixture_json", "csv_key"):
            continue
        p = Controls.param[k]
        if isinstance(p, param.Boolean):
            out[k] = v.lower() in ("true", "1")
        elif isinstance(p, param.Integer):
            out[k] = int(float(v))
        elif isinstance(p, param.Number):
            out[k] = float(v)
        else:
            out[k] = v
    return out


def _exported(url: str, tab: str, *, selected: int | None = None, sweep_csv: bytes | None = None) -> list[dict]:
    """:func:`bokeh_digest` of what the tab's Export draws (its ``figure()``) at the settings of ``url``."""
    import pandas as pd

    from buviz.app.layout import tab_views
    from buviz.app.store import SessionStore

    hv.extension("bokeh")
    state = SessionStore(**_settings(url), auto_sweep=False)
    assert state.snapshot is not None, state.message
    if sweep_csv is not None:
        with param.edit_constant(state.cv_sweep):  # the store's output, as the page's sweep left it
            state.cv_sweep.table = pd.read_csv(io.BytesIO(sweep_csv))
    views = tab_views(state)
    if selected is not None:
        views["One sample"].select(selected)
    return bokeh_digest(hv.renderer("bokeh").get_plot(views[tab].figure()).state)


def _matches_export(shown: Shown, exported: list[dict]) -> None:
    """Every plot of the export is on screen, drawing the same data under the same title."""
    missing = []
    for fig in exported:
        on_screen = [p for p in shown.plots if p["title"] == fig["title"]]
        if not any(same_drawing(p["sources"], fig["sources"]) for p in on_screen):
            missing.append(fig["title"])
    assert missing == [], f"export and screen differ: {missing} (screen: {shown.titles()})"


# -- the tests -------------------------------------------------------------------------------------------
SHIFT = ("f(T)", "f(T̃)", "f(X_te)", "Distributions of f(·;Λ)")


def _histogram_ranges_match_export(shown: Shown, exported: list[dict]) -> list[float]:
    """The painted ranges of the histograms (as the browser holds them) are the export's, which follow
    each frame's data (``tests/app/test_shift_axes.py``); returns them."""
    title = "Distributions of f(·;Λ)"
    screen = shown.plots[shown.index(title)]["ranges"]
    export = [f["ranges"] for f in exported if f["title"] == title]
    assert len(export) == 1 and all(v is not None for v in screen), (screen, export)
    assert np.allclose(screen, export[0], rtol=1e-6, atol=1e-9), f"painted {screen}, exported {export[0]}"
    return screen


def test_covariate_shift_repaints_with_gamma_amplitude_and_dataset(server, page):
    _start(page, server)
    _tab(page, "Covariate shift")
    s0 = _settle(page, "Covariate shift", {"log2_gamma": 0})
    e0 = _exported(page.url, "Covariate shift")
    _matches_export(s0, e0)
    r0 = _histogram_ranges_match_export(s0, e0)
    _gamma(page, 3)
    s1 = _settle(page, "Covariate shift", {"log2_gamma": 3})
    _repainted(s0, s1, SHIFT)
    e1 = _exported(page.url, "Covariate shift")
    _matches_export(s1, e1)
    r1 = _histogram_ranges_match_export(s1, e1)
    assert r1 != r0  # the axes followed the new frame (the first frame's axes cut the peaks off, issue 40)
    _press(page, "T̃ amplitude", "ArrowRight", 6)  # a = 0.5 -> 0.8: f(T̃) and its histogram move
    s2 = _settle(page, "Covariate shift", {"perturbation": 0.8})
    _repainted(s1, s2, ("f(T̃)", "Distributions of f(·;Λ)"))
    _matches_export(s2, _exported(page.url, "Covariate shift"))
    _choose(page, "Dataset", "gmm")
    s3 = _settle(page, "Covariate shift", {"dataset": "gmm"})
    _repainted(s2, s3, SHIFT)
    _matches_export(s3, _exported(page.url, "Covariate shift"))
    assert page.console_errors == []


def test_sample_space_and_weights_repaint_with_gamma_k_m_and_dataset(server, page):
    _start(page, server)
    s0 = _settle(page, "Sample space", {"log2_gamma": 0})
    _tab(page, "Weights k̂/w")
    w0 = _settle(page, "Weights k̂/w", {"log2_gamma": 0})
    _gamma(page, 2)  # on the Weights tab: its map follows; the Sample space map follows when opened
    w1 = _settle(page, "Weights k̂/w", {"log2_gamma": 2})
    _repainted(w0, w1, (0,))
    _matches_export(w1, _exported(page.url, "Weights k̂/w"))
    _choose(page, "K prototypes", "3")  # Î*'s prototypes: the pair weights w_kl of eq 29
    w2 = _settle(page, "Weights k̂/w", {"K": "3"})
    _repainted(w1, w2, (0,))
    _type(page, "M (neighbourhood size)", 30)  # N^M(x): every k̂(x)
    w3 = _settle(page, "Weights k̂/w", {"M": 30})
    _repainted(w2, w3, (0,))
    _matches_export(w3, _exported(page.url, "Weights k̂/w"))
    _tab(page, "Sample space")
    s1 = _settle(page, "Sample space", {"log2_gamma": 2})
    _repainted(s0, s1, ("gmm3: SVM",))
    _matches_export(s1, _exported(page.url, "Sample space"))
    _gamma(page, -3)  # on the Sample space tab
    s2 = _settle(page, "Sample space", {"log2_gamma": -1})
    _repainted(s1, s2, ("gmm3: SVM",))
    _choose(page, "Dataset", "gmm")
    s3 = _settle(page, "Sample space", {"dataset": "gmm"})
    assert s3.titles() == ["gmm: SVM γ = 2^-1, C = 2^0"]
    _repainted(s2, s3, (0,))
    _matches_export(s3, _exported(page.url, "Sample space"))
    assert page.console_errors == []


def _tapped_index(page) -> int:
    text = page.get_by_text("(tapped)").first.text_content()
    return int(re.search(r"Sample #(\d+)", text).group(1))


def test_one_sample_repaints_with_a_tap_gamma_m_and_amplitude(server, page):
    _start(page, server)
    _tab(page, "One sample")
    o0 = _settle(page, "One sample", {"log2_gamma": 0})  # the sample with the largest weight
    _tab(page, "Sample space")
    s = _settle(page, "Sample space", {"log2_gamma": 0})
    x, y, w, h = s.plots[0]["box"]
    _tap_until(page, (x + 0.3 * w, y + 0.55 * h), lambda: page.get_by_text("(tapped)").count() > 0)  # up close
    o1 = _settle(page, "One sample", {"log2_gamma": 0})
    picked = _tapped_index(page)
    _repainted(o0, o1, (0, 1))
    _matches_export(o1, _exported(page.url, "One sample", selected=picked))
    _gamma(page, 2)
    o2 = _settle(page, "One sample", {"log2_gamma": 2})
    _repainted(o1, o2, (0, 1))
    _type(page, "M (neighbourhood size)", 35)
    o3 = _settle(page, "One sample", {"M": 35})
    _repainted(o2, o3, (0, 1))
    _press(page, "T̃ amplitude", "ArrowLeft", 4)  # a = 0.5 -> 0.3: f(x̃') of the cluster
    o4 = _settle(page, "One sample", {"perturbation": 0.3})
    _repainted(o3, o4, (1,))
    assert _tapped_index(page) == picked
    _matches_export(o4, _exported(page.url, "One sample", selected=picked))
    x, y, w, h = o4.plots[0]["box"]
    _tap_until(page, (x + 0.7 * w, y + 0.4 * h), lambda: _tapped_index(page) != picked)  # on this tab's map
    o5 = _settle(page, "One sample", {"perturbation": 0.3})
    _repainted(o4, o5, (0, 1))
    _matches_export(o5, _exported(page.url, "One sample", selected=_tapped_index(page)))
    assert page.console_errors == []


def _tap_until(page, xy, done, tries: int = 3, timeout: float = 15.0) -> None:
    """Tap at ``xy`` until ``done()`` (a tap the server has not answered yet is tapped again; a
    second tap at the same place asks for the same thing)."""
    for _ in range(tries):
        page.mouse.click(*xy)
        end = time.time() + timeout
        while time.time() < end:
            if done():
                return
            page.wait_for_timeout(200)
    raise AssertionError(f"a tap at {xy} was not answered ({page.url})")


CURVES = ("Error (left)", "Error against −Û")


def test_error_curves_repaint_with_gamma_m_and_a_tap_and_match_the_export(server, page):
    _start(page, server)
    _tab(page, "Error vs −Û")
    c0 = _settle(page, "Error vs −Û", {"log2_gamma": 0})
    _gamma(page, 3)  # the current-status markers move; the sweep stays
    c1 = _settle(page, "Error vs −Û", {"log2_gamma": 3})
    _repainted(c0, c1, CURVES)
    with page.expect_download() as dl:
        page.get_by_role("button", name="Download sweep CSV").click()
    table = Path(dl.value.path()).read_bytes()
    _matches_export(c1, _exported(page.url, "Error vs −Û", sweep_csv=table))
    _type(page, "M (neighbourhood size)", 30)  # a new sweep: −Û moves in every plot
    c2 = _settle(page, "Error vs −Û", {"M": 30})
    _repainted(c1, c2, (*CURVES, "Separability case", "Effective near-boundary"))
    x, y, w, h = c2.plots[0]["box"]
    _tap_until(page, (x + 0.25 * w, y + 0.5 * h), lambda: _settings(page.url)["log2_gamma"] < 0)  # a status

    c3 = _settle(page, "Error vs −Û", {"log2_gamma": _settings(page.url)["log2_gamma"]})
    _repainted(c2, c3, CURVES)
    assert page.console_errors == []


def _sensitivity_done(plots) -> bool:
    """One plot of −Û_tr for several M, its curves (and the reference sweep) complete."""
    if len(plots) != 1 or not plots[0]["title"].startswith("−Û_tr for several M"):
        return False
    rows = {s[1] for s in plots[0]["sources"] if s[0] == "Line"}
    return len(plots[0]["sources"]) >= 3 and rows == {21}


def test_sensitivity_repaints_with_m_and_clears_with_the_dataset(server, page):
    _start(page, server)
    _tab(page, "Sensitivity M, K")
    page.get_by_role("button", name="Run M sensitivity (Fig 12)").click()
    page.get_by_text("Status: done").first.wait_for(timeout=240_000)
    s0 = _settle(page, "Sensitivity M, K", {"M": 20}, ready=_sensitivity_done, timeout=240)
    _type(page, "M (neighbourhood size)", 30)  # a new reference sweep: its −Û_te curve moves
    s1 = _settle(page, "Sensitivity M, K", {"M": 30}, ready=_sensitivity_done, timeout=240)
    _repainted(s0, s1, (0,))
    _choose(page, "Dataset", "gmm")  # the sensitivity of another dataset is not this one's: cleared
    _settle(page, "Sensitivity M, K", {"dataset": "gmm"}, ready=lambda plots: plots == [])
    assert page.get_by_text("Press a button").count() > 0
    assert page.console_errors == []


def _in_place(page, tab: str, ready, move, timeout: float = 120.0) -> None:
    """On ``tab`` (its plots pass ``ready``), ``move()`` a control: every plot is redrawn in the same
    Bokeh figure (the same model id) with other data, and paints other pixels."""
    _tab(page, tab)
    s0 = _settle(page, tab, ready=ready, timeout=timeout)
    before = [p["sources"] for p in s0.plots]
    move()
    s1 = _settle(page, tab, ready=lambda ps: ready(ps) and [p["sources"] for p in ps] != before, timeout=timeout)
    assert [p["id"] for p in s1.plots] == [p["id"] for p in s0.plots]  # the same figures: updated, not replaced
    _repainted(s0, s1, range(len(s0.plots)))


def test_discrete_and_extrapolation_figures_repaint_in_place(server, page):
    """The Discrete tab's Fig 1 and Fig 2 follow N, and the Extrapolation toy model's four plots follow ρ,
    in the figures they were first drawn in (their views send new data down a stream; they once set a
    new HoloViews object into each pane, a new Bokeh figure per step)."""
    _start(page, server)

    def discrete_ready(plots):
        return [p["title"][:5] for p in plots] == ["Fig 1", "Fig 2"] and all(p["sources"] for p in plots)

    def table_text():
        return page.locator("table", has_text="m=1").first.inner_text()

    _tab(page, "Discrete")
    page.locator("table", has_text="m=1").first.wait_for(timeout=60_000)
    before = table_text()
    _in_place(page, "Discrete", discrete_ready,
              lambda: _press(page, "Sample size N (training points)", "ArrowRight", 3))
    # the table follows N in the page too (a Bokeh DataTable fed by a stream kept its first data there)
    deadline = time.time() + 30
    while table_text() == before and time.time() < deadline:
        page.wait_for_timeout(250)
    assert table_text() != before

    def toy_ready(plots):
        return len(plots) == 4 and all(p["sources"] for p in plots)

    _in_place(page, "Extrapolation", toy_ready,
              lambda: _press(page, "Toy model: correlation ρ of X and Y", "ArrowLeft", 2))
    assert page.console_errors == []


def test_the_extrapolation_sub_tabs_draw_their_curves_and_tables(server, page):
    """The Extrapolation tab's sub-tabs Extrapolation and ClassEx comparison draw their plot and table
    (their tables were Tabulator widgets, whose JavaScript the page had not loaded: "Tabulator is not
    defined", and the page hung)."""
    _start(page, server)
    _tab(page, "Extrapolation")
    page.get_by_text("Observed classes K").first.wait_for(state="visible", timeout=60_000)
    for sub, rows in (("Extrapolation", "kde"), ("ClassEx comparison", "ClassEx (R)")):
        page.locator(".bk-tab", has_text=sub).last.click()
        deadline = time.time() + 120
        while time.time() < deadline:
            plots = page.evaluate(PLOTS_JS)
            if plots and all(p["sources"] for p in plots) and page.locator("table", has_text=rows).count():
                break
            page.wait_for_timeout(250)
        assert plots and all(p["sources"] for p in plots), (sub, [p["title"] for p in plots])
        table = page.locator("table", has_text=rows).last.inner_text()
        assert "predicted at k=" in table and "error" in table and rows in table, (sub, table)
    assert page.console_errors == []


def test_the_extrapolation_sub_tabs_ask_nothing_of_panels_cdn(server, page):
    """Offline, the Extrapolation tab's sub-tabs take every stylesheet from the explorer's server. A table
    or Markdown pane updated while its sub-tab was closed had its stylesheet links rewritten by Panel to
    cdn.holoviz.org (its model is then out of the document; buviz.app._panel_compat, item 11), and opening
    the sub-tab asked the CDN for loading.css, markdown.css, dataframe.css and alerts.css (11 requests).
    Every request that leaves the server is a console error here (conftest.new_page)."""
    _start(page, server)
    _tab(page, "Extrapolation")
    page.get_by_text("Observed classes K").first.wait_for(state="visible", timeout=60_000)
    for sub in ("Extrapolation", "ClassEx comparison", "Schematics", "Toy model"):
        page.locator(".bk-tab", has_text=sub).last.click()
        page.wait_for_timeout(5000)
    assert page.console_errors == []
