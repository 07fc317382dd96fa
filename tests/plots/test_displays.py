"""Display objects (buviz.plots.displays): built from results, one stream-fed DynamicMap per layer,
``update`` changes the data of the layers that changed and keeps the glyphs."""

import hashlib

import holoviews as hv
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.grid import evaluate_grid, top2_difference
from buviz.plots import uncertainty as pb
from buviz.plots.displays import (
    CovariateShiftDisplay,
    ErrorCurvesDisplay,
    OneSampleDisplay,
    SampleSpaceDisplay,
    WeightsDisplay,
)
from buviz.projection import fit_projection
from buviz.uncertainty import BoundaryUncertainty, Proposal1

hv.extension("bokeh")


def _two_statuses(ds):
    est = BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train)
    return [est.evaluate(svm_status(ds.X_train, ds.y_train, g), train_scores=True) for g in (0.25, 4.0)]


@pytest.fixture(scope="module")
def gmm():
    ds = datasets.load("gmm", n_train=250, n_test=600, random_state=0)
    return ds, *_two_statuses(ds)


@pytest.fixture(scope="module")
def five_d():
    """A d = 5, three-class dataset (make_classification): no exact model, no 2-D map."""
    X, y = make_classification(450, 5, n_informative=3, n_redundant=1, n_classes=3, n_clusters_per_class=1,
                               class_sep=0.8, random_state=0)
    ds = datasets.from_arrays(X, y, random_state=0, name="mc5")
    return ds, *_two_statuses(ds)


def _live(display):
    """The Bokeh plot of a display's live overlay (what a pane shows)."""
    return hv.renderer("bokeh").get_plot(display.plot())


def _sources(plot):
    return {k: sp.handles["source"] for k, sp in plot.subplots.items() if "source" in sp.handles}


def test_sample_space_status_step_changes_data_not_glyphs(gmm):
    ds, r0, r1 = gmm
    g0, g1 = (evaluate_grid(r.discriminant, ds.bounds(), 80) for r in (r0, r1))
    bayes = ds.model.bayes_boundary(ds.bounds(), 80)
    d = SampleSpaceDisplay.from_result(r0, ds, grid=g0, bayes_fields=bayes, title="γ0")
    plot = _live(d)
    before = _sources(plot)
    changed = d.update(result=r1, dataset=ds, grid=g1, bayes_fields=bayes, title="γ1")
    assert changed == ["regions", "boundary"]  # T, B* and the (empty) overlays are not sent again
    after = _sources(plot)
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)  # same glyphs
    assert plot.state.title.text == "γ1"
    shown = [s for s in after.values() if "xs" in s.data and len(s.data["xs"]) and s.data["xs"][0] is not None]
    expected = sum(len(ln) for f in g1.fields.values() for ln in pb.zero_contours(f))
    # B(Λ) of the new status: its vertices (polylines joined by NaN gaps)
    assert expected in {sum(int(np.isfinite(x).sum()) for x in s.data["xs"]) for s in shown}
    img = d.element(["regions"]).get(0)
    for r, c in [(5, 40), (40, 5), (70, 70), (0, 79)]:  # the predicted class at grid points, by coordinates
        rgba = np.asarray(img[float(g1.xs[c]), float(g1.ys[r])].array()).ravel()
        np.testing.assert_array_equal(rgba, pb.region_rgba([[g1.predicted[r, c]]], 2)[0, 0])
    assert d.update(result=r1, dataset=ds, grid=g1, bayes_fields=bayes, title="γ1") == []  # nothing new: nothing sent


def test_sample_space_without_grid_evaluates_the_status_and_proposal1_layers(gmm):
    ds, r0, _ = gmm
    p1 = Proposal1(R_T=1, random_state=0).fit(ds.X_train, ds.y_train).evaluate(r0.discriminant)
    d = SampleSpaceDisplay.from_result(r0, ds, proposal1=p1, resolution=60)
    ev = evaluate_grid(r0.discriminant, ds.bounds(), 60)
    np.testing.assert_array_equal(d.grid.predicted, ev.predicted)  # the status evaluated on the grid
    layers = {e.label: e for e in d.element()}
    assert len(layers["P1 anchors"]) == int(p1.anchor_valid.sum())
    assert len(layers["P1 N_B (near-boundary)"]) == len(p1.near_boundary)
    assert len(layers["near-boundary (k̂ > 0)"]) == 0  # d = 2: the maps stay as they were
    (x0, x1), (y0, y1) = d.xlim, d.ylim  # fixed axes: the grid's bounds, all of T inside
    assert (x0, y0, x1, y1) == pytest.approx(ds.bounds())
    assert x0 < ds.X_train[:, 0].min() and ds.X_train[:, 0].max() < x1 and y0 < ds.X_train[:, 1].min()


