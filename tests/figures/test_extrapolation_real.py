"""The real-data extrapolation figures (Telugu Table 1 from the glyphs, Omniglot Figs 11-12): registered
under their own keys, built from the shipped tables, captions that state what the tables show."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from buviz import figures
from buviz.figures import extrapolation_real as xr

KEYS = ("extrapolation_table1_glyphs", "extrapolation_table1_glyphs_delta", "extrapolation_fig11_omniglot",
        "extrapolation_fig12_omniglot")
pytestmark = pytest.mark.skipif(not all(xr.has_table(t) for t in ("telugu_table1", "omniglot_summary",
                                                                  "omniglot_curves", "lfw_authors_summary")),
                                reason="the real-data result tables are not shipped")


def test_registered_under_their_own_keys_beside_the_synthetic_ones():
    for k in KEYS:
        assert k in figures.REGISTRY
        assert figures.REGISTRY[k].paper == "extrapolation"
    # the paper's keys and the synthetic versions are registered beside them
    assert {"extrapolation_fig11", "extrapolation_fig12", "extrapolation_table1",
            "extrapolation_fig11_synthetic", "extrapolation_fig12_synthetic"} <= set(figures.REGISTRY)


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


def test_figures_build_and_state_the_claim_and_the_measurement(tmp_path):
    for k in ("extrapolation_table1_glyphs_delta", "extrapolation_fig11_omniglot", "extrapolation_fig12_omniglot"):
        cls = figures.REGISTRY[k]
        assert "Paper:" in cls.description and "buviz measures:" in cls.description
        obj = figures.render(k)
        assert isinstance(obj, hv.Overlay | hv.Layout)
    lay = figures.render("extrapolation_fig12_omniglot", seed=1)
    titles = [p.label or p.opts.get().kwargs.get("title", "") for p in lay]
    assert any("authors" in str(t) for t in titles)
    out = tmp_path / "fig12.png"
    figures.export("extrapolation_fig12_omniglot", out, width=13, height=4.5, dpi=60)
    assert out.stat().st_size > 5000


def test_bad_seed_names_the_parameter():
    with pytest.raises(ValueError, match="seed"):
        figures.render("extrapolation_fig12_omniglot", seed=9)
