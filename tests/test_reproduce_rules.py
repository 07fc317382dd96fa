"""Eq 39 as printed and buviz's tolerance side by side in the reproduction (Ha et al. 2021, §4.5), tied
minima in the verdicts, and `buviz reproduce` selecting datasets and seeds."""

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from buviz import datasets, reproduce
from buviz._validation import InvalidParameterError
from buviz.cli import main
from buviz.uncertainty import BoundaryUncertainty
from buviz.uncertainty.proposal2 import (
    PAPER_SEPARABILITY,
    TOLERANCE_SEPARABILITY,
    TOLERANCE_WEIGHT_TOL,
    U_MAX,
    ZERO_WEIGHT,
    pair_uncertainty,
)
from buviz.verdicts import READINGS, minima, reading_column, sweep_minima


def _one_pair(scale: float, err: float = 0.0):
    """One pair of 50 samples whose kernel readings are ``scale`` times 0.5 and local uncertainties 0.2."""
    n = 50
    return (np.full(n, 0.5 * scale), np.full(n, 0.2), np.ones(n, bool), np.zeros(n, np.intp), np.array([err]), 1)


def test_the_literal_rule_is_eq39_with_w_exactly_zero():
    """Eq 39 as printed takes the Case 1/3 value only where w_kl is (numerically) zero; the tolerance
    already at ω_kl < 0.05. The literal rule is the threshold rule at weight_tol = 0."""
    assert (PAPER_SEPARABILITY, TOLERANCE_SEPARABILITY, TOLERANCE_WEIGHT_TOL) == ("literal", "threshold", 0.05)
    for scale in (1.0, 1e-3, 1e-200, ZERO_WEIGHT / 1e3, 0.0):
        args = _one_pair(scale)
        lit = pair_uncertainty(*args, rule="literal")
        np.testing.assert_array_equal(lit.values, pair_uncertainty(*args, rule="threshold", weight_tol=0.0).values)
        w = lit.weights[0]
        # w > 0 (even 1e-200): the near-boundary mean 0.2; w at or below ZERO_WEIGHT: Case 1, U_max
        assert lit.values[0] == pytest.approx(0.2 if w > ZERO_WEIGHT else U_MAX, abs=1e-15), scale
    # ω = w / (φ(0)|B̂*|) = 0.5 · 1e-3 / 0.399 < 0.05: the tolerance says Case 1 where eq 39 as printed does not
    tol = pair_uncertainty(*_one_pair(1e-3), rule="threshold", weight_tol=TOLERANCE_WEIGHT_TOL)
    assert tol.values[0] == U_MAX and pair_uncertainty(*_one_pair(1e-3), rule="literal").values[0] == pytest.approx(0.2)
    assert pair_uncertainty(*_one_pair(1e-3, err=0.1), rule="threshold").values[0] == 0.0  # Case 3


def test_fig5_case1_needs_the_tolerance():
    """Fig 5's Case 1 (B(Λ) in the empty band of gmm_separable, no error): w_kl is tiny but not zero, so
    eq 39 as printed averages near-zero Û(x) (Û = 0) while the tolerance gives U_max."""
    ds = datasets.load("gmm_separable", n_train=300, n_test=0, random_state=0)
    out = {}
    for rule in (PAPER_SEPARABILITY, TOLERANCE_SEPARABILITY):
        bu = BoundaryUncertainty(M=20, separability=rule, random_state=0).fit(ds.X_train, ds.y_train)
        r = bu.evaluate(lambda X: np.column_stack([-X[:, 0], X[:, 0]]))
        out[rule] = r
        assert r.pair_error_tilde[0] == 0
    assert 0 < out["literal"].pair_weights[0] < 1e-3
    assert out["threshold"].value == 1.0 and out["literal"].value < 0.01


