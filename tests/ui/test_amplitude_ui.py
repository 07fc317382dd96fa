"""Browser test of the "T̃ amplitude" tab: open it, run the sweep, and see the curves arrive."""

import pytest

from buviz.app.amplitude import AMPLITUDES, LOG2_GAMMAS
from buviz.plots.selection import AMPLITUDE_PALETTE

from .conftest import ExplorerServer, close_page, new_page, require_browser, server_errors

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Lines of the amplitude curves (palette colours, grey dashed a = 0) and how many points they hold
CURVES_JS = """(palette) => {
  const out = [];
  for (const doc of Bokeh.documents) for (const m of doc.all_models) {
    if (m.constructor.__name__ !== 'GlyphRenderer' || m.glyph.constructor.__name__ !== 'Line') continue;
    const c = m.glyph.line_color.value;
    if (palette.includes(c)) out.push(m.data_source.data[Object.keys(m.data_source.data)[0]].length);
  }
  return out;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("explorer"), query="?n_train=200", timeout=90)
    yield srv
    srv.stop()


def test_amplitude_tab_runs_and_shows_one_curve_per_amplitude_and_mode(server, browser):
    page = new_page(browser)
    try:
        page.goto(server.url + "?n_train=200")
        page.wait_for_selector("canvas", timeout=60_000)
        page.get_by_text("Status Λ").first.wait_for(timeout=60_000)
        page.locator(".bk-tab", has_text="T̃ amplitude").first.click()
        page.get_by_text("Status: idle").first.wait_for(timeout=30_000)
        palette = [*AMPLITUDE_PALETTE, "#777777"]
        assert all(n == 0 for n in page.evaluate(CURVES_JS, palette))  # empty before the run
        page.get_by_role("button", name="Run T̃ amplitude sweep").click()
        page.get_by_text("Status: done").first.wait_for(timeout=240_000)
        page.wait_for_function(f"(p) => ({CURVES_JS})(p).filter(n => n === {len(LOG2_GAMMAS)}).length >= "
                               f"{2 * len(AMPLITUDES)}", arg=palette, timeout=30_000)
        lengths = page.evaluate(CURVES_JS, palette)
        assert sorted(lengths).count(len(LOG2_GAMMAS)) == 2 * len(AMPLITUDES)  # both modes, every a
        assert page.console_errors == []
    finally:
        close_page(page)
    assert server_errors(server.text().splitlines()) == []
