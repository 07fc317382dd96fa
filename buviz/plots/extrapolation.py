"""HoloViews builders for accuracy extrapolation (pure functions: results -> elements, no widgets).

Figures of C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large
Multi-Class Problems", Journal of Machine Learning Research 19, 2018: U_x(y) level sets (Fig 7a), D̄(u)
(Figs 7b, 8b), the k-class risk distribution (Fig 6), polynomial approximation error of D̄ (Fig 8c),
the toy model's density and Bayes regions (Fig 5), average risk (Fig 8a) and repeated extrapolations
(Fig 12). The live displays built on them (:mod:`buviz.plots.extrapolation_displays`) draw the toy
model at one ρ and the extrapolation curves against the truth.
"""

from __future__ import annotations

from collections.abc import Mapping

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import numpy as np
import pandas as pd

from buviz.plots import style

__all__ = [
    "toy_level_sets",
    "dbar_curves",
    "risk_distribution",
    "polynomial_error",
    "toy_joint_density",
    "toy_bayes_regions",
    "average_risk_curves",
    "observed_accuracy",
    "subsample_extrapolations",
]

_COLORS = style.PALETTE


def toy_level_sets(grid: tuple, rho: float, *, levels: int = 9) -> hv.Overlay:
    """Level sets of the toy model's conditional accuracy U_x(y) (Fig 7a), corrected formula.

    ``grid`` is ``(y, x, U)`` from :func:`buviz.extrapolation.toy_accuracy_grid`; ρ draws the line x = ρy.
    """
    y, x, U = grid
    img = hv.Image((y, x, U), kdims=["y", "x"], vdims=[hv.Dimension("U", range=(0, 1))])
    img = style.opts(img, cmap="viridis", colorbar=True, title=f"U_x(y), ρ = {rho:g}")
    # vermillion: seen on the yellow ridge it follows, on the dark plateaus and in the legend's white box
    line = style.opts(hv.Curve((y, rho * np.asarray(y)), "y", "x", label="x = ρy"), color=style.PALETTE[3],
                      line_dash="dashed", line_width=2)
    try:
        cont = style.opts(hv.operation.contours(img, levels=levels, filled=False), color="black", line_width=1)
        return img * cont * line
    except Exception:  # contour backend missing: the image alone still tells the story
        return img * line


#: The label of the curve of the chosen ρ drawn over the reference curves (``highlight``).
THIS_RHO = "this ρ"


def dbar_curves(dbar: dict, highlight: tuple | None = None) -> hv.Overlay:
    """D̄(u) of the toy model for several ρ (Figs 7b, 8b): ``dbar`` maps ρ to ``(u, D̄(u))``
    (:func:`buviz.extrapolation.toy_dbar` on a grid of u). ``highlight`` = ``(ρ, (u, D̄(u)))`` adds a
    black curve labelled "this ρ" ("ρ = …" when ``dbar`` is empty) and says ρ in the title (the
    layers stay the same for every ρ, so a live plot can follow a ρ slider)."""
    curves = [
        style.opts(
            hv.Curve((u, d), "u", hv.Dimension("Dbar", label="D̄(u)"), label=f"ρ = {r:g}"),
            color=_COLORS[i % len(_COLORS)],
        )
        for i, (r, (u, d)) in enumerate(sorted(dbar.items()))
    ]
    title = "D̄(u) = P(U ≤ u)"
    if highlight is not None:
        rho, (u, d) = highlight
        alone = not curves  # no reference ρ: the curve is ρ's own (Fig 7b)
        curves.append(style.opts(hv.Curve((u, d), "u", hv.Dimension("Dbar", label="D̄(u)"),
                                          label=f"ρ = {rho:g}" if alone else THIS_RHO),
                                 color="black", line_width=3, line_dash="dashed"))
        title += f", ρ = {rho:g}" if alone else f", this ρ = {rho:g}"
    return style.opts(hv.Overlay(curves), title=title, legend_position="top_left")


def risk_distribution(dist: pd.DataFrame, rho: float, avrisk) -> hv.Overlay:
    """Distribution of the k-class Bayes risk over random label sets with its mean and the theoretical
    average risk from Theorem 4.1 (Fig 6). ``dist`` is :func:`buviz.extrapolation.toy_risk_distribution`,
    ``avrisk`` :func:`buviz.extrapolation.toy_average_risk` at the sorted k of ``dist``."""
    ks = np.sort(dist["k"].unique())
    box = style.opts(
        hv.BoxWhisker(dist, "k", "risk"),
        box_fill_color="white",
        box_line_color="black",
        whisker_color="black",
        outlier_color="black",
    )
    means = dist.groupby("k")["risk"].mean()
    pts = style.opts(
        hv.Scatter((means.index.astype(str), means.values), "k", "risk", label="mean"), color="black", size=7
    )
    theo = style.opts(
        hv.Curve((ks.astype(str), np.asarray(avrisk)), "k", "risk", label="AvRisk_k (Thm 4.1)"),
        color=style.HIGHLIGHT_COLOR,
    )
    return style.opts((box * pts * theo), title=f"k-class risk, ρ = {rho:g}", legend_position="bottom_right")


