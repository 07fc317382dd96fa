"""HoloViews builders for accuracy extrapolation (pure functions: results -> elements, no widgets).

Figures of Zheng, Achanta & Benjamini (2017 manuscript): U_x(y) level sets (Fig 7a), D̄(u) (Figs 7b,
8b), the k-class risk distribution (Fig 6), polynomial approximation error of D̄ (Fig 8c), the
extrapolation curves against the ground truth, and one instance of the reference implementation's
fixture side by side with this package (:func:`peer_comparison`).
"""

from __future__ import annotations

from collections.abc import Mapping

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import numpy as np
import pandas as pd

from buviz import extrapolation as ex

__all__ = [
    "toy_level_sets",
    "dbar_curves",
    "risk_distribution",
    "polynomial_error",
    "extrapolation_curves",
    "dbar_fit_vs_true",
    "peer_comparison",
]

_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")


def toy_level_sets(rho: float, *, extent: float = 3.0, n: int = 121, levels: int = 9) -> hv.Overlay:
    """Level sets of the conditional accuracy U_x(y) of the toy model (Fig 7a), corrected formula."""
    y = np.linspace(-extent, extent, n)
    x = np.linspace(-extent, extent, n)
    Y, X = np.meshgrid(y, x)
    U = ex.toy_conditional_accuracy(X, Y, rho)
    img = hv.Image((y, x, U), kdims=["y", "x"], vdims=[hv.Dimension("U", range=(0, 1))])
    img = img.opts(cmap="viridis", colorbar=True, title=f"U_x(y), ρ = {rho:g}")
    line = hv.Curve((y, rho * y), "y", "x", label="x = ρy").opts(color="white", line_dash="dashed")
    try:
        cont = hv.operation.contours(img, levels=levels, filled=False).opts(color="black", line_width=1)
        return img * cont * line
    except Exception:  # contour backend missing: the image alone still tells the story
        return img * line


def dbar_curves(rhos=(0.3, 0.5, 0.7, 0.9), *, n: int = 201) -> hv.Overlay:
    """D̄(u) of the toy model for several ρ (Figs 7b, 8b)."""
    u = np.linspace(0, 1, n)
    curves = [hv.Curve((u, ex.toy_dbar(u, r)), "u", hv.Dimension("Dbar", label="D̄(u)"),
                       label=f"ρ = {r:g}").opts(color=_COLORS[i % len(_COLORS)])
              for i, r in enumerate(rhos)]
    return hv.Overlay(curves).opts(title="D̄(u) = P(U ≤ u)", legend_position="top_left")


def risk_distribution(dist: pd.DataFrame, rho: float) -> hv.Overlay:
    """Distribution of the k-class Bayes risk over random label sets with its mean and the theoretical
    average risk from Theorem 4.1 (Fig 6). ``dist`` is :func:`buviz.extrapolation.toy_risk_distribution`."""
    ks = np.sort(dist["k"].unique())
    box = hv.BoxWhisker(dist, "k", "risk").opts(box_fill_color="lightgray")
    means = dist.groupby("k")["risk"].mean()
    pts = hv.Scatter((means.index.astype(str), means.values), "k", "risk", label="mean").opts(
        color="black", size=7)
    theo = hv.Curve((ks.astype(str), ex.toy_average_risk(ks, rho)), "k", "risk",
                    label="AvRisk_k (Thm 4.1)").opts(color="red")
    return (box * pts * theo).opts(title=f"k-class risk, ρ = {rho:g}", legend_position="bottom_right")


def polynomial_error(err: pd.DataFrame) -> hv.Overlay:
    """ℓ∞ error of the best degree-d polynomial approximation of D̄ (Fig 8c); ``err`` has columns
    ``rho, degree, linf_error`` (concatenate :func:`toy_polynomial_error` outputs)."""
    curves = []
    for i, (r, g) in enumerate(err.groupby("rho")):
        curves.append(hv.Curve(g, "degree", hv.Dimension("linf_error", label="ℓ∞ error"),
                               label=f"ρ = {r:g}").opts(color=_COLORS[i % len(_COLORS)], logy=True))
    return hv.Overlay(curves).opts(title="Polynomial approximation error of D̄")


def extrapolation_curves(observed: tuple, estimates: Mapping[str, tuple], truth: tuple | None = None,
                         *, k_observed: int | None = None) -> hv.Overlay:
    """AverageTA_k on the observed classes, each estimator's extrapolated curve and the ground truth.

    ``observed`` = (ks, AverageTA_k); ``estimates`` = {name: (ks, predicted AGA_k)};
    ``truth`` = (ks, true AGA_k) or None.
    """
    ko, ao = observed
    layers = [hv.Curve((ko, ao), "k", hv.Dimension("accuracy", range=(0, 1)),
                       label="AverageTA_k (observed, eq 3)").opts(color="black", line_width=3)]
    if truth is not None:
        layers.append(hv.Curve(truth, "k", "accuracy", label="ground truth").opts(
            color="gray", line_dash="dashed", line_width=3))
    for i, (name, (k, a)) in enumerate(estimates.items()):
        layers.append(hv.Curve((k, a), "k", "accuracy", label=name).opts(color=_COLORS[i % len(_COLORS)]))
    if k_observed is not None:
        layers.append(hv.VLine(k_observed).opts(color="black", line_dash="dotted"))
    return hv.Overlay(layers).opts(title="Accuracy extrapolation", logx=True, legend_position="bottom_left")


def dbar_fit_vs_true(fit: ex.DbarFit, true_dbar=None, *, n: int = 401) -> hv.Overlay:
    """A fitted D̄(u) (moment method) against the true D̄ (a callable u -> D̄(u)) where known."""
    u = np.linspace(0, 1, n)
    layers = [hv.Curve((u, fit.dbar(u)), "u", hv.Dimension("Dbar", label="D̄(u)"),
                       label=f"fitted ({fit.basis})").opts(color=_COLORS[0])]
    if true_dbar is not None:
        layers.append(hv.Curve((u, true_dbar(u)), "u", "Dbar", label="true").opts(
            color="gray", line_dash="dashed"))
    return hv.Overlay(layers).opts(title="Fitted D̄(u)", legend_position="top_left")


def peer_comparison(data: Mapping) -> hv.Overlay:
    """Each method's predicted accuracy curve for one ClassEx fixture instance, against the truth.

    ``data`` is :func:`buviz.extrapolation.peer_comparison`: the observed AverageTA_k (eq 3) up to the
    observed number of classes, every method's extrapolated curve, the exact accuracy at the total
    number of classes (black star) and the reference implementation's predictions there (markers).
    """
    k_obs, k_tot = data["k_observed"], data["k_total"]
    overlay = extrapolation_curves(data["observed"], data["estimates"], None, k_observed=k_obs)
    tk, tv = data["truth"]
    layers = [overlay, hv.Scatter((tk, tv), "k", "accuracy", label=f"truth at k={k_tot}").opts(
        color="black", marker="star", size=14)]
    markers = ("triangle", "square", "diamond", "inverted_triangle")
    for i, (name, v) in enumerate(data["peer"].items()):
        layers.append(hv.Scatter(([k_tot], [v]), "k", "accuracy", label=f"ClassEx (R): {name}").opts(
            color=_COLORS[(i + 4) % len(_COLORS)], marker=markers[i % len(markers)], size=10))
    return hv.Overlay(layers).opts(
        title=f"ClassEx fixture, σ² = {data['sigma2']:g}: {k_obs} observed -> {k_tot} classes",
        logx=True, legend_position="bottom_left")
