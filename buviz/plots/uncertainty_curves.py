"""HoloViews builders of the curves over a sweep of statuses (Ha et al. 2021, Figs 6-9, 11-13):
pure functions from sweep tables to elements; re-exported by :mod:`buviz.plots.uncertainty`.

- :func:`error_curve_layers`, :func:`current_status_layers` -- errors and −Û against the status, twin
  axes, and the current status marked (Figs 6-9): the layers of
  :class:`~buviz.plots.displays.ErrorCurvesDisplay`, whose ``element()`` is the static picture.
- :func:`parametric_layers`, :func:`parametric_current` -- error against −Û, coloured by the status.
- :func:`u_curve` -- one −Û column as a curve (Fig 11).
- :func:`sensitivity_layers`, :func:`reference_layer` -- −Û_tr for several M or K (Figs 12, 13): the
  layers of :class:`~buviz.plots.displays.SensitivityDisplay`.

The live versions are :class:`buviz.plots.displays.ErrorCurvesDisplay`. Boundary uncertainty after
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, Journal of Signal Processing Systems, 2021
(doi:10.1007/s11265-021-01671-1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import holoviews as hv
import numpy as np
import pandas as pd

from buviz.plots import style
from buviz.plots._live import drawn_in_legend

__all__ = [
    "error_curve_layers",
    "current_status_layers",
    "parametric_layers",
    "parametric_current",
    "u_curve",
    "sensitivity_layers",
    "reference_layer",
    "drawn_in_legend",
    "twin_axes",
]

CURVE_STYLES = style.CURVE_STYLES
_ERROR_DIM = hv.Dimension("error", label="error rate")
_NEG_U_DIM = hv.Dimension(style.NEG_U, label="−Û (best −1)")


# -- Figs 6-9: curves over the sweep --------------------------------------------------------------
def _is_u(el) -> bool:
    vdims = getattr(el, "vdims", None)
    return bool(vdims) and vdims[0].name == style.NEG_U


def _has_values(el) -> bool:
    if isinstance(el, hv.VLine | hv.HLine):  # the current status's line: only where there is one
        return el.data is not None and bool(np.isfinite(np.asarray(el.data, dtype=float)).all())
    if not getattr(el, "vdims", None):
        return True
    return len(el) > 0 and bool(np.isfinite(np.asarray(el.dimension_values(1), dtype=float)).any())


def twin_axes(overlay: hv.Overlay) -> hv.Overlay:
    """A static twin-axis panel drawn the same way whatever its curves: the layers without values left out
    (no axis without its curve), the error layers first so that errors take the left axis and −Û the
    right one, and a panel of −Û alone with its axis on the right (as in the static export).

    Parameters
    ----------
    overlay : holoviews.Overlay
        Errors and −Û layers (:func:`error_curve_layers`, :func:`u_curve`, seed curves ...) with the
        panel's options.

    Returns
    -------
    holoviews.Overlay
        The same panel options; ``multi_y`` only when both axes carry a curve.
    """
    # an axis only with a curve on it: a layer without values goes when nothing else is drawn on its axis
    # (kept otherwise: the current-status marker's legend entry rides on its first layer)
    drawn = {el.vdims[0].name for el in overlay if getattr(el, "vdims", None) and _has_values(el)}
    layers = [el for el in overlay if _has_values(el) or (getattr(el, "vdims", None) and el.vdims[0].name in drawn)]
    layers.sort(key=_is_u)  # stable: errors, then −Û, each in its own order
    u = any(_is_u(el) for el in layers)
    errors = any(getattr(el, "vdims", None) and not _is_u(el) for el in layers)
    out = overlay.clone(layers)
    if u and not errors:
        return out.opts(multi_y=False, yaxis="right", backend="bokeh")
    return out.opts(multi_y=bool(u and errors), backend="bokeh")


def _status_dim(x: str) -> hv.Dimension:
    return hv.Dimension(x, label={"log2_gamma": "log₂ γ", "epoch": "epoch"}.get(x, x))


def _current_row(t: pd.DataFrame, x: str, current) -> pd.DataFrame | None:
    if current is None or not len(t) or x not in t.columns:
        return None
    row = t[np.isclose(t[x].to_numpy(float), float(current))]
    return row if len(row) else None


def error_curve_layers(
    table: pd.DataFrame | None,
    x: str = "log2_gamma",
    *,
    columns: Sequence[str] = ("L_te", "L_val", "L_ho", "L_tr", "U_tr", "U_te", "U1_tr"),
) -> hv.Overlay:
    """Errors and −Û against the status (Figs 6-9), without the current-status marker: a line and its
    points per column, errors on the error axis and −Û on the −Û axis. Absent columns give empty curves."""
    xd = _status_dim(x)
    table = table if table is not None else pd.DataFrame()
    has_x = x in table.columns and len(table)
    t = table.sort_values(x) if has_x else table
    layers = []
    for col in columns:
        color, dash, label = CURVE_STYLES[col]
        if has_x and col in t.columns:
            xs = t[x].to_numpy(float)
            ys = t[col].to_numpy(float)
        else:
            xs = ys = np.array([], dtype=float)
        if col.startswith("U"):
            ys = -ys
        vd = _NEG_U_DIM if col.startswith("U") else _ERROR_DIM
        layers.append(
            style.opts(
                hv.Curve((xs, ys), xd, vd, label=label),
                color=color,
                line_dash=dash,
                line_width=2,
                tools=["hover", "tap"],
            )
        )
        layers.append(
            style.opts(hv.Scatter((xs, ys), xd, vd, label=label), color=color, size=5, tools=["tap"], show_legend=False)
        )
    return style.opts(hv.Overlay(layers), framewise=True)


def current_status_layers(
    table: pd.DataFrame | None, x: str = "log2_gamma", current: float | None = None
) -> hv.Overlay:
    """The current status on the curves of :func:`error_curve_layers`: a dashed vertical line at ``current``
    and diamonds on L_te and −Û_tr (empty when the table has no row there)."""
    xd = _status_dim(x)
    t = table if table is not None else pd.DataFrame()
    row = _current_row(t, x, current)
    mx = my_err = my_u = np.array([], dtype=float)
    if row is not None:
        mx = np.array([float(current)])
        my_err = row["L_te"].to_numpy(float)[:1] if "L_te" in row else np.array([np.nan])
        my_u = -row["U_tr"].to_numpy(float)[:1] if "U_tr" in row else np.array([np.nan])
    err = style.opts(
        hv.Scatter((mx, my_err), xd, _ERROR_DIM, label="current status"),
        color=style.HIGHLIGHT_COLOR,
        marker="diamond",
        size=14,
        line_color="black",
    )
    u = style.opts(
        hv.Scatter((mx, my_u), xd, _NEG_U_DIM, label="current status"),
        color=CURVE_STYLES["U_tr"][0],
        marker="diamond",
        size=14,
        line_color="black",
        show_legend=False,
    )
    vline = style.opts(
        hv.VLine(float(current) if current is not None else np.nan, kdims=[xd, _ERROR_DIM]),
        color="#555555",
        line_dash="dashed",
        line_width=1.5,
    )
    return err * u * vline


_PARAMETRIC_MARKERS = {"L_te": "circle", "L_val": "square", "L_ho": "triangle", "L_tr": "inverted_triangle"}


def parametric_layers(
    table: pd.DataFrame | None,
    x: str = "log2_gamma",
    *,
    errors: Sequence[str] = ("L_te", "L_val"),
    u: str = "U_tr",
) -> hv.Overlay:
    """The sweep as a parametric curve: error (y) against −Û (x), points coloured by the status
    (without the current-status ring, :func:`parametric_current`)."""
    xd = hv.Dimension("neg_U", label="−Û_tr")
    sd = _status_dim(x)
    table = table if table is not None else pd.DataFrame()
    ok = len(table) and x in table.columns and u in table.columns
    t = table.sort_values(x) if ok else table
    layers = []
    lo = float(t[x].min()) if ok else 0.0
    hi = float(t[x].max()) if ok else 1.0
    for e in errors:
        has = ok and e in t.columns
        nu = -t[u].to_numpy(float) if has else np.array([], dtype=float)
        err = t[e].to_numpy(float) if has else np.array([], dtype=float)
        st = t[x].to_numpy(float) if has else np.array([], dtype=float)
        color = CURVE_STYLES[e][0]
        layers.append(
            style.opts(hv.Curve((nu, err), xd, _ERROR_DIM, label=e), color=color, alpha=0.5, show_legend=False)
        )
        layers.append(
            style.opts(
                hv.Points((nu, err, st), [xd, _ERROR_DIM], [sd], label=e),
                color=sd.name,
                cmap="viridis",
                clim=(lo, hi if hi > lo else lo + 1),
                marker=_PARAMETRIC_MARKERS.get(e, "circle"),
                size=9,
                line_color=color,
                colorbar=(e == errors[0]),
                colorbar_position="bottom",
                tools=["hover"],
            )
        )
    return style.opts(hv.Overlay(layers), framewise=True, padding=0.08)


def parametric_current(
    table: pd.DataFrame | None, x: str = "log2_gamma", current: float | None = None, *, u: str = "U_tr"
) -> hv.Points:
    """The ring around the current status on :func:`parametric_layers` (empty without a row there)."""
    t = table if table is not None else pd.DataFrame()
    row = _current_row(t, x, current) if u in t.columns and "L_te" in t.columns else None
    cx = cy = np.array([], dtype=float)
    if row is not None:
        cx, cy = -row[u].to_numpy(float)[:1], row["L_te"].to_numpy(float)[:1]
    return style.opts(
        hv.Points((cx, cy), [hv.Dimension("neg_U", label="−Û_tr"), _ERROR_DIM], label="current status"),
        fill_color=None,
        line_color=style.HIGHLIGHT_COLOR,
        line_width=3,
        size=20,
    )


def u_curve(
    table: pd.DataFrame,
    column: str = "U_tr",
    x: str = "log2_gamma",
    *,
    label: str | None = None,
    color: str = style.PALETTE[4],
    dash: str = "dashed",
) -> hv.Curve:
    """One −Û column of a sweep table as a curve on the −Û axis (Fig 11's −Û_tr with T̃)."""
    t = table.sort_values(x)
    return style.opts(
        hv.Curve(
            (t[x].to_numpy(float), -t[column].to_numpy(float)),
            _status_dim(x),
            _NEG_U_DIM,
            label=label or CURVE_STYLES.get(column, ("", "", column))[2],
        ),
        color=color,
        line_dash=dash,
        line_width=2,
    )


# -- Figs 12-13: sensitivity -----------------------------------------------------------------------
def sensitivity_layers(tables: Mapping[str, pd.DataFrame], x: str = "log2_gamma", *,
                       title: str | None = None) -> hv.Overlay:
    """−Û_tr against the status, a curve per setting (label -> sweep table) in the palette's order
    (Figs 12, 13); one empty curve without any. The title rides on the first curve (a live overlay
    takes it from its layers' elements)."""
    palette = style.PALETTE
    xd = _status_dim(x)
    layers = []
    for n, (label, t) in enumerate(tables.items()):
        t = t.sort_values(x)
        layers.append(style.opts(
            hv.Curve((t[x].to_numpy(float), -t["U_tr"].to_numpy(float)), xd, _NEG_U_DIM, label=str(label)),
            color=palette[n % len(palette)], line_width=2, framewise=True))
    if not layers:
        layers.append(style.opts(hv.Curve(([], []), xd, _NEG_U_DIM), framewise=True))
    if title is not None:
        layers[0] = style.opts(layers[0], title=title)
    return hv.Overlay(layers)


def reference_layer(reference: pd.DataFrame | None, x: str = "log2_gamma") -> hv.Curve:
    """−Û_te of a reference sweep, black and dashed (empty without one, or without its U_te)."""
    xd = _status_dim(x)
    has = reference is not None and len(reference) and "U_te" in reference and x in reference
    r = reference.sort_values(x) if has else None
    xs, ys = (r[x].to_numpy(float), -r["U_te"].to_numpy(float)) if has else (np.empty(0), np.empty(0))
    return style.opts(hv.Curve((xs, ys), xd, _NEG_U_DIM, label="−Û_te (reference)"), color="black", line_width=2,
                      line_dash="dashed", framewise=True)
