"""HoloViews builders for boundary uncertainty: pure functions from results to elements.

Boundary uncertainty after D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, Journal of Signal Processing
Systems, 2021 (doi:10.1007/s11265-021-01671-1).

No widgets, no state, no model fitting: every builder takes arrays, :class:`~buviz.datasets.GridField`
maps, sweep tables or the dict of :meth:`BoundaryUncertaintyResult.sample_view` and returns a
HoloViews element or overlay (Bokeh options set; the elements themselves are backend-agnostic).

- :func:`training_points`, :func:`region_image`, :func:`boundary_path` -- T by class, predicted
  regions, B(Λ) and B* (Figs 5, 15).
- :func:`proposal1_layers` -- Proposal 1's anchors, near-boundary set and TDC clusters (Figs 3, 15).
- :func:`weights_layers` -- probability weights k̂(x)/w_kl on the training samples (Fig 14).
- :func:`shift_map`, :func:`shift_histograms` -- f(T), f(T̃), f(X_te) (Fig 10).
- :func:`cluster_layers`, :func:`cluster_zoom` -- one sample's N^M(x) and its 1-D count (Fig 4).
- the curves over a sweep (:func:`error_curve_layers`, :func:`sensitivity_layers`, ... Figs 6-9, 11-13),
  from :mod:`buviz.plots.uncertainty_curves`.

The ``*_layers`` functions return pictures by layer, for the Display objects of
:mod:`buviz.plots.displays` (one ``DynamicMap`` per group of layers, fed by streams), which draw
these figures live.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import numpy as np

from buviz.plots import style
from buviz.plots.uncertainty_curves import (  # noqa: F401  (the curves, re-exported: one import path)
    _ERROR_DIM,
    _NEG_U_DIM,
    _status_dim,
    current_status_layers,
    drawn_in_legend,
    error_curve_layers,
    parametric_current,
    parametric_layers,
    reference_layer,
    sensitivity_layers,
    twin_axes,
    u_curve,
)

__all__ = [
    "CLASS_COLORS",
    "TRAINING_LABEL",
    "legend_order",
    "BOUNDARY_COLOR",
    "BAYES_COLOR",
    "WEIGHT_CMAP",
    "DIVERGING_CMAP",
    "zero_contours",
    "region_rgba",
    "no_regions",
    "boundary_path",
    "training_points",
    "region_image",
    "proposal1_layers",
    "shift_map",
    "shift_histograms",
    "symmetric_limit",
    "cluster_layers",
    "weights_layers",
    "error_curve_layers",
    "current_status_layers",
    "parametric_layers",
    "parametric_current",
    "cluster_zoom",
    "sensitivity_layers",
    "reference_layer",
    "CURVE_STYLES",
    "anchor_points",
    "near_boundary_points",
    "u_curve",
]

CLASS_COLORS = style.CLASS_COLORS
BOUNDARY_COLOR = style.BOUNDARY_COLOR
BAYES_COLOR = style.BAYES_COLOR
WEIGHT_CMAP = style.WEIGHT_CMAP
DIVERGING_CMAP = style.DIVERGING_CMAP
CURVE_STYLES = style.CURVE_STYLES



def _kdims(feature_names: Sequence[str] | None):
    names = list(feature_names or ["x1", "x2"])[:2]
    return [hv.Dimension("x1", label=names[0]), hv.Dimension("x2", label=names[1])]


def _class_names(n_classes: int, classes=None) -> list[str]:
    if classes is None:
        return [f"C{j + 1}" for j in range(n_classes)]
    return [str(c) for c in classes]


def _n_classes(y: np.ndarray, classes) -> int:
    if classes is not None:
        return len(classes)
    return int(y.max()) + 1 if len(y) else 2


def _class_cmap(names: Sequence[str]) -> dict[str, str]:
    return {n: style.class_color(j) for j, n in enumerate(names)}


# -- boundaries -----------------------------------------------------------------------------------
def zero_contours(field, level: float = 0.0) -> list[np.ndarray]:
    """Polylines (each an (n, 2) array) of the ``level`` set of a :class:`GridField` (NaN = masked).

    Uses contourpy (marching squares with linear interpolation), so every vertex lies on a grid edge
    where the field changes sign.
    """
    import contourpy

    values = np.ma.masked_invalid(np.asarray(field.values, dtype=float))
    if values.count() == 0:
        return []
    gen = contourpy.contour_generator(
        np.asarray(field.xs, float), np.asarray(field.ys, float), values, line_type=contourpy.LineType.Separate
    )
    return [np.asarray(line) for line in gen.lines(level) if len(line) >= 2]


def boundary_lines(fields) -> list[np.ndarray]:
    """The polylines of a boundary: the zero contours of a dict pair -> :class:`GridField` or of one
    GridField, a list of polylines as given, or none for None."""
    if fields is None:
        return []
    if isinstance(fields, Mapping):
        return [ln for f in fields.values() for ln in zero_contours(f)]
    if hasattr(fields, "values") and hasattr(fields, "xs"):
        return zero_contours(fields)
    return [np.asarray(ln) for ln in fields]


def boundary_path(
    fields,
    *,
    label: str = "B(Λ)",
    color: str = BOUNDARY_COLOR,
    dash: str = "solid",
    width: float = 2.5,
    feature_names=None,
) -> hv.Path:
    """All zero-level polylines of a dict of boundary fields (one per class pair) as one Path.

    ``fields`` is a dict pair -> :class:`GridField`, a single GridField, a list of polylines, or None
    (an empty path, so a DynamicMap keeps its structure).
    """
    return style.opts(
        hv.Path(boundary_lines(fields), kdims=_kdims(feature_names), label=label),
        color=color,
        line_width=width,
        line_dash=dash,
        show_legend=fields is not None,  # no legend entry for a line that is not drawn
    )


#: Legend label of the training set T (never a bare "T": a class may be called T, as in Letter Recognition).
TRAINING_LABEL = "training set T"


def legend_order(y) -> np.ndarray:
    """A permutation of the samples that puts the first sample of each class in front, by class code,
    and leaves the rest in their order: Bokeh lists the classes of a colour-mapped glyph in the order
    they first appear, so the legend reads class 1, 2, ... while the drawing order barely changes."""
    y = np.asarray(y, dtype=int)
    if not len(y):
        return np.arange(0)
    _, first = np.unique(y, return_index=True)  # sorted by class code
    rest = np.setdiff1d(np.arange(len(y)), first, assume_unique=True)
    return np.concatenate([first, rest])


def training_points(
    X, y, classes=None, *, size: float = 4, alpha: float = 0.75, label: str = TRAINING_LABEL, feature_names=None
) -> hv.Points:
    """Training points coloured by class (categorical colour map); the legend lists the classes in
    their order (:func:`legend_order`)."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=int)
    n_classes = _n_classes(y, classes)
    names = _class_names(n_classes, classes)
    order = legend_order(y)
    X, y = X[order] if len(X) else X, y[order]
    labels = np.array(names, dtype=object)[y] if len(y) else np.array([], dtype=object)
    data = {"x1": X[:, 0], "x2": X[:, 1], "class": labels}
    return style.opts(
        hv.Points(data, kdims=_kdims(feature_names), vdims=["class"], label=label),
        color="class",
        cmap=_class_cmap(names),
        size=size,
        alpha=alpha,
        line_color=None,
        show_legend=True,
        tools=["hover", "tap"],
        nonselection_alpha=alpha,
        selection_alpha=alpha,
    )


