"""The Figures tab in headless Chromium: open it, pick a figure, change a parameter, render, and the
plot changes; tables show as text without an index column; the page logs no errors."""

import re

import pytest

from buviz import figures
from buviz.app.gallery import MENU_LABEL_MAX, menu_label

from .conftest import ExplorerServer, close_page, new_page, require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: Reads the drawn curves of the page's Bokeh documents: the most points a line glyph has.
CURVE_POINTS_JS = """() => {
  let n = 0;
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (m.constructor.__name__ === 'GlyphRenderer' && m.glyph.constructor.__name__ === 'Line') {
      const columns = Object.values(m.data_source.data);
      if (columns.length) n = Math.max(n, columns[0].length);
    }
  }
  return n;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("gallery"), query="?n_train=200&M=20", timeout=120)
    yield srv
    srv.stop()


def _wait_points(page, want: int, timeout_ms: int = 90_000) -> int:
    page.wait_for_function(f"() => ({CURVE_POINTS_JS})() === {want}", timeout=timeout_ms)
    return page.evaluate(CURVE_POINTS_JS)


def test_gallery_renders_the_chosen_figure_follows_a_parameter_and_shows_tables(browser, server):
    page = new_page(browser)
    try:
        page.goto(server.url + "?n_train=200&M=20")
        page.wait_for_selector("canvas", timeout=90_000)
        page.locator(".bk-tab", has_text="Figures").first.click()
        figure = page.locator(".bk-input-group", has_text="Figure").locator("select").first
        figure.wait_for(state="visible", timeout=90_000)
        fig2 = figures.REGISTRY["discrete_fig2"]
        figure.select_option(label=menu_label(fig2))  # a short name in the menu, the caption beside it
        page.locator(".buviz-gallery-info", has_text=fig2.description).first.wait_for(timeout=30_000)
        labels = figure.locator("option").all_inner_texts()
        assert len(labels) == len(figures.REGISTRY) and max(map(len, labels)) <= MENU_LABEL_MAX
        n_p = page.locator(".bk-input-group", has_text="n_p").locator("input").first
        n_p.wait_for(state="visible", timeout=30_000)
        n_p.fill("11")
        n_p.press("Enter")
        page.get_by_role("button", name="Render").click()
        assert _wait_points(page, 11) == 11  # the estimators' curves, 11 values of p each
        shot = page.locator(".buviz-gallery-plot").screenshot()
        n_p.fill("31")
        n_p.press("Enter")
        page.wait_for_timeout(300)
        assert page.evaluate(CURVE_POINTS_JS) == 11  # no render before the button
        page.get_by_role("button", name="Render").click()
        assert _wait_points(page, 31) == 31
        assert page.locator(".buviz-gallery-plot").screenshot() != shot
        assert not page.locator(".buviz-gallery-message").is_visible()
        # a number out of range stays as typed (a browser's number box with bounds would clamp it to
        # 2001 without a word), the message names it and its range, and Render draws nothing
        n_p.fill("5000")
        n_p.press("Enter")
        said = page.get_by_text("n_p = 5000").first  # the Alert's text is in its shadow root
        said.wait_for(state="visible", timeout=30_000)
        assert "[3, 2001]" in said.text_content()
        assert n_p.input_value() == "5000"
        page.get_by_role("button", name="Render").click()
        page.wait_for_timeout(500)
        assert page.evaluate(CURVE_POINTS_JS) == 31
        # refused before any build: the message is still the range's, not a failed build's
        assert page.get_by_text("n_p = 5000").count() > 0 and page.get_by_text("InvalidParameterError").count() == 0
        n_p.fill("21")
        n_p.press("Enter")
        page.locator(".buviz-gallery-message").wait_for(state="hidden", timeout=30_000)
        page.get_by_role("button", name="Render").click()
        assert _wait_points(page, 21) == 21
        _check_tables(page, figure)
        assert page.console_errors == []
    finally:
        close_page(page)
    assert "Traceback" not in server.text()


#: The gallery's table as the page shows it: header cells, rows of cells, and the note under it.
TABLE_JS = """() => {
  const roots = [document];
  const found = [];
  while (roots.length) {
    const r = roots.pop();
    for (const el of r.querySelectorAll('*')) {
      if (el.shadowRoot) roots.push(el.shadowRoot);
      if (el.tagName === 'TABLE' && el.offsetParent !== null) found.push(el);
    }
  }
  if (!found.length) return null;
  const t = found[0];
  const note = t.parentNode.querySelector('p');
  return {head: [...t.querySelectorAll('th')].map(c => c.textContent),
          rows: [...t.querySelectorAll('tbody tr')].map(r => [...r.children].map(c => c.textContent)),
          note: note ? note.textContent : ''};
}"""


def _check_tables(page, figure) -> None:
    """The registry's tables with and without empty cells, in the page already on the Figures tab: no
    index column, at most three decimals, an empty cell marked and its note said, and the caption
    beside the menu holds the paper's claim and buviz's verdict."""
    for key in ("uncertainty_table3", "extrapolation_table1"):
        cls = figures.REGISTRY[key]
        figure.select_option(label=menu_label(cls))
        page.get_by_role("button", name="Render").click()
        page.locator(".buviz-gallery-shown").get_by_text(key, exact=True).wait_for(timeout=90_000)
        page.wait_for_function(f"() => {{ const t = ({TABLE_JS})(); return t && t.rows.length > 0; }}",
                               timeout=30_000)
        table = page.evaluate(TABLE_JS)
        frame = figures.render(key)
        assert table["head"] == [str(c) for c in frame.columns], key  # no index column
        assert all(len(r) == frame.shape[1] for r in table["rows"])
        cells = [c for r in table["rows"] for c in r]
        assert not [c for c in cells if re.fullmatch(r"−?\d+\.\d{4,}", c)], key  # never six decimals
        assert "NaN" not in cells and "nan" not in cells
        if frame.isna().any().any():
            assert "—" in cells and table["note"].startswith("— no value"), key
        if key == "uncertainty_table3":  # the caption beside the menu: the paper's claim and buviz's verdict
            page.locator(".buviz-gallery-info", has_text=key).filter(has_text="Paper:").filter(
                has_text="buviz measures:").first.wait_for(timeout=30_000)
