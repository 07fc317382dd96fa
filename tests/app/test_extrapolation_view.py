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


def _frame(pane):
    """What a pane's live figure draws now."""
    return pane.object[()]


def test_view_toy_tab_follows_rho():
    view = ExtrapolationView(rho=0.5)
    view.bus.wait()
    layout = view.main()
    assert isinstance(layout, pn.Tabs) and len(layout) == 4
    panels = view.toy.element()  # level sets, D̄, risk, polynomial error
    img = [el for el in panels[0] if isinstance(el, hv.Image)][0]
    U = img.dimension_values("U")
    assert 0 <= U.min() and U.max() <= 1
    theo = _curves(panels[2])["AvRisk_k (Thm 4.1)"]
    np.testing.assert_allclose(theo.dimension_values("risk"), ex.toy_average_risk(np.arange(2, 11), 0.5))
    view.controls.rho = 0.9
    view.bus.wait()
    theo9 = _curves(_frame(view.toy_panes["risk"]))["AvRisk_k (Thm 4.1)"].dimension_values("risk")
    np.testing.assert_allclose(theo9, ex.toy_average_risk(np.arange(2, 11), 0.9))
    assert np.all(theo9 < theo.dimension_values("risk"))
    this = _curves(_frame(view.toy_panes["dbar"]))["this ρ"]
    np.testing.assert_allclose(this.dimension_values("Dbar"), ex.toy_dbar(this.dimension_values("u"), 0.9))
    assert view.last_error is None and not view.alerts["toy"].visible
    live = {k: p.object for k, p in view.toy_panes.items()}
    display = view.toy
    view.controls.rho = 0.45  # not a reference ρ: the same layers, so the live figures stay and their streams carry it
    view.bus.wait()
    assert {k: p.object for k, p in view.toy_panes.items()} == live and view.toy is display and display.rho == 0.45
    frame = _frame(view.toy_panes["dbar"])
    assert "this ρ = 0.45" in frame.opts.get().kwargs["title"]
    this = _curves(frame)["this ρ"]
    np.testing.assert_allclose(this.dimension_values("Dbar"), ex.toy_dbar(this.dimension_values("u"), 0.45))
    assert sorted(_curves(frame)) == ["this ρ", "ρ = 0.3", "ρ = 0.5", "ρ = 0.7", "ρ = 0.9"]
    err = _curves(_frame(view.toy_panes["polynomial_error"]))["this ρ"]
    expected = ex.toy_polynomial_error(0.45, range(1, 11), n_grid=200)["linf_error"].to_numpy()
    np.testing.assert_allclose(err.dimension_values("linf_error"), expected)


def _observed_k(view) -> int:
    return int(_curves(_frame(view.ext_pane))["AverageTA_k (observed, eq 3)"].dimension_values("k").max())


def test_view_extrapolation_follows_K_and_reports_bad_input():
    view = ExtrapolationView(population="digits", classifier="nearest_centroid", K=4, method="moment")
    view.bus.wait()
    curves = _curves(_frame(view.ext_pane))
    assert _observed_k(view) == 4
    assert curves["ground truth"].dimension_values("k").max() == 10
    # the moment method alone: its curve draws, the other estimators' stay empty (and out of the legend)
    assert len(curves["moment"]) and not len(curves["kde"]) and view.fit_pane.visible
    c = view.extrapolation_data()
    np.testing.assert_allclose(curves["moment"].dimension_values("accuracy"), c.estimates["moment"])
    assert view.ext_table.object["estimator"].tolist() == ["moment (linear_spline)"]
    assert view.ext_table.object["truth"].iloc[0] == pytest.approx(c.truth[-1], abs=1e-4)
    view.controls.K = 7
    view.bus.wait()
    acc = _curves(_frame(view.ext_pane))["AverageTA_k (observed, eq 3)"].dimension_values("accuracy")
    assert _observed_k(view) == 7
    assert np.all((acc >= 0) & (acc <= 1)) and np.all(np.diff(acc) <= 1e-12)
    assert view.last_error is None and not view.alerts["ext"].visible
    shown = view.ext.observed
    view.controls.K = 12                                   # more than the 10 digit classes: a message, no crash
    view.bus.wait()
    assert view.alerts["ext"].visible and "K must be" in view.last_error and "K must be" in view.alerts["ext"].object
    assert view.ext.observed is shown and _observed_k(view) == 7  # the last good curves stay


