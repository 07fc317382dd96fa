"""ExtrapolationView without a browser: build it, change ρ / K, check the data behind the elements."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

pn = pytest.importorskip("panel")

from buviz import extrapolation as ex  # noqa: E402
from buviz.app.extrapolation import ExtrapolationView  # noqa: E402


def _curves(overlay):
    return {el.label: el for el in overlay if isinstance(el, hv.Curve)}


def test_view_toy_tab_follows_rho():
    view = ExtrapolationView(rho=0.5)
    layout = view.main()
    assert isinstance(layout, pn.Tabs) and len(layout) == 3
    plots = view.toy_plots()
    img = [el for el in plots["level_sets"] if isinstance(el, hv.Image)][0]
    U = img.dimension_values("U")
    assert 0 <= U.min() and U.max() <= 1
    theo = _curves(plots["risk"])["AvRisk_k (Thm 4.1)"]
    np.testing.assert_allclose(theo.dimension_values("risk"), ex.toy_average_risk(np.arange(2, 11), 0.5))
    view.rho = 0.9
    theo9 = _curves(view.toy_plots()["risk"])["AvRisk_k (Thm 4.1)"].dimension_values("risk")
    np.testing.assert_allclose(theo9, ex.toy_average_risk(np.arange(2, 11), 0.9))
    assert np.all(theo9 < theo.dimension_values("risk"))
    this = _curves(view.toy_plots()["dbar"])["this ρ"]
    np.testing.assert_allclose(this.dimension_values("Dbar"), ex.toy_dbar(this.dimension_values("u"), 0.9))
    assert view.last_error is None and not view.alerts["toy"].visible
    live = {k: f.pane.object for k, f in view.toy_figs.items()}
    view.rho = 0.45  # not a reference ρ: the same layers, so the live figures stay and their streams carry it
    assert {k: f.pane.object for k, f in view.toy_figs.items()} == live
    frame = live["dbar"][()]  # what the live figure draws now
    assert "this ρ = 0.45" in frame.opts.get().kwargs["title"]
    this = _curves(frame)["this ρ"]
    np.testing.assert_allclose(this.dimension_values("Dbar"), ex.toy_dbar(this.dimension_values("u"), 0.45))
    assert sorted(_curves(frame)) == ["this ρ", "ρ = 0.3", "ρ = 0.5", "ρ = 0.7", "ρ = 0.9"]
    err = _curves(view.toy_figs["polynomial_error"].element)["this ρ"]
    expected = ex.toy_polynomial_error(0.45, range(1, 11), n_grid=200)["linf_error"].to_numpy()
    np.testing.assert_allclose(err.dimension_values("linf_error"), expected)


def test_view_extrapolation_follows_K_and_reports_bad_input():
    view = ExtrapolationView(population="digits", classifier="nearest_centroid", K=4, method="moment")
    el = view.extrapolation_plot()
    curves = _curves(el)
    obs = curves["AverageTA_k (observed, eq 3)"]
    assert obs.dimension_values("k").max() == 4
    truth = curves["ground truth"]
    assert truth.dimension_values("k").max() == 10
    view.K = 7
    obs7 = _curves(view.extrapolation_plot())["AverageTA_k (observed, eq 3)"]
    assert obs7.dimension_values("k").max() == 7
    acc = obs7.dimension_values("accuracy")
    assert np.all((acc >= 0) & (acc <= 1)) and np.all(np.diff(acc) <= 1e-12)
    assert view.last_error is None and not view.alerts["ext"].visible
    shown = view.ext_fig.element
    assert _curves(shown)["AverageTA_k (observed, eq 3)"].dimension_values("k").max() == 7
    view.K = 12                                   # more than the 10 digit classes: a message, no crash
    assert view.alerts["ext"].visible and "K must be" in view.last_error and "K must be" in view.alerts["ext"].object
    assert view.ext_fig.element is shown  # the last good curves stay


def test_view_keeps_its_live_figure_until_the_layers_change():
    """A new K goes down the live figure's stream; another estimator (other layers) makes a new figure,
    which then stays for the next K."""
    view = ExtrapolationView(population="digits", classifier="nearest_centroid", K=4, method="moment")
    live = view.ext_fig.pane.object
    assert isinstance(live, hv.DynamicMap)
    view.K = 6
    assert view.ext_fig.pane.object is live
    assert _curves(live[()])["AverageTA_k (observed, eq 3)"].dimension_values("k").max() == 6
    view.method = "all"  # more estimators: more layers than the first frame drew
    assert view.ext_fig.pane.object is not live
    live = view.ext_fig.pane.object
    assert len(_curves(live[()])) > 3
    view.K = 5
    assert view.ext_fig.pane.object is live


def test_view_shows_the_stores_classifier_comparison_and_its_failure(monkeypatch):
    from buviz.app import tasks

    table = pd.DataFrame({"classifier": ["a", "b"], "error": [0.12345, 0.2]})
    monkeypatch.setattr(tasks, "classifier_comparison", lambda key: table)
    view = ExtrapolationView()
    assert not view._table.visible and view._table_note.visible
    view._button.clicks += 1
    assert view.table is table and view._table.visible and not view._table_note.visible
    assert view._table.object["error"].tolist() == [0.123, 0.2] and not view._button.loading
    view.seed = 3  # no comparison for this seed: the note again, not the other seed's table
    assert not view._table.visible and "Press the button" in view._table_note.object

    def fail(key):
        raise ValueError("no classes")

    monkeypatch.setattr(tasks, "classifier_comparison", fail)
    view._button.clicks += 1
    assert not view._table.visible and "no classes" in view._table_note.object and not view._button.loading
    view.seed = 0  # back to the seed whose comparison the store holds: its table, not seed 3's failure
    assert view._table.visible and not view._table_note.visible


def test_view_shows_the_classex_comparison_of_a_fixture_instance():
    view = ExtrapolationView(fixture_index=4)
    d = view.peer_data()
    fixture = ex.load_classex_fixture()  # the one shipped with the package
    # the R package's own predictions for instance 4, as stored in the fixture
    assert d["peer"]["ClassExReg"] == pytest.approx(float(fixture["ClassExReg"][4]))
    assert d["truth"][1][-1] == pytest.approx(float(fixture["truth"][4]))
    # our KDE (UCV) reproduces the peer's on this instance
    assert d["estimates"]["kde"][1][-1] == pytest.approx(float(fixture["KDE_UCV"][4]), abs=1e-6)
    assert view.peer_fig.element is not None and view.last_error is None and not view.alerts["peer"].visible
    assert len(view.peer_table.object) == len(d["estimates"]) + len(d["peer"])
    assert len(view.main()) == 3  # toy model, extrapolation, ClassEx comparison
