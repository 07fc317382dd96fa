"""The separability-case builders (eq 39, §4.5) on a real sweep table, rendered to Bokeh models."""

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from buviz import datasets
from buviz.plots import cases
from buviz.sweep import svm_gamma_sweep

hv.extension("bokeh")


@pytest.fixture(scope="module")
def separable_sweep():
    """SVC on gmm_separable: zero-error boundaries in the empty band (Case 1) at γ = 2⁻⁴ … 4, and a
    boundary pushed through the data at a tiny γ. Eq 39 as printed (threshold rule), whose Cases 1 and 3
    give exactly U_max and U_min."""
    ds = datasets.load("gmm_separable", n_train=300, n_test=200, random_state=0)
    return svm_gamma_sweep(ds, [2.0**-4, 1.0, 4.0, 2.0**-14], cv=2, M=40, separability="threshold", n_jobs=1,
                           cache=None)


def test_sweep_rows_carry_the_per_pair_case_and_effective_size(separable_sweep):
    t = separable_sweep
    assert all(p == ["0-1"] for p in t["pairs_tr"])
    assert [c[0] for c in t["pair_case_tr"][:3]] == [1, 1, 1]  # U_max, no near-boundary evidence
    np.testing.assert_array_equal(t["U_tr"][:3], 1.0)
    assert t["pair_case_tr"][3] == [3] and t["U_tr"][3] == 0.0  # γ = 2⁻¹⁴: all one class, boundary outside
    for _, r in t.iterrows():
        assert r["n_eff_tr"] == pytest.approx(r["pair_n_eff_tr"][0])  # one pair: P̂ = 1
        assert (r["pair_case_tr"][0] == 2) == (r["pair_blend_tr"][0] >= 0.5)


def test_case_strip_places_each_pair_status_in_its_case_layer(separable_sweep):
    t = separable_sweep
    el = cases.pair_cases(t)
    scatters = [e for e in el if isinstance(e, hv.Scatter)]
    assert [s.label for s in scatters] == [cases.CASE_LABELS[c] for c in (1, 2, 3)]
    for case, s in zip((1, 2, 3), scatters, strict=True):
        expect = sorted(float(x) for x, c in zip(t["log2_gamma"], t["pair_case_tr"], strict=True) if c[0] == case)
        assert sorted(s.dimension_values("x")) == expect
        assert set(s.dimension_values("pair")) <= {"C1-C2"}  # the class names, as the other plots write them
    fig = hv.render(cases.cases_panel(t), backend="bokeh")
    assert fig is not None


def test_effective_size_curve_one_curve_per_pair_without_zeros():
    t = pd.DataFrame({"log2_gamma": [-2.0, 0.0, 2.0],
                      "pairs_tr": [["0-1", "0-2"]] * 3,
                      "pair_case_tr": [[2, 1], [2, 3], [3, 3]],
                      "pair_n_eff_tr": [[500.0, 0.0], [120.0, 4.0], [3.0, 2.5]],
                      "pair_blend_tr": [[0.94, 0.0], [0.8, 0.1], [0.09, 0.07]]})
    long = cases.case_table(t)
    assert len(long) == 6 and list(long.columns) == ["x", "pair", "case", "n_eff", "blend"]
    curves = [e for e in cases.effective_size_curve(t) if isinstance(e, hv.Curve)]
    assert [c.label for c in curves] == ["pair C1-C2", "pair C1-C3"]
    np.testing.assert_array_equal(curves[0].dimension_values("n_eff"), [500.0, 120.0, 3.0])
    np.testing.assert_array_equal(curves[1].dimension_values("x"), [0.0, 2.0])  # n_eff = 0 left out (log axis)
    scatters = [e for e in cases.pair_cases(t) if isinstance(e, hv.Scatter)]
    assert [len(s) for s in scatters] == [1, 2, 3]


@pytest.mark.parametrize("table", [None, pd.DataFrame(), pd.DataFrame({"log2_gamma": [0.0], "U_tr": [0.5]})])
def test_empty_or_old_tables_give_empty_layers(table):
    el = cases.cases_panel(table)
    assert len(cases.case_table(table)) == 0
    hv.render(el, backend="bokeh")


def test_the_cases_display_follows_a_growing_sweep_in_its_first_figures():
    """A sweep table with more rows (and pairs) goes down the display's streams: the same Bokeh figures,
    their sources holding the new table's cases; the same table again sends nothing."""
    t = pd.DataFrame({"log2_gamma": [-2.0, 0.0, 2.0],
                      "pairs_tr": [["0-1", "0-2"]] * 3,
                      "pair_case_tr": [[2, 1], [2, 3], [3, 3]],
                      "pair_n_eff_tr": [[500.0, 0.0], [120.0, 4.0], [3.0, 2.5]],
                      "pair_blend_tr": [[0.94, 0.0], [0.8, 0.1], [0.09, 0.07]]})
    d = cases.SeparabilityCasesDisplay.from_table(None, class_names=["A", "B", "C"])
    plots = {name: hv.renderer("bokeh").get_plot(d.plot(panel=name)) for name in ("cases", "n_eff")}
    figures = {name: p.state for name, p in plots.items()}
    assert d.update(table=t.iloc[:1]) == ["cases", "n_eff"]
    assert d.update(table=t) == ["cases", "n_eff"] and d.update(table=t) == []
    assert all(plots[n].state is figures[n] for n in figures)
    xs = sorted(x for r in plots["cases"].state.renderers if hasattr(r, "data_source")
                for x in r.data_source.data.get("x", []))
    assert xs == sorted(cases.case_table(t)["x"])
    pairs = {p for r in plots["n_eff"].state.renderers if hasattr(r, "data_source")
             for p in r.data_source.data.get("pair", [])}
    assert pairs == {"A-B", "A-C"}  # the pairs written with the class names given
