"""The shipped real-data extrapolation tables (Telugu Table 1, Omniglot Figs 11-12, the default study).

Invariants are checked on the tables alone; where the data folder is beside the clone
(the folder named by ``$BUVIZ_TEST_DATA``, see ``tests/_data.py``), one cell of each table is recomputed from the
data (a 1623-class one-shot accuracy, one subsample's prediction, naive Bayes' 400-class accuracy).
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import numpy as np
import pytest
from _data import reason, zheng_data

from buviz import extrapolation as ex
from buviz.figures.extrapolation_real import METHODS, has_table, load_table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

DATA = zheng_data("omniglot_32x32_grey.npz")
needs_data = pytest.mark.skipif(DATA is None, reason=reason("omniglot_32x32_grey.npz"))
pytestmark = pytest.mark.skipif(not has_table("omniglot_summary") or not has_table("telugu_table1"),
                                reason="the real-data result tables are not shipped")


def test_telugu_replicates_are_consistent_with_the_summary():
    rep = load_table("telugu_replicates")
    summ = load_table("telugu_table1")
    assert {"split_seed", "subset_seed", "buviz_version", "epsilon"} <= set(rep.columns)
    for (clf, protocol), g in rep.groupby(["classifier", "protocol"]):
        assert g.acc400_true.nunique() == 1, "one truth per classifier"
        assert g.subset.nunique() == len(g)
        s = summ[(summ.classifier == clf) & (summ.protocol == protocol)].iloc[0]
        assert s.n_subsets == len(g)
        for m in METHODS:
            p = g[f"pred_{m}"].to_numpy(float)
            assert np.all((p[np.isfinite(p)] >= 0) & (p[np.isfinite(p)] <= 1))
            assert s[f"{m}_mean"] == pytest.approx(np.nanmean(p), abs=1e-5)
            assert s[f"{m}_delta"] == pytest.approx(np.nanmean(p) - s.acc400_true, abs=1e-5)
    # the same 20-class subsets for every classifier and protocol
    assert rep.groupby("subset").classes.nunique().max() == 1
    # a marginal classifier's 20-class accuracy averages (eq 3) to its 400-class columns' AverageTA_20
    nb = summ[summ.classifier == "nb"].iloc[0]
    assert nb.acc20_mean > nb.acc400_true


def test_telugu_paper_rows_are_table1():
    summ = load_table("telugu_table1").drop_duplicates("classifier").set_index("classifier")
    assert summ.loc["nb", ["paper_acc20", "paper_acc400", "paper_aga400"]].tolist() == [0.951, 0.601, 0.858]
    assert summ.loc["enn", "paper_delta"] == pytest.approx(0.410 - 0.591)
    assert abs(summ.loc["nb", "paper_delta"]) == pytest.approx(0.257)


def test_omniglot_truth_curve_ends_at_the_measured_accuracy():
    """Eq 3 on the full set at k = 1623 is the measured one-shot accuracy (the invariant of Fig 11)."""
    curves = load_table("omniglot_curves")
    summ = load_table("omniglot_summary")
    for r, g in curves.groupby("representation"):
        truth = g[g.curve.str.startswith("truth")].set_index("k").accuracy
        acc = summ[(summ.representation == r) & (summ.seed == 0)].acc_true.iloc[0]
        assert truth.loc[1623] == pytest.approx(acc, abs=1e-6)
        assert np.all(np.diff(truth.sort_index().to_numpy()) <= 1e-12), "AGA_k decreases in k"
        obs = g[g.curve.str.startswith("observed")]
        assert obs.k.max() == g.K.iloc[0]


def test_omniglot_summary_matches_replicates():
    rep = load_table("omniglot_replicates")
    summ = load_table("omniglot_summary")
    assert {"seed", "train_drawer", "test_drawer", "buviz_version"} <= set(rep.columns)
    assert (rep.train_drawer != rep.test_drawer).all()
    for (r, s, K), g in rep.groupby(["representation", "seed", "K"]):
        assert g.acc_true.nunique() == 1
        for m in METHODS:
            row = summ[(summ.representation == r) & (summ.seed == s) & (summ.K == K) & (summ.method == m)].iloc[0]
            p = g[f"pred_{m}"].to_numpy(float)
            p = p[np.isfinite(p)]
            assert row.rmse == pytest.approx(np.sqrt(np.mean((p - row.acc_true) ** 2)), abs=1e-5)
    # the stronger representation is stronger on every seed
    t = rep.groupby(["representation", "seed"]).acc_true.first().unstack(0)
    assert (t["blur2"] > t["pixels"]).all()


def test_default_study_applies_its_rule():
    from benchmarks.study_extrapolation_default import DEFAULT, conditions, decide, score

    study = load_table("default_study")
    tab = score(conditions())
    merged = study.merge(tab, on=["half", "method"], suffixes=("", "_now"))
    assert len(merged) == 2 * len(METHODS)
    assert np.allclose(merged.rmse, merged.rmse_now, atol=1e-6)
    choice, _ = decide(tab)
    assert (study.decision == choice).all()
    assert DEFAULT == "classexreg"
    # the package's default is the one the pre-registered rule chose
    assert inspect.signature(ex.extrapolate).parameters["method"].default == choice


def test_default_study_round2_is_reproduced_and_its_rule_can_change_the_default():
    from benchmarks import study_extrapolation_default as study2

    study = load_table("default_study_round2")
    tab = study2.score_round2(study2.conditions_round2())
    merged = study.merge(tab, on=["half", "ratio", "method"], suffixes=("", "_now"))
    assert len(merged) == len(tab) == len(study)
    assert np.allclose(merged.mean_abs_error, merged.mean_abs_error_now, atol=1e-6)
    kept, why = study2.decide_round2(tab)
    assert (study.decision == kept).all() and kept == inspect.signature(ex.extrapolate).parameters["method"].default
    # the rule changes the default when a candidate wins both halves and meets the goal: shrink kde's errors
    better = tab.copy()
    better.loc[better.method == "kde", "mean_abs_error"] = 0.005
    assert study2.decide_round2(better)[0] == "kde"
    assert all(r in why for r in study2.RATIOS) and str(study2.GOAL) in why


# ----------------------------------------------------------------------------------------------------
# one cell recomputed from the data
# ----------------------------------------------------------------------------------------------------
@needs_data
def test_omniglot_cell_recomputed_from_the_data(monkeypatch):
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(DATA))
    from benchmarks import bench_omniglot_extrapolation as bo
    from benchmarks._realdata import eq3, predict_all, subproblem

    X, label, drawer = bo.load_images()
    M = bo.one_shot_margins(bo.features(X, "pixels"), label, drawer, 0)
    y = np.arange(bo.N_CLASSES)
    measured = float(np.mean(M.argmax(axis=1) == y))
    rep = load_table("omniglot_replicates")
    row = rep[(rep.representation == "pixels") & (rep.seed == 0) & (rep.K == 50) & (rep["rep"] == 0)].iloc[0]
    assert row.acc_true == pytest.approx(measured, abs=1e-6)
    assert float(eq3(M, y, [bo.N_CLASSES])[0]) == pytest.approx(measured, abs=1e-12)
    S = np.sort(np.random.default_rng([0, 50]).choice(bo.N_CLASSES, 50, replace=False))
    Ms, ys = subproblem(M, y, S)
    pred = predict_all(Ms, ys, bo.N_CLASSES, seed=0, methods=("moment", "classexreg"))
    assert pred["moment"] == pytest.approx(row.pred_moment, abs=1e-5)
    assert pred["classexreg"] == pytest.approx(row.pred_classexreg, abs=1e-5)


@pytest.mark.slow
@needs_data
def test_telugu_naive_bayes_recomputed_from_the_glyphs(monkeypatch):
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(DATA))
    from benchmarks import bench_telugu_table1 as bt
    from benchmarks._realdata import eq3, subproblem

    Xtr, ytr, Xte, yte = bt.load_split(0)
    M = bt.margins_nb(Xtr, ytr, Xte, 400, 0)
    rep = load_table("telugu_replicates")
    rows = rep[(rep.classifier == "nb") & (rep.protocol == "columns")]
    assert float(eq3(M, yte, [400])[0]) == pytest.approx(rows.acc400_true.iloc[0], abs=1e-6)
    row = rows[rows.subset == 0].iloc[0]
    S = np.array([int(c) for c in row.classes.split()])
    Ms, ys = subproblem(M, yte, S)
    assert float(eq3(Ms, ys, [20])[0]) == pytest.approx(row.acc20_observed, abs=1e-6)
    # the glyph table's moment column predates the m = 10 000 default (benchmarks/bench_telugu_table1.py, ~1 h)
    old = ex.extrapolate(Ms, ys, 400, method="moment", ties="random", m=100)
    assert old == pytest.approx(row.pred_moment, abs=1e-5)