def test_sample_space_at_d5_shows_T_in_its_plane_with_the_near_boundary_samples_of_each_pair(five_d):
    ds, r0, r1 = five_d
    d = SampleSpaceDisplay.from_result(r0, ds)
    Z = fit_projection(ds.X_train).transform(ds.X_train)
    layers = {e.label: e for e in d.element() if e.label}
    pts = layers[pb.TRAINING_LABEL]  # in legend order: the first sample of each class in front
    np.testing.assert_allclose(np.column_stack([pts.dimension_values(0), pts.dimension_values(1)]),
                               Z[pb.legend_order(ds.y_train)])
    pos = r0.near_boundary_weights > 0
    near = layers["near-boundary (k̂ > 0)"]
    assert len(near) == pos.sum() > 0
    np.testing.assert_allclose(near.dimension_values(0), Z[pos, 0])
    names = d.element().get(2).dimension_values("class")  # regions, near-boundary rings, then T on top
    pairs = {f"{{{a}, {b}}}" for a, b in zip(r0.pair_i[pos], r0.pair_j[pos], strict=True)}
    assert set(near.dimension_values("pair")) == pairs and set(names) <= {"0", "1", "2"}
    assert len(layers["B(Λ)"].data) == 0 and len(d.element().get(0).dimension_values(2)) == 4  # no map of B(Λ)
    assert "PC1" in pts.kdims[0].label and "% of the variance" in pts.kdims[0].label
    _live(d)
    assert d.update(result=r1, dataset=ds, title="other") == ["near"]  # T does not move with the status
    # colour by f(x;Λ): the values of the result, on the diverging scale
    f = SampleSpaceDisplay.from_result(r0, ds, color_by="f", projection="lda")
    np.testing.assert_allclose(f.element().get(2).dimension_values("f"), r0.f_train)
    assert f.projection.axis_names == ("LD1", "LD2")
    assert f.element().get(2).kdims[0].label == "LD1 (discriminant axis)"  # not a share of variance
    (x0, x1), (y0, y1) = f.xlim, f.ylim
    Zl = f.X
    assert x0 < Zl[:, 0].min() < Zl[:, 0].max() < x1 and y0 < Zl[:, 1].min() < Zl[:, 1].max() < y1
    i = 17
    assert f.nearest(*f.X[i]) == i


def test_weights_display_colours_the_positive_weights_at_every_d(gmm, five_d):
    for ds, r0, r1 in (gmm, five_d):
        d = WeightsDisplay.from_result(r0, ds, resolution=60)
        zero, hot = d.element().get(0), d.element().get(1)
        w = r0.near_boundary_weights
        assert len(hot) == int((w > 0).sum()) and len(zero) + len(hot) == len(w)
        np.testing.assert_allclose(np.sort(hot.dimension_values("weight")), np.sort(w[w > 0]))
        _live(d)
        assert "weights" in d.update(result=r1, dataset=ds, resolution=60)


def test_covariate_shift_histograms_at_every_d_and_maps_for_two_features(gmm, five_d):
    ds, r0, r1 = five_d
    d = CovariateShiftDisplay.from_result(r0, ds)
    assert d.map_names == []
    f_te = top2_difference(r0.discriminant(ds.X_test))
    hist = {h.label: h for h in d.element(panel="hist")}
    assert set(hist) == {"f(T)", "f(T̃)", "f(X_te)"}
    edges = hist["f(X_te)"].edges
    counts, _ = np.histogram(np.clip(f_te, edges[0], edges[-1]), edges, density=True)
    np.testing.assert_allclose(hist["f(X_te)"].dimension_values(1), counts)
    hv.renderer("bokeh").get_plot(d.plot(panel="hist"))
    assert d.update(result=r1, dataset=ds) == ["hist"]
    ds2, g0, g1 = gmm
    d2 = CovariateShiftDisplay.from_result(g0, ds2, resolution=60)
    assert d2.map_names == list(d2.NAMES)
    clims = {d2.element(panel=m).get(0).opts.get("plot", "bokeh").kwargs.get("clim") for m in d2.map_names}
    c = pb.symmetric_limit(d2.f_train, d2.f_tilde, d2.f_test)
    assert clims == {(-c, c)}  # one colour scale, from the three samples' f
    assert d2.update(result=g1, dataset=ds2, resolution=60) == ["f(T)", "f(T̃)", "f(X_te)", "hist"]


