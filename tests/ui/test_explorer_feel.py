"""How the explorer follows the hand, in headless Chromium: a dragged γ slider shows the statuses it
passes, the released position wins, a fast run of key presses ends on the right status (with the
numbers the API computes), and the sidebar follows the tab. Latencies are measured by
``benchmarks/bench_browser.py``, not here."""

import re

import pytest

from buviz.app import compute
from buviz.app.controls import CONTROL_PARAMS, Controls

from .conftest import PROBE_JS, RECORD_JS, WAIT_JS, ExplorerServer, close_page, new_page, require_browser

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUERY = "?n_train=300&M=30"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_browser()
    srv = ExplorerServer(tmp_path_factory.mktemp("feel"), query=QUERY, timeout=90)
    yield srv
    srv.stop()


@pytest.fixture
def page(browser, server):
    pg = new_page(browser)
    pg.goto(server.url + QUERY)
    pg.wait_for_selector("canvas", timeout=60_000)
    pg.get_by_text("Status Λ").first.wait_for(timeout=60_000)
    pg.evaluate(PROBE_JS)
    yield pg
    close_page(pg)


def _group(page, label):
    return page.locator(".bk-input-group", has_text=label)


def _shown_gamma(page) -> int:
    return int(re.search(r"γ = 2\^(-?\d+),", page.evaluate("() => window.__bzShown().numbers")).group(1))


def _key_to(page, target: int) -> None:
    """Key presses on the γ slider until ``target`` is shown, waiting for each status."""
    handle = _group(page, "log₂ γ").locator(".noUi-handle").first
    g = _shown_gamma(page)
    while g != target:
        handle.focus()
        page.keyboard.press("ArrowRight" if target > g else "ArrowLeft")
        g += 1 if target > g else -1
        assert page.evaluate(WAIT_JS, [f"γ = 2^{g},", "", 60_000, True]) is not None, g


def test_dragging_gamma_shows_the_statuses_it_passes_and_the_release_wins(page):
    _key_to(page, -3)
    _key_to(page, 3)  # every position of the drag is computed (and the row prefetched meanwhile)
    _key_to(page, -3)
    track = _group(page, "log₂ γ").locator(".noUi-base").first.bounding_box()
    handle = _group(page, "log₂ γ").locator(".noUi-handle").first.bounding_box()
    lo, hi = -15, 15  # the slider's bounds

    def x_of(g):
        return track["x"] + (g - lo) / (hi - lo) * track["width"]

    y = handle["y"] + handle["height"] / 2
    page.mouse.move(handle["x"] + handle["width"] / 2, y)
    page.evaluate(RECORD_JS)
    page.mouse.down()
    for g in (-2, -1, 0, 1, 2, 3):
        page.mouse.move(x_of(g), y, steps=3)
        page.wait_for_timeout(600)
    held = [int(s) for s in page.evaluate("() => window.__bzSeen.map(s => s[0])")]
    page.mouse.move(x_of(1), y, steps=2)  # back a little before letting go
    page.mouse.up()
    assert page.evaluate(WAIT_JS, ["γ = 2^1,", "", 30_000, False]) is not None
    page.wait_for_timeout(1500)  # nothing stale arrives after the released position
    assert _shown_gamma(page) == 1
    assert _group(page, "log₂ γ").first.text_content().strip().endswith("1")
    # the views followed the hand: several intermediate statuses were drawn while the button was held
    assert len(set(held) - {-3}) >= 2, held
    assert all(-3 <= g <= 3 for g in held) and held == sorted(held), held
    assert page.console_errors == []


def test_a_fast_run_of_key_presses_ends_on_the_last_position_with_its_numbers(page):
    _key_to(page, 3)
    handle = _group(page, "log₂ γ").locator(".noUi-handle").first
    handle.focus()
    for _ in range(7):  # faster than the server computes them: most are coalesced
        page.keyboard.press("ArrowLeft")
    assert page.evaluate(WAIT_JS, ["γ = 2^-4,", "", 60_000, False]) is not None
    page.wait_for_timeout(1500)
    numbers = page.evaluate("() => window.__bzShown().numbers").replace("&lt;", "<").replace("&gt;", ">")
    assert _shown_gamma(page) == -4
    s = {p: Controls.param[p].default for p in CONTROL_PARAMS}  # the URL's settings over the defaults
    s.update(n_train=300, M=30, log2_gamma=-4)
    U = compute.compute_snapshot(s).result.value
    shown = re.search(r"Û_tr \(Proposal 2\)</td>\s*<td>([0-9.]+)</td>", numbers).group(1)
    assert 0 < U < 1 and shown == f"{U:.4f}"
    assert page.console_errors == []


def test_the_sidebar_follows_the_tab(page):
    gamma = _group(page, "log₂ γ").first
    assert gamma.is_visible()
    page.locator(".bk-tab", has_text="Extrapolation").first.click()
    page.get_by_text("Observed classes K").first.wait_for(state="visible", timeout=60_000)
    assert not gamma.is_visible()
    assert not page.get_by_text("Sample size N (training points)").first.is_visible()
    page.locator(".bk-tab", has_text="Discrete").first.click()
    page.get_by_text("Sample size N (training points)").first.wait_for(state="visible", timeout=60_000)
    assert not page.get_by_text("Observed classes K").first.is_visible() and not gamma.is_visible()
    page.locator(".bk-tab", has_text="Sample space").first.click()
    gamma.wait_for(state="visible", timeout=30_000)
    assert not page.get_by_text("Sample size N (training points)").first.is_visible()
    assert page.console_errors == []
