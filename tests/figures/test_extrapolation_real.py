"""The real-data extrapolation figures (Telugu Table 1 from the glyphs, Figs 11-12 under the paper's keys:
the face protocol on Omniglot, and the earlier drawer-pair run): built from the shipped tables, captions
that state what the tables show; Fig 12's LFW panel (the authors' predictions, not shipped) drawn only when
their file is in the data folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
import pytest
from _data import reason, zheng_data

from buviz import figures
from buviz.figures import extrapolation_real as xr

KEYS = ("extrapolation_table1_glyphs", "extrapolation_table1_glyphs_delta", "extrapolation_fig11",
        "extrapolation_fig12")
pytestmark = pytest.mark.skipif(not all(xr.has_table(t) for t in ("telugu_table1", "omniglot_summary",
                                                                  "omniglot_curves", "omniglot_face_summary",
                                                                  "omniglot_face_curves")),
                                reason="the real-data result tables are not shipped")
ROOT = Path(__file__).resolve().parents[2]
LFW_FILE = "lfw_subsample_predictions_authors.csv"
SHARED = zheng_data(LFW_FILE)
SHARED = SHARED / "zheng" if SHARED else None


def test_registered_under_the_papers_keys_beside_the_synthetic_ones():
    for k in KEYS:
        assert k in figures.REGISTRY
        assert figures.REGISTRY[k].paper == "extrapolation"
    assert figures.REGISTRY["extrapolation_fig11"] is xr.ExtrapolationFig11
    assert figures.REGISTRY["extrapolation_fig12"] is xr.ExtrapolationFig12
    assert figures.get("zheng_fig12") is xr.ExtrapolationFig12  # the old alias
    assert {"extrapolation_table1", "extrapolation_fig11_synthetic", "extrapolation_fig12_synthetic",
            "extrapolation_table1_synthetic"} <= set(figures.REGISTRY)
    assert not any(k.endswith("_omniglot") for k in figures.REGISTRY)


def test_table1_glyphs_rows_and_paper_columns():
    t = figures.render("extrapolation_table1_glyphs")
    assert isinstance(t, pd.DataFrame)
    assert list(t.classifier[:4]) == ["Naive Bayes", "Logistic", "SVM", "ε-NN"]
    for m in xr.METHODS:
        assert np.allclose(t[f"delta_{m}"], t[f"aga400_{m}"] - t["acc400"], atol=2e-3)
    assert t.set_index("classifier").loc["Naive Bayes", "paper_aga400"] == pytest.approx(0.858)
    paper = t[t.protocol == "retrain"]
    assert len(paper) == 3, "logistic, SVM and ε-NN retrained on each 20-class subset (the paper's protocol)"
    cols = figures.render("extrapolation_table1_glyphs", protocol="columns")
    assert (cols.protocol == "columns").all()
    # naive Bayes is marginal: its row does not depend on the protocol
    assert t.iloc[0].acc20 == cols.iloc[0].acc20


def _titles(layout):
    return [str(p.opts.get().kwargs.get("title", "")) for p in layout]


def test_figures_build_and_state_the_claim_and_the_measurement():
    for k in ("extrapolation_table1_glyphs_delta", "extrapolation_fig11"):
        cls = figures.REGISTRY[k]
        assert "Paper:" in cls.description and "buviz measures:" in cls.description
        obj = figures.render(k)
        assert isinstance(obj, hv.Overlay | hv.Layout)
    # the caption says how to get the LFW panel, whether or not it is drawn, and why Omniglot
    for cls in (xr.ExtrapolationFig11, xr.ExtrapolationFig12):
        assert "embeddings are not public" in cls.description and "blur2-PCA128" in cls.description
    assert "fetch_lfw_predictions" in xr.ExtrapolationFig12.description


def test_fig11_face_protocol_panels_a_and_b():
    lay = figures.render("extrapolation_fig11")
    assert len(lay) == 2
    span = [{e.label: (e.dimension_values(0).min(), e.dimension_values(0).max()) for e in p if e.label} for p in lay]
    # (a): every curve on k = 2…400; (b): the estimators and the truth from 400 to all 1623 classes
    assert all(v == (2, 400) for k, v in span[0].items() if k != "truth at all classes")
    assert span[1]["ground truth"] == (400, 1623) and all(span[1][m] == (400, 1623) for m in xr.METHODS)
    # the measured verdict reads the shipped curves: the truth at 1623 is the face protocol's accuracy
    assert f"truth {xr.face_truth():.3f}" in xr.ExtrapolationFig11.description
    assert len(figures.render("extrapolation_fig11", experiment="drawer pairs")) == 2


def test_fig12_without_the_authors_file_draws_the_omniglot_panels_only(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(tmp_path))
    assert xr.lfw_authors_summary() is None
    lay = figures.render("extrapolation_fig12")
    assert len(lay) == 1 and "face protocol" in _titles(lay)[0]
    lay = figures.render("extrapolation_fig12", experiment="drawer pairs", seed=1)
    assert len(lay) == 2 and all("Omniglot" in t for t in _titles(lay))
    out = tmp_path / "fig12.png"
    figures.export("extrapolation_fig12", out, width=9, height=4.5, dpi=60)
    assert out.stat().st_size > 5000


@pytest.mark.skipif(SHARED is None, reason=reason(LFW_FILE))
def test_fig12_with_the_authors_file_draws_their_lfw_panel(tmp_path, monkeypatch):
    (tmp_path / "zheng").mkdir()
    shutil.copy(SHARED / LFW_FILE, tmp_path / "zheng" / LFW_FILE)
    monkeypatch.setenv("BUVIZ_DATA_DIR", str(tmp_path))
    lfw = xr.lfw_authors_summary().set_index("K")
    # the medians the shared data README quotes for the authors' 300 replicates
    assert lfw["median"].round(3).tolist() == [0.405, 0.414, 0.426, 0.434]
    assert (lfw.n_replicates == 300).all()
    lay = figures.render("extrapolation_fig12")
    assert len(lay) == 2 and "authors" in _titles(lay)[-1] and "face protocol" in _titles(lay)[0]
    assert len(figures.render("extrapolation_fig12", experiment="drawer pairs", seed=1)) == 3
    out = tmp_path / "fig12.png"
    figures.export("extrapolation_fig12", out, width=13, height=4.5, dpi=60)
    assert out.stat().st_size > 5000


def test_bad_seed_names_the_parameter():
    with pytest.raises(ValueError, match="seed"):
        figures.render("extrapolation_fig12", experiment="drawer pairs", seed=9)


def test_table1_caption_says_how_each_matrix_was_chosen_and_nb_row_is_buvizs_own():
    from buviz import extrapolation as ex

    cls = figures.REGISTRY["extrapolation_table1"]
    for p in ex.PAPER_TABLE1:
        assert f"{p['classifier']}: {p['chosen']}" in cls.description
    t = figures.render("extrapolation_table1").set_index("classifier")
    e = figures.render("extrapolation_table1", errors=True).set_index("classifier")
    nb = xr.table1("paper").set_index("classifier").loc["nb"]
    assert t.loc["Naive Bayes", "acc20"] == nb["acc20_mean"]
    assert t.loc["Naive Bayes", "acc400 true"] == nb["acc400_true"]
    assert t.loc["Naive Bayes", "acc20 paper"] == 0.951 and t.loc["Naive Bayes", "ÂGA paper"] == 0.858
    assert "buviz's naive Bayes" in t.loc["Naive Bayes", "our numbers from"]
    assert np.isnan(t.loc["Naive Bayes", "ÂGA redone"])  # the authors' procedure needs their matrix
    for m, col in (("moment", "moment"), ("classexreg", "ClassExReg"), ("kde", "KDE"), ("best", "best")):
        assert t.loc["Naive Bayes", col] == nb[f"{m}_mean"]
        assert e.loc["Naive Bayes", col] == pytest.approx(nb[f"{m}_delta"], abs=1e-6)  # against buviz's truth
    assert e.loc["Naive Bayes", "ÂGA paper"] == pytest.approx(0.858 - 0.601)  # the paper's δ, on its own truth
    for name in ("Logistic", "SVM", "ε-NN", "Deep neural net"):
        assert t.loc[name, "our numbers from"].startswith("authors' matrix")
    # the caption states the paper's claim and the verdict on the authors' matrices, from the table itself
    assert f"Paper: {ex.TABLE1_CLAIM}" in cls.description and "|" not in cls.__doc__.replace("\\|", "")
    errors = {name: abs(e.loc[name, "ÂGA redone"]) for name in ("Logistic", "SVM", "ε-NN", "Deep neural net")}
    assert errors == pytest.approx({"Logistic": 0.101, "SVM": 0.142, "ε-NN": 0.181, "Deep neural net": 0.079},
                                   abs=6e-4)  # the paper's ÂGA redone against the chosen 400-class runs
    for name, err in errors.items():
        assert f"{name} {err:.3f}" in cls.description
    assert "every one under 0.2, as printed" in cls.description and "cannot be redone" in cls.description


@pytest.mark.parametrize("classifier", ["nb", "logistic", "svm"])
def test_the_intervals_figure_draws_one_telugu_classifier_with_its_measured_coverage(classifier):
    """The intervals figure's Telugu panel holds the 50 subsets of the classifier asked for, their intervals
    and estimates as shipped (not the three classifiers' 150 mixed), its truth, and that classifier's coverage
    in the title; the caption states every Telugu classifier's coverage."""
    from buviz.figures import extrapolation_intervals as xi

    rep, cov = xi.load_table("replicates"), xi.load_table("coverage")
    want = rep[(rep.dataset == "telugu") & (rep.setting == classifier) & np.isclose(rep.level, 0.9)]
    assert len(want) == 50
    panel = list(figures.render("extrapolation_intervals", classifier=classifier))[0]
    dots = [el for el in panel if isinstance(el, hv.Scatter)][0]
    np.testing.assert_allclose(dots.dimension_values(1), np.sort(want.estimate.to_numpy(float)))
    bars = [el for el in panel if isinstance(el, hv.ErrorBars)]
    assert sum(len(b) for b in bars) == 50
    truth = [el for el in panel if isinstance(el, hv.HLine)][0]
    assert truth.data == pytest.approx(want.truth.iloc[0])
    c = cov[(cov.dataset == "telugu") & (cov.setting == classifier) & np.isclose(cov.level, 0.9)].iloc[0]
    assert panel.opts.get().kwargs["title"].endswith(f"coverage {c.coverage:.2f}")
    assert xi.TELUGU_NAMES[classifier] in panel.opts.get().kwargs["title"]
    text = xi.coverage_text(0.9)
    assert all(f"Telugu {xi.TELUGU_NAMES[s]} 20 → 400" in text for s in set(cov[cov.dataset == "telugu"].setting))