def region_rgba(predicted, n_classes: int, alpha: float = 0.16) -> np.ndarray:
    """The colours of a grid of predicted classes: an (ny, nx, 4) uint8 array, class j in
    ``CLASS_COLORS[j]`` (cycled) at opacity ``alpha``."""
    lut = np.zeros((max(int(n_classes), 1), 4), dtype=np.uint8)
    for j in range(len(lut)):
        c = style.class_color(j).lstrip("#")
        lut[j] = [int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16), round(255 * alpha)]
    return lut[np.asarray(predicted, dtype=np.intp)]


def region_image(xs, ys, predicted, n_classes: int, *, alpha: float = 0.16, feature_names=None) -> hv.RGB:
    """Predicted-class regions on the grid (``predicted`` (len(ys), len(xs)) of class codes), as an
    RGB image coloured by :func:`region_rgba`.

    RGB rather than a colour-mapped ``Image``: HoloViews passes every ``Image`` of a live plot
    through a compositor operation at each frame, which copies the whole overlay; an RGB is drawn
    as it is (a γ step of the explorer's map costs a third of the time).
    """
    el = hv.RGB((np.asarray(xs), np.asarray(ys), region_rgba(predicted, n_classes, alpha)),
                kdims=_kdims(feature_names), label="predicted class")
    return style.opts(el, show_legend=False, tools=[]).opts(backend="bokeh", hooks=[_below_glyphs])


