"""HoloViews builders of the boundary-uncertainty views, rendered to Bokeh models (no browser)."""

import holoviews as hv
import numpy as np
import pandas as pd
import pytest
from bokeh.models import (
    CategoricalColorMapper,
    GlyphRenderer,
    LinearAxis,
    LinearColorMapper,
    MultiLine,
    Span,
)

from buviz import classifiers, datasets
from buviz.grid import GridEvaluation, evaluate_grid
from buviz.plots import uncertainty as pb
from buviz.plots.displays import (
    CovariateShiftDisplay,
    ErrorCurvesDisplay,
    OneSampleDisplay,
    SampleSpaceDisplay,
    SensitivityDisplay,
    WeightsDisplay,
)
from buviz.uncertainty import BoundaryUncertainty

hv.extension("bokeh")


@pytest.fixture(scope="module")
def status():
    ds = datasets.load("gmm", n_train=300, n_test=500, random_state=1)
    d = classifiers.svm_status(ds.X_train, ds.y_train, 2.0)
    ev = evaluate_grid(d, ds.bounds(), 120)
    xs, ys, scores, fields = ev.xs, ev.ys, ev.scores, ev.fields
    res = BoundaryUncertainty(M=20, random_state=0).fit(ds.X_train, ds.y_train).evaluate(d, train_scores=True)
    return ds, d, xs, ys, scores, fields, res


def _renderers(fig, glyph_type=None):
    out = [r for r in fig.renderers if isinstance(r, GlyphRenderer)]
    return [r for r in out if glyph_type is None or isinstance(r.glyph, glyph_type)]


def _lines(renderer):
    data = renderer.data_source.data
    pairs = zip(data["xs"], data["ys"], strict=True)
    return [np.column_stack([np.asarray(x, float), np.asarray(y, float)]) for x, y in pairs]


def test_zero_contour_vertices_lie_where_the_discriminant_vanishes(status):
    ds, d, xs, ys, scores, fields, _ = status
    fig = hv.render(pb.boundary_path(fields), backend="bokeh")
    (r,) = _renderers(fig, MultiLine)
    pts = np.concatenate(_lines(r))
    assert len(pts) > 20
    g = d(pts)
    f = g[:, 0] - g[:, 1]
    scale = np.abs(scores[:, 0] - scores[:, 1]).max()
    # marching squares interpolates linearly between grid nodes: |f| is a small fraction of its range
    assert np.abs(f).max() < 0.03 * scale
    assert np.median(np.abs(f)) < 0.005 * scale


def test_multiclass_boundary_path_covers_every_pair():
    ds = datasets.load("gmm3", n_train=300, n_test=0, random_state=0)
    bf = ds.model.bayes_boundary(ds.bounds(), 100)
    assert len(bf) >= 2
    lines = [ln for f in bf.values() for ln in pb.zero_contours(f)]
    path = pb.boundary_path(bf)
    assert sum(len(p.array()) for p in path.split()) == sum(len(ln) for ln in lines)
    post = ds.model.posterior(np.concatenate(lines))
    top = np.sort(post, axis=1)[:, -2:]
    assert np.abs(top[:, 1] - top[:, 0]).max() < 0.05  # B*: the two largest posteriors are equal


def test_sample_space_display_colours_and_bayes_dash(status):
    ds, d, xs, ys, scores, fields, _ = status
    bayes = ds.model.bayes_boundary(ds.bounds(), 120)
    pred = scores.argmax(1).reshape(len(ys), len(xs))
    grid = GridEvaluation(xs, ys, scores, pred, fields)
    el = SampleSpaceDisplay(X=ds.X_train, y=ds.y_train, grid=grid, bayes_fields=bayes,
                            class_names=["C1", "C2"]).element()
    fig = hv.render(el, backend="bokeh")
    lines = _renderers(fig, MultiLine)
    assert len(lines) == 2
    by_color = {r.glyph.line_color: r for r in lines}
    assert pb.BOUNDARY_COLOR in by_color and pb.BAYES_COLOR in by_color
    assert list(by_color[pb.BAYES_COLOR].glyph.line_dash) != []  # B* dashed
    scatter = [r for r in _renderers(fig) if "class" in r.data_source.data]
    (pts,) = scatter
    assert len(pts.data_source.data["x1"]) == len(ds.X_train)
    mapper = pts.glyph.fill_color["transform"]
    assert isinstance(mapper, CategoricalColorMapper)
    colours = dict(zip(mapper.factors, mapper.palette, strict=False))
    assert colours["C1"] == pb.CLASS_COLORS[0] and colours["C2"] == pb.CLASS_COLORS[1]


