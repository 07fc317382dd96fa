"""HoloViews builders for boundary uncertainty as a model-selection instrument: results to elements.

No widgets, no state, no model fitting: the builders take the tidy table of
:func:`buviz.model_selection.perturbation_amplitude_sweep` and return HoloViews elements.

- :func:`amplitude_curves` -- −Û_tr against the hyper-parameter for several amplitudes a of the
  perturbed training set T̃ (one mode), next to the test error L_te on the left axis.
- :class:`AmplitudeDisplay` -- one :func:`amplitude_curves` per mode, side by side, live.

The perturbation law of Algorithm 1 (T̃) is left unspecified by the paper: D. Ha, S. Katagiri,
H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier
Evaluation", Journal of Signal Processing Systems, Springer, 2021, doi:10.1007/s11265-021-01671-1.
"""

from __future__ import annotations

from collections.abc import Sequence

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import numpy as np
import pandas as pd

from buviz.plots import style
from buviz.plots._display import Display
from buviz.plots.style import AMPLITUDE_PALETTE, CURVE_STYLES
from buviz.plots.uncertainty import _ERROR_DIM, _NEG_U_DIM

__all__ = ["AMPLITUDE_PALETTE", "AmplitudeDisplay", "amplitude_curves"]


_X_LABELS = {"gamma": "log₂ γ", "C": "log₂ C", "n_neighbors": "log₂ k", "min_samples_leaf": "log₂ leaf",
             "epoch": "log₂ epoch"}


def _x_dim(table: pd.DataFrame) -> hv.Dimension:
    param = str(table["param"].iloc[0]) if len(table) and "param" in table else "gamma"
    return hv.Dimension("log2_value", label=_X_LABELS.get(param, f"log₂ {param}"))


def amplitude_curves(table: pd.DataFrame | None, mode: str = "features", *, amplitudes: Sequence[float] | None = None,
                     u: str = "U_tr", title: str | None = None) -> hv.Overlay:
    """−Û against the hyper-parameter, one curve per T̃ amplitude, next to the test error.

    Parameters
    ----------
    table : pandas.DataFrame or None
        Rows of :func:`~buviz.model_selection.perturbation_amplitude_sweep` (columns ``param``,
        ``log2_value``, ``mode``, ``amplitude``, ``U_tr``, ``U_te``, ``L_te``). None or empty gives
        an overlay with the same layers and no points, so a view can be filled in later.
    mode : {"features", "scalar"}
        Which T̃ mode to draw.
    amplitudes : sequence of float, optional
        Amplitudes to draw (default: all in the table, at most six). Without a table, one empty curve
        per amplitude, so that a live plot keeps its layers when the table arrives.
    u : {"U_tr", "U_te"}
        Û with the training set (default) or the test set as input.
    title : str, optional

    Returns
    -------
    holoviews.Overlay
        L_te (red, left axis, "error rate"); −Û curves (right axis, lightest = smallest a, a = 0
        grey dashed); a diamond at each curve's minimum of −Û (the status Û selects) and a red
        star at the minimum of L_te.
    """
    table = table if table is not None else pd.DataFrame()
    ok = len(table) > 0 and {"log2_value", "mode", "amplitude", u, "L_te"} <= set(table.columns)
    t = table[table["mode"] == mode].sort_values(["amplitude", "log2_value"]) if ok else pd.DataFrame()
    xd = _x_dim(table) if ok else hv.Dimension("log2_value", label="log₂ γ")
    amps = sorted(t["amplitude"].unique()) if len(t) else sorted(amplitudes or [])  # empty: the layers to come
    if amplitudes is not None:
        amps = [a for a in amps if any(np.isclose(a, b) for b in amplitudes)]
    amps = amps[:len(AMPLITUDE_PALETTE)]
    layers = []
    if len(t):
        te = t.drop_duplicates("log2_value")[["log2_value", "L_te"]]
        xs, ys = te["log2_value"].to_numpy(float), te["L_te"].to_numpy(float)
    else:
        xs = ys = np.array([], dtype=float)
    color, dash, label = CURVE_STYLES["L_te"]
    layers.append(style.opts(hv.Curve((xs, ys), xd, _ERROR_DIM, label=label), color=color, line_dash=dash,
                             line_width=3, tools=["hover"]))
    best = int(np.argmin(ys)) if len(ys) else None
    sel = slice(best, best + 1) if best is not None else slice(None)
    layers.append(style.opts(hv.Scatter((xs[sel], ys[sel]), xd, _ERROR_DIM, label="min L_te"),
                             color=color, marker="star", size=16, line_color="black"))
    u_name = "Û_tr" if u == "U_tr" else "Û_te"
    chosen_x, chosen_y = [], []
    for n, a in enumerate(amps):
        if len(t):
            g = t[np.isclose(t["amplitude"], a)]
            gx, gy = g["log2_value"].to_numpy(float), -g[u].to_numpy(float)
        else:  # no table yet: the curve without points
            gx = gy = np.array([], dtype=float)
        look = dict(color="#777777", line_dash="dashed") if a == 0 else dict(color=AMPLITUDE_PALETTE[n],
                                                                             line_dash="solid")
        layers.append(style.opts(hv.Curve((gx, gy), xd, _NEG_U_DIM, label=f"−{u_name}, a = {a:g}"),
                                 line_width=2, tools=["hover"], **look))
        if len(gy):
            chosen_x.append(gx[int(np.argmin(gy))])
            chosen_y.append(float(gy.min()))
    if not amps:
        layers.append(style.opts(hv.Curve(([], []), xd, _NEG_U_DIM, label=f"−{u_name}"), color=AMPLITUDE_PALETTE[2]))
    layers.append(style.opts(hv.Scatter((np.array(chosen_x, float), np.array(chosen_y, float)), xd, _NEG_U_DIM,
                                        label=f"argmin −{u_name}"),
                             color="#CC79A7", marker="diamond", size=11, line_color="black"))
    if title is None:
        title = f"−{u_name} for several T̃ amplitudes a ({mode} mode) and the test error"
    overlay = style.opts(hv.Overlay(layers), title=title, legend_position="right", framewise=True)
    return overlay.opts(multi_y=True, backend="bokeh")