def test_one_sample_display_follows_the_selection(gmm, five_d):
    for ds, r0, _ in (gmm, five_d):
        d = OneSampleDisplay.from_result(r0, ds, None, resolution=60)
        assert len(d.element(panel="zoom").select(hv.Spikes)) >= 1
        hv.renderer("bokeh").get_plot(d.plot(panel="map"))
        changed = d.update(result=r0, dataset=ds, index=7, resolution=60)
        assert "cluster" in changed and "zoom" in changed and "points" not in changed
        view = r0.sample_view(7)
        spikes = np.concatenate([e.dimension_values(0) for e in d.element(panel="zoom") if isinstance(e, hv.Spikes)])
        np.testing.assert_allclose(np.sort(spikes), np.sort(view["F"]))
        cluster = d.element(["cluster"], panel="map")
        members = [e for e in cluster if e.label == "N^M(x)"][0]
        nbr = np.asarray(view["neighbours"])
        np.testing.assert_allclose(members.dimension_values(0),  # in legend order (pb.legend_order)
                                   d.X[nbr[pb.legend_order(ds.y_train[nbr])]][:, 0])
        # the kernel estimate of each class of the pair, k̂^m(t)/M, read at t = 0 gives k̂^m(x)/M
        est = {e.label: e for e in d.element(panel="zoom") if isinstance(e, hv.Curve)}
        names = [str(c) for c in (ds.classes if ds.model is None else [f"C{j + 1}" for j in range(ds.n_classes)])]
        i, j = view["pair"]
        for cls, k in ((i, view["k_i"]), (j, view["k_j"])):
            c = est[f"k̂ {names[cls]}(f)/M"]
            t, v = c.dimension_values(0), c.dimension_values(1)
            at0 = np.interp(0.0, t, v) * len(view["F"])  # φ the standard normal density (eq 28)
            assert at0 == pytest.approx(k, rel=0.05, abs=0.05)


def _table():
    return pd.DataFrame({"log2_gamma": [-2.0, 0.0, 2.0], "L_te": [0.3, 0.2, 0.25], "L_val": [0.31, 0.21, 0.27],
                         "U_tr": [0.5, 0.3, 0.2], "U_te": [0.4, 0.35, 0.3]})


def test_error_curves_display_moves_only_the_marker_on_a_status_step():
    d = ErrorCurvesDisplay.from_table(None, current=0.0)
    plot = hv.renderer("bokeh").get_plot(d.plot(panel="curves"))
    hv.renderer("bokeh").get_plot(d.plot(panel="parametric"))
    t = _table()
    assert d.update(table=t, current=0.0) == ["curves", "current", "parametric sweep", "parametric current"]
    assert d.update(table=t, current=2.0) == ["current", "parametric current"]
    from bokeh.models import Span

    assert [sp.location for sp in plot.state.select({"type": Span})] == [2.0]  # the live marker moved
    el = d.element(panel="curves")
    marker = [e for e in el if isinstance(e, hv.Scatter) and e.label == "current status"][0]
    assert marker.dimension_values(1)[0] == pytest.approx(0.25)
    ring = [e for e in d.element(panel="parametric") if e.label == "current status"][0]
    assert ring.dimension_values(0)[0] == pytest.approx(-0.2)


def _title_and_options(el):
    plot = hv.renderer("bokeh").get_plot(el)
    return plot.state.title.text, plot.state.width, plot.state.height


def test_live_displays_keep_each_layers_own_options(gmm):
    """What a pane shows (``plot()``) has the title and size of the static picture (``element()``) with
    the same options, for panels of one layer (a histogram, the f-space zoom) as for overlays; a style
    given to ``plot`` reaches a one-layer panel too."""
    ds, r0, _ = gmm
    cov = CovariateShiftDisplay.from_result(r0, ds, resolution=60)
    one = OneSampleDisplay.from_result(r0, ds, None, resolution=60)
    space = SampleSpaceDisplay.from_result(r0, ds, resolution=60, title="γ0")
    drawn = [(cov, "hist"), *((cov, m) for m in cov.map_names), (one, "zoom"), (one, "map"), (space, None)]
    sized = dict(width=333, height=222)
    shown = [_title_and_options(d.plot(panel=p, **sized)) for d, p in drawn]
    assert {"f(T)", "f(T̃)", "f(X_te)", "γ0"} <= {t for t, *_ in shown}
    for (d, p), got in zip(drawn, shown, strict=True):
        assert got == _title_and_options(d.element(panel=p, **sized))
        assert got[1:] == (333, 222)


