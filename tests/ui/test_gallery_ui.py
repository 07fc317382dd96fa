"""The Figures tab in headless Chromium: open it, pick a figure, change a parameter, render, and the
plot changes; the page logs no errors."""

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


def test_gallery_renders_the_chosen_figure_and_follows_a_parameter(browser, server):
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
        assert page.console_errors == []
    finally:
        close_page(page)
    assert "Traceback" not in server.text()