class AmplitudeDisplay(Display):
    """−Û against the hyper-parameter for several T̃ amplitudes a, next to the test error, one panel per
    T̃ mode (:func:`amplitude_curves`): the table of
    :func:`~buviz.model_selection.perturbation_amplitude_sweep`, live (a new table redraws the curves in
    the figures that are there).

    Parameters
    ----------
    table : DataFrame, optional
        The sweep's rows; None draws empty curves (one per amplitude of ``amplitudes``) until it arrives.
    modes : sequence of str, default=("features", "scalar")
        The T̃ modes, a panel each.
    amplitudes : sequence of float, optional
        The amplitudes drawn (default: the table's, at most six). A live figure keeps the curves of
        its first frame: give the amplitudes when the table comes later.
    u : {"U_tr", "U_te"}, default="U_tr"
        Û with the training set or the test set as input.

    Style is given where it is drawn: ``plot(width=450)`` for every mode's panel.
    """

    _fields = ("table",)

    def __init__(self, *, table: pd.DataFrame | None = None, modes: Sequence[str] = ("features", "scalar"),
                 amplitudes: Sequence[float] | None = None, u: str = "U_tr"):
        super().__init__()
        self.table, self.modes, self.u = table, tuple(modes), u
        self.amplitudes = None if amplitudes is None else [float(a) for a in amplitudes]
        self._cols = len(self.modes)

    @classmethod
    def from_table(cls, table: pd.DataFrame | None, **kw) -> AmplitudeDisplay:
        """The curves of a :func:`~buviz.model_selection.perturbation_amplitude_sweep` table; ``kw`` as
        for the constructor."""
        return cls(table=table, **kw)

    def _panels(self) -> dict:
        return {mode: dict(builders={"curves": amplitude_curves}) for mode in self.modes}

    def _args(self) -> dict:
        name = "Û_tr" if self.u == "U_tr" else "Û_te"
        return {mode: {"curves": {"table": self.table, "mode": mode, "amplitudes": self.amplitudes, "u": self.u,
                                  "title": f"{mode} mode: −{name} and L_te"}} for mode in self.modes}