def _below_glyphs(plot, element) -> None:
    """Draw a Bokeh image at the image level, under every glyph whatever the overlay's order."""
    renderer = plot.handles.get("glyph_renderer")
    if renderer is not None and renderer.level != "image":
        renderer.level = "image"


def no_regions(feature_names=None) -> hv.RGB:
    """A transparent 2 × 2 RGB: the regions layer where there is no grid to draw."""
    return hv.RGB(np.zeros((2, 2, 4), dtype=np.uint8), kdims=_kdims(feature_names))


#: Colours of Proposal 1's TDC clusters (cycled).
CLUSTER_COLORS = style.PALETTE


def proposal1_layers(
    anchors=None, near_boundary_X=None, cluster_labels=None, *, feature_names=None, show_legend: bool = True
) -> hv.Overlay:
    """Proposal 1 on the sample space (Figs 3, 15): the anchors on B(Λ) (black dots), the near-boundary
    set N_B (red rings) and, when ``cluster_labels`` (one per N_B member, −1 = dropped) is given, the
    members of each retained TDC cluster filled with a cluster colour.

    Always three layers (empty ones for None), so a DynamicMap can switch the overlay on and off and a
    figure can draw the anchors alone (Fig 15; a static picture lists only the layers that draw
    something, :meth:`buviz.plots._live.LiveOverlay.element`).
    """
    kd = _kdims(feature_names)
    A = np.empty((0, 2)) if anchors is None else np.asarray(anchors, dtype=float).reshape(-1, 2)
    B = np.empty((0, 2)) if near_boundary_X is None else np.asarray(near_boundary_X, dtype=float).reshape(-1, 2)
    lab = np.full(len(B), -1) if cluster_labels is None else np.asarray(cluster_labels, dtype=int)
    kept = lab >= 0
    n_cl = int(lab.max()) + 1 if kept.any() else 1
    colors = [CLUSTER_COLORS[c % len(CLUSTER_COLORS)] for c in range(n_cl)]
    clusters = style.opts(
        hv.Points(
            {"x1": B[kept, 0], "x2": B[kept, 1], "cluster": lab[kept].astype(float)},
            kdims=kd,
            vdims=[hv.Dimension("cluster", label="TDC cluster")],
            label="P1 clusters",
        ),
        color="cluster",
        cmap=colors,
        clim=(-0.5, n_cl - 0.5),
        size=9,
        alpha=0.6,
        line_color=None,
        colorbar=False,
        show_legend=show_legend,
    )
    near = style.opts(
        near_boundary_points(B, label="P1 N_B (near-boundary)", size=9, feature_names=feature_names),
        show_legend=show_legend,
    )
    anchors_el = style.opts(anchor_points(A, label="P1 anchors", feature_names=feature_names), show_legend=show_legend)
    return clusters * near * anchors_el