# -- what a pane draws follows the status, with the app's plot options ------------------------------------
def _drawn(model) -> list[tuple[str, str]]:
    """A digest of the data a Bokeh figure draws: (glyph, hash of its non-empty data source) per renderer."""
    from bokeh.models import GlyphRenderer

    out = []
    for r in model.select({"type": GlyphRenderer}):
        data = r.data_source.data
        if not max((len(v) for v in data.values()), default=0):
            continue
        h = hashlib.sha1()
        for k in sorted(data):
            h.update(k.encode())
            try:
                h.update(np.round(np.nan_to_num(np.asarray(data[k], dtype=float).ravel(), nan=1e300), 6).tobytes())
            except (TypeError, ValueError):
                h.update(repr([str(v) for v in data[k]]).encode())
        out.append((type(r.glyph).__name__, h.hexdigest()))
    return sorted(out)



def test_live_displays_with_the_apps_options_draw_each_new_status(gmm):
    """Each display as the explorer shows it (``show`` with the tab's plot options, a tap layer where
    the tab has one) draws, after ``update``, the data and title of the static picture of the new
    status (what Export draws) and no longer the old one. A one-layer display shown with options once
    went through a memoised callback without inputs and drew its first frame forever (issue 31)."""
    from buviz.app.curves import CurvesView
    from buviz.app.sample import SampleView
    from buviz.app.uncertainty import _MAP_OPTS, ShiftView
    from buviz.app.viewbase import _XY, _with_tap

    ds, r0, r1 = gmm
    render = hv.renderer("bokeh").get_plot
    cov = CovariateShiftDisplay.from_result(r0, ds, resolution=60)
    one = OneSampleDisplay.from_result(r0, ds, 3, resolution=60)
    space = SampleSpaceDisplay.from_result(r0, ds, resolution=60, title="γ0")
    weights = WeightsDisplay.from_result(r0, ds, resolution=60)
    curves = ErrorCurvesDisplay.from_table(_table(), current=0.0)
    none = lambda **kw: None  # noqa: E731 -- a tap callback that does nothing
    live = {  # name -> (display, its panel, the live plot as a pane shows it, the style of both)
        "hist": (cov, "hist", render(cov.plot(panel="hist", **ShiftView._HIST)), ShiftView._HIST),
        **{f"map {m}": (cov, m, render(cov.plot(panel=m, **ShiftView._MAP)), ShiftView._MAP) for m in cov.map_names},
        "zoom": (one, "zoom", render(one.plot(panel="zoom", **SampleView._ZOOM)), SampleView._ZOOM),
        "one map": (one, "map", render(_with_tap(one, _XY, none, panel="map", **SampleView._MAP)[0]), SampleView._MAP),
        "space": (space, None, render(_with_tap(space, _XY, none, **_MAP_OPTS)[0]), _MAP_OPTS),
        "weights": (weights, None, render(_with_tap(weights, _XY, none, **_MAP_OPTS)[0]), _MAP_OPTS),
        "curves": (curves, "curves", render(_with_tap(curves, ["log2_gamma", "error"], none, panel="curves",
                                                      **CurvesView._CURVES)[0]), CurvesView._CURVES),
        "parametric": (curves, "parametric", render(_with_tap(curves, ["neg_U", "error"], none, panel="parametric",
                                                              **CurvesView._PARAM)[0]), CurvesView._PARAM),
    }
    before = {k: _drawn(p.state) for k, (_, _, p, _) in live.items()}
    cov.update(result=r1, dataset=ds, resolution=60)
    one.update(result=r1, dataset=ds, index=11, resolution=60)
    space.update(result=r1, dataset=ds, resolution=60, title="γ1")
    weights.update(result=r1, dataset=ds, resolution=60)
    curves.update(table=_table(), current=2.0)
    frozen, wrong = [], []
    for name, (d, panel, plot, opts) in live.items():
        static = render(d.element(panel=panel, **opts))
        drawn = _drawn(plot.state)
        if drawn == before[name]:
            frozen.append(name)
        if drawn != _drawn(static.state) or plot.state.title.text != static.state.title.text:
            wrong.append(name)
    assert frozen == [], "these live plots still draw the first status"
    assert wrong == [], "these live plots do not draw what the export of the new status draws"


