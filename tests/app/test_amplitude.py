"""The explorer's "T̃ amplitude" view, without a browser: it shows the compute function's table."""

import holoviews as hv
import numpy as np
import pytest
from sklearn.svm import SVC

from buviz.app.amplitude import AMPLITUDES, LOG2_GAMMAS, AmplitudeView
from buviz.app.layout import tab_views
from buviz.app.store import SessionStore
from buviz.uncertainty import BoundaryUncertainty

SMALL = dict(n_train=150, cv=2, auto_sweep=False, log2_C=1, M=20, seed=2)


def _maps(view) -> dict:
    return {mode: pane.object for mode, pane in view.mode_panes.items()}


@pytest.fixture(scope="module")
def ran():
    state = SessionStore(**SMALL)
    view = AmplitudeView(store=state)
    view.pane_before_run = view.plot_pane
    state.amplitude.run()
    state.wait()
    return state, view


def test_view_is_registered_as_its_own_tab():
    views = tab_views(SessionStore(**SMALL))
    assert isinstance(views["T̃ amplitude"], AmplitudeView)


def test_run_fills_the_table_for_the_current_dataset_and_c(ran):
    state, view = ran
    assert state.amplitude.state == "done"
    t = view.table
    assert len(t) == len(LOG2_GAMMAS) * len(AMPLITUDES) * 2
    ds = state.snapshot.ds
    # oracle: the a = 0 row at log2 γ = 0 is Proposal 2 on T with no perturbation, for an SVC with the state's C
    row = t[(t["amplitude"] == 0) & (t["log2_value"] == 0) & (t["mode"] == "features")].iloc[0]
    model = SVC(C=2.0**SMALL["log2_C"], gamma=1.0).fit(ds.X_train, ds.y_train)
    direct = BoundaryUncertainty(M=20, perturbation=0.0, random_state=SMALL["seed"]).fit(ds.X_train, ds.y_train)
    assert row["U_tr"] == pytest.approx(direct.evaluate(model).value, abs=1e-12)
    assert row["L_te"] == pytest.approx(np.mean(model.predict(ds.X_test) != ds.y_test))


def test_plot_pane_is_updated_in_place_with_one_curve_per_amplitude(ran):
    _, view = ran
    assert view.plot_pane is view.pane_before_run  # the layout is kept (its figures: the Bokeh test below)
    for mode, dmap in _maps(view).items():
        overlay = dmap[()]  # the frame for the table the stream carries now
        curves = [e for e in overlay if isinstance(e, hv.Curve)]
        assert len(curves) == 1 + len(AMPLITUDES), mode
        assert all(len(c) == len(LOG2_GAMMAS) for c in curves)
        assert overlay.opts.get().kwargs["title"].startswith(mode)
    assert "done" in view.status_pane.object and "C = 2" in view.status_pane.object


def test_the_panes_plots_keep_their_bokeh_figures_when_the_table_arrives():
    """Drawn before the run (empty curves), the plots receive the table as new data: same figures,
    same data sources, points where there were none."""
    from bokeh.document import Document
    from bokeh.models import ColumnDataSource, Plot

    state = SessionStore(**SMALL)
    view = AmplitudeView(store=state)
    root = view.plot_pane.get_root(Document())
    def points():
        return sum(len(s.data.get("log2_value", [])) for s in root.select({"type": ColumnDataSource}))

    plots = {m.id for m in root.select({"type": Plot})}
    sources = {m.id for m in root.select({"type": ColumnDataSource})}
    assert len(plots) == 2 and points() == 0
    state.amplitude.run()
    state.wait()
    assert {m.id for m in root.select({"type": Plot})} == plots
    assert {m.id for m in root.select({"type": ColumnDataSource})} == sources
    assert points() > 0


def test_curves_of_other_settings_are_labelled_as_such():
    """After a change of C the old curves stay, but the status says they belong to other settings."""
    state = SessionStore(**SMALL)
    view = AmplitudeView(store=state)
    state.amplitude.run()
    state.wait()
    assert view._status_text().startswith("Status: done")
    state.controls.log2_C = state.controls.log2_C + 1
    assert state.amplitude.config()["C"] == 2.0 * state.amplitude.settings["C"]
    assert "the curves are for" in view.status_pane.object and "press Run" in view.status_pane.object