def polynomial_error(err: pd.DataFrame, highlight: pd.DataFrame | None = None) -> hv.Overlay:
    """ℓ∞ error of the best degree-d polynomial approximation of D̄ (Fig 8c); ``err`` has columns
    ``rho, degree, linf_error`` (concatenate :func:`toy_polynomial_error` outputs). ``highlight``
    (rows of one ρ, possibly none) adds a black curve labelled "this ρ", as :func:`dbar_curves`."""
    ylabel = hv.Dimension("linf_error", label="ℓ∞ error")
    curves = []
    for i, (r, g) in enumerate(err.groupby("rho")):
        curves.append(style.opts(hv.Curve(g, "degree", ylabel, label=f"ρ = {r:g}"),
                                 color=_COLORS[i % len(_COLORS)], logy=True))
    title = "Polynomial approximation error of D̄"
    if highlight is not None and len(highlight):
        title = f"Polynomial error of D̄, this ρ = {float(highlight['rho'].iloc[0]):g}"
    if highlight is not None:
        curves.append(style.opts(hv.Curve(highlight, "degree", ylabel, label=THIS_RHO), color="black", line_width=3,
                                 line_dash="dashed", logy=True))
    return style.opts(hv.Overlay(curves), title=title)


def toy_joint_density(rho: float, *, n: int = 161, extent: float = 3.0) -> hv.Image:
    """Density of (Y, X) in the bivariate normal toy model with correlation ρ (Fig 5a)."""
    g = np.linspace(-extent, extent, n)
    Y, X = np.meshgrid(g, g)
    s2 = 1 - rho**2
    dens = np.exp(-(Y**2 - 2 * rho * X * Y + X**2) / (2 * s2)) / (2 * np.pi * np.sqrt(s2))
    return style.opts(
        hv.Image((g, g, dens), kdims=["y", "x"], vdims=["density"]),
        cmap="viridis",
        colorbar=True,
        title=f"(a) (Y, X), ρ = {rho:g}",
    )


def toy_bayes_regions(rho: float, labels, *, extent: float = 3.5, n: int = 400) -> hv.Overlay:
    """X | Y = y_i ~ N(ρ y_i, 1 − ρ²) for each label and the Bayes regions (nearest ρ y_i), Fig 5b."""
    from scipy.stats import norm

    ys = np.sort(np.asarray(labels, dtype=float))
    x = np.linspace(-extent, extent, n)
    centres = rho * ys
    cuts = np.concatenate([[-np.inf], (centres[1:] + centres[:-1]) / 2, [np.inf]])
    sd = np.sqrt(1 - rho**2)
    layers = []
    for i, (y, c) in enumerate(zip(ys, centres, strict=True)):
        color = _COLORS[i % 6]
        lo, hi = max(cuts[i], x[0]), min(cuts[i + 1], x[-1])
        layers.append(style.opts(hv.VSpan(lo, hi), color=color, alpha=0.12))
        layers.append(
            style.opts(hv.Curve((x, norm.pdf(x, c, sd)), "x", "density", label=f"y = {y:g}"), color=color, line_width=2)
        )
    return style.opts(hv.Overlay(layers), title="(b) X | Y = y_i and Bayes regions", legend_position="top_right")


def average_risk_curves(ks, risks: Mapping[float, np.ndarray]) -> hv.Overlay:
    """AvRisk_k against k for several ρ (Fig 8a); ``risks`` maps ρ to the risks at ``ks``."""
    return style.opts(
        hv.Overlay(
            [
                style.opts(
                    hv.Curve((np.asarray(ks), np.asarray(r)), "k", "AvRisk_k", label=f"ρ = {rho:g}"),
                    color=_COLORS[i % 6],
                    line_width=2,
                )
                for i, (rho, r) in enumerate(risks.items())
            ]
        ),
        title="(a) average risk",
        legend_position="bottom_right",
    )


def observed_accuracy(ks, accuracy, *, title: str = "AverageTA_k") -> hv.Curve:
    """AverageTA_k (eq 3) on the observed classes (Fig 11a)."""
    return style.opts(
        hv.Curve(
            (np.asarray(ks), np.asarray(accuracy)), "k", hv.Dimension("accuracy", range=(0, 1)), label="AverageTA_k"
        ),
        color="black",
        line_width=2,
        title=title,
    )


def subsample_extrapolations(ks, truth, estimates, k_observed: int, *, title: str = "") -> hv.Overlay:
    """Extrapolations from several random subsets of ``k_observed`` classes (one colour) against the
    ground truth (black, dashed), Fig 12; ``estimates`` is a list of predicted accuracies at ``ks``."""
    layers = [
        style.opts(
            hv.Curve((ks, truth), "k", hv.Dimension("accuracy", range=(0, 1)), label="ground truth"),
            color="black",
            line_dash="dashed",
            line_width=2,
        )
    ]
    for rep, est in enumerate(estimates):
        layers.append(
            style.opts(
                hv.Curve((ks, est), "k", "accuracy", label="estimates" if rep == 0 else ""), color=_COLORS[0], alpha=0.6
            )
        )
    layers.append(style.opts(hv.VLine(k_observed), color="black", line_dash="dotted"))
    return style.opts(hv.Overlay(layers), title=title or f"K = {k_observed}", logx=True, legend_position="bottom_left")
