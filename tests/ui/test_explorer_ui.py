"""Browser tests: the served explorer driven through headless Chromium (Debian's, no download).

One server for the module (``panel serve apps/explorer.py`` on a free port, a private sweep cache);
small N in the URL keeps each page fast.
"""

import shutil
import time
from pathlib import Path

import pytest

from .conftest import ExplorerServer, close_page, new_page, require_browser, wait_for_sweep_done

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

# Bokeh document introspection: B(Λ) polylines (solid blue MultiLine) and vertical marker lines (Span)
DOC_JS = """() => {
  const out = {boundary: null, spans: []};
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    const kind = m.constructor.__name__;
    if (kind === 'GlyphRenderer' && m.glyph.constructor.__name__ === 'MultiLine'
        && m.glyph.line_color.value === '#009E73') {
      let n = 0, sx = 0;
      for (const xs of m.data_source.data.xs) for (const v of xs) if (!isNaN(v)) { n += 1; sx += v; }
      out.boundary = {n, sx};
    }
    if (kind === 'Span') out.spans.push(m.location);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("explorer"), query="?n_train=300", timeout=90)
    yield srv.url
    srv.stop()


@pytest.fixture
def page(browser):
    pg = new_page(browser)
    yield pg
    close_page(pg)


def _open(page, url):
    page.goto(url)
    page.wait_for_selector("canvas", timeout=60_000)
    page.get_by_text("Status Λ").first.wait_for(timeout=60_000)


def _shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))


def _tab(page, name):
    page.locator(".bk-tab", has_text=name).first.click()


def _doc(page):
    return page.evaluate(DOC_JS)


def _wait_for(page, predicate, timeout=30.0):
    end = time.time() + timeout
    while time.time() < end:
        value = _doc(page)
        if predicate(value):
            return value
        page.wait_for_timeout(200)
    raise AssertionError(f"condition not met; last document state {value}")


def _gamma_handle(page):
    return page.locator(".bk-input-group", has_text="log₂ γ").locator(".noUi-handle").first


def test_page_renders_every_view_without_console_errors(server, page):
    t0 = time.time()
    _open(page, server + "?n_train=500")
    first = time.time() - t0
    assert _doc(page)["boundary"]["n"] > 10
    _shot(page, "explorer_sample_space.png")
    for tab, name in [("Weights k̂/w", "weights"), ("Covariate shift", "shift"), ("Error vs −Û", "curves"),
                      ("One sample", "one_sample"), ("Sensitivity M, K", "sensitivity")]:
        _tab(page, tab)
        page.wait_for_timeout(3500)
        _shot(page, f"explorer_{name}.png")
    assert page.console_errors == []
    assert first < 60


def test_gamma_slider_changes_contour_and_moves_curve_marker(server, page):
    _open(page, server + "?n_train=300")
    before = _doc(page)["boundary"]
    handle = _gamma_handle(page)
    handle.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    after = _wait_for(page, lambda d: d["boundary"] is not None and d["boundary"] != before)["boundary"]
    assert after != before
    page.get_by_text("SVM γ = 2^2", exact=False).first.wait_for(timeout=30_000)
    _tab(page, "Error vs −Û")
    _wait_for(page, lambda d: d["spans"] == [2])
    handle.focus()
    page.keyboard.press("ArrowLeft")
    _wait_for(page, lambda d: d["spans"] == [1])
    assert page.console_errors == []


def test_tapping_a_sample_opens_the_up_close_view(server, page):
    _open(page, server + "?n_train=300")
    canvas = page.locator("canvas").first
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.35, box["y"] + box["height"] * 0.5)
    page.get_by_text("(tapped)").first.wait_for(timeout=30_000)
    assert page.locator(".bk-tab.bk-active").first.text_content().strip() == "One sample"
    _shot(page, "explorer_tapped_sample.png")
    assert page.console_errors == []


def test_url_query_restores_state(server, page):
    _open(page, server + "?dataset=gmm_separable&log2_gamma=3&n_train=300&M=30")
    page.get_by_text("SVM γ = 2^3, C = 2^0").first.wait_for(timeout=30_000)
    assert page.locator("select").first.input_value() == "gmm_separable"
    page.get_by_text("log₂ γ (RBF kernel): 3").first.wait_for(timeout=10_000)
    # and the URL follows the controls
    _gamma_handle(page).focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => window.location.search.includes('log2_gamma=4')", timeout=30_000)
    assert "dataset=gmm_separable" in page.url
    # a negative integer and a K choice that looks like a number come back too
    _open(page, server + "?log2_gamma=-2&K=3&n_train=200")
    page.get_by_text("SVM γ = 2^-2, C = 2^0").first.wait_for(timeout=30_000)
    k_select = page.locator(".bk-input-group", has_text="K prototypes per class").locator("select").first
    assert k_select.input_value() == "3"


def test_bad_csv_shows_a_message_and_keeps_the_view(server, page):
    _open(page, server + "?n_train=300")
    before = _doc(page)["boundary"]
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "bad.csv", "mimeType": "text/csv", "buffer": b"x1,x2,label\n1,2,a\n3,oops,b\n4,5,a\n"}])
    page.get_by_text("non-numeric text").first.wait_for(timeout=30_000)
    _shot(page, "explorer_bad_csv.png")
    assert _doc(page)["boundary"] == before
    good = b"x1,x2,label\n" + b"".join(f"{i % 7 - 3},{i % 5 - 2 + (i % 2)},{'ab'[i % 2]}\n".encode()
                                          for i in range(80))
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "good.csv", "mimeType": "text/csv", "buffer": good}])
    deadline = time.time() + 30
    while page.locator("select").first.input_value() != "csv" and time.time() < deadline:
        page.wait_for_timeout(200)
    assert page.locator("select").first.input_value() == "csv"
    # the dataset selector switches before the new numbers table is drawn: wait for it (visible, or fail)
    page.get_by_text("N (train), J").first.wait_for(state="visible", timeout=60_000)
    assert page.get_by_text("N (train), J").first.is_visible()


@pytest.fixture(scope="module", autouse=True)
def _docs_screenshot():
    yield
    src = ARTIFACTS / "explorer_sample_space.png"
    if src.exists() and not (ROOT / "docs" / "explorer.png").exists():
        (ROOT / "docs").mkdir(exist_ok=True)
        shutil.copy(src, ROOT / "docs" / "explorer.png")


_MJX_JS = """() => { let n = 0, em = 0;
  const walk = (r) => { n += r.querySelectorAll('mjx-container').length;
    for (const e of r.querySelectorAll('em')) if (e.textContent.startsWith('{kl}')) em++;
    r.querySelectorAll('*').forEach(e => { if (e.shadowRoot) walk(e.shadowRoot); }); };
  walk(document); return {n, em}; }"""


def test_latex_notes_are_typeset_not_garbled(server, page):
    _open(page, server + "?n_train=300")
    page.wait_for_function("() => true")
    end = time.time() + 30
    while (res := page.evaluate(_MJX_JS))["n"] < 5 and time.time() < end:
        page.wait_for_timeout(300)
    assert res["n"] >= 5 and res["em"] == 0
    _shot(page, "explorer_latex.png")


def test_a_headerless_semicolon_csv_with_five_features_is_shown_with_a_note(server, page):
    """A ';'-separated file without a header and five feature columns is taken, the
    note says what was inferred, the N slider gives way to the file's sizes, the dataset stays csv."""
    _open(page, server + "?n_train=300")
    rows = "".join(f"{i % 7 - 3};{i % 5 - 2};{(i * 3) % 11 - 5};{i % 4};{(i * 7) % 13 - 6};{'ab'[i % 2]}\n"
                   for i in range(60))
    page.locator("input[type=file]").set_input_files(
        files=[{"name": "five.csv", "mimeType": "text/csv", "buffer": rows.encode()}])
    page.get_by_text("no header row found").first.wait_for(timeout=60_000)
    assert page.get_by_text("semicolon-separated").first.is_visible()
    assert page.locator("select").first.input_value() == "csv"
    page.get_by_text("fixed by this dataset").first.wait_for(timeout=30_000)
    assert page.get_by_text("d = 5, J = 2").first.is_visible()
    assert not page.locator(".bk-input-group", has_text="N (training samples)").first.is_visible()
    assert not page.console_errors, page.console_errors


