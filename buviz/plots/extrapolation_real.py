"""HoloViews builders for accuracy extrapolation on real data (pure functions: tables -> elements).

The shape of Figs 11 and 12 of Zheng, Achanta & Benjamini (2017 manuscript, §5.1) on the project's
measured tables: the spread of the predicted full-set accuracy over repeated K-class subsamples against
the ground truth (:func:`prediction_spread`), the authors' own saved LFW predictions summarised per K
(:func:`authors_lfw_spread`), and the error of each estimator on the Telugu glyphs (Table 1,
:func:`table1_errors`).
"""

from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import numpy as np
import pandas as pd

from buviz.plots import style

__all__ = ["prediction_spread", "authors_lfw_spread", "table1_errors"]

_COLORS = style.PALETTE


def _ticks(el, ks):
    """Tick marks at the K drawn."""
    ticks = [(int(k), str(int(k))) for k in sorted(set(ks))]
    el = el.opts(xticks=ticks, backend="bokeh").opts(xticks=ticks, backend="matplotlib")
    return el.map(lambda e: e.opts(xticks=ticks, backend="matplotlib"), hv.Element)


def _band(x, lo, hi, vdim, color) -> hv.Area:
    return style.opts(hv.Area((x, lo, hi), "K", [vdim, f"{vdim.name}_hi"], label=""), color=color,
                      fill_color=color, line_color=color, fill_alpha=0.2, line_alpha=0)


def prediction_spread(summary: pd.DataFrame, truth: float, *, methods=None, title: str = "",
                      n_total: int | None = None, name: str = "accuracy") -> hv.Overlay:
    """Each estimator's predicted full-set accuracy against the number K of observed classes (Fig 12).

    Parameters
    ----------
    summary : DataFrame
        One row per ``K`` and ``method`` with ``mean_pred``, ``q10`` and ``q90`` (the 10 % and 90 %
        quantiles of the predictions over the repeated K-class subsamples).
    truth : float
        The measured accuracy on all classes (black dashed line).
    methods : sequence of str, optional
        Estimators drawn, in order (default: those in ``summary``).
    title : str
        Panel title.
    n_total : int, optional
        Number of classes of the full set, for the truth's label.
    name : str, default="accuracy"
        Name of the value dimension (panels with different names get their own y range in a layout).

    Returns
    -------
    hv.Overlay
        Per estimator a line through the means and a band from q10 to q90; the truth as a horizontal line.
    """
    methods = list(methods) if methods is not None else list(dict.fromkeys(summary["method"]))
    acc = hv.Dimension(name, label="predicted accuracy")
    layers = []
    for i, m in enumerate(methods):
        g = summary[summary["method"] == m].sort_values("K")
        color = _COLORS[i % len(_COLORS)]
        layers.append(_band(g["K"], g["q10"], g["q90"], acc, color))
        layers.append(style.opts(hv.Curve((g["K"], g["mean_pred"]), "K", acc, label=m), color=color,
                                 line_width=2))
        layers.append(style.opts(hv.Scatter((g["K"], g["mean_pred"]), "K", acc, label=""), color=color, size=5))
    label = f"truth ({n_total} classes)" if n_total else "truth"
    layers.append(style.opts(hv.Curve(([summary["K"].min(), summary["K"].max()], [truth, truth]), "K", acc,
                                      label=label), color="black", line_dash="dashed", line_width=2))
    top = 1.15 * max(float(summary["q90"].max()), truth)
    return _ticks(style.opts(hv.Overlay(layers), title=title, legend_position="top_right", ylim=(0.0, top)),
                  summary["K"])


def authors_lfw_spread(summary: pd.DataFrame, *, title: str = "", name: str = "lfw_accuracy") -> hv.Overlay:
    """The authors' saved LFW predictions of the 1672-class accuracy (theirs, not buviz's), per K.

    Parameters
    ----------
    summary : DataFrame
        One row per ``K`` with ``median``, ``q10`` and ``q90`` of their replicates' predictions.
    title : str
        Panel title.
    name : str, default="lfw_accuracy"
        Name of the value dimension.

    Returns
    -------
    hv.Overlay
        The median line and the q10-q90 band. Their true 1672-class accuracy was not saved.
    """
    g = summary.sort_values("K")
    acc = hv.Dimension(name, label="predicted accuracy")
    color = _COLORS[4]
    return _ticks(style.opts(
        _band(g["K"], g["q10"], g["q90"], acc, color)
        * style.opts(hv.Curve((g["K"], g["median"]), "K", acc, label="Zheng et al.: moment (median)"),
                     color=color, line_width=2)
        * style.opts(hv.Scatter((g["K"], g["median"]), "K", acc, label=""), color=color, size=5),
        title=title, legend_position="top_right"), g["K"])


def table1_errors(table: pd.DataFrame, methods, *, title: str = "") -> hv.Overlay:
    """δ = mean prediction − measured 400-class accuracy per classifier and estimator, with the paper's δ.

    Parameters
    ----------
    table : DataFrame
        One row per classifier with ``classifier``, ``<method>_delta`` and ``paper_delta``.
    methods : sequence of str
        Estimators drawn.
    title : str
        Panel title.

    Returns
    -------
    hv.Overlay
        Points per estimator (one colour each) and the paper's δ (black stars), zero as a dotted line.
    """
    clf = list(table["classifier"])
    delta = hv.Dimension("delta", label="δ = ÂGA₄₀₀ − acc₄₀₀", range=(-0.7, 0.7))
    layers = []
    for i, m in enumerate(methods):
        layers.append(style.opts(hv.Scatter((clf, table[f"{m}_delta"].to_numpy(float)), "classifier", delta,
                                            label=m), color=_COLORS[i % len(_COLORS)], size=9))
    layers.append(style.opts(hv.Scatter((clf, np.asarray(table["paper_delta"], float)), "classifier", delta,
                                        label="paper (Table 1)"), color="black", marker="star", size=12))
    layers.append(style.opts(hv.HLine(0.0), color="#777777", line_dash="dotted"))
    return style.opts(hv.Overlay(layers), title=title, legend_position="bottom_left")
