"""``buviz.app.explorer()``: the explorer sized for a notebook, its own sweep poll, local stylesheets."""

import asyncio
import time

import panel as pn
import pytest
from bokeh.document import Document
from bokeh.models import ImportedStyleSheet
from panel.io.resources import CDN_DIST
from pyviz_comms import Comm

from buviz.app import explorer
from buviz.app._panel_compat import PANEL_PREVIEW_DIST
from buviz.app.notebook import NotebookExplorer


@pytest.fixture
def ex():
    return explorer(n_train=200, cv=2, M=20)


def test_explorer_is_a_notebook_sized_viewer(ex):
    assert isinstance(ex, NotebookExplorer)
    assert (ex.controls.n_train, ex.controls.cv, ex.controls.M) == (200, 2, 20)
    assert ex.store.snapshot.ds.X_train.shape == (200, 2)
    layout = ex.__panel__()
    assert layout.width == 960
    # the controls above the tabs are the app's own widgets: moving one changes the state
    assert ex.app.widgets["log2_gamma"] in [w for col in ex.control_row for w in col.select(pn.widgets.Widget)]
    ex.app.widgets["log2_gamma"].value = 2
    assert ex.store.snapshot.settings["log2_gamma"] == 2
    assert ex.app.tabs in layout.select(pn.Tabs)


def test_explorer_rejects_bad_settings():
    with pytest.raises(ValueError, match="unknown explorer setting"):
        explorer(n_trian=200)
    with pytest.raises(ValueError):
        explorer(n_train=5)  # below the bounds
    with pytest.raises(ValueError, match="cannot start.*K must be"):
        explorer(dataset="gmm3", n_train=60, K="40")  # K larger than a class
    ex = explorer(n_train=50, M=400)  # M > N: lowered to N by the controls, with a note
    assert ex.store.controls.M == 50 and "M set to 50" in ex.store.notice


def test_no_poll_while_nothing_runs(ex):
    ex.__panel__()
    assert not ex.store.background_busy()
    assert not ex.polling


@pytest.mark.slow
def test_the_explorer_polls_its_sweep_until_done_then_stops():
    """Without a template or server: opening *Error vs −Û* starts the sweep and the explorer's own
    periodic callback moves its rows in; once the sweep is done the callback stops.

    N = 1000 and a 100 ms poll: the 21 statuses then finish over about 0.6 s, so a poll that moves
    rows in while the sweep runs sees several row counts. (At N = 200 the statuses finish within one
    400 ms poll on this machine, and the test could not tell incremental rows from rows at the end.)
    """
    ex = explorer(n_train=1000, cv=2, M=20, poll_period=100)

    async def run():
        ex.__panel__()
        ex.app.tabs.active = ex.app.tab_names.index("Error vs −Û")
        assert ex.store.cv_sweep.state == "running" and ex.polling
        seen, deadline = set(), time.monotonic() + 240
        while time.monotonic() < deadline and (ex.polling or ex.store.cv_sweep.state == "running"):
            await asyncio.sleep(0.1)
            if ex.store.cv_sweep.table is not None:
                seen.add(len(ex.store.cv_sweep.table))
        return seen

    seen = asyncio.run(run())
    assert ex.store.cv_sweep.state == "done", ex.store.cv_sweep.state
    assert len(ex.store.cv_sweep.table) == 21
    assert not ex.polling
    assert len(seen) > 1, "the rows should arrive while the sweep runs, not only at the end"


def test_stylesheets_of_later_updates_are_not_taken_from_the_cdn(ex, monkeypatch):
    """In a notebook (a comm) with inline resources, models built after the first rendering (a tab
    opened) link Panel's CSS on the Jupyter server, never on the CDN."""
    monkeypatch.setattr(pn.config, "inline", True)
    layout = ex.__panel__()
    doc = Document()
    root = layout.get_root(doc, comm=Comm())
    assert doc.template_variables["dist_url"].endswith(PANEL_PREVIEW_DIST)
    # (the first rendering's CDN links are inlined by the notebook's display, not here)
    first = {s.url for s in root.select({"type": ImportedStyleSheet})}
    ex.app.tabs.active = ex.app.tab_names.index("Covariate shift")
    urls = {s.url for s in root.select({"type": ImportedStyleSheet})} - first
    assert urls, "expected the opened tab to bring stylesheets"
    assert not [u for u in urls if u.startswith(CDN_DIST)], urls