def test_view_keeps_its_live_figure_whatever_the_estimators():
    """A new K, another estimator or basis go down the live figure's streams: the same figure, its
    glyphs' data sources changed in place; the fitted D̄(u) shows while the moment method is drawn."""
    view = ExtrapolationView(population="digits", classifier="nearest_centroid", K=4, method="moment")
    view.bus.wait()
    live = view.ext_pane.object
    plot = hv.renderer("bokeh").get_plot(live)
    figure, renderers = plot.state, list(plot.state.renderers)
    view.controls.K = 6
    view.bus.wait()
    assert view.ext_pane.object is live and _observed_k(view) == 6
    view.controls.method = "all"  # every estimator: their layers were there, empty, from the first frame
    view.bus.wait()
    assert view.ext_pane.object is live and plot.state is figure and list(figure.renderers) == renderers
    assert sum(len(c) > 0 for c in _curves(_frame(view.ext_pane)).values()) == 2 + len(ex.METHODS)
    assert "moment basis: linear_spline" in _frame(view.ext_pane).get(0).opts.get().kwargs["title"]
    view.controls.basis = "polynomial"
    view.bus.wait()
    assert "moment basis: polynomial" in _frame(view.ext_pane).get(0).opts.get().kwargs["title"]
    view.controls.method = "kde"  # no moment fit: the fitted D̄(u) is hidden
    view.bus.wait()
    assert not view.fit_pane.visible and view.ext_pane.object is live


def test_view_shows_the_stores_classifier_comparison_and_its_failure(monkeypatch):
    from buviz.app import tasks

    table = pd.DataFrame({"classifier": ["a", "b"], "error": [0.12345, 0.2]})
    monkeypatch.setattr(tasks, "classifier_comparison", lambda key: table)
    view = ExtrapolationView()
    view.bus.wait()
    assert not view._table.visible and view._table_note.visible
    view._button.clicks += 1
    view.bus.wait()
    assert view.table is table and view._table.visible and not view._table_note.visible
    assert view._table.object["error"].tolist() == [0.123, 0.2] and not view._button.loading
    view.controls.seed = 3  # no comparison for this seed: the note again, not the other seed's table
    view.bus.wait()
    assert not view._table.visible and "Press the button" in view._table_note.object

    def fail(key):
        raise ValueError("no classes")

    monkeypatch.setattr(view.comparison, "fn", fail)  # what the comparison's result store computes
    view._button.clicks += 1
    view.bus.wait()
    assert not view._table.visible and "no classes" in view._table_note.object and not view._button.loading
    view.controls.seed = 0  # back to the seed whose comparison the store holds: its table, not seed 3's failure
    view.bus.wait()
    assert view._table.visible and not view._table_note.visible


def test_view_shows_the_classex_comparison_of_a_fixture_instance():
    view = ExtrapolationView(fixture_index=4)
    view.bus.wait()
    d = view.peer_data()
    fixture = ex.load_classex_fixture()  # the one shipped with the package
    # the R package's own predictions for instance 4, as stored in the fixture
    assert d["peer"]["ClassExReg"] == pytest.approx(float(fixture["ClassExReg"][4]))
    assert d["truth"][1][-1] == pytest.approx(float(fixture["truth"][4]))
    # our KDE (UCV) reproduces the peer's on this instance
    assert d["estimates"]["kde"][1][-1] == pytest.approx(float(fixture["KDE_UCV"][4]), abs=1e-6)
    curves = _frame(view.peer_pane)
    markers = {el.label: el for el in curves if isinstance(el, hv.Scatter) and len(el)}
    assert markers["ClassEx (R): ClassExReg"].dimension_values("accuracy")[0] == d["peer"]["ClassExReg"]
    assert markers["truth at all classes"].dimension_values("k")[0] == d["k_total"]
    assert view.last_error is None and not view.alerts["peer"].visible
    live = view.peer_pane.object
    view.controls.fixture_index = 7
    view.bus.wait()
    assert view.peer_pane.object is live and "σ² = 0.15" in _frame(view.peer_pane).get(0).opts.get().kwargs["title"]
    assert len(view.peer_table.object) == len(d["estimates"]) + len(d["peer"])
    assert len(view.main()) == 4  # toy model, extrapolation, ClassEx comparison, schematics


