"""HoloViews builders for the separability cases of eq 39 along a sweep: results to elements.

No widgets, no state, no model fitting: the builders take the tidy sweep table of
:func:`buviz.sweep.svm_gamma_sweep` (or :func:`~buviz.sweep.mlp_epoch_sweep`), whose columns
``pairs_tr``, ``pair_case_tr``, ``pair_n_eff_tr``, ``pair_blend_tr`` and ``n_eff_tr`` say, per class
pair of Î*, which case of §4.5 dominates Û_kl and on how many effective near-boundary samples
the near-boundary mean rests (:func:`buviz.uncertainty.proposal2.pair_uncertainty`).

- :func:`pair_cases` -- one row of markers per pair along the sweep, coloured by Case 1, 2 or 3
  (hover: n_eff and λ_kl, the weight of the near-boundary mean).
- :func:`effective_size_curve` -- n_eff of each pair along the sweep (log scale).
- :func:`cases_panel` -- both, stacked, for the *Error vs −Û* view.

A status where a pair is Case 2 on a handful of effective samples while its neighbours are Case 1
or 3 is the pattern behind a spike of Û on a near-chance classifier (D. Ha, S. Katagiri, H. Watanabe,
M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier Evaluation", Journal of
Signal Processing Systems, Springer, 2021, doi:10.1007/s11265-021-01671-1, §4.5 and eq 39).
"""

from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import pandas as pd

from buviz.plots import style

__all__ = ["CASE_COLORS", "CASE_LABELS", "case_table", "pair_cases", "effective_size_curve", "cases_panel"]

#: Colours of the separability cases of §4.5 (Okabe-Ito): 1 boundary in an empty band, no error
#: (U_max); 2 boundary through the data (near-boundary mean); 3 boundary outside the data (U_min).
CASE_COLORS = {1: "#009E73", 2: "#0072B2", 3: "#D55E00"}
CASE_LABELS = {1: "Case 1 (U_max)", 2: "Case 2 (near-boundary mean)", 3: "Case 3 (U_min)"}
_COLUMNS = ("pairs_tr", "pair_case_tr", "pair_n_eff_tr", "pair_blend_tr")
_X_LABELS = {"log2_gamma": "log₂ γ", "epoch": "epoch"}


def _x_column(table: pd.DataFrame) -> str:
    return "log2_gamma" if "log2_gamma" in table else "epoch"


def _one_based(pair) -> str:
    """A sweep's pair code "k-l" (classes counted from 0) as the explorer writes pairs: from 1."""
    return "-".join(str(int(c) + 1) for c in str(pair).split("-"))


def case_table(table: pd.DataFrame | None) -> pd.DataFrame:
    """Return the per-pair separability columns of a sweep table in long form.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table with the columns ``pairs_tr``, ``pair_case_tr``, ``pair_n_eff_tr``,
        ``pair_blend_tr`` (lists, one entry per pair of Î*) and ``log2_gamma`` or ``epoch``.

    Returns
    -------
    pandas.DataFrame
        One row per (status, pair): ``x`` (log₂ γ or epoch), ``pair`` ("k-l", classes from 1 as
        the explorer counts them), ``case`` (1, 2, 3), ``n_eff``, ``blend`` (λ_kl). Empty (same
        columns) when the table is None, empty or lacks the columns.
    """
    cols = ["x", "pair", "case", "n_eff", "blend"]
    if table is None or len(table) == 0 or not set(_COLUMNS) <= set(table.columns):
        return pd.DataFrame({c: pd.Series(dtype=object if c == "pair" else float) for c in cols})
    x = _x_column(table)
    rows = []
    for _, r in table.iterrows():
        for pair, case, n_eff, blend in zip(*(r[c] for c in _COLUMNS), strict=True):
            rows.append((float(r[x]), _one_based(pair), int(case), float(n_eff), float(blend)))
    return pd.DataFrame(rows, columns=cols).sort_values(["pair", "x"], kind="stable").reset_index(drop=True)


def _x_dimension(table) -> hv.Dimension:
    """The sweep's x axis (log₂ γ or epoch) as the plots label it; log₂ γ for a missing table."""
    x = _x_column(table) if table is not None and len(table) else "log2_gamma"
    return hv.Dimension("x", label=_X_LABELS.get(x, x))