def anchor_points(anchors, *, label: str = "anchors", size: float = 3, feature_names=None) -> hv.Points:
    """Proposal 1's anchors on B(Λ) as small black dots (Figs 3, 15)."""
    A = np.empty((0, 2)) if anchors is None else np.asarray(anchors, dtype=float).reshape(-1, 2)
    return style.opts(
        hv.Points((A[:, 0], A[:, 1]), kdims=_kdims(feature_names), label=label),
        color="black",
        size=size,
        marker="circle",
    )


def near_boundary_points(X, *, label: str = "N_B (near-boundary)", size: float = 8, feature_names=None) -> hv.Points:
    """Proposal 1's near-boundary set N_B as red rings (Fig 3)."""
    B = np.empty((0, 2)) if X is None else np.asarray(X, dtype=float).reshape(-1, 2)
    return style.opts(
        hv.Points((B[:, 0], B[:, 1]), kdims=_kdims(feature_names), label=label),
        fill_color=None,
        line_color=style.HIGHLIGHT_COLOR,
        line_width=1.5,
        size=size,
    )


# -- Fig 14: probability weights -----------------------------------------------------------------
def weights_layers(
    X, y, weights, fields=None, *, classes=None, feature_names=None, title: str = "Probability weights k̂(x)/w_kl"
) -> dict[str, hv.Element]:
    """Fig 14 by layer: ``weights`` (the samples) and ``boundary`` (B(Λ)).

    Samples with weight 0 keep their class colour; positive weights run along
    :data:`~buviz.plots.style.WEIGHT_CMAP` (``COLOR_WORDS["weight_low"]`` to ``["weight_high"]``), the
    largest drawn last (Fig 14). The ``weights`` layer carries ``title``.
    """
    X = np.asarray(X, dtype=float).reshape(-1, 2)
    y = np.asarray(y, dtype=int)
    w = np.asarray(weights, dtype=float)
    zero = ~(w > 0)
    n_classes = _n_classes(y, classes)
    names = _class_names(n_classes, classes)
    base = training_points(X[zero], y[zero], names, alpha=0.55, feature_names=feature_names, label="weight 0")
    pos = np.flatnonzero(~zero)
    pos = pos[np.argsort(w[pos], kind="stable")]  # largest weights drawn last, on top
    wmax = float(w[pos].max()) if len(pos) else 1.0
    hot = style.opts(
        hv.Points(
            {"x1": X[pos, 0], "x2": X[pos, 1], "weight": w[pos]},
            kdims=_kdims(feature_names),
            vdims=[hv.Dimension("weight", label="k̂(x)/w_kl")],
            label="weight > 0",
        ),
        color="weight",
        cmap=WEIGHT_CMAP,
        clim=(0.0, wmax),
        colorbar=True,
        size=6,
        line_color=None,
        tools=["hover", "tap"],
        nonselection_alpha=1.0,
    )
    return {
        "weights": style.opts(base * hot, title=title),
        "boundary": boundary_path(fields, feature_names=feature_names),
    }


# -- Fig 10: covariate shift in f -----------------------------------------------------------------
def symmetric_limit(*values, quantile: float = 0.98) -> float:
    """A common colour limit c for (−c, c): the ``quantile`` of ``abs(f)`` over all given arrays."""
    allv = np.concatenate([np.abs(np.asarray(v, dtype=float)).ravel() for v in values]) if values else []
    allv = allv[np.isfinite(allv)] if len(allv) else allv
    if not len(allv):
        return 1.0
    c = float(np.quantile(allv, quantile))
    return c if c > 0 else 1.0


def shift_map(
    X, f, clim: float, *, fields=None, title: str = "", colorbar: bool = False, feature_names=None, size: float = 4
) -> hv.Overlay:
    """Samples coloured by f(·;Λ) on the diverging scale (−clim, clim), B(Λ) overlaid."""
    X = np.asarray(X, dtype=float)
    f = np.asarray(f, dtype=float)
    pts = style.opts(
        hv.Points(
            {"x1": X[:, 0], "x2": X[:, 1], "f": f},
            kdims=_kdims(feature_names),
            vdims=[hv.Dimension("f", label="f(x;Λ)")],
        ),
        color="f",
        cmap=DIVERGING_CMAP,
        clim=(-clim, clim),
        colorbar=colorbar,
        size=size,
        line_color=None,
    )
    return style.opts(
        (pts * boundary_path(fields, width=1.5, feature_names=feature_names)),
        title=title,
        framewise=True,
        show_legend=False,
    )


