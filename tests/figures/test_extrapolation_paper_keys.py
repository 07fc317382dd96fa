"""The paper's extrapolation keys on real data: Figs 11 and 12 on Omniglot, read from shipped tables.

The tables come from ``benchmarks/zheng_omniglot_figs.py``; where ``../shared/datasets/zheng`` holds
Omniglot, the ground truth is recomputed from the images and compared.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import holoviews as hv
import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz import figures

ROOT = Path(__file__).resolve().parents[2]
SHARED = next((p for p in (ROOT.parent / "shared" / "datasets", Path("/work/shared/datasets"))
               if (p / "zheng" / "omniglot_32x32_grey.npz").is_file()), None)


def test_the_shipped_omniglot_tables_hold_the_figures_data():
    f11, f12 = ex.shipped_table("fig11"), ex.shipped_table("fig12")
    n, K = int(f11["n_classes"].iloc[0]), int(f11["K"].iloc[0])
    assert (n, K) == (1623, 400)
    truth = f11[f11["series"] == "truth"].set_index("k")["accuracy"]
    assert truth.index.max() == n and truth.is_monotonic_decreasing
    observed = f11[f11["series"] == "observed"]
    assert observed["k"].tolist() == list(range(2, K + 1))
    for method in ex.METHODS:
        pred = f11[f11["series"] == method]
        assert pred["k"].tolist() == truth.index.tolist() and pred["accuracy"].between(0, 1).all()
    # Fig 12: every K, every repeat, every method, on the truth's k grid; the truth is the same curve
    t12 = f12[f12["method"] == "truth"].set_index("k")["accuracy"]
    np.testing.assert_allclose(t12, truth, rtol=1e-4)
    counts = f12[f12["method"] != "truth"].groupby(["K", "method"])["repeat"].nunique()
    assert set(counts.index.get_level_values("K")) == {50, 100, 200, 400, 800} and (counts == 20).all()


def test_fig12_draws_one_panel_per_K_with_every_repeat():
    layout = figures.render("extrapolation_fig12", Ks=[100, 800], method="best")
    assert isinstance(layout, hv.Layout) and len(layout) == 2
    curves = [e for e in layout[0] if isinstance(e, hv.Curve)]
    assert len(curves) == 1 + 20  # the truth and 20 subsets
    f12 = ex.shipped_table("fig12")
    first = f12[(f12["K"] == 100) & (f12["method"] == "best") & (f12["repeat"] == 0)]
    np.testing.assert_allclose(curves[1].dimension_values("accuracy"), first.sort_values("k")["accuracy"])


def test_fig11_shows_the_chosen_methods():
    layout = figures.render("extrapolation_fig11", methods=["kde"])
    labels = {e.label for e in layout[1] if isinstance(e, hv.Curve)}
    assert "kde" in labels and "best" not in labels and "ground truth" in labels


def test_the_omniglot_truth_is_recomputed_from_the_images():
    if SHARED is None:
        pytest.skip("Omniglot is absent (../shared/datasets/zheng/omniglot_32x32_grey.npz)")
    script = ROOT / "benchmarks" / "zheng_omniglot_figs.py"
    spec = importlib.util.spec_from_file_location("_zheng_omniglot_figs", script)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench
    spec.loader.exec_module(bench)
    from buviz.datasets import fetch_omniglot

    M, k_all = bench.one_shot_margins(fetch_omniglot(32, data_dir=SHARED, download=False), seed=0)
    y = np.arange(len(M))
    truth = ex.average_accuracy_from_ranks(ex.ranks_from_margins(M, y), k_all, k1=len(M))
    f11 = ex.shipped_table("fig11")
    np.testing.assert_allclose(truth, f11[f11["series"] == "truth"]["accuracy"], rtol=1e-4)
    assert truth[-1] == pytest.approx(np.mean(M.argmax(1) == y), abs=1e-3)  # eq 3 at k = n: the 1-NN accuracy