TITLES_JS = """() => {
  const out = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models)
    if (m.constructor.__name__ === 'Title' && m.text) out.push(m.text);
  return out;
}"""


def test_proposal1_overlay_arrives_from_the_runner_and_the_curves_tab_shows_the_cases(server, page):
    """Served: the Proposal 1 overlay is a runner job delivered on the session's loop (its numbers
    appear in the sample-space table); the Error vs −Û tab draws each pair's case and n_eff along the
    sweep once the sweep table has rows."""
    _open(page, server + "?n_train=200")
    box = page.get_by_text("Proposal 1 (anchors, N_B, clusters)").first.bounding_box()
    page.mouse.click(box["x"] - 8, box["y"] + box["height"] / 2)  # the box left of its label
    page.get_by_text("(overlay): Û⁽¹⁾ =", exact=False).first.wait_for(timeout=60_000)
    legend = "() => Bokeh.documents.flatMap(d => [...d.all_models]).filter(m => m.constructor.__name__ === " \
             "'LegendItem').map(m => m.label && m.label.value)"
    end = time.time() + 20
    while "P1 anchors" not in page.evaluate(legend) and time.time() < end:
        page.wait_for_timeout(300)
    assert "P1 anchors" in page.evaluate(legend)  # the map drew the overlay the runner delivered
    _tab(page, "Error vs −Û")
    wait_for_sweep_done(page)  # its rows arrive at niceness 10: slowly on a busy machine
    end = time.time() + 30
    while "Separability case of each pair (eq 39, §4.5)" not in page.evaluate(TITLES_JS) and time.time() < end:
        page.wait_for_timeout(300)
    assert "Separability case of each pair (eq 39, §4.5)" in page.evaluate(TITLES_JS)
    assert "Effective near-boundary sample size per pair" in page.evaluate(TITLES_JS)
    page.wait_for_timeout(2500)
    _shot(page, "explorer_curves_cases.png")
    # at 1024 × 768 every toolbar keeps all its buttons: none is squeezed into its overflow menu by a
    # long title beside it (the cases and n_eff panels' toolbars stood above their plots, beside their
    # titles, and kept one button and the overflow mark)
    page.set_viewport_size({"width": 1024, "height": 768})
    squeezed = {}
    from buviz.app.curves import CurvesView

    for name in [t.strip() for t in page.locator(".bk-tab").all_inner_texts()]:  # the top-level tabs
        if name and name != "Figures" and name not in CurvesView.SUB_TABS:
            _tab(page, name)
            page.wait_for_timeout(2500)
            squeezed[name] = page.evaluate(SQUEEZED_TOOLBARS_JS)
    assert {k: v for k, v in squeezed.items() if v} == {}
    assert page.console_errors == []


