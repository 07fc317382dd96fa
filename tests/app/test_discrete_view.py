"""View and plot-builder tests for the discrete case (no browser)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

from buviz import discrete
from buviz.app.discrete import DiscreteEstimatorsView
from buviz.plots import discrete as dplots

hv.extension("bokeh")


def _curves(el):
    """The curves that draw something (the Fig 2 display keeps an empty one per estimator without data)."""
    return [e for e in el if isinstance(e, hv.Curve) and len(e)]


def test_table_units_switch():
    x = discrete.cell_values("bootstrap632", 50, 8)
    count = dplots.table_frame(x, 50, units="count")
    prob = dplots.table_frame(x, 50, units="probability")
    assert count.loc[2, "m=1"] == pytest.approx(50 * prob.loc[2, "m=1"])
    assert count.loc[2, "m=1"] == pytest.approx(1.41, abs=0.005)
    tab = dplots.table_element(count)
    assert isinstance(tab, hv.Table) and len(tab) == 9
    with pytest.raises(ValueError, match="units"):
        dplots.table_frame(x, 50, units="bad")


def test_view_updates_and_renders():
    view = DiscreteEstimatorsView(N=30, k=5, p=0.2)
    view.bus.wait()  # the tables are computed in the background
    layout = view.__panel__()
    assert layout is not None
    fig2 = view.fig2.element()
    curves = _curves(fig2)
    assert len(curves) == 4  # balanced optimal included for N <= 80
    exact = discrete.rms_deviation("loo", 30, 5, curves[1].data.iloc[:, 0].to_numpy())
    assert np.allclose(curves[1].dimension_values("S"), exact)
    # change N/k/p: data behind the elements follows
    view.controls.param.update(N=40, k=4, p=0.6)
    view.bus.wait()
    curves = _curves(view.fig2.element())
    p = curves[0].dimension_values("p")
    assert np.allclose(curves[0].dimension_values("S"), discrete.rms_deviation("resubstitution", 40, 4, p))
    assert view.readout.object.loc["loo", "S at p"] == pytest.approx(discrete.rms_deviation("loo", 40, 4, 0.6))
    fig1 = _curves(view.estimates.element(panel="fig1"))
    assert np.allclose(fig1[0].dimension_values(1), 40 * discrete.cell_values("resubstitution", 40, 5)[5, :6])
    # bokeh render of the live figure: its data sources hold the curve values, and the next change of
    # the controls changes those sources in place (the same figure, the same glyphs)
    live = view.fig2_pane.object
    plot = hv.renderer("bokeh").get_plot(live)
    figure, renderers = plot.state, list(plot.state.renderers)

    def s_values():
        return [np.asarray(r.data_source.data["S"]) for r in figure.renderers
                if hasattr(r, "data_source") and len(r.data_source.data.get("S", [])) == len(p)]

    assert any(np.allclose(s, curves[0].dimension_values("S")) for s in s_values())
    view.controls.p = 0.5
    view.controls.k = 6
    view.bus.wait()
    assert view.fig2_pane.object is live and plot.state is figure and list(figure.renderers) == renderers
    want = discrete.rms_deviation("resubstitution", 40, 6, p)
    assert any(np.allclose(s, want) for s in s_values())
    view.controls.k = 4
    view.bus.wait()
    # units toggle: the live Fig 1 keeps its figure and its y axis follows the data (counts to probabilities)
    fig1_plot = hv.renderer("bokeh").get_plot(view.fig1_pane.object)
    fig1_figure = fig1_plot.state
    assert fig1_figure.y_range.end > 1 and fig1_figure.yaxis[0].axis_label.startswith("N·x")
    view.controls.units = "probability"
    fig1 = _curves(view.estimates.element(panel="fig1"))
    assert np.allclose(fig1[0].dimension_values(1), discrete.cell_values("resubstitution", 40, 5)[5, :6])
    top = max(c.dimension_values(1).max() for c in fig1)
    assert fig1_plot.state is fig1_figure and fig1_figure.yaxis[0].axis_label == "x[n, m] (probability)"
    assert top < fig1_figure.y_range.end < 1.5 * top + 1e-3
    # the table follows the estimator and the units
    view.controls.table_method = "loo"
    x = discrete.cell_values("loo", 40, 40)
    assert view.table_pane.object.loc[2, "m=1"] == pytest.approx(x[2, 1]) and "leave-one-out" in view.table_title.object
    view.controls.units = "count"
    assert view.table_pane.object.loc[2, "m=1"] == pytest.approx(40 * x[2, 1])
    # the display's own table panel, for notebooks and exports: the same numbers, as text
    table = view.estimates.element(panel="table")
    assert table.iloc[2, 2] == f"{40 * x[2, 1]:.4f}" and table.opts.get().kwargs["title"] == view.estimates.table_title


def test_cell_estimates_display_refuses_a_bad_n_and_keeps_what_it_showed():
    d = dplots.CellEstimatesDisplay.from_estimators(("loo", "bootstrap632"), 12, 3, n=4)
    with pytest.raises(ValueError, match="n must be in"):
        d.update(n=13)
    with pytest.raises(ValueError, match="table_method"):
        d.update(table_method="balanced_optimal")
    with pytest.raises(ValueError, match="units"):
        dplots.CellEstimatesDisplay(tables=d.tables, N=12, units="percent")
    assert (d.n, d.table_method) == (4, "bootstrap632")
    assert d.update(n=5) == ["fig1"] and d.update(units="probability") == ["table", "fig1"]


def test_monte_carlo_overlay_close_to_exact():
    view = DiscreteEstimatorsView(N=20, k=4, p=0.3, mc_samples=4000)
    view.run_monte_carlo(n_points=3)  # in the background (its cache answers at once)
    view.bus.wait()
    mc = view.mc
    assert mc is not None and set(mc["method"]) == set(discrete.METHODS)
    scatters = [e for e in view.fig2.element() if isinstance(e, hv.Scatter) and len(e)]
    assert len(scatters) == 4
    for _, row in mc.iterrows():
        exact = discrete.rms_deviation(row["method"], 20, 4, row["p"])
        assert abs(row["S"] - exact) <= 4 * row["se"] + 1e-3


def test_bad_input_shows_message_not_crash():
    view = DiscreteEstimatorsView(N=10, k=3, n=5)
    view.bus.wait()
    view.controls.n = 50  # n > N
    assert view.message.visible and "n for Fig 1" in view.message.object
    view.controls.n = 3
    assert not view.message.visible or "balanced" in view.message.object
    big = DiscreteEstimatorsView(N=100, k=10)
    big.bus.wait()
    assert big.message.visible and "balanced" in big.message.object
    assert len(_curves(big.fig2.element())) == 3


def test_the_read_out_at_p_is_a_cached_task_not_computed_in_the_view():
    from buviz.app import tasks

    tasks.discrete_at_p.clear()
    view = DiscreteEstimatorsView(N=24, k=3, p=0.35)
    view.bus.wait()
    key = tasks.DiscreteKey(24, 3, 0.35)
    assert tasks.discrete_at_p.has(key) and tasks.discrete_at_p.has(tasks.DiscreteKey(np.int64(24), 3.0, 0.35))
    at_p = tasks.discrete_at_p(key)
    assert set(at_p) == set(discrete.METHODS)
    for i, (m, S) in enumerate(at_p.items()):
        assert view.readout.object.loc[m, "S at p"] == S
        # against simulation, not the moment formula the task calls: a broken formula shows here
        S_mc, se = discrete.simulate_rms_deviation(discrete.cell_values(m, 24, 24, k=3), 24, 3, 0.35, 60_000,
                                                   random_state=i)
        assert abs(S - S_mc) <= 3 * se, (m, S, S_mc, se)