def test_hv_compat_overlay_callback_is_split_into_its_inputs():
    """``buviz.plots._hv_compat.overlay_callback`` (checked with holoviews 1.23.2): the plot of a
    DynamicMap whose callback it made draws each input DynamicMap as a layer, as for ``*``."""
    from holoviews.plotting.util import split_dmap_overlay

    from buviz.plots._hv_compat import CHECKED, overlay_callback

    a = hv.DynamicMap(lambda: hv.Curve([1, 2]))
    b = hv.DynamicMap(lambda: hv.Scatter([3, 4]))
    product = a * b
    assert getattr(product.callback, "_is_overlay", None) is True, (
        f"HoloViews no longer flags the callback of `*` (checked {CHECKED}): revisit buviz/plots/_hv_compat.py")
    wrapped = product.clone(callback=overlay_callback(product.callback.callable, product.callback.inputs),
                            shared_data=False)
    plain = product.clone(callback=hv.Callable(product.callback.callable, inputs=product.callback.inputs),
                          shared_data=False)
    assert split_dmap_overlay(wrapped)[0] == [a, b] != split_dmap_overlay(plain)[0], (
        f"HoloViews splits a flagged overlay callback differently (checked {CHECKED}): "
        "revisit buviz/plots/_hv_compat.py")
    plot = hv.renderer("bokeh").get_plot(wrapped)
    assert [type(sp).__name__ for sp in plot.subplots.values()] == ["CurvePlot", "PointPlot"]


def test_hv_compat_share_options_draws_a_frame_with_the_templates_options():
    """``buviz.plots._hv_compat.share_options`` (checked with holoviews 1.23.2): an overlay given a
    template's id is drawn with the template's plot options."""
    from buviz.plots._hv_compat import CHECKED, share_options

    template = hv.Overlay([]).opts(backend="bokeh", width=321, height=123, title="template")
    frame = hv.Overlay([hv.Curve([1, 2])])
    share_options(frame, template)
    state = hv.renderer("bokeh").get_plot(frame).state
    assert (state.width, state.height, state.title.text) == (321, 123, "template"), (
        f"HoloViews no longer keys plot options on an element's id (checked {CHECKED}): "
        "revisit buviz/plots/_hv_compat.py")


def test_hv_compat_allowed_options_reads_the_backends_option_tree():
    """``buviz.plots._hv_compat.allowed_options`` (checked with holoviews 1.23.2): what Matplotlib accepts
    for a Curve, nothing for a type it does not draw; the export drops a Bokeh-only option with it."""
    from buviz.plots._hv_compat import CHECKED, allowed_options
    from buviz.plots.style import _matplotlib_options

    style, plot = allowed_options("Curve", "style"), allowed_options("Curve", "plot")
    assert {"color", "linewidth", "linestyle"} <= style and {"xlabel", "logy"} <= plot, (
        f"HoloViews' option tree answers differently (checked {CHECKED}): revisit buviz/plots/_hv_compat.py")
    assert "tools" not in style | plot and allowed_options("NoSuchElement", "style") == frozenset()
    out = _matplotlib_options(hv.Curve([1, 2]), {"color": "red", "tools": ["hover"], "line_width": 2})
    assert out.get("color") == "red" and "tools" not in out


def test_hv_compat_layout_columns_reads_what_cols_set():
    """``buviz.plots._hv_compat.layout_columns``: the column count ``Layout.cols`` set, HoloViews' 4
    without one."""
    from buviz.plots._hv_compat import CHECKED, layout_columns

    layout = hv.Layout([hv.Curve([1, 2]), hv.Curve([2, 1]), hv.Curve([0, 1])])
    assert layout_columns(layout.cols(2)) == 2 and layout_columns(hv.Layout([hv.Curve([1])])) == 4, (
        f"HoloViews keeps Layout.cols elsewhere (checked {CHECKED}): revisit buviz/plots/_hv_compat.py")


def test_hv_compat_parameter_slot_defaults_gives_a_new_parameter_its_slots():
    """``buviz.plots._hv_compat.parameter_slot_defaults``: a param.List subclass with a slot of its own
    gets the slot's default and keeps its base's checks (the figure registry's ``Numbers``)."""
    import param

    from buviz.figures._base import Numbers
    from buviz.plots._hv_compat import CHECKED

    class Owner(param.Parameterized):
        values = Numbers([1.0, 2.0], item_bounds=(0, 10))

    o = Owner()
    assert Owner.param["values"].integer is False and Owner.param["values"].item_bounds == (0, 10), (
        f"param declares slot defaults differently (checked {CHECKED}): revisit buviz/plots/_hv_compat.py")
    with pytest.raises((TypeError, ValueError), match="values"):
        o.values = ["a"]


