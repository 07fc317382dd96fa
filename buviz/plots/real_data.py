"""Curves over several seeds for the real-data figures of Ha et al. (2021): the seeds' mean and their spread.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (Figs 7-9, 11-13).

The shipped tables (:mod:`buviz.reproduce`) hold one sweep per seed of T̃, K-means, CV folds and
hold-out split. These builders draw the mean over the seeds as the curves of
:class:`buviz.plots.displays.ErrorCurvesDisplay` / :class:`~buviz.plots.displays.SensitivityDisplay`
and each seed's own curve as a thin translucent line of the same colour (the seeds' spread).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import holoviews as hv
import pandas as pd

from buviz.plots import style
from buviz.plots import uncertainty as uplots
from buviz.plots.curve_displays import ErrorCurvesDisplay, SensitivityDisplay

__all__ = ["data_title", "seed_curves", "spread_curves", "spread_sensitivity"]


def seed_curves(table: pd.DataFrame, column: str, x: str = "log2_gamma", *, color: str | None = None,
                alpha: float = 0.35) -> hv.Overlay:
    """One thin curve per seed of one column, on the axis of its mean curve (the seeds' spread).

    Parameters
    ----------
    table : pandas.DataFrame
        One sweep per seed (a ``seed`` column; rows with the same ``x`` are the seeds' values).
    column : str
        An error column (``L_val``...) or a Û column (``U_tr``...; drawn as −Û on the −Û axis).
    x : str, default="log2_gamma"
        The status column.
    color : str, optional
        The curves' colour (default: the column's curve colour).
    alpha : float, default=0.35
        Opacity of the curves.

    Returns
    -------
    holoviews.Overlay
        One unlabelled curve per seed (none when the column is absent or empty).
    """
    vd = uplots._NEG_U_DIM if column.startswith("U") else uplots._ERROR_DIM
    color = color or style.CURVE_STYLES.get(column, ("#777777",))[0]
    curves = []
    if len(table) and column in table and x in table and table[column].notna().any():
        seeds = table["seed"] if "seed" in table else pd.Series(0, index=table.index)
        for _, t in table.groupby(seeds):
            t = t.sort_values(x)
            ys = t[column].to_numpy(float)
            curves.append(style.opts(hv.Curve((t[x].to_numpy(float), -ys if column.startswith("U") else ys),
                                              uplots._status_dim(x), vd),
                                     color=color, alpha=alpha, line_width=1, show_legend=False))
    return hv.Overlay(curves)


def data_title(name: str, table: pd.DataFrame) -> str:
    """What a figure of sweeps shows, for its title: ``name``, then N, N_te and M as the table's
    ``n_train``, ``n_test`` and ``M`` columns hold them, and the seeds whose mean is drawn
    ("Letter Recognition: N = 10 000, N_te = 10 000, M = 40; seeds 0/1/2, their mean drawn")."""
    def values(col: str) -> str:
        return "/".join(f"{v:,}".replace(",", " ") for v in sorted({int(v) for v in table[col]}))

    parts = [f"{label} = {values(col)}" for col, label in (("n_train", "N"), ("n_test", "N_te"), ("M", "M"))
             if col in table]
    seeds = f"seeds {values('seed')}, their mean drawn" if "seed" in table else ""
    return f"{name}: {', '.join(parts)}" + (f"; {seeds}" if seeds else "")


def _mean(table: pd.DataFrame, x: str, columns: Sequence[str]) -> pd.DataFrame:
    cols = [c for c in columns if c in table]
    return table.groupby(x)[cols].mean().reset_index() if len(table) else table


def spread_curves(table: pd.DataFrame, x: str = "log2_gamma", *, columns: Sequence[str],
                  title: str = "") -> hv.Overlay:
    """The seeds' mean of each column as in :class:`~buviz.plots.displays.ErrorCurvesDisplay`, over each seed's curve.

    Parameters
    ----------
    table : pandas.DataFrame
        One sweep per seed.
    x : str, default="log2_gamma"
        The status column.
    columns : sequence of str
        The error and Û columns drawn.
    title : str
        The panel's title.

    Returns
    -------
    holoviews.Overlay
    """
    present = [c for c in columns if c in table and table[c].notna().any()]
    seeds = [c for col in present for c in seed_curves(table, col, x)]
    curves = ErrorCurvesDisplay.from_table(_mean(table, x, present), x, columns=present, title=title,
                                           show_parametric=False).element()
    # errors on the left axis and −Û on the right one whatever the columns, no axis without its curve;
    # beside the frame, a legend takes a small panel's width
    panel = style.opts(hv.Overlay([*seeds, *curves]), title=title, framewise=True, **style.LEGEND_BELOW)
    return uplots.twin_axes(panel)


def spread_sensitivity(tables: Mapping[str, pd.DataFrame], x: str = "log2_gamma", *, title: str = "") -> hv.Overlay:
    """−Û_tr per setting (label -> the setting's sweeps over the seeds): the seeds' mean, over each seed's curve.

    Parameters
    ----------
    tables : mapping
        Label (``"M = 20"``, ``"K_aic"``...) -> the rows of that setting, one sweep per seed.
    x : str, default="log2_gamma"
        The status column.
    title : str
        The panel's title.

    Returns
    -------
    holoviews.Overlay
    """
    palette = style.PALETTE
    seeds = [c for n, t in enumerate(tables.values())
             for c in seed_curves(t, "U_tr", x, color=palette[n % len(palette)])]
    means = {label: _mean(t, x, ["U_tr"]) for label, t in tables.items()}
    curves = SensitivityDisplay(tables=means, x=x, title=title).element()
    return style.opts(hv.Overlay([*seeds, *curves]), title=title, legend_position="right")