def shift_histograms(
    values: Mapping[str, np.ndarray],
    *,
    bins: int = 50,
    clim: float | None = None,
    title: str = "Distributions of f(·;Λ)",
) -> hv.Overlay:
    """Density histograms of several f samples on shared bin edges (clipped to ±clim)."""
    colors = (style.PALETTE[0], style.PALETTE[3], "#333333", style.PALETTE[2])
    arrays = {k: np.asarray(v, dtype=float) for k, v in values.items()}
    c = clim if clim is not None else symmetric_limit(*arrays.values(), quantile=0.995)
    edges = np.linspace(-c, c, bins + 1)
    hists = []
    for n, (name, v) in enumerate(arrays.items()):
        v = np.clip(v[np.isfinite(v)], -c, c)
        dens, _ = np.histogram(v, edges, density=True) if len(v) else (np.zeros(bins), edges)
        hists.append(
            style.opts(
                hv.Histogram((edges, dens), kdims=[hv.Dimension("f", label="f(x;Λ)")], vdims=["density"], label=name),
                fill_alpha=0.3,
                fill_color=colors[n % len(colors)],
                line_color=colors[n % len(colors)],
            )
        )
    return style.opts(hv.Overlay(hists), title=title, legend_position="top_right")


# -- Fig 4: one sample up close -------------------------------------------------------------------
def cluster_layers(
    X,
    y,
    index: int | None,
    neighbours=None,
    *,
    X_tilde=None,
    fields=None,
    classes=None,
    feature_names=None,
    title: str = "N^M(x) in the sample space",
) -> dict[str, hv.Element]:
    """One sample's N^M(x) in the sample space (Fig 4) by layer: ``points`` (T faded), ``cluster`` (N^M(x)
    emphasised, its perturbed members T̃ as crosses, the sample as a star; it carries ``title``) and
    ``boundary`` (B(Λ)). ``X`` and ``X_tilde`` are the two plotted coordinates of T and T̃."""
    X = np.asarray(X, dtype=float).reshape(-1, 2)
    y = np.asarray(y, dtype=int)
    n_classes = _n_classes(y, classes)
    names = _class_names(n_classes, classes)
    base = style.opts(
        training_points(X, y, names, alpha=0.18, size=3, feature_names=feature_names),
        show_legend=False,
    )  # one legend entry per class: the cluster members carry it
    nbr = np.asarray(neighbours if neighbours is not None and index is not None else [], dtype=int)
    members = style.opts(
        training_points(X[nbr], y[nbr], names, size=9, alpha=1.0, feature_names=feature_names, label="N^M(x)"),
        line_color=style.HIGHLIGHT_COLOR,
        line_width=1.5,
    )
    if X_tilde is not None and len(nbr):
        Xt = np.asarray(X_tilde, dtype=float).reshape(-1, 2)[nbr]
    else:
        Xt = np.empty((0, 2))
    tilde = style.opts(
        hv.Points((Xt[:, 0], Xt[:, 1]), kdims=_kdims(feature_names), label="perturbed (T̃)"),
        marker="x",
        color="#333333",
        size=7,
    )
    sel = X[[index]] if index is not None and 0 <= index < len(X) else np.empty((0, 2))
    star = style.opts(
        hv.Points((sel[:, 0], sel[:, 1]), kdims=_kdims(feature_names), label="x"),
        marker="star",
        size=20,
        color=style.HIGHLIGHT_COLOR,
        line_color="black",
    )
    cluster = style.opts(members * tilde * star, title=title)
    return {"points": base, "cluster": cluster, "boundary": boundary_path(fields, feature_names=feature_names)}