# -- the Display contract (issue 30): public data, compute in from_*, plot only draws --------------------
def _layer_data(el) -> list:
    """The data of every layer of a static picture, for comparing two pictures."""
    def values(e, k):
        v = np.asarray(e.dimension_values(k))
        return np.nan_to_num(v, nan=1e300).tolist() if v.dtype.kind == "f" else v.tolist()

    return [(type(e).__name__, e.label, [values(e, k) for k in range(len(e.dimensions()))])
            for e in el.traverse(lambda x: x, [hv.element.Element])]


def _public(d) -> dict:
    """The constructor arguments of a display, read from its public attributes."""
    import inspect

    names = [p for p in inspect.signature(type(d)).parameters]
    return {p: getattr(d, p) for p in names}


def test_from_result_attributes_are_the_results_and_the_constructor_round_trips(gmm, five_d):
    """``from_result`` stores what the result holds as public attributes, and the public constructor
    given those attributes draws the same picture."""
    ds, r0, _ = gmm
    space = SampleSpaceDisplay.from_result(r0, ds, resolution=60, title="γ0")
    np.testing.assert_array_equal(space.X, ds.X_train)
    np.testing.assert_array_equal(space.y, ds.y_train)
    np.testing.assert_array_equal(space.grid.predicted, evaluate_grid(r0.discriminant, ds.bounds(), 60).predicted)
    np.testing.assert_array_equal(space.near_boundary, np.flatnonzero(r0.near_boundary_weights > 0))
    np.testing.assert_array_equal(space.near_pairs[:, 0], r0.pair_i[space.near_boundary])
    assert space.f is None and space.projection is None and space.class_names == ["C1", "C2"]
    weights = WeightsDisplay.from_result(r0, ds, resolution=60)
    np.testing.assert_array_equal(weights.weights, r0.near_boundary_weights)
    cov = CovariateShiftDisplay.from_result(r0, ds, resolution=60)
    np.testing.assert_array_equal(cov.f_train, r0.f_train)
    np.testing.assert_array_equal(cov.f_tilde, r0.f_tilde)
    np.testing.assert_allclose(cov.f_test, top2_difference(r0.discriminant(ds.X_test)))
    np.testing.assert_array_equal(cov.X_tilde, r0.X_tilde)
    one = OneSampleDisplay.from_result(r0, ds, 7, resolution=60)
    assert one.index == 7 and one.sample["index"] == 7
    np.testing.assert_array_equal(one.sample["neighbours"], r0.sample_view(7)["neighbours"])
    np.testing.assert_array_equal(one.X_tilde, r0.X_tilde)
    t = _table()
    curves = ErrorCurvesDisplay.from_table(t, current=2.0)
    assert curves.table is t and curves.current == 2.0 and curves.x == "log2_gamma"
    ds5, q0, _ = five_d
    by_f = SampleSpaceDisplay.from_result(q0, ds5, color_by="f")
    np.testing.assert_array_equal(by_f.f, q0.f_train)
    np.testing.assert_allclose(by_f.X, by_f.projection.transform(ds5.X_train))
    for d in (space, weights, cov, one, curves, by_f):
        again = type(d)(**_public(d))
        assert _layer_data(again.element()) == _layer_data(d.element()), type(d).__name__


def test_update_replaces_the_attributes_and_the_live_figures_data(gmm):
    ds, r0, r1 = gmm
    g1 = evaluate_grid(r1.discriminant, ds.bounds(), 60)
    d = WeightsDisplay.from_result(r0, ds, resolution=60)
    fig = d.plot(width=300, height=300)
    assert d.plot() is fig and d.figure_ is fig  # memoised: one live object
    plot = hv.renderer("bokeh").get_plot(fig)
    before = _drawn(plot.state)
    changed = d.update(result=r1, dataset=ds, grid=g1)
    assert changed == ["weights", "boundary"]
    assert d.grid is g1
    np.testing.assert_array_equal(d.weights, r1.near_boundary_weights)
    assert d.plot() is fig
    after = _drawn(plot.state)
    assert after != before and after == _drawn(hv.renderer("bokeh").get_plot(d.element()).state)
    # named attributes: the error curves' marker moves in the live figure
    curves = ErrorCurvesDisplay.from_table(_table(), current=0.0)
    live = hv.renderer("bokeh").get_plot(curves.plot())
    assert curves.update(current=2.0) == ["current", "parametric current"] and curves.current == 2.0
    from bokeh.models import Span

    assert [sp.location for sp in live.state.select({"type": Span})] == [2.0]
    with pytest.raises(TypeError, match="colour"):
        curves.update(colour="red")


