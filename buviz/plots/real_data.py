"""Curves over several seeds for the real-data figures of Ha et al. (2021): the seeds' mean and their spread.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (Figs 7-9, 11-13).

The shipped tables (:mod:`buviz.reproduce`) hold one sweep per seed of T̃, K-means, CV folds and
hold-out split. These builders draw the mean over the seeds as the curves of
:func:`buviz.plots.uncertainty.error_curves` / :func:`~buviz.plots.uncertainty.sensitivity_curves`
and the range over the seeds (min to max) as a translucent band of the same colour.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import holoviews as hv
import numpy as np
import pandas as pd

from buviz.plots import style
from buviz.plots import uncertainty as uplots

__all__ = ["seed_band", "spread_curves", "spread_sensitivity"]


def _by_status(table: pd.DataFrame, x: str, column: str) -> pd.DataFrame:
    """min, mean and max of ``column`` over the seeds at each status (−Û for the Û columns)."""
    values = -table[column] if column.startswith("U") else table[column]
    return values.groupby(table[x]).agg(["min", "mean", "max"]).sort_index()


def seed_band(table: pd.DataFrame, column: str, x: str = "log2_gamma", *, color: str | None = None,
              alpha: float = 0.18) -> hv.Area:
    """The range over the seeds of one column (min to max at each status), on the axis of its curve.

    Parameters
    ----------
    table : pandas.DataFrame
        One sweep per seed (rows with the same ``x`` are the seeds' values).
    column : str
        An error column (``L_val``...) or a Û column (``U_tr``...; drawn as −Û on the −Û axis).
    x : str, default="log2_gamma"
        The status column.
    color : str, optional
        The band's colour (default: the column's curve colour).
    alpha : float, default=0.18
        Opacity of the band.

    Returns
    -------
    holoviews.Area
    """
    vd = uplots._NEG_U_DIM if column.startswith("U") else uplots._ERROR_DIM
    if len(table) and column in table and x in table and table[column].notna().any():
        s = _by_status(table, x, column)
        data = (s.index.to_numpy(float), s["min"].to_numpy(float), s["max"].to_numpy(float))
    else:
        data = (np.array([]), np.array([]), np.array([]))
    color = color or style.CURVE_STYLES.get(column, ("#777777",))[0]
    return style.opts(hv.Area(data, uplots._status_dim(x), [vd, hv.Dimension(f"{vd.name}_hi")]),
                      color=color, alpha=alpha, line_alpha=0, show_legend=False)


def _mean(table: pd.DataFrame, x: str, columns: Sequence[str]) -> pd.DataFrame:
    cols = [c for c in columns if c in table]
    return table.groupby(x)[cols].mean().reset_index() if len(table) else table


def spread_curves(table: pd.DataFrame, x: str = "log2_gamma", *, columns: Sequence[str],
                  title: str = "") -> hv.Overlay:
    """The seeds' mean of each column as in :func:`~buviz.plots.uncertainty.error_curves`, over the seeds' range.

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
    bands = [seed_band(table, c, x) for c in present]
    curves = uplots.error_curves(_mean(table, x, present), x, columns=present, title=title)
    return style.opts(hv.Overlay([*bands, *curves]), multi_y=True, title=title, legend_position="right",
                      framewise=True)


def spread_sensitivity(tables: Mapping[str, pd.DataFrame], x: str = "log2_gamma", *, title: str = "") -> hv.Overlay:
    """−Û_tr per setting (label -> the setting's sweeps over the seeds): the seeds' mean, over their range.

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
    bands = [seed_band(t, "U_tr", x, color=palette[n % len(palette)]) for n, t in enumerate(tables.values())]
    means = {label: _mean(t, x, ["U_tr"]) for label, t in tables.items()}
    curves = uplots.sensitivity_curves(means, x, title=title)
    return style.opts(hv.Overlay([*bands, *curves]), title=title, legend_position="right")
