"""The face protocol of Zheng et al. §5.1 on Omniglot (``benchmarks/bench_omniglot_face_protocol.py``).

The protocol's functions on synthetic embeddings whose 1-NN answers are known; the shipped tables'
invariants; with the data folder (``$BUVIZ_TEST_DATA``), the truth and one replicate recomputed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from _data import reason, zheng_data

from buviz.figures.extrapolation_real import METHODS, has_table, load_table

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import bench_omniglot_face_protocol as fp  # noqa: E402

DATA = zheng_data("omniglot_32x32_grey.npz")
shipped = pytest.mark.skipif(not has_table("omniglot_face_summary"), reason="the face-protocol tables are not shipped")


def test_one_nn_on_a_known_embedding():
    """Classes on a line 10 apart; the test image of class c sits at 10c + 6 for odd c (nearer c + 1,
    or nothing above it for the last class), at 10c + 1 for even c: accuracy is the share of even c."""
    n = 9
    train = 10.0 * np.arange(n)[:, None]
    test = train + np.where(np.arange(n) % 2 == 1, 6.0, 1.0)[:, None]
    M = fp.one_nn_margins(train, test)
    assert M[2, 3] == pytest.approx(-(21.0 - 30.0) ** 2)
    y = np.arange(n)
    # odd c: 10c + 6 is 4 from c + 1 and 6 from c; the last class (8) is even
    assert fp.one_nn_accuracy(M, y) == pytest.approx(5 / 9)
    assert fp.count_ties(M, y) == 0
    # a test image halfway between two classes: a tie, broken by index (the lower class wins)
    Mt = fp.one_nn_margins(train, np.array([[5.0], [5.0]]))
    assert fp.count_ties(Mt, np.array([0, 1])) == 2
    assert fp.one_nn_accuracy(Mt, np.array([0, 1])) == 0.5


def test_pairs_and_pca_embedding():
    rng = np.random.default_rng(3)
    label = np.repeat(np.arange(30), 5)
    tr, te = fp.one_shot_pairs(label, seed=7)
    assert (label[tr] == np.arange(30)).all() and (label[te] == np.arange(30)).all() and (tr != te).all()
    tr2, te2 = fp.one_shot_pairs(label, seed=7)
    assert (tr == tr2).all() and (te == te2).all()
    with pytest.raises(ValueError, match="class 1 has 1"):
        fp.one_shot_pairs(np.array([0, 0, 1]), seed=0)
    # with every component kept, the PCA map is a rotation: distances are unchanged
    F = rng.normal(size=(150, 6))
    fit = np.ones(150, bool)
    fit[tr] = fit[te] = False
    Z = fp.pca_embedding(F, fit, 6)
    assert np.allclose(fp.one_nn_margins(Z[tr], Z[te]), fp.one_nn_margins(F[tr], F[te]))
    # the components are those of the fitting images only, ordered by variance
    var = Z[fit].var(axis=0)
    assert np.all(np.diff(var) <= 1e-12) and np.allclose(Z[fit].mean(axis=0), 0, atol=1e-12)


@shipped
def test_face_tables_invariants():
    rep = load_table("omniglot_face_replicates")
    summ = load_table("omniglot_face_summary")
    curves = load_table("omniglot_face_curves")
    assert sorted(rep.K.unique()) == [100, 200, 400, 800]
    counts = rep.groupby("K").size()
    assert counts.nunique() == 1 and counts.iloc[0] >= 100
    assert rep.acc_true.nunique() == 1 and (rep.n_ties == 0).all()
    truth = float(rep.acc_true.iloc[0])
    tc = curves[curves.curve.str.startswith("truth")].set_index("k").accuracy.sort_index()
    assert tc.loc[1623] == pytest.approx(truth, abs=1e-6)
    assert np.all(np.diff(tc.to_numpy()) < 0), "AGA_k decreases in k"
    # the observed K-class accuracy, averaged over subsets, decreases in K and stays above the truth
    obs = rep.groupby("K").accK_observed.mean().sort_index()
    assert np.all(np.diff(obs.to_numpy()) < 0) and obs.iloc[-1] > truth
    for (K, m), row in summ.set_index(["K", "method"]).iterrows():
        p = rep.loc[rep.K == K, f"pred_{m}"].to_numpy(float)
        assert row.n_failed == int(np.sum(~np.isfinite(p)))
        p = p[np.isfinite(p)]
        assert row.mean_pred == pytest.approx(p.mean(), abs=1e-6)
        assert row.rmse == pytest.approx(np.sqrt(np.mean((p - truth) ** 2)), abs=1e-6)
        assert np.all((p >= 0) & (p <= 1))
    assert set(summ.method) == set(METHODS)


@pytest.mark.slow
@pytest.mark.skipif(DATA is None, reason=reason("omniglot_32x32_grey.npz"))
@shipped
def test_face_truth_and_one_replicate_recomputed_from_the_data(monkeypatch):
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(DATA))
    from benchmarks._realdata import predict_all, subproblem

    X, label = fp.load_images()
    M, tr, te = fp.face_protocol_margins(X, label, 0)
    y = np.arange(fp.N_CLASSES)
    rep = load_table("omniglot_face_replicates")
    assert fp.one_nn_accuracy(M, y) == pytest.approx(rep.acc_true.iloc[0], abs=1e-6)
    row = rep[(rep.K == 100) & (rep["rep"] == 0)].iloc[0]
    S = np.sort(np.random.default_rng([0, 100]).choice(fp.N_CLASSES, 100, replace=False))
    Ms, ys = subproblem(M, y, S)
    assert fp.one_nn_accuracy(Ms, ys) == pytest.approx(row.accK_observed, abs=1e-6)
    pred = predict_all(Ms, ys, fp.N_CLASSES, ties="max", seed=0, methods=("moment", "kde"))
    assert pred["moment"] == pytest.approx(row.pred_moment, abs=1e-5)
    assert pred["kde"] == pytest.approx(row.pred_kde, abs=1e-5)
