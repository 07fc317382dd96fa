"""The schematic figures (Zheng et al. Figs 1-4, 9, 10; Ha et al. Figs 1, 2 and Fig 15's inset) draw real
draws and computations: what each plots equals an independent computation of the same quantity."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest
from scipy import stats

from buviz import datasets, figures
from buviz import extrapolation as ex
from buviz.figures import schematics as sch


def _elements(obj, kind):
    """Every element of type ``kind`` in an overlay or layout, in drawing order."""
    return [e for e in obj.traverse(lambda x: x, [kind])]


@pytest.fixture(scope="module")
def letter():
    return datasets.load("letter")


def test_draw_task_draws_k_distinct_classes_and_r_rows_of_each(letter):
    classes, idx = sch.draw_task(letter.y_train, 5, 7, np.random.default_rng(3))
    assert len(set(classes)) == 5 and np.all(np.diff(classes) > 0)
    assert len(set(idx)) == 35
    np.testing.assert_array_equal(letter.y_train[idx], np.repeat(classes, 7))


def test_generalization_accuracy_is_the_class_average_of_an_independent_nearest_centroid(letter):
    classes, idx = sch.draw_task(letter.y_train, 6, 5, np.random.default_rng(1))
    ga, per_class = sch.generalization_accuracy(letter, classes, idx, "nearest_centroid")
    from sklearn.neighbors import NearestCentroid

    clf = NearestCentroid().fit(letter.X_train[idx], letter.y_train[idx])
    mask = np.isin(letter.y_test, classes)
    pred = clf.predict(letter.X_test[mask])
    want = np.array([np.mean(pred[letter.y_test[mask] == c] == c) for c in classes])
    np.testing.assert_allclose(per_class, want, atol=1e-12)
    assert ga == pytest.approx(want.mean())


def test_fig1_plots_the_drawn_training_points_in_the_pca_plane(letter):
    fig = figures.get("extrapolation_fig1")(k=3, r=4, seed=2)
    obj = fig.build()
    classes, idx = sch.draw_task(letter.y_train, 3, 4, np.random.default_rng(2))
    from sklearn.decomposition import PCA

    pca = PCA(2, svd_solver="full").fit(letter.X_train)
    P = pca.transform(letter.X_train[idx])
    right = list(obj)[1]
    clouds = [e for e in _elements(right, hv.Scatter) if len(e) == 4]
    assert len(clouds) == 3
    for i, cloud in enumerate(clouds):
        got = np.column_stack([cloud.dimension_values(0), cloud.dimension_values(1)])
        want = P[i * 4:(i + 1) * 4]
        np.testing.assert_allclose(np.abs(got), np.abs(want), atol=1e-8)  # PCA axes up to sign
    labels = [e.label for e in _elements(list(obj)[0], hv.Scatter) if e.label.startswith("y(")]
    assert labels == [f"y({i + 1}) = {letter.classes[c]}" for i, c in enumerate(classes)]


def test_fig2_curves_are_the_classifiers_margins_and_the_envelope_their_argmax():
    fig = figures.get("extrapolation_fig2")(k=3, r=15, n=200, seed=4)
    x, M, names, z, ytr = fig.margins()
    # QDA on one feature is the Gaussian log-density with the ML variance, up to a constant
    for i in range(3):
        zi = z[ytr == i]
        want = -0.5 * (x - zi.mean()) ** 2 / zi.var() - 0.5 * np.log(zi.var())
        np.testing.assert_allclose(M[:, i], want, atol=1e-9)
    obj = fig.build()
    curves = [e for e in _elements(obj, hv.Curve) if e.label.startswith("m_")]
    assert [c.label for c in curves] == [f"m_{n}(x)" for n in names]
    thick = [e for e in _elements(obj, hv.Curve) if not e.label]
    drawn_x = np.concatenate([t.dimension_values(0) for t in thick])
    drawn_y = np.concatenate([t.dimension_values(1) for t in thick])
    np.testing.assert_allclose(drawn_y, M.max(1)[np.searchsorted(x, drawn_x)])
    assert len(thick) == 1 + np.count_nonzero(np.diff(M.argmax(1)))


def test_fig3_first_draw_is_one_draw_and_ga_s_its_training_average(letter):
    fig = figures.get("extrapolation_fig3")(k=4, r=3, n_train_draws=5, seed=7)
    classes, per_class, ga = fig.draws()
    c2, idx = sch.draw_task(letter.y_train, 4, 3, np.random.default_rng(7))
    np.testing.assert_array_equal(classes, c2)
    g0, pc0 = sch.generalization_accuracy(letter, classes, idx)
    assert ga[0] == pytest.approx(g0) and per_class == pytest.approx(pc0)
    assert len(ga) == 5 and len(set(np.round(ga, 12))) > 1  # the training sets differ
    obj = fig.build()
    vline = _elements(list(obj)[1], hv.VLine)[0]
    assert vline.data == pytest.approx(ga.mean())


def test_fig4_means_are_an_independent_average_of_the_draws(letter):
    fig = figures.get("extrapolation_fig4")(ks=[2, 5], r=3, n_draws=6, seed=5)
    t = fig.draws()
    rng = np.random.default_rng(5)
    want = {}
    for k in (2, 5):
        vals = []
        for _ in range(6):
            classes, idx = sch.draw_task(letter.y_train, k, 3, rng)
            centres = np.array([letter.X_train[idx][letter.y_train[idx] == c].mean(0) for c in classes])
            mask = np.isin(letter.y_test, classes)
            d = ((letter.X_test[mask][:, None, :] - centres[None]) ** 2).sum(-1)
            pred = classes[d.argmin(1)]
            yt = letter.y_test[mask]
            vals.append(np.mean([np.mean(pred[yt == c] == c) for c in classes]))
        want[k] = np.mean(vals)
    obj = fig.build()
    curve = [e for e in _elements(obj, hv.Curve) if e.label.startswith("AGA")][0]
    np.testing.assert_allclose(curve.dimension_values(1), [want[2], want[5]], atol=1e-12)
    np.testing.assert_allclose(curve.dimension_values(0), np.log2([2, 5]))
    assert t.groupby("k").ga.mean().to_numpy() == pytest.approx([want[2], want[5]], abs=1e-12)


def test_fig9_curves_are_the_u_function_to_the_k_minus_1_and_the_draws_agree():
    fig = figures.get("extrapolation_fig9")(rho=0.6, x_star=0.3, ks=[2, 6], n_rep=4000, seed=1)
    obj = fig.build()
    curves = _elements(obj, hv.Curve)
    for c, k in zip(curves, (2, 6), strict=True):
        y = c.dimension_values(0)
        np.testing.assert_allclose(c.dimension_values(1), ex.toy_conditional_accuracy(0.3, y, 0.6) ** (k - 1))
    dots = _elements(obj, hv.Scatter)
    for d, k in zip(dots, (2, 6), strict=True):
        y = d.dimension_values(0)
        exact = ex.toy_conditional_accuracy(0.3, y, 0.6) ** (k - 1)
        se = np.sqrt(np.maximum(exact * (1 - exact), 1e-4) / 4000)
        assert np.all(np.abs(d.dimension_values(1) - exact) < 5 * se)


def test_conditional_accuracy_draws_match_the_closed_form():
    y = np.array([-1.0, 0.0, 0.4, 2.0])
    mean, se = sch.conditional_accuracy_draws(y, 0.4, 0.8, 4, 20000, np.random.default_rng(0))
    exact = ex.toy_conditional_accuracy(0.4, y, 0.8) ** 3
    assert np.all(np.abs(mean - exact) < 5 * np.maximum(se, 1e-3))


def test_fig10_dbar_from_draws_follows_toy_dbar_and_u_of_y_is_uniform():
    fig = figures.get("extrapolation_fig10")(rho=0.7, n_draws=20000, seed=2)
    u_fixed, u_pairs = fig.samples()
    assert stats.kstest(u_fixed, "uniform").pvalue > 1e-3
    u = np.linspace(0.05, 0.95, 19)
    emp = np.searchsorted(np.sort(u_pairs), u, side="right") / len(u_pairs)
    np.testing.assert_allclose(emp, ex.toy_dbar(u, 0.7), atol=0.02)
    obj = fig.build()
    exact = [e for e in _elements(obj, hv.Curve) if e.label.startswith("exact (eq 8)")][0]
    uu = exact.dimension_values(0)
    np.testing.assert_allclose(exact.dimension_values(1), ex.toy_dbar(uu, 0.7))
    ucurves = [e for e in _elements(list(obj)[0], hv.Curve)]
    for c, x in zip(ucurves, fig.xs, strict=True):
        np.testing.assert_allclose(c.dimension_values(1), ex.toy_conditional_accuracy(x, c.dimension_values(0), 0.7))


def test_uncertainty_fig2_curves_are_buvizs_local_uncertainty_functions():
    from buviz.uncertainty import binary_entropy
    from buviz.uncertainty.proposal2 import local_uncertainty

    obj = figures.get("uncertainty_fig2")(K=8, n=101).build()
    ent, tri = _elements(obj, hv.Curve)
    p = ent.dimension_values(0)
    np.testing.assert_allclose(ent.dimension_values(1), binary_entropy(p))
    np.testing.assert_allclose(tri.dimension_values(1), local_uncertainty(p))
    # the closed forms of eq 9 and eq 37 at sampled points, the maxima U_max = 1 at P = 1/2
    q = np.array([0.1, 0.25, 0.5, 0.8])
    np.testing.assert_allclose(binary_entropy(q), -(q * np.log2(q) + (1 - q) * np.log2(1 - q)))
    np.testing.assert_allclose(local_uncertainty(q), 1 - np.abs(2 * q - 1))
    dots = _elements(obj, hv.Scatter)
    np.testing.assert_allclose(dots[1].dimension_values(0), np.arange(9) / 8)


def test_uncertainty_fig1_marks_each_metrics_best_status():
    from buviz import reproduce

    fig = figures.get("uncertainty_fig1")(dataset="banknote", seed=1)
    t = reproduce.load_table("svm_gamma", "banknote")
    t = t[(t.seed == 1) & (t.variant == "base")].sort_values("log2_gamma")
    sel = fig.selections().set_index("column")
    lv = t.log2_gamma.to_numpy()[t.L_val.to_numpy().argmin()]  # first minimum = smallest γ among ties
    lu = t.log2_gamma.to_numpy()[t.U_tr.to_numpy().argmax()]
    assert sel.loc["L_val", "log2_gamma"] == lv and sel.loc["U_tr", "log2_gamma"] == lu
    obj = fig.build()
    marks = {e.label: e.dimension_values(0)[0] for e in _elements(obj, hv.Scatter)}
    assert marks["selected by L_val"] == lv and marks["selected by −Û_tr"] == lu


def test_selected_status_breaks_ties_towards_the_smallest_gamma():
    import pandas as pd

    t = pd.DataFrame({"log2_gamma": [2.0, -1.0, 0.0], "L_val": [0.1, 0.1, 0.3]})
    assert sch.selected_status(t, "L_val", False) == -1.0
    assert sch.selected_status(t, "L_val", True) == 0.0


def test_uncertainty_fig15_histograms_count_f_of_each_class_and_the_misclassified():
    fig = figures.get("uncertainty_fig15_histogram")(n_train=150, bins=12)
    f, y, wrong = fig.values()
    assert wrong.any()  # γ_A omits a fragment of B*: some training samples are misclassified
    np.testing.assert_array_equal(wrong, np.where(f >= 0, 0, 1) != y)  # f = g_1 − g_2 ≥ 0 picks C_1
    obj = fig.build()
    hists = _elements(obj, hv.Histogram)
    edges = np.linspace(f.min(), f.max(), 13)
    for h, sel in zip(hists, (y == 0, y == 1, wrong), strict=True):
        np.testing.assert_array_equal(h.dimension_values(1), np.histogram(f[sel], edges)[0])
    assert hists[2].dimension_values(1).sum() == wrong.sum()