def _display_classes():
    import buviz.plots.curve_displays  # noqa: F401  (every module defining displays)
    import buviz.plots.discrete  # noqa: F401
    import buviz.plots.displays  # noqa: F401
    import buviz.plots.extrapolation_displays  # noqa: F401
    from buviz.plots._display import Display

    seen, todo = [], list(Display.__subclasses__())
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo += cls.__subclasses__()
    return sorted(seen, key=lambda c: c.__name__)


def test_every_display_updates_with_one_signature_named_data_only(gmm):
    """``update(**data)``: no positional shape anywhere (the result, the table, the index by name)."""
    import inspect

    classes = _display_classes()
    assert len(classes) >= 10
    for cls in classes:
        params = list(inspect.signature(cls.update).parameters.values())[1:]
        assert [p.kind for p in params] == [inspect.Parameter.VAR_KEYWORD], (cls.__name__, params)
    ds, r0, r1 = gmm
    d = OneSampleDisplay.from_result(r0, ds, 3, resolution=60)
    with pytest.raises(TypeError):
        d.update(r1, 4)  # the former positional shape
    with pytest.raises(TypeError, match="index"):
        d.update(index=4)  # an index is a computation's argument: with a result
    assert d.update(result=r1, dataset=ds, index=4, resolution=60) and d.index == 4
    assert not hasattr(d, "dataset")  # a display holds what it draws, not the data to compute it from
    with pytest.raises(TypeError, match="needs dataset="):
        d.update(result=r1, index=5)


def test_plot_is_the_one_drawing_verb_and_style_is_given_where_a_display_is_drawn(gmm):
    """No display takes style in its constructor (the eleven ``*_opts`` are gone) nor offers another way to
    draw live (``show``, ``dmap``, ``layers``, ``pipes``); ``plot`` draws all panels or one, a style per
    panel by its name, the same object for the same arguments, and refuses what it cannot draw."""
    import inspect

    for cls in _display_classes():
        names = set(inspect.signature(cls.__init__).parameters)
        for f in [getattr(cls, m) for m in dir(cls) if m.startswith("from_")]:
            names |= set(inspect.signature(f).parameters)
        assert not {n for n in names if n == "opts" or n.endswith("_opts")}, cls.__name__
        assert not {"show", "dmap", "layers", "pipes"} & set(dir(cls)), cls.__name__
    ds, r0, _ = gmm
    d = OneSampleDisplay.from_result(r0, ds, 3, resolution=60)
    whole = d.plot(map=dict(width=311), zoom=dict(width=222), height=199)
    assert isinstance(whole, hv.Layout) and d.figure_ is whole and d.plot() is whole
    assert d.plot(map=dict(width=311), zoom=dict(width=222), height=199) is whole
    plots = [hv.renderer("bokeh").get_plot(p).state for p in whole]
    assert [(p.width, p.height) for p in plots] == [(311, 199), (222, 199)]
    zoom = d.plot(panel="zoom", width=222)
    assert d.plot(panel="zoom", width=222) is zoom and d.figure_ is whole  # one panel: a pane of its own
    assert hv.renderer("bokeh").get_plot(zoom).state.width == 222
    with pytest.raises(ValueError, match="panel: OneSampleDisplay has the panels \\['map', 'zoom'\\], not 'hist'"):
        d.plot(panel="hist")
    with pytest.raises(TypeError, match="extra layers go on one panel"):
        d.plot(hv.DynamicMap(lambda: hv.Points([])))
    with pytest.raises(TypeError, match="map= names a panel"):
        d.plot(map=400)


