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
    return [e for e in el if isinstance(e, hv.Curve)]


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
    layout = view.__panel__()
    assert layout is not None
    fig2 = view.fig2_pane.object
    curves = _curves(fig2)
    assert len(curves) == 4  # balanced optimal included for N <= 80
    exact = discrete.rms_deviation("loo", 30, 5, curves[1].data.iloc[:, 0].to_numpy())
    assert np.allclose(curves[1].dimension_values("S"), exact)
    # change N/k/p: data behind the elements follows
    view.param.update(N=40, k=4, p=0.6)
    curves = _curves(view.fig2_pane.object)
    p = curves[0].dimension_values("p")
    assert np.allclose(curves[0].dimension_values("S"), discrete.rms_deviation("resubstitution", 40, 4, p))
    assert view.readout.object.loc["loo", "S at p"] == pytest.approx(discrete.rms_deviation("loo", 40, 4, 0.6))
    fig1 = _curves(view.fig1_pane.object)
    assert np.allclose(fig1[0].dimension_values(1), 40 * discrete.cell_values("resubstitution", 40, 5)[5, :6])
    # bokeh render: the data source holds the curve values
    plot = hv.renderer("bokeh").get_plot(view.fig2_pane.object)
    sources = [r.data_source.data for r in plot.state.renderers if hasattr(r, "data_source")]
    assert any(np.allclose(np.asarray(s.get("S", [])), curves[0].dimension_values("S")) for s in sources
               if len(s.get("S", [])) == len(p))
    # units toggle
    view.units = "probability"
    fig1 = _curves(view.fig1_pane.object)
    assert np.allclose(fig1[0].dimension_values(1), discrete.cell_values("resubstitution", 40, 5)[5, :6])


def test_monte_carlo_overlay_close_to_exact():
    view = DiscreteEstimatorsView(N=20, k=4, p=0.3, mc_samples=4000)
    mc = view.run_monte_carlo(n_points=3)
    assert mc is not None and set(mc["method"]) == set(discrete.METHODS)
    scatters = [e for e in view.fig2_pane.object if isinstance(e, hv.Scatter)]
    assert len(scatters) == 4
    for _, row in mc.iterrows():
        exact = discrete.rms_deviation(row["method"], 20, 4, row["p"])
        assert abs(row["S"] - exact) <= 4 * row["se"] + 1e-3


def test_bad_input_shows_message_not_crash():
    view = DiscreteEstimatorsView(N=10, k=3, n=5)
    view.n = 50  # n > N
    assert view.message.visible and "n for Fig 1" in view.message.object
    view.n = 3
    assert not view.message.visible or "balanced" in view.message.object
    big = DiscreteEstimatorsView(N=100, k=10)
    assert big.message.visible and "balanced" in big.message.object
    assert len(_curves(big.fig2_pane.object)) == 3


def test_the_read_out_at_p_is_a_cached_task_not_computed_in_the_view():
    from buviz.app import tasks

    tasks.discrete_at_p.clear()
    view = DiscreteEstimatorsView(N=24, k=3, p=0.35)
    assert tasks.discrete_at_p.has(24, 3, 0.35)
    at_p = tasks.discrete_at_p(24, 3, 0.35)
    assert set(at_p) == set(discrete.METHODS)
    for i, (m, S) in enumerate(at_p.items()):
        assert view.readout.object.loc[m, "S at p"] == S
        # against simulation, not the moment formula the task calls: a broken formula shows here
        S_mc, se = discrete.simulate_rms_deviation(discrete.cell_values(m, 24, 24, k=3), 24, 3, 0.35, 60_000,
                                                   random_state=i)
        assert abs(S - S_mc) <= 3 * se, (m, S, S_mc, se)