def test_weights_display_dark_to_bright_for_positive_weights_class_colour_for_zero(status):
    ds, *_, fields, res = status
    w = res.near_boundary_weights.copy()
    w[::3] = 0.0  # force some zero weights
    grid = GridEvaluation(None, None, None, None, fields)  # B(Λ) only
    fig = hv.render(WeightsDisplay(X=ds.X_train, y=ds.y_train, weights=w, grid=grid).element(), backend="bokeh")
    hot = [r for r in _renderers(fig) if "weight" in r.data_source.data]
    (hot,) = hot
    plotted = np.asarray(hot.data_source.data["weight"])
    assert len(plotted) == int(np.sum(w > 0)) and np.all(plotted > 0)
    assert np.all(np.diff(plotted) >= 0)  # heaviest drawn last
    mapper = hot.glyph.fill_color["transform"]
    assert isinstance(mapper, LinearColorMapper)
    assert mapper.low == 0 and mapper.high == pytest.approx(plotted.max())
    assert mapper.palette[0].lower() == "#440154"  # the weight map (buviz.plots.style.WEIGHT_CMAP, viridis):
    assert mapper.palette[-1].lower() in ("#fde725", "#fde724")  # dark purple (small) to yellow (large)
    base = [r for r in _renderers(fig) if "class" in r.data_source.data]
    (base,) = base
    assert len(base.data_source.data["x1"]) == int(np.sum(w == 0))
    assert isinstance(base.glyph.fill_color["transform"], CategoricalColorMapper)


def test_shift_display_maps_share_one_symmetric_colour_scale(status):
    ds, d, *_, res = status
    f_te = classifiers.boundary_score(d, ds.X_test)
    lay = CovariateShiftDisplay(f_train=res.f_train, f_tilde=res.f_tilde, f_test=f_te, X_train=ds.X_train,
                                X_tilde=res.X_tilde, X_test=ds.X_test).element()
    fig = hv.render(lay, backend="bokeh")
    mappers = {(m.low, m.high) for m in fig.select({"type": LinearColorMapper})}
    assert len(mappers) == 1
    lo, hi = mappers.pop()
    assert lo == -hi and hi > 0


def test_shift_histograms_are_densities_on_shared_edges():
    rng = np.random.default_rng(0)
    el = pb.shift_histograms({"a": rng.normal(size=500), "b": rng.normal(1, 1, size=800)}, bins=30, clim=3)
    for h in el:
        edges = h.edges
        assert edges[0] == -3 and edges[-1] == 3 and len(edges) == 31
        assert np.sum(h.dimension_values(1) * np.diff(edges)) == pytest.approx(1.0)


def _table():
    lg = np.arange(-3, 4, dtype=float)
    return pd.DataFrame({"log2_gamma": lg, "L_te": 0.2 + 0.01 * lg ** 2, "L_val": 0.21 + 0.01 * lg ** 2,
                         "L_ho": 0.22 + 0.01 * lg ** 2, "L_tr": 0.2 - 0.02 * lg, "U_tr": 0.9 - 0.02 * lg ** 2,
                         "U_te": 0.88 - 0.02 * lg ** 2})


def test_error_curves_twin_axes_and_marker_at_current_status():
    t = _table()
    fig = hv.render(ErrorCurvesDisplay.from_table(t, "log2_gamma", current=2).element(panel="curves"), backend="bokeh")
    assert "neg_U" in fig.extra_y_ranges  # −Û on its own right axis
    assert [a.y_range_name for a in fig.right if isinstance(a, LinearAxis)] == ["neg_U"]
    spans = list(fig.select({"type": Span}))
    assert [s.location for s in spans] == [2.0]
    markers = [r for r in _renderers(fig) if getattr(r.glyph, "marker", None) == "diamond"]
    pos = sorted((float(r.data_source.data["log2_gamma"][0]), float(r.data_source.data[r.glyph.y][0]))
                 for r in markers if len(r.data_source.data["log2_gamma"]))
    row = t[t.log2_gamma == 2].iloc[0]
    assert pos == sorted([(2.0, row.L_te), (2.0, -row.U_tr)])
    right = [r for r in _renderers(fig) if r.y_range_name == "neg_U"]
    ys = np.concatenate([np.asarray(r.data_source.data[r.glyph.y], float) for r in right])
    assert np.all(ys[np.isfinite(ys)] <= 0)  # the plot shows −Û


def test_error_curves_empty_table_keeps_structure():
    full = ErrorCurvesDisplay.from_table(_table(), current=0).element(panel="curves")
    empty = ErrorCurvesDisplay.from_table(None, current=0).element(panel="curves")
    assert [type(e) for e in full] == [type(e) for e in empty]
    hv.render(empty, backend="bokeh")


def test_parametric_plot_coloured_by_status():
    t = _table()
    fig = hv.render(ErrorCurvesDisplay.from_table(t, current=1).element(panel="parametric"), backend="bokeh")
    coloured = [r for r in _renderers(fig) if "log2_gamma" in r.data_source.data
                and len(r.data_source.data["log2_gamma"])]
    assert coloured
    for r in coloured:
        np.testing.assert_allclose(sorted(r.data_source.data["log2_gamma"]), t.log2_gamma)
        assert isinstance(r.glyph.fill_color["transform"], LinearColorMapper)