def test_the_interval_beside_the_extrapolation_is_the_packages_and_follows_K():
    """The view shows the package's interval for AGA at the population's class count (the same numbers
    as accuracy_interval on the same observed margins), judged against the truth, and follows K; K = 2
    (too few classes for the jackknife) is said in the interval's alert while the curves stay."""
    from buviz.app import tasks

    view = ExtrapolationView(K=20, method="all")
    view.bus.wait()
    view.main()
    d = view.interval_data()
    iv, c = d["interval"], view.extrapolation_data()
    v = view.controls
    pop = tasks.label_population(tasks.PopulationKey(v.population, v.pop_rho, v.seed))
    margins, labels = ex.population_margins(ex.subsample_classes(pop, c.classes), v.classifier, random_state=0)
    api = ex.accuracy_interval(margins, labels, c.n_classes, tasks.INTERVAL_LEVEL,
                               estimate=float(c.estimates["moment"][-1]))
    assert (iv.lower, iv.upper) == (api.lower, api.upper) and d["truth"] == float(c.truth[-1])
    assert iv.lower <= iv.range_low <= iv.estimate <= iv.range_high <= iv.upper
    text = view.interval_note.object
    assert f"[{iv.lower:.3f}, {iv.upper:.3f}]" in text and f"{d['truth']:.3f}" in text and "K = 20" in text
    view.controls.K = 40
    view.bus.wait()
    assert view.interval_data()["K"] == 40 and "K = 40" in view.interval_note.object
    view.controls.K = 2
    view.bus.wait()
    assert view.alerts["interval"].visible and "K >= 3" in view.alerts["interval"].object
    assert not view.alerts["ext"].visible and _observed_k(view) == 2



def test_the_schematics_sub_tab_offers_zhengs_schematics_and_draws_the_first_when_opened():
    """The Extrapolation tab's Schematics sub-tab lists Zheng et al.'s schematic figures only; nothing is
    drawn until it opens, then its first figure is, once, as the registry draws it (at the plots' width),
    kept apart from the Figures tab's figure of the same session."""
    from buviz import figures
    from buviz.app.gallery import ZHENG_SCHEMATICS, FigureGallery

    view = ExtrapolationView()
    view.bus.wait()
    tabs = view.main()
    assert tabs._names[3] == "Schematics"
    gallery = view.schematics
    assert [k for g in gallery.select.groups.values() for k in g.values()] == list(ZHENG_SCHEMATICS)
    assert gallery.rendered_key is None
    tabs.active = 1
    view.bus.wait()
    assert gallery.rendered_key is None
    tabs.active = 3
    view.bus.wait()
    assert gallery.rendered_key == ZHENG_SCHEMATICS[0] and gallery.plot.object is gallery.obj
    drawn = (gallery.obj, figures.render(ZHENG_SCHEMATICS[0]))
    frames = [o.traverse(lambda el: el.dframe(), [hv.Element]) for o in drawn]
    assert len(frames[0]) == len(frames[1]) > 0
    for a, b in zip(*frames, strict=True):  # the same draw (the figure's own seed)
        pd.testing.assert_frame_equal(a, b)
    first = gallery.obj
    tabs.active, tabs.active = 0, 3  # opened again: not drawn again
    view.bus.wait()
    assert gallery.obj is first
    figures_tab = FigureGallery(bus=view.bus)
    assert figures_tab.render() and figures_tab.rendered_key != ZHENG_SCHEMATICS[0]
    assert gallery.rendered_key == ZHENG_SCHEMATICS[0]