@pytest.fixture(scope="module")
def red_cell():
    """Wine Quality Red at log₂γ = 13 (C = 1, as shipped), 2-fold CV: the tolerance zeroes Û there."""
    ds = reproduce.load_dataset("winequality_red")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bu = BoundaryUncertainty(M=40, separability=PAPER_SEPARABILITY, random_state=0, n_jobs=1)
        bu.fit(ds.X_train, ds.y_train)
    mp = pytest.MonkeyPatch()
    mp.setattr(reproduce, "CV", 2)
    try:
        cell = reproduce.sweep_cell("winequality_red", 0, 13.0, 1.0, {"base": (bu, None)})
    finally:
        mp.undo()
    return ds, bu, cell


def test_a_cell_holds_both_readings_of_one_evaluation(red_cell):
    """U_tr is eq 39 as printed and U_tr_threshold the tolerance, each equal to an estimator of that rule."""
    ds, bu, cell = red_cell
    v = cell["variants"]["base"]
    assert cell["separability"] == PAPER_SEPARABILITY
    from buviz.classifiers import svm_status

    d = svm_status(ds.X_train, ds.y_train, 2.0**13, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tol = BoundaryUncertainty(M=40, separability=TOLERANCE_SEPARABILITY, random_state=0, n_jobs=1)
        tol = tol.fit(ds.X_train, ds.y_train).evaluate(d).value
        lit = bu.evaluate(d).value
    assert v["U_tr"] == pytest.approx(lit, abs=1e-12) and v["U_tr_threshold"] == pytest.approx(tol, abs=1e-12)
    assert v["U_tr_threshold"] == 0.0 and v["U_tr"] > 0.3  # the 0 against up to 0.61
    assert np.isnan(v["U_te"]) and np.isnan(v["U_te_threshold"])  # no test set


def test_a_cell_of_another_rule_is_computed_again(tmp_path):
    path = reproduce._cell_path(tmp_path, "sweep", "banknote", 0, 0)
    reproduce._write(path, {"common": {}, "variants": {}})  # written before cells recorded their rule
    assert reproduce._read_cell(path) is None and not reproduce._done(path)
    reproduce._write(path, {"common": {}, "variants": {}, "separability": PAPER_SEPARABILITY})
    assert reproduce._done(path)
    p1 = reproduce._cell_path(tmp_path, "p1", "banknote", 0, 0)  # Proposal 1 has no eq 39
    reproduce._write(p1, {"U1_tr": 0.5})
    assert reproduce._done(p1)


def test_reading_column_in_old_and_new_tables():
    old = pd.DataFrame({"separability": ["threshold"] * 2, "U_tr": [0.1, 0.2]})
    new = pd.DataFrame({"separability": ["literal"] * 2, "U_tr": [0.1, 0.2], "U_tr_threshold": [0.0, 0.2],
                        "U_te": [0.3, 0.4], "U_te_threshold": [0.3, 0.4]})
    assert (reading_column(old, "literal"), reading_column(old, "threshold")) == (None, "U_tr")
    assert (reading_column(new, "literal"), reading_column(new, "threshold")) == ("U_tr", "U_tr_threshold")
    assert reading_column(new, "threshold", "U_te") == "U_te_threshold"
    assert set(READINGS) == {"literal", "threshold"}


def test_tied_minima_count_as_the_minimum():
    """L_val 0 at three γ (Banknote-like): −Û's pick of the third is on the minimum, zero steps away."""
    t = pd.DataFrame({"log2_gamma": [-4.0, -3.0, -2.0, -1.0, 0.0], "L_val": [0.1, 0.0, 0.0, 1e-17, 0.2],
                      "U_tr": [0.1, 0.2, 0.3, 0.9, 0.4], "perturbation": 0.5, "seed": 0})
    m = minima(t)
    assert m["x_error"] == -3.0 and m["x_u"] == -1.0 and m["x_error_ties"] == (-3.0, -2.0, -1.0) and m["on_min"]
    s = sweep_minima({"x": t}, perturbation=0.5)
    assert s.loc[("x", 0), "steps"] == 0
    t2 = t.assign(U_tr=[0.1, 0.2, 0.3, 0.4, 0.9])  # picks 0: one step above the last tie
    assert not minima(t2)["on_min"] and sweep_minima({"x": t2}, perturbation=0.5).loc[("x", 0), "steps"] == 1
    assert sweep_minima({"x": t}, perturbation=0.5, reading="literal").empty  # a table without that reading


@pytest.fixture()
def small_plan(tmp_path, monkeypatch):
    calls = []
    real = reproduce.sweep_cell

    def counting(name, seed, lg, C, est):
        calls.append((name, seed, lg))
        return real(name, seed, lg, C, est)

    monkeypatch.setattr(reproduce, "LOG2_GAMMAS", (-2, 0))
    monkeypatch.setattr(reproduce, "CV", 3)
    monkeypatch.setattr(reproduce, "sweep_cell", counting)
    monkeypatch.setattr(reproduce, "C_GRID", (1.0,))
    two = dataclasses.replace(reproduce.TABLES["svm_gamma"], datasets=("breast_cancer_wisconsin", "banknote"))
    monkeypatch.setitem(reproduce.TABLES, "svm_gamma", two)
    return tmp_path, calls


def test_reproduce_selects_datasets_and_seeds(small_plan, capsys):
    tmp_path, calls = small_plan
    out, work = tmp_path / "out", tmp_path / "w"
    assert main(["reproduce", "--table", "svm_gamma", "--datasets", "banknote", "--seeds", "1", "--out-dir",
                 str(out), "--work-dir", str(work), "--n-jobs", "1", "--recompute"]) == 0
    assert sorted(set(calls)) == [("banknote", 1, -2), ("banknote", 1, 0)]  # no Breast Cancer cell, one seed
    assert sorted(p.name for p in out.iterdir()) == ["svm_gamma_banknote.csv"]
    t = reproduce.load_table("svm_gamma", "banknote", out)
    assert set(t["seed"]) == {1} and set(t["separability"]) == {PAPER_SEPARABILITY}
    assert {"U_tr_threshold", "U_te_threshold"} <= set(t.columns)
    assert main(["reproduce", "--table", "svm_gamma", "--datasets", "letter", "--out-dir", str(out)]) == 2
    assert "unknown dataset 'letter'" in capsys.readouterr().err
    with pytest.raises(InvalidParameterError, match="datasets"):
        reproduce.reproduce(table="svm_gamma", datasets=["gmm"], directory=out, work_dir=work)


def test_add_readings_recomputes_a_missing_reading_without_cv(small_plan):
    """A table stripped of the tolerance columns gets them back from Û alone, equal to the full cells."""
    tmp_path, calls = small_plan
    out, work = tmp_path / "out", tmp_path / "w"
    reproduce.reproduce(table="svm_gamma", datasets=["banknote"], seeds=[0], directory=out, work_dir=work,
                        n_jobs=1, kinds=["sweep"], log=lambda s: None, recompute=True)
    full = reproduce.load_table("svm_gamma", "banknote", out)
    stripped = full.drop(columns=["U_tr_threshold", "U_te_threshold"])
    stripped.to_csv(out / "svm_gamma_banknote.csv", index=False)
    n_calls = len(calls)
    checks = reproduce.add_readings("banknote", tables=["svm_gamma"], directory=out, log=lambda s: None)
    assert len(calls) == n_calls  # no sweep cell, no CV
    assert checks["svm_gamma"] < 1e-12  # its own reading recomputed equals the table's
    again = reproduce.load_table("svm_gamma", "banknote", out)
    np.testing.assert_allclose(again["U_tr_threshold"], full["U_tr_threshold"], rtol=0, atol=1e-12)
    assert list(again.columns) == list(stripped.columns) + ["U_tr_threshold", "U_te_threshold"]
    json.dumps(checks)