#: The plots (type, title, toolbar box) whose visible toolbar shows Bokeh's overflow mark:
#: tools that did not fit beside the title.
SQUEEZED_TOOLBARS_JS = """() => {
  const out = [];
  for (const v of Bokeh.index.query(w => w.model.constructor.__name__ === 'Toolbar')) {
    if (!v.el.isConnected || v.el.getBoundingClientRect().width === 0) continue;
    const mark = v.el.shadowRoot && v.el.shadowRoot.querySelector('.bk-tool-overflow');
    if (mark && mark.getBoundingClientRect().width > 0) {
      let pv = v.parent;
      while (pv && !(pv.model && pv.model.title !== undefined)) pv = pv.parent;
      const plot = pv && pv.model, b = v.el.getBoundingClientRect();
      out.push([plot ? plot.constructor.__name__ : null, plot && plot.title ? plot.title.text : null,
                Math.round(b.x), Math.round(b.y), Math.round(b.width), Math.round(b.height)]);
    }
  }
  return out;
}"""


def test_a_degenerate_status_is_explained_beside_the_numbers_and_the_url_keeps_the_tab(server, page):
    """Satimage at γ = 2³: Û_tr = 0 with every weight 0; the page says why next to the numbers, and
    the notice goes once the status is ordinary. A dataset switched in the menu starts at its
    "scale" γ (2⁻⁵ for 36 standardised features); the open tab is in the URL and comes back."""
    _open(page, server + "?dataset=satimage&log2_gamma=3&n_train=1000")
    page.get_by_text("SVM γ = 2^3, C = 2^0").first.wait_for(timeout=120_000)
    notice = page.locator(".buviz-status-notice")
    notice.get_by_text("No near-boundary sample", exact=False).first.wait_for(timeout=60_000)
    notice.get_by_text("every weight k̂/w is 0", exact=False).first.wait_for(timeout=10_000)
    _shot(page, "explorer_degenerate_notice.png")
    from buviz.app.controls import DATASET_HINTS

    page.locator("select").first.select_option(label=DATASET_HINTS["breast_cancer"])  # ordinary: no notice
    page.get_by_text("SVM γ = 2^-5, C = 2^0").first.wait_for(timeout=120_000)  # 1/30 -> 2^-5, not 2^0
    page.get_by_text("No near-boundary sample", exact=False).first.wait_for(state="hidden", timeout=60_000)
    _tab(page, "Weights k̂/w")
    page.wait_for_function("() => window.location.search.includes('tab=1')", timeout=30_000)
    _open(page, page.url)
    active = page.locator(".bk-tab.bk-active").first
    active.wait_for(timeout=30_000)
    deadline = time.time() + 60
    while active.text_content().strip() != "Weights k̂/w" and time.time() < deadline:
        page.wait_for_timeout(300)
    assert active.text_content().strip() == "Weights k̂/w"
    assert page.console_errors == []


def test_the_classifier_radio_group_is_followed_at_once_without_a_server_error(page, tmp_path):
    """The classifier (a radio group, whose value is Bokeh's ``active``) is handled at the next tick,
    outside Panel's debounce and without Bokeh's document lock (``_panel_compat`` gate 12): each click
    is followed (the status, the URL) and the server logs no error."""
    srv = ExplorerServer(tmp_path, query="?n_train=200", timeout=90)
    try:
        _open(page, srv.url + "?n_train=200")
        page.locator(".bk-btn-group .bk-btn", has_text="MLP").first.click()
        page.get_by_text("MLP epoch", exact=False).first.wait_for(timeout=60_000)
        page.wait_for_function("() => location.search.includes('classifier=MLP')", timeout=30_000)
        page.locator(".bk-btn-group .bk-btn", has_text="SVM").first.click()
        page.get_by_text("SVM γ = 2^", exact=False).first.wait_for(timeout=60_000)
        page.wait_for_function("() => !location.search.includes('classifier=MLP')", timeout=30_000)
        page.wait_for_timeout(500)
        log = srv.text()
    finally:
        srv.stop()
    assert page.console_errors == []
    assert "Traceback" not in log and "_pending_writes" not in log, log[-3000:]
