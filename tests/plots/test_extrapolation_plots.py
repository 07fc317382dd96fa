"""The display of the ClassEx peer comparison, rendered to a Bokeh model (no browser)."""

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import GlyphRenderer, Scatter

from buviz import extrapolation as ex
from buviz.plots.extrapolation_displays import ExtrapolationDisplay

hv.extension("bokeh")


def _fake_fixture(n_obs=60, n_total=240, seed=0):
    """A small fixture of the same layout (the real one lives outside the repository)."""
    rng = np.random.default_rng(seed)
    mu = rng.standard_normal((1, n_obs, 10))
    return {"ys": mu + 0.5 * rng.standard_normal(mu.shape), "mu_hats": mu + 0.5 * rng.standard_normal(mu.shape),
            "sigma2": np.array([0.25]), "truth": np.array([0.3]), "k_total": np.array(n_total),
            "ks_train": np.arange(10, n_obs + 1, 10), "ClassExReg": np.array([0.31]),
            "KDE_UCV": np.array([0.29]), "KDE_BCV": np.array([0.27])}


def test_peer_comparison_plot_has_every_method_the_truth_and_the_peer():
    data = ex.peer_comparison(_fake_fixture(), 0, methods=("classexreg", "kde"), n_points=12)
    assert set(data["estimates"]) == {"classexreg", "kde"}
    k, a = data["estimates"]["kde"]
    assert k[0] == 2 and k[-1] == 240 and np.all(np.diff(a) <= 1e-12)
    fig = hv.render(ExtrapolationDisplay.from_peer_comparison(data).element(panel="curves"))
    labels = [it.label["value"] for it in fig.legend[0].items]
    assert "classexreg" in labels and "kde" in labels and "truth at all classes" in labels
    assert "moment" not in labels  # not computed: its empty layer is kept out of the legend
    assert sum(lab.startswith("ClassEx (R)") for lab in labels) == 3
    scatters = [r for r in fig.renderers if isinstance(r, GlyphRenderer) and isinstance(r.glyph, Scatter)]
    assert len(scatters) == 4


def test_peer_comparison_rejects_unknown_method_and_index():
    f = _fake_fixture()
    with pytest.raises(ValueError, match="methods"):
        ex.peer_comparison(f, 0, methods=("nope",))
    with pytest.raises(ValueError, match="index"):
        ex.peer_comparison(f, 3)


def test_the_toy_model_display_draws_a_summary_and_computes_nothing_itself():
    """``from_rho`` computes; ``update`` takes the computed summary (a ρ alone is refused, saying what
    to compute), drawn into the same figures."""
    from buviz.plots.extrapolation_displays import ToyModelDisplay

    toy = ToyModelDisplay.from_rho(0.7, (0.5,))
    with pytest.raises(TypeError, match="toy_model_summary"):
        toy.update(result=0.6)
    assert toy.update(result=ex.toy_model_summary(0.6, toy.reference_rhos)) and toy.rho == 0.6