def test_rms_deviation_display_follows_N_and_k():
    from buviz import discrete
    from buviz.plots.displays import RmsDeviationDisplay

    p = np.linspace(0, 1, 11)
    d = RmsDeviationDisplay.from_estimators(("loo", "resubstitution"), 50, 10, p)
    np.testing.assert_allclose(d.S["loo"], discrete.rms_deviation("loo", 50, 10, p))
    plot = hv.renderer("bokeh").get_plot(d.plot())
    new = {m: discrete.rms_deviation(m, 20, 5, p) for m in d.S}
    assert d.update(S=new, title="N = 20, k = 5") == ["curves"]  # the points and the mark stay
    ys = sorted(np.round(np.asarray(s.data["S"], float), 9).tolist() for s in _sources(plot).values()
                if len(s.data.get("S", [])))  # the estimators not shown keep empty curves
    assert ys == sorted(np.round(v, 9).tolist() for v in new.values())
    assert plot.state.title.text == "N = 20, k = 5"


def test_a_display_is_a_panel_and_a_notebook_cell(gmm):
    import panel as pn

    ds, r0, _ = gmm
    d = SampleSpaceDisplay.from_result(r0, ds, resolution=60, title="γ0")
    assert d.__panel__() is d.plot()
    pane = pn.panel(d)
    assert isinstance(pane, pn.pane.HoloViews) and pane.object is d.plot()
    assert isinstance(pn.Column(d)[0], pn.pane.HoloViews)
    assert repr(d).startswith("SampleSpaceDisplay(X=array(250, 2), y=array(250,)")


def test_a_display_as_the_last_line_of_a_notebook_cell_shows_its_figure(tmp_path):
    """A real kernel runs a cell ending in a display: the cell's output is Panel's view of the figure."""
    import nbformat
    from nbclient import NotebookClient

    code = ("import holoviews as hv, panel as pn\npn.extension(inline=True)\nhv.extension('bokeh', inline=True)\n"
            "from buviz.plots.displays import ErrorCurvesDisplay\nimport pandas as pd\n"
            "ErrorCurvesDisplay.from_table(pd.DataFrame({'log2_gamma': [0.0, 1.0], 'L_te': [0.2, 0.1],"
            " 'U_tr': [0.5, 0.4]}), current=1.0)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = nb.cells[0].outputs
    shown = [o for o in outputs if o.output_type == "execute_result"]
    assert shown, [o.get("text", o.output_type) for o in outputs]
    assert "application/vnd.holoviews_exec.v0+json" in shown[0].data or "text/html" in shown[0].data


def test_live_legend_lists_only_what_is_drawn():
    """Issue 31: before a sweep row arrives the live Error-vs-Û legend lists no curve and no current
    status; once the rows arrive the entries of the drawn columns show, those of absent columns do not."""
    from bokeh.models import Legend

    d = ErrorCurvesDisplay.from_table(None, current=0.0)
    plot = hv.renderer("bokeh").get_plot(d.plot())

    def shown():
        return {item.label["value"] for lg in plot.state.select({"type": Legend}) for item in lg.items
                if item.visible}

    assert shown() == set()
    d.update(table=_table(), current=0.0)
    labels = shown()
    assert "current status" in labels and any("L_te" in t for t in labels)
    assert not any("Proposal 1" in t or "U1" in t or "L_ho" in t for t in labels)  # columns not in the table


def test_rms_deviation_display_from_a_table_of_a_simulation():
    import pandas as pd

    from buviz import discrete
    from buviz.plots.displays import RmsDeviationDisplay

    p = np.linspace(0, 1, 6)
    frames = []
    for m in ("loo", "resubstitution"):
        S, se = discrete.simulate_rms_deviation_curve(discrete.cell_values(m, 20, 20, k=4), 20, 4, p, 4000)
        frames.append(pd.DataFrame({"method": m, "p": p[::-1], "S": S[::-1], "se": se[::-1]}))  # any row order
    table = pd.concat(frames, ignore_index=True)
    d = RmsDeviationDisplay.from_table(table, p_mark=0.3)
    np.testing.assert_array_equal(d.p, p)
    exact = RmsDeviationDisplay.from_estimators(("loo", "resubstitution"), 20, 4, p)
    for m in d.S:  # the simulation meets the exact moments within its standard errors
        se = table[table.method == m].sort_values("p")["se"].to_numpy()
        assert np.all(np.abs(d.S[m] - exact.S[m]) <= 4 * se + 1e-12), m
    assert d.p_mark == 0.3 and len([e for e in d.element() if isinstance(e, hv.Curve) and len(e)]) == 2
    with pytest.raises(ValueError, match="missing"):
        RmsDeviationDisplay.from_table(table.drop(columns="S"))
    with pytest.raises(ValueError, match="same values of p"):
        RmsDeviationDisplay.from_table(table.iloc[1:])
