"""The cell of benchmarks/bench_selection_protocol.py (γ selection at the protocol of Ha et al. 2021).

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021 (§6.4, Goal (c)).
On a small stratified subsample of a UCI set: the regrets are the test error of each pick minus the
grid's smallest, the C, the hold-out curve and its pick equal an independent scikit-learn
computation, and Û under eq 39 as printed equals a fresh BoundaryUncertainty evaluation.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.svm import SVC

from benchmarks import bench_selection_protocol as bp
from buviz import reproduce

GRID = (-5, -3, -1, 0, 1, 3, 5)
NAME, SPLIT, N_SUB, M = "breast_cancer_wisconsin", 1, 200, 20


@pytest.fixture(scope="module")
def result():
    rows, curves = bp.cell(NAME, SPLIT, log2_gammas=GRID, n_sub=N_SUB, M=M)
    return {r["method"]: r for r in rows}, curves.sort_values("log2_gamma").reset_index(drop=True)


def _err(X_tr, y_tr, X_va, y_va, gamma, C):
    return float(np.mean(SVC(C=C, gamma=gamma, kernel="rbf").fit(X_tr, y_tr).predict(X_va) != y_va))


def test_every_method_has_a_row_and_its_regret_is_the_pick_minus_the_grid_minimum(result):
    rows, curves = result
    assert sorted(rows) == sorted(bp.METHODS)
    l_te = dict(zip(curves["log2_gamma"], curves["L_te"], strict=True))
    for m, r in rows.items():
        assert r["log2_gamma_pick"] in l_te, m
        assert r["L_te_pick"] == l_te[r["log2_gamma_pick"]]
        assert r["L_te_min"] == min(l_te.values())
        assert r["regret"] == pytest.approx(r["L_te_pick"] - r["L_te_min"], abs=0)
        assert r["regret"] >= 0
        assert r["cost_s"] > 0
    # each pick is the best value of its own criterion (ties to the smallest γ)
    for m, (col, maximise) in bp.CRITERION.items():
        v = curves[col].to_numpy() * (-1 if maximise else 1)
        assert rows[m]["log2_gamma_pick"] == curves["log2_gamma"].iloc[int(np.argmin(v))]


def test_C_hold_out_and_cv_curves_equal_an_independent_scikit_learn_computation(result):
    rows, curves = result
    ds = bp.split_dataset(NAME, SPLIT, n_sub=N_SUB)
    X, y = ds.X_train, ds.y_train
    assert len(y) == N_SUB - len(ds.y_test) and len(ds.y_test) == round(bp.TEST_SIZE * N_SUB)
    # the paper's C rule on the training part: 10-fold stratified CV at γ = 1/d
    folds = list(StratifiedKFold(10, shuffle=True, random_state=reproduce.C_SEED).split(X, y))
    val = [np.mean([_err(X[a], y[a], X[b], y[b], 1.0 / X.shape[1], C) for a, b in folds]) for C in reproduce.C_GRID]
    C = reproduce.C_GRID[int(np.argmin(val))]
    assert rows["HO"]["C"] == C
    # one stratified 75/25 hold-out of the training part, seeded with the split
    a, b = train_test_split(np.arange(len(y)), test_size=0.25, stratify=y, random_state=SPLIT)
    ho = np.array([_err(X[a], y[a], X[b], y[b], 2.0 ** g, C) for g in GRID])
    np.testing.assert_allclose(curves["L_ho"], ho, rtol=0, atol=1e-12)
    assert rows["HO"]["log2_gamma_pick"] == GRID[int(np.flatnonzero(ho == ho.min())[0])]
    # 5-fold CV and the test error at one γ
    f5 = list(StratifiedKFold(5, shuffle=True, random_state=SPLIT).split(X, y))
    g = 2.0 ** GRID[2]
    assert curves["L_val5"].iloc[2] == pytest.approx(np.mean([_err(X[p], y[p], X[q], y[q], g, C) for p, q in f5]))
    assert curves["L_te"].iloc[2] == pytest.approx(_err(X, y, ds.X_test, ds.y_test, g, C))


def test_U_literal_is_a_fresh_evaluation_under_eq_39_as_printed(result):
    from buviz.classifiers import svm_status
    from buviz.uncertainty import BoundaryUncertainty

    rows, curves = result
    ds = bp.split_dataset(NAME, SPLIT, n_sub=N_SUB)
    bu = BoundaryUncertainty(M=M, K="aic", perturbation=0.5, K_range=reproduce.K_RANGE, separability="literal",
                             random_state=SPLIT, n_jobs=1).fit(ds.X_train, ds.y_train)
    u = bu.evaluate(svm_status(ds.X_train, ds.y_train, 2.0 ** GRID[3], rows["HO"]["C"])).value
    assert curves["U_literal"].iloc[3] == pytest.approx(u, abs=1e-12)
