"""The static (Matplotlib) export of the extrapolation figures draws each mark where its data say.

Fig 6 overlays boxes (a BoxWhisker, drawn by Matplotlib at x = 1..n) with the mean of each k (a
Scatter) and AvRisk_k of Theorem 4.1 (a Curve), both on a categorical k axis that HoloViews' Matplotlib
backend draws at 0..n-1: the dots and the curve once sat one k to the left of their boxes.
"""

from __future__ import annotations

import numpy as np
import pytest

from buviz import extrapolation as ex
from buviz.figures._base import REGISTRY
from buviz.plots import _matplotlib as mp


def _box_centres(ax) -> dict[float, str]:
    """x of every box (its 5-point outline) -> the tick label at that x."""
    ticks = dict(zip(np.round(ax.get_xticks(), 6), (t.get_text() for t in ax.get_xticklabels()), strict=True))
    centres = {}
    for ln in ax.lines:
        x = np.asarray(ln.get_xdata(), dtype=object)
        if len(x) == 5 and all(isinstance(v, int | float | np.number) for v in x):
            c = round(float(np.mean([min(x), max(x)])), 6)
            centres[c] = ticks[c]
    return centres


def test_fig6_means_and_theorem_curve_sit_on_their_boxes():
    rho, k_max, n_sets, seed = 0.7, 6, 40, 3
    fig = mp.draw(REGISTRY["extrapolation_fig6"](rho=rho, k_max=k_max, n_sets=n_sets, seed=seed).build(),
                  "figure", 6, 4, 80)
    ax = fig.axes[0]
    boxes = _box_centres(ax)
    assert sorted(boxes.values(), key=int) == [str(k) for k in range(2, k_max + 1)]
    dist = ex.toy_risk_distribution(range(2, k_max + 1), rho, n_sets=n_sets, random_state=seed)
    means = dist.groupby("k")["risk"].mean()
    (dots,) = [c for c in ax.collections if c.get_label() == "mean"]
    for x, y in np.asarray(dots.get_offsets(), dtype=float):
        k = int(boxes[round(x, 6)])  # a dot off its box has no box at its x (KeyError) or the wrong k
        assert y == pytest.approx(means[k])
    (curve,) = [ln for ln in ax.lines if ln.get_label().startswith("AvRisk")]
    xs, ys = np.asarray(curve.get_xdata(), dtype=float), np.asarray(curve.get_ydata(), dtype=float)
    ks = np.array([int(boxes[round(x, 6)]) for x in xs])
    np.testing.assert_allclose(ys, ex.toy_average_risk(ks, rho))
    assert len(xs) == k_max - 1


def test_fig7_draws_the_explorers_toy_model_at_its_rho():
    """Fig 7 is the ToyModelDisplay's two panels at ρ alone: D̄(u) is eq (13)'s closed form at ρ and
    the line x = ρy has slope ρ; another ρ moves both."""
    for rho in (0.4, 0.8):
        layout = REGISTRY["extrapolation_fig7"](rho=rho).build()
        level, dbar = layout
        (curve,) = [c for c in dbar if c.label == f"ρ = {rho:g}"]
        u, d = curve.dimension_values(0), curve.dimension_values(1)
        np.testing.assert_allclose(d, ex.toy_dbar(u, rho))
        (line,) = [c for c in level if c.label == "x = ρy"]
        y, x = line.dimension_values(0), line.dimension_values(1)
        np.testing.assert_allclose(x, rho * y)
        assert f"ρ = {rho:g}" in dbar.opts.get().kwargs["title"]
