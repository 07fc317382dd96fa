"""uncertainty_fig6 at the paper's size: the shipped table (with the true U(Λ)), its figure and caption."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import holoviews as hv
import numpy as np
import pytest

from buviz import figures
from buviz.figures import uncertainty as ufig

ROOT = Path(__file__).resolve().parents[2]
TABLE = ufig.fig6_table()
pytestmark = pytest.mark.skipif(TABLE is None, reason="uncertainty_fig6_gmm.csv not shipped")


def _script():
    spec = importlib.util.spec_from_file_location("goal_a_oracle", ROOT / "benchmarks" / "goal_a_oracle.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_table_is_at_the_paper_size():
    t = TABLE
    assert set(t.seed) == {0, 1, 2}
    assert (t.n_train == 2000).all() and (t.n_test == 18000).all() and (t.M == 40).all()
    assert sorted(set(t.log2_gamma)) == list(range(-15, 16))
    assert len(t) == 3 * 31
    for col in ("U_tr", "U_te", "U_tr_noT", "U_te_noT", "U_true"):
        assert t[col].between(0, 1).all(), col
    # the line integral converged: a grid twice as coarse moves U(Λ) by less than this
    assert (t.U_true_accuracy < 1e-2).all()
    # the statuses that give one class everywhere have no boundary: U = U_min
    assert (t.loc[t.boundary_length == 0, "U_true"] == 0).all()


def test_the_figure_reads_the_table_and_computes_nothing(monkeypatch):
    from buviz import sweep
    from buviz.uncertainty import BoundaryUncertainty

    def refuse(*a, **k):
        raise AssertionError("uncertainty_fig6 computed at render time")

    monkeypatch.setattr(sweep, "svm_gamma_sweep", refuse)
    monkeypatch.setattr(BoundaryUncertainty, "fit", refuse)
    lay = figures.render("uncertainty_fig6")
    assert isinstance(lay, hv.Layout) and len(lay) == 4  # 1, 2, 3 and "1bis, 3bis" in a 2 × 2 grid
    mean = TABLE.groupby("log2_gamma").mean(numeric_only=True)
    truths = [c for c in lay.traverse(lambda x: x, [hv.Curve]) if "true" in c.label]
    assert len(truths) == 2  # panels 3 and "1bis, 3bis"
    for c in truths:
        assert np.allclose(c.dimension_values(0), mean.index.to_numpy())
        assert np.allclose(c.dimension_values(1), -mean["U_true"].to_numpy())


def test_the_caption_is_the_table():
    m = ufig.fig6_measured(TABLE)
    for seed, s in TABLE.groupby("seed"):
        assert m[seed]["tr_true"] == pytest.approx(np.mean(np.abs(s.U_tr - s.U_true)))
        assert m[seed]["argmax_U_true"] == s.log2_gamma.to_numpy()[np.argmax(s.U_true.to_numpy())]
    text = figures.REGISTRY["uncertainty_fig6"].description
    te = "/".join(f"{m[s]['te_true']:.2f}" for s in sorted(m))
    assert f"|Û_te − U| {te}" in text


def test_the_quick_version_keeps_a_name_that_says_so():
    quick = figures.REGISTRY["uncertainty_fig6_quick"]
    assert figures.ALIASES["bu_fig6"] == "uncertainty_fig6_quick"
    assert quick.param["n_train"].default == 300 and quick.param["M"].default == 20
    assert "quick" in quick.number


@pytest.mark.slow
@pytest.mark.parametrize("log2_gamma", [0, 12])
def test_a_recomputed_cell_equals_the_shipped_row(log2_gamma):
    """One (seed, γ) cell redone from scratch equals the shipped row (the large γ uses the fine region)."""
    from buviz import datasets

    g = _script()
    row = TABLE[(TABLE.seed == 0) & (TABLE.log2_gamma == log2_gamma)].iloc[0]
    ds = datasets.load("gmm", n_train=g.PAPER_N, n_test=g.N_TE, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = {f"M{g.PAPER_M}": g._estimators(ds, g.PAPER_M, 0, g.PERTURBATION)}
        cell = g.cell(ds, 0, log2_gamma, est, paper=False)
    assert cell["L_te"] == pytest.approx(row.L_te, abs=1e-9) and cell["L_ho"] == pytest.approx(row.L_ho, abs=1e-9)
    assert cell["U_true"] == pytest.approx(row.U_true, abs=1e-9)
    assert cell[f"U_tr_M{g.PAPER_M}"] == pytest.approx(row.U_tr, abs=1e-9)
    assert cell[f"U_te_M{g.PAPER_M}"] == pytest.approx(row.U_te, abs=1e-9)
