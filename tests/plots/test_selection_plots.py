"""The T̃-amplitude plot builder, rendered to Bokeh models (no browser)."""

import holoviews as hv
import numpy as np
import pandas as pd

from buviz.plots import selection as ps

hv.extension("bokeh")


def _table():
    """A tidy table shaped like perturbation_amplitude_sweep's, with known minima."""
    rows = []
    for mode in ("features", "scalar"):
        for a in (0.0, 0.5, 2.0):
            for k in range(-3, 4):
                # −Û is minimal at log2 γ = round(a) - 1 (distinct per a); L_te minimal at k = 0
                rows.append({"param": "gamma", "value": 2.0**k, "log2_value": float(k), "mode": mode, "amplitude": a,
                             "U_tr": 1 - 0.05 * (k - (round(a) - 1)) ** 2 - (0.1 if mode == "scalar" else 0),
                             "U_te": 0.5, "L_te": 0.1 + 0.01 * k**2, "L_tr": 0.0})
    return pd.DataFrame(rows)


def test_one_curve_per_amplitude_on_the_right_axis_and_test_error_on_the_left():
    t = _table()
    el = ps.amplitude_curves(t, "features")
    curves = [e for e in el if isinstance(e, hv.Curve)]
    labels = [c.label for c in curves]
    assert labels == ["L_te (test)", "−Û_tr, a = 0", "−Û_tr, a = 0.5", "−Û_tr, a = 2"]
    for c in curves[1:]:
        assert c.vdims[0].name == "neg_U"
        a = float(c.label.split("= ")[1])
        ref = t[(t["mode"] == "features") & np.isclose(t["amplitude"], a)].sort_values("log2_value")
        np.testing.assert_allclose(c.dimension_values(1), -ref["U_tr"].to_numpy())  # −Û, not Û
    assert curves[0].vdims[0].name == "error"
    fig = hv.render(el, backend="bokeh")
    assert "neg_U" in fig.extra_y_ranges


def test_markers_sit_at_the_selected_statuses():
    el = ps.amplitude_curves(_table(), "scalar")
    chosen = [e for e in el if isinstance(e, hv.Scatter) and e.label.startswith("argmin")][0]
    # argmin of −Û per amplitude: log2 γ = round(a) − 1 for a = 0, 0.5, 2 → −1, −1, 1
    np.testing.assert_allclose(chosen.dimension_values(0), [-1, -1, 1])
    best = [e for e in el if isinstance(e, hv.Scatter) and e.label == "min L_te"][0]
    np.testing.assert_allclose(best.dimension_values(0), [0.0])


def test_amplitude_subset_and_te_reading():
    el = ps.amplitude_curves(_table(), "features", amplitudes=[2.0], u="U_te")
    curves = [e for e in el if isinstance(e, hv.Curve)]
    assert [c.label for c in curves] == ["L_te (test)", "−Û_te, a = 2"]
    np.testing.assert_allclose(curves[1].dimension_values(1), -0.5)


def test_empty_table_keeps_the_layers():
    empty = ps.amplitude_curves(None)
    assert all(len(e) == 0 for e in empty)
    hv.render(empty, backend="bokeh")  # renders without data


def test_panels_one_per_mode_and_a_new_table_updates_them_in_place():
    from bokeh.document import Document

    lay = ps.AmplitudeDisplay.from_table(_table()).element()
    assert len(lay) == 2
    assert [o.opts.get().kwargs["title"].split(" ")[0] for o in lay] == ["features", "scalar"]
    d = ps.AmplitudeDisplay(table=None, amplitudes=[0.0, 2.0])  # the view's start: no table yet
    plot = hv.renderer("bokeh").get_plot(d.plot(), doc=Document())
    from bokeh.models import Plot

    figures = list(plot.state.select({"type": Plot}))
    assert len(figures) == 2
    t = _table()
    assert sorted(d.update(table=t)) == ["features", "scalar"]
    assert list(plot.state.select({"type": Plot})) == figures  # the same figures, new data
    u = t[(t["mode"] == "features") & np.isclose(t["amplitude"], 2.0)].sort_values("log2_value")
    ys = [np.asarray(r.data_source.data.get("neg_U", [])) for f in figures for r in f.renderers]
    assert any(len(y) == len(u) and np.allclose(y, -u["U_tr"]) for y in ys)