def test_cluster_zoom_spikes_kernels_and_band(status):
    *_, res = status
    i = int(np.argmax(res.near_boundary_weights))
    v = res.sample_view(i)
    el = pb.cluster_zoom(v)
    spikes = [e for e in el if isinstance(e, hv.Spikes)]
    got = np.sort(np.concatenate([s.dimension_values(0) for s in spikes]))
    np.testing.assert_allclose(got, np.sort(v["F"]))
    (band,) = [e for e in el if isinstance(e, hv.VSpan)]
    assert list(band.data) == [pytest.approx(-v["bandwidth"]), pytest.approx(v["bandwidth"])]
    kernels = [e for e in el if isinstance(e, hv.Curve) and e.label.startswith("kernels")]
    # one curve per class of the pair, its kernels separated by NaN (one glyph instead of M)
    n_kernels = sum(int(np.isnan(c.dimension_values(1)).sum()) for c in kernels)
    assert n_kernels == int(np.isin(v["labels"], v["pair"]).sum())
    # the kernel sum at f = 0 is k̂ = k̂^i + k̂^j (eq 27-28)
    h = v["bandwidth"]
    k0 = np.sum(np.exp(-0.5 * (v["F"][np.isin(v["labels"], v["pair"])] / h) ** 2) / np.sqrt(2 * np.pi))
    assert k0 == pytest.approx(v["k_i"] + v["k_j"])
    hv.render(el, backend="bokeh")
    hv.render(pb.cluster_zoom(None), backend="bokeh")


def test_one_sample_map_marks_members_and_sample(status):
    ds, *_, fields, res = status
    v = res.sample_view(5)
    grid = GridEvaluation(None, None, None, None, fields)
    el = OneSampleDisplay(X=ds.X_train, y=ds.y_train, sample=v, X_tilde=res.X_tilde, grid=grid).element(panel="map")
    members = [e for e in el if e.label == "N^M(x)"][0]
    nbr = np.asarray(v["neighbours"])[pb.legend_order(ds.y_train[v["neighbours"]])]  # legend order
    np.testing.assert_allclose(members.array(["x1", "x2"]), ds.X_train[nbr])
    star = [e for e in el if e.label == "x"][0]
    np.testing.assert_allclose(star.array(), ds.X_train[[5]])
    hv.render(el, backend="bokeh")


def test_sensitivity_curves_one_per_setting_and_a_new_reference_updates_in_place():
    from bokeh.document import Document

    t = _table()
    d = SensitivityDisplay(tables={"M = 20": t, "M = 40": t.assign(U_tr=t.U_tr - 0.1)}, reference=t)
    el = d.element()
    assert len(el) == 3
    np.testing.assert_allclose(el.get(1).dimension_values(1), -(t.U_tr - 0.1))
    np.testing.assert_allclose(el.get(2).dimension_values(1), -t.U_te)  # the reference's −Û_te
    plot = hv.renderer("bokeh").get_plot(d.plot(), doc=Document())
    figure, renderers = plot.state, list(plot.state.renderers)
    assert d.update(reference=t.assign(U_te=t.U_te + 0.05)) == ["reference"]  # the settings' curves stay
    assert plot.state is figure and list(figure.renderers) == renderers
    ys = [np.asarray(r.data_source.data["neg_U"]) for r in figure.renderers if "neg_U" in r.data_source.data]
    assert any(np.allclose(y, -(t.U_te + 0.05)) for y in ys)
    without = SensitivityDisplay(tables={"M = 20": t}).element()
    legend = hv.render(without, backend="bokeh").legend[0]
    assert [getattr(i.label, "value", i.label) for i in legend.items] == ["M = 20"]  # no reference: not listed


def test_curves_in_a_dynamic_map_follow_the_sweep_ranges():
    """A sweep that fills in after the first (empty) frame moves the axes to its data on the screen.

    The framewise norm must reach each layer (HoloViews reads it there, not on the overlay); before,
    the explorer's Error vs −Û axes stayed at the empty frame's [0, 1] after the sweep was done.
    """
    from bokeh.document import Document

    lg = np.arange(-10.0, 11.0)
    table = pd.DataFrame({"log2_gamma": lg, "L_te": 0.2 + 0.01 * np.abs(lg), "U_tr": 0.5 + 0.02 * lg})
    display = ErrorCurvesDisplay.from_table(None, "log2_gamma", 0.0, show_parametric=False)
    plot = hv.renderer("bokeh").get_plot(display.plot(), doc=Document())
    display.update(table=table)
    x_range = plot.handles["x_range"]
    assert (x_range.start, x_range.end) == (-10.0, 10.0)
    y_range = plot.handles["y_range"]
    assert y_range.start <= 0.2 and y_range.end >= 0.3