def cluster_zoom(
    view: Mapping | None, *, classes=None, n_grid: int = 400, title: str = "Locally 1-D count on f(·;Λ) (Fig 4)"
) -> hv.Overlay:
    """Fig 4: F values of N^M(x) on the f axis coloured by label, their Parzen kernels of width h_x,
    their sums k̂^m(t)/M (dashed: the kernel estimate of each class of the pair in f-space, read at
    t = 0 by eq 28) and the band [−h_x, h_x] around B(Λ) (f = 0). ``view`` is ``result.sample_view(index)``."""
    fd = hv.Dimension("f", label="f(x̃';Λ)")
    kd = hv.Dimension("kernel", label="φ((f − F)/h_x)")
    if view is None:
        F = np.array([], dtype=float)
        labels = np.array([], dtype=int)
        h = 0.0
        pair = (0, 1)
    else:
        F = np.asarray(view["F"], dtype=float)
        labels = np.asarray(view["labels"], dtype=int)
        h = float(view["bandwidth"])
        pair = tuple(view["pair"])
    n_classes = len(classes) if classes is not None else max(int(labels.max()) + 1 if len(labels) else 2, 2)
    names = _class_names(n_classes, classes)
    spread = max(3 * h, float(np.abs(F).max()) if len(F) else 1.0, 1e-6)
    t = np.linspace(-1.1 * spread, 1.1 * spread, n_grid)
    layers = []
    band = style.opts(
        hv.VSpan(-h if h > 0 else 0.0, h, kdims=[fd, kd]), color=BOUNDARY_COLOR, alpha=0.12 if h > 0 else 0
    )
    layers.append(band)
    for cls in pair:
        sel = labels == cls
        color = style.class_color(cls)
        if h > 0 and sel.any():
            z = (t[None, :] - F[sel, None]) / h
            kern = np.exp(-0.5 * z * z) / np.sqrt(2 * np.pi)
        else:
            kern = np.empty((0, len(t)))
        # every kernel in one curve, NaN between them (one glyph: a path per kernel costs a second per update)
        kx = np.column_stack([np.tile(t, (len(kern), 1)), np.full((len(kern), 1), np.nan)]).ravel()
        ky = np.column_stack([kern, np.full((len(kern), 1), np.nan)]).ravel()
        layers.append(
            style.opts(
                hv.Curve((kx, ky), fd, kd, label=f"kernels {names[cls]}"), color=color, alpha=0.45, line_width=1
            )
        )
        # the kernel estimate of the class in f-space, k̂^m(t)/M (eq 28 read at every t, not only at 0)
        total = kern.sum(axis=0) / max(len(F), 1) if len(kern) else np.zeros_like(t)
        layers.append(
            style.opts(
                hv.Curve((t, total), fd, kd, label=f"k̂ {names[cls]}(f)/M"),
                color=color,
                line_width=2.5,
                line_dash="dashed",
            )
        )
        layers.append(
            style.opts(
                hv.Spikes((F[sel], np.full(sel.sum(), 0.45)), fd, kd, label=f"F, label {names[cls]}"),
                color=color,
                line_width=3,
            )
        )
    other = ~np.isin(labels, pair)
    layers.append(
        style.opts(
            hv.Spikes((F[other], np.full(other.sum(), 0.3)), fd, kd, label="F, other labels"),
            color="#999999",
            line_width=2,
        )
    )
    layers.append(style.opts(hv.VLine(0.0, kdims=[fd, kd]), color=BOUNDARY_COLOR, line_width=2.5))
    # the legend under the frame, in three columns: beside it, it took a third of the panel's width
    return style.opts(
        drawn_in_legend(hv.Overlay(layers)), title=title, xlim=(t[0], t[-1]), ylim=(0, 0.5), framewise=True,
        **{**style.LEGEND_BELOW, "legend_cols": 3},
    )