def pair_cases(table: pd.DataFrame | None, *, title: str | None = None) -> hv.Overlay:
    """One row of markers per class pair along the sweep, coloured by the case of §4.5 that dominates Û_kl.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives the same layers with no points.
    title : str, optional

    Returns
    -------
    holoviews.Overlay
        One :class:`holoviews.Scatter` per case (label :data:`CASE_LABELS`, colour
        :data:`CASE_COLORS`) with x = log₂ γ (or epoch), y = the pair's row (ticks "k-l"), hover
        showing the pair, n_eff and λ_kl.
    """
    long, xd = case_table(table), _x_dimension(table)
    # the pair on a numeric axis (row 0, 1, ... labelled "k-l"): a live plot keeps one kind of axis
    # whatever pairs the next sweep table brings (a categorical axis cannot start empty)
    labels = list(dict.fromkeys(long["pair"]))
    long = long.assign(row=long["pair"].map({p: n for n, p in enumerate(labels)}).astype(float))
    yd = hv.Dimension("row", label="class pair (k-l)")
    layers = []
    for case in (1, 2, 3):
        d = long[long["case"] == case]
        el = hv.Scatter(d, xd, [yd, "pair", "n_eff", "blend"], label=CASE_LABELS[case])
        layers.append(style.opts(el, color=CASE_COLORS[case], size=12, marker="square", line_color="black",
                                 tools=["hover"]))
    overlay = style.opts(hv.Overlay(layers), title=title or "Separability case of each pair (eq 39, §4.5)",
                         legend_position="right", framewise=True, yticks=list(enumerate(labels)) or [(0, "")])
    return overlay


def effective_size_curve(table: pd.DataFrame | None, *, title: str | None = None) -> hv.Overlay:
    """The effective number of near-boundary samples n_eff of each pair along the sweep.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives one empty curve.
    title : str, optional

    Returns
    -------
    holoviews.Overlay
        One curve per pair (log y axis; zeros are left out), with markers coloured by case.
    """
    long, xd = case_table(table), _x_dimension(table)
    yd = hv.Dimension("n_eff", label="effective near-boundary samples n_eff")
    layers = []
    pairs = list(dict.fromkeys(long["pair"]))
    for n, pair in enumerate(pairs):
        d = long[(long["pair"] == pair) & (long["n_eff"] > 0)]
        layers.append(style.opts(hv.Curve(d, xd, [yd, "case", "blend"], label=f"pair {pair}"),
                                 color=style.PALETTE[n % len(style.PALETTE)], line_width=2, tools=["hover"]))
    if not pairs:
        layers.append(hv.Curve(([], []), xd, yd, label="n_eff"))
    return style.opts(hv.Overlay(layers), title=title or "Effective near-boundary sample size per pair",
                      logy=True, legend_position="right", framewise=True)


def effective_size_points(table: pd.DataFrame | None, *, title: str | None = None) -> hv.Scatter:
    """n_eff of every pair along the sweep as one element, coloured by pair.

    The same numbers as :func:`effective_size_curve` in a structure that does not depend on the data
    (one :class:`holoviews.Scatter` whatever the number of pairs), so that a live plot fed by a stream
    updates its data rather than rebuilding its glyphs.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives an empty element.
    title : str, optional

    Returns
    -------
    holoviews.Scatter
        x = log₂ γ (or epoch), y = n_eff > 0 (log axis), colour = the pair, hover with the case and λ_kl.
    """
    long, xd = case_table(table), _x_dimension(table)
    long = long[long["n_eff"] > 0]
    yd = hv.Dimension("n_eff", label="effective near-boundary samples n_eff")
    el = hv.Scatter(long, xd, [yd, hv.Dimension("pair", label="class pair (k-l)"), "case", "blend"])
    return style.opts(el, color="pair", cmap=list(style.PALETTE), size=8, tools=["hover"], logy=True,
                      title=title or "Effective near-boundary sample size per pair", framewise=True)


def cases_panel(table: pd.DataFrame | None) -> hv.Layout:
    """:func:`pair_cases` above :func:`effective_size_curve`, sharing the sweep's x axis."""
    return hv.Layout([pair_cases(table), effective_size_curve(table)]).cols(1)

